"""Topic set-up through confluent-kafka's AdminClient, identical for every broker."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from odradek.storage.data_dir_names import DELETE_SUFFIX, FUTURE_SUFFIX, parse_partition_dir_name

TIMEOUT_S = 120.0


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap, "log_level": 3})


def create_topic(bootstrap: str, name: str, partitions: int, configs: Mapping[str, str] | None = None) -> float:
    """Create ``name`` and wait until every partition has a leader; returns the seconds that took."""
    admin = _admin(bootstrap)
    started = time.monotonic()
    futures = admin.create_topics(
        [NewTopic(name, num_partitions=partitions, replication_factor=1, config=dict(configs or {}))],
        operation_timeout=TIMEOUT_S,
        request_timeout=TIMEOUT_S,
    )
    futures[name].result(TIMEOUT_S)
    deadline = started + TIMEOUT_S
    while time.monotonic() < deadline:
        topic = admin.list_topics(name, timeout=10).topics.get(name)
        if (
            topic is not None
            and topic.error is None
            and len(topic.partitions) == partitions
            and all(p.leader >= 0 for p in topic.partitions.values())
        ):
            return time.monotonic() - started
        time.sleep(0.05)
    raise TimeoutError(f"topic {name}: partitions without a leader after {TIMEOUT_S:.0f}s")


def delete_topic(bootstrap: str, name: str, data_dir: Path | None = None) -> None:
    """Delete ``name`` (best effort: freeing disk between runs, not part of any measurement); with
    the broker's ``data_dir``, return only once its partition directories are gone there (Kafka
    removes them on a background thread after answering), so the next run does not share the core
    with the removal or start before the page cache it held is free (``brokers.KAFKA_BENCH_CONFIG``)."""
    admin = _admin(bootstrap)
    futures = admin.delete_topics([name], operation_timeout=60, request_timeout=60)
    try:
        futures[name].result(60)
    except Exception as exc:
        print(f"  (could not delete topic {name}: {exc})")
        return
    if data_dir is not None and not _wait_removed(data_dir, name, TIMEOUT_S):
        print(f"  (topic {name}'s files still under {data_dir} after {TIMEOUT_S:.0f}s)")


def partition_dirs(data_dir: Path, topic: str) -> list[Path]:
    """``topic``'s partition directories under ``data_dir``, in Kafka's layout (the one odradek
    reads, `odradek.storage.data_dir_names`): ``<topic>-<partition>``, and the same followed by
    ``.<id>-delete`` while a deletion is pending (or ``-future`` during a move)."""
    try:
        return [entry for entry in data_dir.iterdir() if _topic_of(entry.name) == topic]
    except FileNotFoundError:
        return []


def _topic_of(name: str) -> str | None:
    if name.endswith((DELETE_SUFFIX, FUTURE_SUFFIX)):
        name = name.rpartition(".")[0]
    parsed = parse_partition_dir_name(name)
    return None if parsed is None else parsed[0]


def _wait_removed(data_dir: Path, topic: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while partition_dirs(data_dir, topic):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def high_watermark(bootstrap: str, topic: str) -> int:
    """The end offset of partition 0 of ``topic``; -1 when the topic does not exist."""
    admin = _admin(bootstrap)
    if topic not in admin.list_topics(timeout=10).topics:
        return -1
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "odradek-bench-unused", "log_level": 3})
    try:
        _low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)
    except KafkaException:
        return -1
    finally:
        consumer.close()
    return int(high)
