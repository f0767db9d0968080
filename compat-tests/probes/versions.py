"""Probe sequence across API versions: the same Metadata and ListOffsets questions asked at
every version a client may use, so fields that come and go with versions are compared too."""

from __future__ import annotations

from collections.abc import Callable

from odradek.wire.api import ApiKey
from probes.groups import topic_with
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


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "versions.metadata_and_offsets": metadata_and_offsets
}
