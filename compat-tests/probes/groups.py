"""Probe sequences for the classic group protocol and committed offsets: every error path of
issue 5's "bad input" list, sent as exact requests, so two brokers' answers can be compared
code for code.

Each sequence runs on a fresh connection, with group and topic names unique to the run, and
reads ids it needs (member ids, generations) from the broker's own answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from odradek.wire.api import ApiKey
from probes.session import Session

__all__ = ["SEQUENCES", "coordinator_ready", "join", "topic_with", "until"]

_CONSUMER = "consumer"
_RANGE = [{"name": "range", "metadata": b"\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00"}]


_NOT_READY = {14, 15, 16}  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR


def until(s: Session, ready: Callable[[], bool], what: str) -> None:
    """Repeat a readiness request until it succeeds; the attempts are timing, not behaviour,
    so they are not kept as observations (a client library retries the same way)."""
    for _ in range(100):
        done = ready()
        s.observations.pop()
        if done:
            return
        time.sleep(0.1)
    raise RuntimeError(f"not ready: {what}")


def topic_with(s: Session, name: str, partitions: int, configs: dict[str, str] | None = None) -> None:
    """Create a topic (with topic configs) and wait until each of its partitions has a leader."""
    s.call(
        "create topic",
        ApiKey.CREATE_TOPICS,
        7,
        topics=[
            {
                "name": name,
                "num_partitions": partitions,
                "replication_factor": 1,
                "assignments": [],
                "configs": [{"name": k, "value": v} for k, v in (configs or {}).items()],
            }
        ],
        timeout_ms=10_000,
    )

    def listed() -> bool:
        """Every partition answers ListOffsets: metadata alone can list a topic whose
        partitions have no leader yet (Kafka then refuses produce with NOT_LEADER_OR_FOLLOWER)."""
        parts = [{"partition_index": p, "current_leader_epoch": -1, "timestamp": -1} for p in range(partitions)]
        answer = s.call(
            "list offsets",
            ApiKey.LIST_OFFSETS,
            9,
            replica_id=-1,
            isolation_level=0,
            topics=[{"name": name, "partitions": parts}],
        )
        return all(p["error_code"] == 0 for t in answer["topics"] for p in t["partitions"])

    until(s, listed, f"topic {name}")


def coordinator_ready(s: Session, group: str) -> None:
    """Wait until the group's coordinator is found and has loaded its partition."""

    def found() -> bool:
        answer = s.call("find coordinator", ApiKey.FIND_COORDINATOR, 4, key_type=0, coordinator_keys=[group])
        return bool(answer["coordinators"][0]["error_code"] == 0)

    def loaded() -> bool:
        answer = s.call(
            "fetch offsets", ApiKey.OFFSET_FETCH, 8, groups=[{"group_id": group, "topics": None}], require_stable=False
        )
        return answer["groups"][0]["error_code"] not in _NOT_READY

    until(s, found, f"coordinator of {group}")
    until(s, loaded, f"coordinator of {group} loaded")


def join(s: Session, label: str, group: str, member: str = "", version: int = 9, **extra: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "group_id": group,
        "session_timeout_ms": 10_000,
        "rebalance_timeout_ms": 10_000,
        "member_id": member,
        "protocol_type": _CONSUMER,
        "protocols": _RANGE,
    }
    fields.update(extra)
    return s.call(label, ApiKey.JOIN_GROUP, version, **fields)


