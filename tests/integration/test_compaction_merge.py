"""Compaction in a real broker process, read back by a real client (confluent-kafka).

Records carry timestamps 10 ms apart and the topic has ``segment.ms=1``, so nearly every
batch gets a segment of its own; the topic then turns to ``cleanup.policy=compact`` (an
incremental config change) and the broker's cleaner (every 200 ms here, running its heavy
work on a worker thread) must merge those small segments into a few cleaned ones, a
consumer reading from the start must see exactly the latest value of every key, and the
replaced segments' ``.deleted`` files must go after ``file.delete.delay.ms``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic

from tests.integration.conftest import BrokerProcess

KEYS = 40
RECORDS = 600


@pytest.fixture
def cleaning_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path / "data", ["log.cleaner.backoff.ms=200"])
    proc.start()
    yield proc
    proc.stop()


def _segments(directory: Path, suffix: str) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(suffix))


def _read_from_start(bootstrap: str, topic: str, high: int) -> list[tuple[int, bytes, bytes | None]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:6]}"})
    consumer.assign([TopicPartition(topic, 0, 0)])
    out: list[tuple[int, bytes, bytes | None]] = []
    deadline = time.monotonic() + 30
    try:
        while (not out or out[-1][0] < high - 1) and time.monotonic() < deadline:
            message = consumer.poll(1.0)
            if message is None:
                continue
            assert message.error() is None, message.error()
            offset, key = message.offset(), message.key()
            assert offset is not None and key is not None
            out.append((offset, key, message.value()))
    finally:
        consumer.close()
    return out


def test_small_segments_are_merged_and_a_reader_sees_the_latest_value_per_key(
    cleaning_broker: BrokerProcess,
) -> None:
    bootstrap = cleaning_broker.bootstrap
    topic = f"compact-{uuid.uuid4().hex[:8]}"
    configs = {
        "cleanup.policy": "delete",
        "retention.ms": "-1",
        "segment.ms": "1",
        "min.cleanable.dirty.ratio": "0.01",
        "file.delete.delay.ms": "300",
    }
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1, config=configs)])[topic].result(timeout=20)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 0})
    latest: dict[bytes, bytes] = {}
    start = int(time.time() * 1000) - RECORDS * 10
    for i in range(RECORDS):
        key, value = b"key-%d" % (i % KEYS), b"value-%d-" % i * 20
        producer.produce(topic, key=key, value=value, partition=0, timestamp=start + i * 10)
        latest[key] = value
        if i % 10 == 0:
            # At most ten records per batch, whatever the load: a roll needs a new batch.
            producer.flush(10)
    assert producer.flush(30) == 0
    directory = cleaning_broker.data_dir / f"{topic}-0"
    written_segments = len(_segments(directory, ".log"))
    assert written_segments >= 20, f"segment.ms=1 rolls at (nearly) every batch, {written_segments}"
    compact = ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[compact])
    admin.incremental_alter_configs([resource])[resource].result(timeout=20)

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if len(_segments(directory, ".log")) <= 3 and not _segments(directory, ".deleted"):
            break
        time.sleep(0.2)
    logs = _segments(directory, ".log")
    assert len(logs) <= 3, f"{written_segments} segments were not merged: {logs}"
    assert not _segments(directory, ".deleted"), "replaced segments are deleted after file.delete.delay.ms"

    records = _read_from_start(bootstrap, topic, RECORDS)
    offsets = [offset for offset, _, _ in records]
    assert offsets == sorted(set(offsets)) and offsets[-1] == RECORDS - 1
    seen: dict[bytes, bytes | None] = {}
    for _, read_key, read_value in records:
        seen[read_key] = read_value
    assert seen == latest
    active_base = int(logs[-1].split(".")[0])
    cleaned_keys = [key for offset, key, _ in records if offset < active_base]
    assert active_base > 0 and len(cleaned_keys) == len(set(cleaned_keys)), "one value per key below the active segment"
    assert len(records) < RECORDS // 2
