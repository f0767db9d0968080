"""Probe sequence for the classic group protocol at old versions, as old clients speak it:
JoinGroup v0-v3 (no member id round trip), v4 (KIP-394), SyncGroup v0, OffsetCommit v2 with a
retention time, OffsetFetch v1 and v2 (null topics), Heartbeat/LeaveGroup v0-v2."""

from __future__ import annotations

from collections.abc import Callable

from odradek.wire.api import ApiKey
from probes.groups import coordinator_ready, topic_with
from probes.session import Session

__all__ = ["SEQUENCES"]

_RANGE = [{"name": "range", "metadata": b"\x00\x00"}]


def legacy(s: Session, names: dict[str, str]) -> None:
    group, topic = names["group"], names["topic"]
    topic_with(s, topic, 2)
    coordinator_ready(s, group)
    join = s.call(
        "join v0 (no rebalance timeout, no member id round trip)",
        ApiKey.JOIN_GROUP,
        0,
        group_id=group,
        session_timeout_ms=10_000,
        member_id="",
        protocol_type="consumer",
        protocols=_RANGE,
    )
    member, generation = str(join["member_id"]), int(str(join["generation_id"]))
    s.call(
        "sync v0",
        ApiKey.SYNC_GROUP,
        0,
        group_id=group,
        generation_id=generation,
        member_id=member,
        assignments=[{"member_id": member, "assignment": b"\x00\x00"}],
    )
    s.call("heartbeat v0", ApiKey.HEARTBEAT, 0, group_id=group, generation_id=generation, member_id=member)
    s.call(
        "commit v2 with a retention time",
        ApiKey.OFFSET_COMMIT,
        2,
        group_id=group,
        generation_id_or_member_epoch=generation,
        member_id=member,
        retention_time_ms=60_000,
        topics=[
            {"name": topic, "partitions": [{"partition_index": 0, "committed_offset": 3, "committed_metadata": ""}]}
        ],
    )
    s.call(
        "fetch offsets v1",
        ApiKey.OFFSET_FETCH,
        1,
        group_id=group,
        topics=[{"name": topic, "partition_indexes": [0, 1]}],
    )
    s.call("fetch offsets v2, every partition", ApiKey.OFFSET_FETCH, 2, group_id=group, topics=None)
    s.call("describe groups v0", ApiKey.DESCRIBE_GROUPS, 0, groups=[group])
    s.call("list groups v0", ApiKey.LIST_GROUPS, 0)
    second = s.call(
        "join v4 by a second member: member id required",
        ApiKey.JOIN_GROUP,
        4,
        group_id=group,
        session_timeout_ms=10_000,
        rebalance_timeout_ms=10_000,
        member_id="",
        protocol_type="consumer",
        protocols=_RANGE,
    )
    s.call(
        "heartbeat v2 during the rebalance",
        ApiKey.HEARTBEAT,
        2,
        group_id=group,
        generation_id=generation,
        member_id=member,
    )
    s.call("leave v2 of the first member", ApiKey.LEAVE_GROUP, 2, group_id=group, member_id=member)
    s.call(
        "leave v1 of the second member's pending id",
        ApiKey.LEAVE_GROUP,
        1,
        group_id=group,
        member_id=str(second["member_id"]),
    )
    s.call("describe groups v1 after both left", ApiKey.DESCRIBE_GROUPS, 1, groups=[group])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {"groups.legacy": legacy}
