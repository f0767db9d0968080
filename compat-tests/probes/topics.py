"""Probe sequences for topic administration and metadata: CreateTopics' validation order and
messages, DeleteTopics by name and id, Metadata with and without auto-creation, DescribeCluster's
authorized operations, DescribeTopicPartitions' cursor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import topic_with
from probes.session import Session

__all__ = ["SEQUENCES"]

_NO_ID = b"\x00" * 16


def _create(s: Session, label: str, topics: list[dict[str, Any]], validate_only: bool = False) -> Any:
    full = [{"num_partitions": 1, "replication_factor": 1, "assignments": [], "configs": [], **t} for t in topics]
    return s.call(label, ApiKey.CREATE_TOPICS, 7, topics=full, timeout_ms=10_000, validate_only=validate_only)


def create_topics(s: Session, names: dict[str, str]) -> None:
    """Every refusal CreateTopics has, one topic each, then a batch mixing good and bad."""
    base = names["topic"]
    for label, name in (
        ("empty name", ""),
        ("dot", "."),
        ("dot dot", ".."),
        ("illegal character", base + "!"),
        ("250 characters", base + "x" * (250 - len(base))),
        ("249 characters", base + "y" * (249 - len(base))),
        ("period and underscore collide", base + ".a_b"),
    ):
        _create(s, f"create: {label}", [{"name": name}], validate_only=True)
    _create(s, "create: zero partitions", [{"name": base, "num_partitions": 0}])
    _create(s, "create: replication factor 3 on one broker", [{"name": base, "replication_factor": 3}])
    _create(s, "create: replication factor 0", [{"name": base, "replication_factor": 0}])
    _create(s, "create: unknown config", [{"name": base, "configs": [{"name": "no.such.config", "value": "1"}]}])
    _create(
        s,
        "create: config value of the wrong type",
        [{"name": base, "configs": [{"name": "retention.ms", "value": "soon"}]}],
    )
    _create(
        s,
        "create: config value out of range",
        [{"name": base, "configs": [{"name": "min.cleanable.dirty.ratio", "value": "2"}]}],
    )
    _create(
        s, "create: bad cleanup.policy", [{"name": base, "configs": [{"name": "cleanup.policy", "value": "shred"}]}]
    )
    _create(s, "create: null config value", [{"name": base, "configs": [{"name": "retention.ms", "value": None}]}])
    _create(
        s,
        "create: defaults (-1 partitions, -1 replication)",
        [{"name": base, "num_partitions": -1, "replication_factor": -1}],
        validate_only=True,
    )
    _create(
        s,
        "create: manual assignment",
        [
            {
                "name": base + "-m",
                "num_partitions": -1,
                "replication_factor": -1,
                "assignments": [{"partition_index": 0, "broker_ids": [1]}, {"partition_index": 1, "broker_ids": [1]}],
            }
        ],
    )
    _create(
        s,
        "create: manual assignment naming another broker",
        [
            {
                "name": base + "-n",
                "num_partitions": -1,
                "replication_factor": -1,
                "assignments": [{"partition_index": 0, "broker_ids": [7]}],
            }
        ],
    )
    one = [{"partition_index": 0, "broker_ids": [1]}]
    for label, fields in (
        ("with num_partitions", {"num_partitions": 1, "replication_factor": -1, "assignments": one}),
        ("with replication_factor", {"num_partitions": -1, "replication_factor": 1, "assignments": one}),
        ("starting at partition 1", {"assignments": [{"partition_index": 1, "broker_ids": [1]}]}),
        ("naming a broker twice", {"assignments": [{"partition_index": 0, "broker_ids": [1, 1]}]}),
        ("with an empty replica list", {"assignments": [*one, {"partition_index": 1, "broker_ids": []}]}),
        ("naming brokers 9 and 1", {"assignments": [{"partition_index": 0, "broker_ids": [9, 1]}]}),
    ):
        topic = {"name": base + "-a", "num_partitions": -1, "replication_factor": -1, **fields}
        _create(s, f"create: manual assignment {label}", [topic], validate_only=True)
    _create(
        s,
        "create: one name twice between two others",
        [{"name": base + "-e"}, {"name": base + "-d"}, {"name": base + "-f"}, {"name": base + "-d"}],
        validate_only=True,
    )
    _create(s, "create: the same name twice in one request", [{"name": base + "-d"}, {"name": base + "-d"}])
    _create(
        s,
        "create: good and bad together",
        [{"name": base}, {"name": base + "!"}, {"name": base + "-z", "num_partitions": 0}],
    )
    _create(s, "create: existing topic", [{"name": base}])
    _create(s, "create: existing topic, validate only", [{"name": base}], validate_only=True)


def delete_and_metadata(s: Session, names: dict[str, str]) -> None:
    """Metadata before and after deletes; auto-creation; deleting twice; by id."""
    topic, missing = names["topic"], names["missing"]
    topic_with(s, topic, 3, {"retention.ms": "60000"})
    topic_with(s, topic + "-2", 1)
    s.call(
        "metadata of the topic",
        ApiKey.METADATA,
        12,
        topics=[{"name": topic}],
        allow_auto_topic_creation=False,
        include_topic_authorized_operations=True,
    )
    s.call(
        "metadata of an unknown topic, no auto-create",
        ApiKey.METADATA,
        12,
        topics=[{"name": missing}],
        allow_auto_topic_creation=False,
        include_topic_authorized_operations=False,
    )
    s.call(
        "metadata of an invalid name",
        ApiKey.METADATA,
        12,
        topics=[{"name": missing + "!"}],
        allow_auto_topic_creation=True,
        include_topic_authorized_operations=False,
    )
    s.call(
        "metadata v4 of an unknown topic, auto-create",
        ApiKey.METADATA,
        4,
        topics=[{"name": missing}],
        allow_auto_topic_creation=True,
    )
    s.call(
        "describe cluster with authorized operations",
        ApiKey.DESCRIBE_CLUSTER,
        1,
        include_cluster_authorized_operations=True,
        endpoint_type=1,
    )
    s.call(
        "describe topic partitions, a page of two",
        ApiKey.DESCRIBE_TOPIC_PARTITIONS,
        0,
        topics=[{"name": topic}, {"name": names["other"]}],
        response_partition_limit=2,
        cursor=None,
    )
    s.call(
        "delete: two unknown names and two topics",
        ApiKey.DELETE_TOPICS,
        5,
        topic_names=[names["other"], topic, names["missing"], topic + "-2"],
        timeout_ms=10_000,
    )
    s.call("delete: the same topic again", ApiKey.DELETE_TOPICS, 5, topic_names=[topic], timeout_ms=10_000)
    s.call(
        "delete v6: an unknown id",
        ApiKey.DELETE_TOPICS,
        6,
        topics=[{"name": None, "topic_id": b"\x01" * 16}],
        timeout_ms=10_000,
    )
    s.call(
        "delete v6: neither name nor id",
        ApiKey.DELETE_TOPICS,
        6,
        topics=[{"name": None, "topic_id": _NO_ID}],
        timeout_ms=10_000,
    )
    s.call("delete: an internal topic", ApiKey.DELETE_TOPICS, 5, topic_names=["__consumer_offsets"], timeout_ms=10_000)


def metadata_many(s: Session, names: dict[str, str]) -> None:
    """Metadata naming 1,200 topics (odradek answers those in slices, `odradek.handlers.slices`):
    a topic among unknown and invalid names, with and without authorized operations.  Kafka lists
    more than four named topics in a Scala hash set's order, so each answer's topics are compared
    in name order."""
    topic, missing = names["topic"], names["missing"]
    topic_with(s, topic, 2)
    wanted = [f"{missing}-{i:04d}" for i in range(1000)]
    wanted[500:500] = [topic, missing + "!"]
    wanted += [f"{missing}?{i}" for i in range(198)]
    requests = [
        ("metadata of 1,200 names", 12, False),
        ("metadata of 1,200 names, with operations", 12, True),
        ("metadata v4 of 1,200 names", 4, False),
    ]
    for label, version, operations in requests:
        s.call(
            label,
            ApiKey.METADATA,
            version,
            topics=[{"name": name} for name in wanted],
            allow_auto_topic_creation=False,
            include_topic_authorized_operations=operations,
        )
        s.observations[-1].response["topics"].sort(key=lambda topic: str(topic["name"]))


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "topics.create": create_topics,
    "topics.delete_and_metadata": delete_and_metadata,
    "topics.metadata_many": metadata_many,
}
