"""Crash consistency: SIGKILL the broker under a real producer's acks=all load, again and again.

The topics have ``flush.messages=1``, so an acknowledged record was fsynced before its answer.
The producers do not retry, so a record can only be written once; a new producer starts after
each restart.  Kills land after a random number of new acknowledgements, so they hit the broker
mid-append, mid-fsync, mid-roll (small segments) and between requests.

- Plain topic: after every restart the partition, read from offset 0, holds every record the
  producer saw acknowledged, in production order, exactly once (records whose delivery failed
  may be there or not, at most once).  A final read uses a real consumer.
- Compacted topic, with segments rolled every few hundred milliseconds and the cleaner running
  every 50 ms, so kills also land mid-clean, mid-swap and mid delayed deletion: after every
  restart the records are in production order without duplicates, and for every key the last
  acknowledged value (or a later one of that key) is there.

``CRASH_KILLS`` sets the number of kills of the plain run (default 50, the CI count; raise it
for a soak run), ``CRASH_COMPACT_KILLS`` those of the compacted run (default 20).
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import struct
import time
import uuid
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.fetch import FetchRequest
from odradek.wire.records.batch import iter_batches
from odradek.wire.records.builder import decode_batch
from tests.integration.conftest import BrokerProcess
from tests.integration.rawclient import RawConnection

KILLS = int(os.environ.get("CRASH_KILLS", "50"))
COMPACT_KILLS = int(os.environ.get("CRASH_COMPACT_KILLS", "20"))
KEYS = 40
_ID = struct.Struct(">q")


def _read_records(bootstrap: str, topic: str) -> list[tuple[int, bytes | None]]:
    """``(id, key)`` of every record in partition 0 from offset 0, by raw Fetch v12."""
    found: list[tuple[int, bytes | None]] = []
    offset = 0
    conn = RawConnection(bootstrap)
    try:
        while True:
            partition = FetchRequest.FetchTopic.FetchPartition(
                partition=0, fetch_offset=offset, partition_max_bytes=8 << 20
            )
            request = FetchRequest(
                max_wait_ms=0,
                min_bytes=0,
                max_bytes=8 << 20,
                topics=[FetchRequest.FetchTopic(topic=topic, partitions=[partition])],
            )
            data = conn.request(ApiKey.FETCH, 12, request).responses[0].partitions[0]
            assert data.error_code == ErrorCode.NONE
            records = bytes(data.records or b"")
            if not records:
                assert offset >= data.high_watermark
                return found
            for position, _ in iter_batches(records):
                header, batch = decode_batch(records, position)
                for record in batch:
                    if header.base_offset + record.offset_delta >= offset:
                        assert record.value is not None
                        found.append((_ID.unpack_from(record.value)[0], record.key))
                offset = header.next_offset
    finally:
        conn.close()


class _Load:
    """A producer that keeps 100 records in flight and remembers which ids were acknowledged
    (with their keys); ``restart`` replaces it after the broker was killed."""

    def __init__(self, bootstrap: str, topic: str, rng: random.Random, keyed: bool) -> None:
        self.settings = {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "retries": 0,
            "linger.ms": 0,
            "batch.num.messages": 5,
            "message.timeout.ms": 10000,
        }
        self.topic, self.rng, self.keyed = topic, rng, keyed
        self.acked: dict[int, bytes | None] = {}
        self.failed = 0
        self.next_id = 0
        self.producer = Producer(self.settings)

    def key_of(self, record_id: int) -> bytes | None:
        return b"k%d" % (record_id % KEYS) if self.keyed else None

    def _delivered(self, err: object, msg: object) -> None:
        if err is None:
            record_id = _ID.unpack(msg.value()[:8])[0]  # type: ignore[attr-defined]
            self.acked[record_id] = self.key_of(record_id)
        else:
            self.failed += 1

    def run_until_acked(self, more: int) -> None:
        target = len(self.acked) + more
        deadline = time.monotonic() + 20
        while len(self.acked) < target:
            assert time.monotonic() < deadline, "the producer made no progress"
            while self.next_id - len(self.acked) - self.failed < 100:
                value = _ID.pack(self.next_id) + bytes(self.rng.randrange(0, 300))
                self.producer.produce(
                    self.topic, key=self.key_of(self.next_id), value=value, partition=0, on_delivery=self._delivered
                )
                self.next_id += 1
            self.producer.poll(0.001)

    def restart(self) -> None:
        """In-flight requests died with the broker: their records count as failed (they may or
        may not be in the log).  A fresh producer spares librdkafka's reconnect backoff."""
        self.producer.purge()
        self.producer.flush(5)
        self.producer = Producer(self.settings)


