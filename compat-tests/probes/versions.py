"""Probe sequence across API versions: the same Metadata and ListOffsets questions asked at
every version a client may use, so fields that come and go with versions are compared too."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from odradek.wire.api import ApiKey
from probes.groups import coordinator_ready, join, topic_with
from probes.session import Session
from probes.storage import produce_one

__all__ = ["SEQUENCES"]


def metadata_and_offsets(s: Session, names: dict[str, str]) -> None:
    topic = names["topic"]
    topic_with(s, topic, 2)
    for i in range(3):
        produce_one(s, f"produce {i}", topic, 0, i)
    for version in (0, 1, 4, 7, 9, 10, 12, 13):
        # Before v4 a request implies auto-creation, whose completion is timing on Kafka (its
        # controller creates the topic a moment later): ask for the unknown name from v4 on.
        fields: dict[str, object] = {"topics": [{"name": topic}]}
        if version >= 4:
            fields["topics"] = [{"name": topic}, {"name": names["missing"]}]
            fields["allow_auto_topic_creation"] = False
        if 8 <= version <= 10:
            fields["include_cluster_authorized_operations"] = True
        if version >= 8:
            fields["include_topic_authorized_operations"] = True
        s.call(f"metadata v{version}", ApiKey.METADATA, version, **fields)
    s.call(
        "metadata v12 with operations: an invalid name and an unknown id",
        ApiKey.METADATA,
        12,
        topics=[{"name": names["missing"] + "!"}, {"name": None, "topic_id": b"\x07" * 16}],
        allow_auto_topic_creation=False,
        include_topic_authorized_operations=True,
    )
    s.call("metadata v9 of every topic", ApiKey.METADATA, 9, topics=None, allow_auto_topic_creation=False)
    for version in (1, 2, 4, 6, 7, 8, 9, 10):
        for label, timestamp in (("earliest", -2), ("latest", -1), ("max timestamp", -3)):
            if timestamp == -3 and version < 7:
                continue
            partition: dict[str, object] = {"partition_index": 0, "timestamp": timestamp}
            if version >= 4:
                partition["current_leader_epoch"] = -1
            fields = {"replica_id": -1, "topics": [{"name": topic, "partitions": [partition]}]}
            if version >= 2:
                fields["isolation_level"] = 1
            if version >= 10:
                fields["timeout_ms"] = 1000
            s.call(f"list offsets v{version} {label}", ApiKey.LIST_OFFSETS, version, **fields)


def new_in_44(s: Session, names: dict[str, str]) -> None:
    """ApiVersions v5 (KIP-1242: the cluster and node the client expects) and DeleteGroups v3
    (per-group error messages), the versions Kafka 4.4 added to APIs odradek serves."""
    described = s.call("metadata for the cluster id", ApiKey.METADATA, 12, topics=[], allow_auto_topic_creation=False)
    cluster_id, node_id = described["cluster_id"], described["brokers"][0]["node_id"]
    for label, expected_cluster, expected_node in (
        ("expecting nothing", None, -1),
        ("expecting this broker", cluster_id, node_id),
        ("expecting another cluster", "AAAAAAAAAAAAAAAAAAAAAA", node_id),
        ("expecting another node", cluster_id, node_id + 7),
        ("expecting only this cluster", cluster_id, -1),
        ("expecting only a node", None, node_id),
    ):
        _api_versions_v5(s, f"api versions v5 {label}", expected_cluster, expected_node)
    group = names["group"]
    coordinator_ready(s, group)
    joined = join(s, "first join", group)
    join(s, "join with the given member id", group, member=str(joined["member_id"]))
    s.call("delete groups v3: one with a member, one unknown, one empty name", ApiKey.DELETE_GROUPS, 3,
           groups_names=[group, names["other"], ""])  # fmt: skip
    s.call("leave", ApiKey.LEAVE_GROUP, 5, group_id=group,
           members=[{"member_id": joined["member_id"], "group_instance_id": None, "reason": None}])  # fmt: skip
    s.call("delete groups v3: the empty group", ApiKey.DELETE_GROUPS, 3, groups_names=[group])


def _api_versions_v5(s: Session, label: str, cluster_id: str | None, node_id: int) -> None:
    """A successful answer is kept as its error code only: the API lists differ by design
    (odradek serves fewer APIs); the features are compared by the sequence `features`."""
    answer = s.call(label, ApiKey.API_VERSIONS, 5, client_software_name="odradek-probe", client_software_version="1",
                    cluster_id=cluster_id, node_id=node_id)  # fmt: skip
    if answer["error_code"] == 0:
        s.observations[-1] = replace(s.observations[-1], response={"error_code": 0})


def features(s: Session, names: dict[str, str]) -> None:
    """The feature versions of ApiVersions v3-5 (the API lists are left out: odradek serves fewer
    APIs by design).  The finalized epoch is Kafka's metadata log offset, which grows with time:
    it is compared as "present", not by value."""
    for version in (3, 4, 5):
        answer = s.call(f"api versions v{version} features", ApiKey.API_VERSIONS, version,
                        client_software_name="odradek-probe", client_software_version="1")  # fmt: skip
        kept = {key: value for key, value in answer.items() if key != "api_keys"}
        kept["finalized_features_epoch"] = "<epoch>" if int(kept["finalized_features_epoch"]) >= 0 else "<none>"
        s.observations[-1] = replace(s.observations[-1], response=kept)


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "versions.metadata_and_offsets": metadata_and_offsets,
    "versions.new_in_44": new_in_44,
    "versions.features": features,
}