def join_and_sync(s: Session, names: dict[str, str]) -> None:
    """A member's life with each wrong id, generation and protocol along the way."""
    group, topic = names["group"], names["topic"]
    topic_with(s, topic, 2)
    coordinator_ready(s, group)
    join(s, "join with an empty group id", "")
    join(s, "join with a session timeout below group.min.session.timeout.ms", group, session_timeout_ms=1000)
    join(s, "join with a session timeout above group.max.session.timeout.ms", group, session_timeout_ms=2_000_000)
    join(s, "join with an unknown member id", group, member="nobody")
    first = join(s, "first join (KIP-394: member id required)", group)
    member = str(first["member_id"])
    joined = join(s, "join again with the given member id", group, member=member)
    generation = int(str(joined["generation_id"]))
    join(s, "join with another protocol type", group, member="", protocol_type="connect")
    join(s, "join with no protocol in common", group, member="", protocols=[{"name": "foo", "metadata": b""}])

    def sync(label: str, **overrides: object) -> None:
        fields: dict[str, object] = {
            "group_id": group,
            "generation_id": generation,
            "member_id": member,
            "protocol_type": _CONSUMER,
            "protocol_name": "range",
            "assignments": [{"member_id": member, "assignment": b"\x00\x01"}],
        }
        fields.update(overrides)
        s.call(label, ApiKey.SYNC_GROUP, 5, **fields)

    sync("sync with a wrong generation", generation_id=generation + 7)
    sync("sync with an unknown member", member_id="nobody")
    sync("sync with another protocol type", protocol_type="connect")
    sync("sync with another protocol name", protocol_name="roundrobin")
    sync("sync as the leader")
    sync("sync again once stable")

    def heartbeat(label: str, version: int = 4, **overrides: object) -> None:
        fields: dict[str, object] = {"group_id": group, "generation_id": generation, "member_id": member}
        fields.update(overrides)
        s.call(label, ApiKey.HEARTBEAT, version, **fields)

    heartbeat("heartbeat")
    heartbeat("heartbeat v0", version=0)
    heartbeat("heartbeat with a wrong generation", generation_id=generation + 1)
    heartbeat("heartbeat from an unknown member", member_id="nobody")
    heartbeat("heartbeat to an unknown group", group_id=names["other"])

    def commit(label: str, version: int = 9, **overrides: object) -> None:
        fields: dict[str, object] = {
            "group_id": group,
            "generation_id_or_member_epoch": generation,
            "member_id": member,
            "topics": [
                {
                    "name": topic,
                    "partitions": [{"partition_index": 0, "committed_offset": 5, "committed_metadata": "m"}],
                }
            ],
        }
        fields.update(overrides)
        s.call(label, ApiKey.OFFSET_COMMIT, version, **fields)

    commit("commit as the member")
    commit("commit v2 as the member", version=2)
    commit("commit with a wrong generation", generation_id_or_member_epoch=generation + 1)
    commit("commit from an unknown member", member_id="nobody")
    commit("commit without generation to a group with members", generation_id_or_member_epoch=-1, member_id="")
    commit(
        "commit to an unknown topic",
        topics=[
            {
                "name": names["missing"],
                "partitions": [{"partition_index": 0, "committed_offset": 1, "committed_metadata": None}],
            }
        ],
    )
    commit(
        "commit to a partition past the topic's end",
        topics=[
            {"name": topic, "partitions": [{"partition_index": 9, "committed_offset": 1, "committed_metadata": None}]}
        ],
    )
    commit(
        "commit with metadata over offset.metadata.max.bytes",
        topics=[
            {
                "name": topic,
                "partitions": [{"partition_index": 1, "committed_offset": 1, "committed_metadata": "x" * 5000}],
            }
        ],
    )

    s.call(
        "fetch offsets v9",
        ApiKey.OFFSET_FETCH,
        9,
        groups=[{"group_id": group, "member_id": None, "member_epoch": -1, "topics": None}],
        require_stable=False,
    )
    s.call(
        "fetch offsets v5 of named partitions",
        ApiKey.OFFSET_FETCH,
        5,
        group_id=group,
        topics=[{"name": topic, "partition_indexes": [0, 1, 7]}],
    )
    s.call(
        "fetch offsets of an unknown group",
        ApiKey.OFFSET_FETCH,
        8,
        groups=[{"group_id": names["other"], "topics": None}],
        require_stable=True,
    )

    for version in (0, 4, 5, 6):
        s.call(f"describe groups v{version}", ApiKey.DESCRIBE_GROUPS, version, groups=[group, names["other"]])
    s.call("list groups v5 stable classic", ApiKey.LIST_GROUPS, 5, states_filter=["Stable"], types_filter=["classic"])
    s.call("list groups v4 bogus state", ApiKey.LIST_GROUPS, 4, states_filter=["Sleeping"])
    s.call("delete a group with members", ApiKey.DELETE_GROUPS, 2, groups_names=[group, names["other"]])
    s.call(
        "delete offsets of a subscribed topic",
        ApiKey.OFFSET_DELETE,
        0,
        group_id=group,
        topics=[{"name": topic, "partitions": [{"partition_index": 0}]}],
    )
    s.call(
        "leave: the member and an unknown one",
        ApiKey.LEAVE_GROUP,
        5,
        group_id=group,
        members=[
            {"member_id": member, "group_instance_id": None, "reason": "done"},
            {"member_id": "nobody", "group_instance_id": None, "reason": None},
        ],
    )
    s.call("leave v0 unknown member", ApiKey.LEAVE_GROUP, 0, group_id=group, member_id="nobody")
    s.call("describe the empty group", ApiKey.DESCRIBE_GROUPS, 5, groups=[group])
    s.call(
        "delete offsets: a topic with no refused partition before an unknown topic",
        ApiKey.OFFSET_DELETE,
        0,
        group_id=group,
        topics=[
            {"name": topic, "partitions": [{"partition_index": 1}]},
            {"name": names["missing"], "partitions": [{"partition_index": 0}]},
        ],
    )
    s.call(
        "delete offsets of the empty group",
        ApiKey.OFFSET_DELETE,
        0,
        group_id=group,
        topics=[
            {"name": topic, "partitions": [{"partition_index": 0}, {"partition_index": 5}]},
            {"name": names["missing"], "partitions": [{"partition_index": 0}]},
        ],
    )
    s.call(
        "delete offsets of an unknown group",
        ApiKey.OFFSET_DELETE,
        0,
        group_id=names["other"],
        topics=[{"name": topic, "partitions": [{"partition_index": 0}]}],
    )
    s.call("delete the empty group", ApiKey.DELETE_GROUPS, 2, groups_names=[group])
    s.call("fetch offsets of the deleted group", ApiKey.OFFSET_FETCH, 5, group_id=group, topics=None)