def _check_plain(acked: set[int], ids: list[int]) -> None:
    assert all(a < b for a, b in itertools.pairwise(ids)), "out of order or duplicated"
    missing = acked.difference(ids)
    assert not missing, f"{len(missing)} acknowledged records lost, e.g. {sorted(missing)[:5]}"


def _check_compacted(load: _Load, found: list[tuple[int, bytes | None]]) -> None:
    ids = [record_id for record_id, _ in found]
    assert all(a < b for a, b in itertools.pairwise(ids)), "out of order or duplicated"
    assert all(key == load.key_of(record_id) for record_id, key in found), "a record with another id's key"
    latest_kept: dict[bytes | None, int] = {}
    for record_id, key in found:
        latest_kept[key] = record_id
    latest_acked: dict[bytes | None, int] = {}
    for record_id, key in load.acked.items():
        latest_acked[key] = max(record_id, latest_acked.get(key, -1))
    lost = [key for key, record_id in latest_acked.items() if latest_kept.get(key, -1) < record_id]
    assert not lost, f"the last acknowledged value of {len(lost)} keys is gone, e.g. {lost[:3]}"


def _create(broker: BrokerProcess, topic: str, configs: dict[str, str]) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1, config=configs)])[topic].result(timeout=20)


def test_acknowledged_records_survive_repeated_sigkill(tmp_path: Path) -> None:
    started = time.monotonic()
    rng = random.Random(int(os.environ.get("CRASH_SEED", "20261122")))
    broker = BrokerProcess(tmp_path / "data")
    broker.start()
    topic = f"crash-{uuid.uuid4().hex[:8]}"
    _create(broker, topic, {"flush.messages": "1", "segment.bytes": "1048576"})
    load = _Load(broker.bootstrap, topic, rng, keyed=False)
    checks = 0
    try:
        for _ in range(KILLS):
            load.run_until_acked(rng.randrange(1, 80))
            broker.stop(signal.SIGKILL)
            broker.start()
            load.restart()
            _check_plain(set(load.acked), [record_id for record_id, _ in _read_records(broker.bootstrap, topic)])
            checks += 1
        load.producer.flush(20)
        final = set(load.acked)
        consumer = Consumer(
            {"bootstrap.servers": broker.bootstrap, "group.id": "crash-check", "enable.auto.commit": False}
        )
        consumer.assign([TopicPartition(topic, 0, 0)])
        seen: list[int] = []
        high = int(consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1])
        while len(seen) < high:
            message = consumer.poll(2.0)
            assert message is not None, f"consumer stalled at {len(seen)} of {high}"
            assert message.error() is None, message.error()
            value = message.value()
            assert value is not None
            seen.append(_ID.unpack(value[:8])[0])
        consumer.close()
        _check_plain(final, seen)
    finally:
        broker.stop()
    print(
        f"crash test: {KILLS} kills, {checks} checks, {len(load.acked)} acked, {load.failed} failed deliveries, "
        f"{load.next_id} produced, {time.monotonic() - started:.1f} s"
    )
    assert checks == KILLS


def test_compacted_topic_keeps_the_last_acknowledged_value_per_key_through_sigkills(tmp_path: Path) -> None:
    started = time.monotonic()
    rng = random.Random(int(os.environ.get("CRASH_SEED", "20261122")) + 1)
    broker = BrokerProcess(tmp_path / "data", overrides=["log.cleaner.backoff.ms=50"])
    broker.start()
    topic = f"crash-compact-{uuid.uuid4().hex[:8]}"
    configs = {
        "cleanup.policy": "compact",
        "flush.messages": "1",
        "segment.ms": "300",
        "min.cleanable.dirty.ratio": "0.01",
        "file.delete.delay.ms": "100",
    }
    _create(broker, topic, configs)
    load = _Load(broker.bootstrap, topic, rng, keyed=True)
    removed = 0
    try:
        for _ in range(COMPACT_KILLS):
            load.run_until_acked(rng.randrange(40, 200))
            time.sleep(rng.random() * 0.5)  # let segments roll and the cleaner start; the kill lands anywhere in it
            broker.stop(signal.SIGKILL)
            broker.start()
            load.restart()
            found = _read_records(broker.bootstrap, topic)
            _check_compacted(load, found)
            removed = max(removed, load.next_id - len(found))
    finally:
        broker.stop()
    print(
        f"compacted crash test: {COMPACT_KILLS} kills, {len(load.acked)} acked, {load.next_id} produced, "
        f"{removed} records compacted away at most, {time.monotonic() - started:.1f} s"
    )
    assert removed > len(load.acked) // 2, "the cleaner hardly ran: the test would not exercise it"
