"""Probe sequences for partition administration: CreatePartitions (growing topics, its refusals
in Kafka's order and words, validate-only, every version), and what the new partitions look like
afterwards to Metadata, Produce, ListOffsets and Fetch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import coordinator_ready, topic_with, until
from probes.session import Session
from probes.storage import produce_one

__all__ = ["SEQUENCES", "partitions_ready"]


def _grow(s: Session, label: str, topics: list[dict[str, Any]], validate_only: bool = False, version: int = 3) -> Any:
    full = [{"assignments": None, **t} for t in topics]
    return s.call(label, ApiKey.CREATE_PARTITIONS, version, topics=full, timeout_ms=10_000, validate_only=validate_only)


def partitions_ready(s: Session, topic: str, count: int) -> None:
    """Wait until every partition of ``topic`` below ``count`` answers ListOffsets (Kafka's
    controller creates new partitions a moment after it answers)."""

    def listed() -> bool:
        parts = [{"partition_index": p, "current_leader_epoch": -1, "timestamp": -1} for p in range(count)]
        answer = s.call(
            "list offsets",
            ApiKey.LIST_OFFSETS,
            9,
            replica_id=-1,
            isolation_level=0,
            topics=[{"name": topic, "partitions": parts}],
        )
        return all(p["error_code"] == 0 for t in answer["topics"] for p in t["partitions"])

    until(s, listed, f"{count} partitions of {topic}")


def _metadata(s: Session, label: str, *topics: str) -> None:
    s.call(
        label,
        ApiKey.METADATA,
        12,
        topics=[{"name": t} for t in topics],
        allow_auto_topic_creation=False,
        include_topic_authorized_operations=False,
    )


def create_partitions(s: Session, names: dict[str, str]) -> None:
    """Grow a topic, then every refusal of CreatePartitions, one topic at a time and mixed."""
    topic, other, missing = names["topic"], names["other"], names["missing"]
    topic_with(s, topic, 1)
    topic_with(s, other, 2)
    produce_one(s, "produce to partition 0", topic, 0, 0)
    _grow(s, "grow 1 -> 3, validate only", [{"name": topic, "count": 3}], validate_only=True)
    _metadata(s, "metadata after validate only: still 1 partition", topic)
    _grow(s, "grow 1 -> 3", [{"name": topic, "count": 3}])
    partitions_ready(s, topic, 3)
    _metadata(s, "metadata after growing", topic)
    for partition in (1, 2):
        produce_one(s, f"produce to new partition {partition}", topic, partition, partition)
    for partition in range(3):
        # One partition per request: Kafka lists a request's partitions in hash-map order.
        parts = [{"partition_index": partition, "current_leader_epoch": -1, "timestamp": -1}]
        s.call(f"list offsets of partition {partition}", ApiKey.LIST_OFFSETS, 9, replica_id=-1, isolation_level=0,
               topics=[{"name": topic, "partitions": parts}])  # fmt: skip
    for label, fields in (
        ("the same count", {"count": 3}),
        ("fewer partitions", {"count": 2}),
        ("zero partitions", {"count": 0}),
        ("a negative count", {"count": -4}),
        ("assignments for the new partition", {"count": 4, "assignments": [{"broker_ids": [1]}]}),
        ("too few assignments", {"count": 5, "assignments": [{"broker_ids": [1]}]}),
        ("too many assignments", {"count": 4, "assignments": [{"broker_ids": [1]}, {"broker_ids": [1]}]}),
        ("an unknown broker", {"count": 4, "assignments": [{"broker_ids": [7]}]}),
        ("a broker twice", {"count": 4, "assignments": [{"broker_ids": [1, 1]}]}),
        ("an empty replica list", {"count": 4, "assignments": [{"broker_ids": []}]}),
        ("two replicas", {"count": 4, "assignments": [{"broker_ids": [1, 7]}]}),
        ("two replicas, the unknown one first", {"count": 4, "assignments": [{"broker_ids": [8, 1]}]}),
        (
            "two new partitions, the second unknown",
            {"count": 5, "assignments": [{"broker_ids": [1]}, {"broker_ids": [9]}]},
        ),
        (
            "two new partitions of different sizes",
            {"count": 5, "assignments": [{"broker_ids": [1]}, {"broker_ids": [1, 2]}]},
        ),
        ("10000 more", {"count": 10_003}),
        ("10001 more", {"count": 10_004}),
        ("10001 more with too few assignments", {"count": 10_004, "assignments": [{"broker_ids": [1]}]}),
        ("an empty assignment list", {"count": 4, "assignments": []}),
        ("a huge count", {"count": 2_000_000_000}),
    ):
        _grow(s, f"refused? {label}", [{"name": topic, **fields}], validate_only=True)
    _grow(s, "an unknown topic", [{"name": missing, "count": 2}])
    _grow(s, "an invalid topic name", [{"name": missing + "!", "count": 2}])
    _grow(s, "an empty topic name", [{"name": "", "count": 2}])
    coordinator_ready(s, names["group"])  # __consumer_offsets exists on both brokers
    _grow(s, "an internal topic", [{"name": "__consumer_offsets", "count": 60}], validate_only=True)
    _grow(s, "the same topic twice", [{"name": topic, "count": 5}, {"name": topic, "count": 6}])
    _grow(
        s,
        "a topic twice between two others",
        [{"name": other, "count": 3}, {"name": topic, "count": 5}, {"name": missing, "count": 2},
         {"name": topic, "count": 6}],
    )  # fmt: skip
    _metadata(s, "metadata after the refusals", topic, other)
    _grow(s, "good and bad together", [{"name": topic, "count": 4}, {"name": other, "count": 1}])
    partitions_ready(s, topic, 4)
    _grow(
        s, "assignments with the count, for real", [{"name": other, "count": 4, "assignments": [{"broker_ids": [1]}]}]
    )
    partitions_ready(s, other, 4)
    _metadata(s, "metadata after the mixed batch", topic, other)
    for version in (0, 1, 2):
        count = 5 + version
        _grow(s, f"grow at v{version}", [{"name": topic, "count": count}], version=version)
        partitions_ready(s, topic, count)
        _grow(s, f"the same count at v{version}", [{"name": topic, "count": count}], version=version)
    _metadata(s, "metadata at the end", topic)
    fetch_parts = [
        {
            "partition": p,
            "current_leader_epoch": -1,
            "fetch_offset": 0,
            "last_fetched_epoch": -1,
            "log_start_offset": -1,
            "partition_max_bytes": 1 << 20,
        }
        for p in (1, 2, 6)
    ]
    s.call("fetch from the new partitions", ApiKey.FETCH, 12, replica_id=-1, max_wait_ms=0, min_bytes=0,
           max_bytes=1 << 20, isolation_level=0, session_id=0, session_epoch=-1,
           topics=[{"topic": topic, "partitions": fetch_parts}], forgotten_topics_data=[], rack_id="")  # fmt: skip


def _elect(
    s: Session, label: str, partitions: list[dict[str, Any]] | None, election_type: int = 0, version: int = 2
) -> None:
    fields: dict[str, Any] = {"topic_partitions": partitions, "timeout_ms": 10_000}
    if version >= 1:
        fields["election_type"] = election_type
    s.call(label, ApiKey.ELECT_LEADERS, version, **fields)


def _reassign(s: Session, label: str, topics: list[dict[str, Any]], version: int = 1, **extra: Any) -> None:
    s.call(label, ApiKey.ALTER_PARTITION_REASSIGNMENTS, version, timeout_ms=10_000, topics=topics, **extra)


def _list_reassignments(s: Session, label: str, topics: list[dict[str, Any]] | None) -> None:
    s.call(label, ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, timeout_ms=10_000, topics=topics)


def elections_and_reassignments(s: Session, names: dict[str, str]) -> None:
    """ElectLeaders, AlterPartitionReassignments and ListPartitionReassignments on one node:
    nothing to elect or move, and every refusal."""
    topic, missing = names["topic"], names["missing"]
    topic_with(s, topic, 2)
    coordinator_ready(s, names["group"])  # __consumer_offsets exists on both brokers
    for version in (0, 1, 2):
        _elect(
            s,
            f"elect v{version}: preferred, both partitions",
            [{"topic": topic, "partitions": [0, 1]}],
            version=version,
        )
    _elect(s, "elect: unclean", [{"topic": topic, "partitions": [1]}], election_type=1)
    _elect(s, "elect: election type 2", [{"topic": topic, "partitions": [0]}], election_type=2)
    _elect(s, "elect: election type -1", [{"topic": topic, "partitions": [0]}], election_type=-1)
    _elect(s, "elect: election type 2, every partition", None, election_type=2)
    _elect(s, "elect: election type 2, an unknown topic", [{"topic": missing, "partitions": [0]}], election_type=2)
    _elect(s, "elect: an internal topic", [{"topic": "__consumer_offsets", "partitions": [0]}])
    _elect(s, "elect: an unknown partition", [{"topic": topic, "partitions": [5]}])
    _elect(s, "elect: an unknown topic", [{"topic": missing, "partitions": [0]}])
    _elect(s, "elect: an invalid topic name", [{"topic": missing + "!", "partitions": [0]}])
    _elect(s, "elect: a partition twice", [{"topic": topic, "partitions": [0, 0]}])
    _elect(s, "elect: a topic twice", [{"topic": topic, "partitions": [0]}, {"topic": topic, "partitions": [1]}])
    _elect(s, "elect: no partitions of a topic", [{"topic": topic, "partitions": []}])
    _elect(s, "elect: an empty list", [])
    _elect(s, "elect: every partition (null)", None)
    _elect(s, "elect v0: every partition (null)", None, version=0)
    _elect(s, "elect: every partition, unclean", None, election_type=1)
    _list_reassignments(s, "list reassignments: every partition", None)
    _list_reassignments(s, "list reassignments: the topic", [{"name": topic, "partition_indexes": [0, 1]}])
    _list_reassignments(s, "list reassignments: an unknown topic", [{"name": missing, "partition_indexes": [0]}])
    _list_reassignments(s, "list reassignments: an unknown partition", [{"name": topic, "partition_indexes": [9]}])
    _list_reassignments(s, "list reassignments: an empty list", [])
    one = {"partition_index": 0, "replicas": [1]}
    for version in (0, 1):
        _reassign(s, f"reassign v{version}: partition 0 to its own replica", [{"name": topic, "partitions": [one]}],
                  version=version)  # fmt: skip
    _list_reassignments(s, "list reassignments after a no-op", None)
    for label, partition in (
        ("cancel (null replicas)", {"partition_index": 0, "replicas": None}),
        ("an unknown broker", {"partition_index": 0, "replicas": [2]}),
        ("this broker and an unknown one", {"partition_index": 0, "replicas": [1, 2]}),
        ("an empty replica list", {"partition_index": 0, "replicas": []}),
        ("this broker twice", {"partition_index": 0, "replicas": [1, 1]}),
        ("a negative broker id", {"partition_index": 0, "replicas": [-1]}),
        ("an unknown partition", {"partition_index": 4, "replicas": [1]}),
        ("an unknown partition, cancelled", {"partition_index": 4, "replicas": None}),
    ):
        _reassign(s, f"reassign: {label}", [{"name": topic, "partitions": [partition]}])
    _reassign(s, "reassign: an unknown topic", [{"name": missing, "partitions": [one]}])
    _reassign(s, "reassign: an invalid topic name", [{"name": missing + "!", "partitions": [one]}])
    _reassign(s, "reassign: no replication factor change, same factor", [{"name": topic, "partitions": [one]}],
              allow_replication_factor_change=False)  # fmt: skip
    _reassign(s, "reassign: no replication factor change, two replicas",
              [{"name": topic, "partitions": [{"partition_index": 0, "replicas": [1, 2]}]}],
              allow_replication_factor_change=False)  # fmt: skip
    _reassign(s, "reassign: a partition twice", [{"name": topic, "partitions": [one, one]}])
    _reassign(s, "reassign: good and bad partitions",
              [{"name": topic, "partitions": [{"partition_index": 1, "replicas": [1]},
                                              {"partition_index": 0, "replicas": [3]}]},
               {"name": missing, "partitions": [one]}])  # fmt: skip
    _reassign(s, "reassign: no topics", [])
    _reassign(s, "reassign v0: no topics", [], version=0)
    _reassign(s, "reassign: a topic with no partitions", [{"name": topic, "partitions": []}])
    _reassign(s, "reassign: an internal topic", [{"name": "__consumer_offsets", "partitions": [one]}])
    _list_reassignments(s, "list reassignments at the end", None)


def metadata_of_a_large_topic(s: Session, names: dict[str, str]) -> None:
    """Metadata of a topic of 100 partitions (odradek keeps the answered partitions of a topic of 64
    or more between requests, `odradek.handlers.metadata`), asked twice, in an old version, and
    after the topic grew; and a page of its partitions from DescribeTopicPartitions, which reads the
    same kept leaderships."""
    topic = names["topic"]
    topic_with(s, topic, 100)
    _metadata(s, "metadata of 100 partitions", topic)
    _metadata(s, "metadata of 100 partitions again", topic)
    s.call("metadata v1 of 100 partitions", ApiKey.METADATA, 1, topics=[{"name": topic}])
    s.call("describe topic partitions, 30 from partition 64", ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0,
           topics=[{"name": topic}], response_partition_limit=30,
           cursor={"topic_name": topic, "partition_index": 64})  # fmt: skip
    _grow(s, "grow 100 -> 102", [{"name": topic, "count": 102}])
    partitions_ready(s, topic, 102)
    _metadata(s, "metadata after growing to 102", topic)


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "partitions.create": create_partitions,
    "partitions.metadata_large": metadata_of_a_large_topic,
    "partitions.elections_and_reassignments": elections_and_reassignments,
}