def standalone(s: Session, names: dict[str, str]) -> None:
    """Offsets of a group nobody joins (generation -1), across commit versions."""
    group, topic = names["group"], names["topic"]
    topic_with(s, topic, 1)
    coordinator_ready(s, group)
    for version in (2, 5, 8, 9):
        s.call(
            f"standalone commit v{version}",
            ApiKey.OFFSET_COMMIT,
            version,
            group_id=group,
            generation_id_or_member_epoch=-1,
            member_id="",
            topics=[
                {
                    "name": topic,
                    "partitions": [
                        {
                            "partition_index": 0,
                            "committed_offset": version,
                            "committed_leader_epoch": -1,
                            "committed_metadata": f"v{version}",
                        }
                    ],
                }
            ],
        )
        s.call(f"fetch after v{version}", ApiKey.OFFSET_FETCH, 6, group_id=group, topics=None)
    s.call(
        "commit as a member of a group nobody joined",
        ApiKey.OFFSET_COMMIT,
        9,
        group_id=group,
        generation_id_or_member_epoch=3,
        member_id="ghost",
        topics=[
            {"name": topic, "partitions": [{"partition_index": 0, "committed_offset": 1, "committed_metadata": None}]}
        ],
    )
    s.call("describe the offsets-only group", ApiKey.DESCRIBE_GROUPS, 5, groups=[group])
    s.call("list groups v5", ApiKey.LIST_GROUPS, 5, states_filter=[], types_filter=[])
    s.call(
        "join with the offsets-only group's name and another type",
        ApiKey.JOIN_GROUP,
        9,
        group_id=group,
        session_timeout_ms=10_000,
        rebalance_timeout_ms=10_000,
        member_id="",
        protocol_type="connect",
        protocols=_RANGE,
    )


def static_members(s: Session, names: dict[str, str]) -> None:
    """KIP-345: a static member joins without KIP-394's round trip; a second instance fences the first."""
    group = names["group"]
    s.call("first lookup of a group coordinator", ApiKey.FIND_COORDINATOR, 3, key_type=0, key=group)
    coordinator_ready(s, group)
    first = join(s, "static join", group, group_instance_id="i-1")
    old_member = str(first["member_id"])
    generation = int(str(first["generation_id"]))
    s.call(
        "sync as the static leader",
        ApiKey.SYNC_GROUP,
        5,
        group_id=group,
        generation_id=generation,
        member_id=old_member,
        group_instance_id="i-1",
        protocol_type=_CONSUMER,
        protocol_name="range",
        assignments=[{"member_id": old_member, "assignment": b"\x00\x01"}],
    )
    again = join(s, "the same instance joins again with an empty member id", group, group_instance_id="i-1")
    new_member = str(again["member_id"])
    s.call(
        "heartbeat from the replaced member id",
        ApiKey.HEARTBEAT,
        4,
        group_id=group,
        generation_id=generation,
        member_id=old_member,
        group_instance_id="i-1",
    )
    s.call(
        "heartbeat from the new member id",
        ApiKey.HEARTBEAT,
        4,
        group_id=group,
        generation_id=int(str(again["generation_id"])),
        member_id=new_member,
        group_instance_id="i-1",
    )
    s.call(
        "commit from the fenced member id",
        ApiKey.OFFSET_COMMIT,
        9,
        group_id=group,
        generation_id_or_member_epoch=generation,
        member_id=old_member,
        group_instance_id="i-1",
        topics=[],
    )
    s.call("describe the static group", ApiKey.DESCRIBE_GROUPS, 5, groups=[group])
    s.call(
        "leave by instance id with the wrong member id",
        ApiKey.LEAVE_GROUP,
        5,
        group_id=group,
        members=[{"member_id": old_member, "group_instance_id": "i-1", "reason": None}],
    )
    s.call(
        "leave by instance id only",
        ApiKey.LEAVE_GROUP,
        5,
        group_id=group,
        members=[{"member_id": "", "group_instance_id": "i-1", "reason": None}],
    )
    s.call("describe after the static member left", ApiKey.DESCRIBE_GROUPS, 5, groups=[group])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "groups.join_and_sync": join_and_sync,
    "groups.standalone": standalone,
    "groups.static_members": static_members,
}
