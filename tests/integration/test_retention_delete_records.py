"""Retention and DeleteRecords seen by real clients: the log start offset moves, reads below it
get OFFSET_OUT_OF_RANGE, ListOffsets EARLIEST and the low watermark report it, and it survives
a restart.  Time is the in-process broker's manual clock: nothing sleeps for retention.ms.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

from odradek.storage.partition_log import PartitionLog
from odradek.storage.retention import largest_timestamp
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.fetch import FetchRequest
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[InProcessBroker]:
    proc = InProcessBroker(tmp_path / "data", manual_clock=True)
    proc.start()
    yield proc
    proc.stop()


def _create_topic(bootstrap: str, configs: dict[str, str]) -> str:
    name = f"t-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, 1, 1, config=configs)])[name].result(timeout=20)
    return name


def _produce(bootstrap: str, topic: str, count: int, size: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    for i in range(count):
        producer.produce(topic, value=i.to_bytes(4, "big") * (size // 4), partition=0)
        if i % 500 == 0:
            producer.poll(0)
    assert producer.flush(30) == 0


def _watermarks(bootstrap: str, topic: str) -> tuple[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "wm"})
    try:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        return int(low), int(high)
    finally:
        consumer.close()


def _earliest(bootstrap: str, topic: str) -> int:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    tp = TopicPartition(topic, 0)
    return int(admin.list_offsets({tp: OffsetSpec.earliest()})[tp].result(timeout=20).offset)


def _fetch_error(bootstrap: str, topic: str, offset: int) -> tuple[int, int]:
    """(error code, log start offset) of a raw Fetch v12 at ``offset``."""
    request = FetchRequest(
        max_wait_ms=0,
        min_bytes=1,
        topics=[
            FetchRequest.FetchTopic(
                topic=topic,
                partitions=[
                    FetchRequest.FetchTopic.FetchPartition(
                        partition=0, fetch_offset=offset, partition_max_bytes=1 << 20
                    )
                ],
            )
        ],
    )
    conn = RawConnection(bootstrap)
    try:
        response = conn.request(ApiKey.FETCH, 12, request)
    finally:
        conn.close()
    data = response.responses[0].partitions[0]
    return int(data.error_code), int(data.log_start_offset)


def _first_value_from_beginning(bootstrap: str, topic: str) -> int:
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:6]}", "auto.offset.reset": "earliest"}
    )
    try:
        consumer.assign([TopicPartition(topic, 0, -2)])
        for _ in range(100):
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                return int(message.offset())
        raise AssertionError("no message")
    finally:
        consumer.close()


def test_time_retention_deletes_old_segments_when_the_clock_passes_retention_ms(broker: InProcessBroker) -> None:
    bootstrap = broker.bootstrap
    topic = _create_topic(bootstrap, {"retention.ms": "60000", "segment.bytes": "1048576"})
    _produce(bootstrap, topic, 3000, 1000)

    def log() -> PartitionLog:
        found = broker.broker.partition_log(topic, 0)
        assert found is not None
        return found

    segments = broker.call(lambda: [(s.base_offset, largest_timestamp(s)) for s in log().segments])
    assert len(segments) >= 3
    (_, first_largest), (second_base, _) = segments[0], segments[1]
    assert broker.call(broker.broker.run_retention) == 0
    broker.call(lambda: broker.clock.advance(first_largest + 60_000 - broker.clock.time_ms()))
    assert broker.call(broker.broker.run_retention) == 0
    broker.call(lambda: broker.clock.advance(1))
    assert broker.call(broker.broker.run_retention) >= 1
    start = broker.call(lambda: log().log_start_offset)
    assert start >= second_base
    assert _watermarks(bootstrap, topic) == (start, 3000)
    assert _earliest(bootstrap, topic) == start
    # Kafka 4.3.1 answers -1 for the log start of an out-of-range read (compat-tests/probes).
    assert _fetch_error(bootstrap, topic, start - 1) == (ErrorCode.OFFSET_OUT_OF_RANGE, -1)
    assert _first_value_from_beginning(bootstrap, topic) == start


def test_size_retention_keeps_the_log_within_retention_bytes(broker: InProcessBroker) -> None:
    bootstrap = broker.bootstrap
    topic = _create_topic(bootstrap, {"retention.bytes": "1048576", "segment.bytes": "1048576"})
    _produce(bootstrap, topic, 4000, 1000)
    before = broker.call(lambda: len(broker.broker.logs.get(topic, 0).segments))  # type: ignore[union-attr]
    assert before >= 4
    assert broker.call(broker.broker.run_retention) == before - 2
    size = broker.call(lambda: broker.broker.logs.get(topic, 0).size_bytes)  # type: ignore[union-attr]
    assert 1048576 <= size <= 2 * 1048576
    low, high = _watermarks(bootstrap, topic)
    assert 0 < low < high == 4000


def test_delete_records_moves_the_low_watermark_and_survives_a_restart(tmp_path: Path) -> None:
    broker = InProcessBroker(tmp_path / "data", manual_clock=True)
    broker.start()
    try:
        bootstrap = broker.bootstrap
        topic = _create_topic(bootstrap, {})
        compacted = _create_topic(bootstrap, {"cleanup.policy": "compact"})
        _produce(bootstrap, topic, 10, 100)
        admin = AdminClient({"bootstrap.servers": bootstrap})
        tp = TopicPartition(topic, 0, 4)
        assert admin.delete_records([tp])[tp].result(timeout=20).low_watermark == 4
        assert _watermarks(bootstrap, topic) == (4, 10)
        assert _earliest(bootstrap, topic) == 4
        assert _fetch_error(bootstrap, topic, 3) == (ErrorCode.OFFSET_OUT_OF_RANGE, -1)
        assert _fetch_error(bootstrap, topic, 4) == (ErrorCode.NONE, 4)
        assert _first_value_from_beginning(bootstrap, topic) == 4
        lower = TopicPartition(topic, 0, 2)
        assert admin.delete_records([lower])[lower].result(timeout=20).low_watermark == 4
        for bad, code in (
            (TopicPartition(topic, 0, 11), KafkaError.OFFSET_OUT_OF_RANGE),
            (TopicPartition(compacted, 0, 0), KafkaError.POLICY_VIOLATION),
        ):
            with pytest.raises(KafkaException) as caught:
                admin.delete_records([bad])[bad].result(timeout=20)
            assert caught.value.args[0].code() == code
    finally:
        broker.stop()
    restarted = InProcessBroker(tmp_path / "data", manual_clock=True)
    restarted.start()
    try:
        assert _watermarks(restarted.bootstrap, topic) == (4, 10)
        admin = AdminClient({"bootstrap.servers": restarted.bootstrap})
        to_end = TopicPartition(topic, 0, -1)
        assert admin.delete_records([to_end])[to_end].result(timeout=20).low_watermark == 10
        assert _watermarks(restarted.bootstrap, topic) == (10, 10)
    finally:
        restarted.stop()


def test_compaction_keeps_the_latest_value_per_key_for_a_real_consumer(broker: InProcessBroker) -> None:
    bootstrap = broker.bootstrap
    configs = {"cleanup.policy": "compact", "segment.bytes": "1048576", "delete.retention.ms": "1000"}
    topic = _create_topic(bootstrap, configs)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    latest: dict[bytes, bytes | None] = {}
    for i in range(3000):
        key = b"k%d" % (i % 100)
        value: bytes | None = None if i % 100 < 10 and i >= 2900 else b"%d-" % i * 250
        producer.produce(topic, key=key, value=value, partition=0)
        latest[key] = value
        if i % 500 == 0:
            producer.poll(0)
    assert producer.flush(30) == 0
    assert broker.call(broker.broker.run_cleaner) == 1

    def read_all() -> list[tuple[int, bytes, bytes | None]]:
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"c-{uuid.uuid4().hex[:6]}"})
        consumer.assign([TopicPartition(topic, 0, 0)])
        out: list[tuple[int, bytes, bytes | None]] = []
        try:
            high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1]
            while not out or out[-1][0] < high - 1:
                message = consumer.poll(2.0)
                assert message is not None and message.error() is None
                out.append((message.offset(), message.key(), message.value()))
        finally:
            consumer.close()
        return out

    records = read_all()
    offsets = [offset for offset, _, _ in records]
    assert offsets == sorted(offsets) and offsets[-1] == 2999
    assert len(records) < 3000
    seen: dict[bytes, bytes | None] = {}
    for _, key, value in records:
        seen[key] = value
    assert seen == latest
    active_base = broker.call(lambda: broker.broker.logs.get(topic, 0).segments[-1].base_offset)  # type: ignore[union-attr]
    cleaned_keys = [key for offset, key, _ in records if offset < active_base]
    assert len(cleaned_keys) == len(set(cleaned_keys)), "one record per key in the cleaned part"
