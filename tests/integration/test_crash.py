"""Crash consistency: SIGKILL the broker under a real producer's acks=all load, again and again.

The topic has ``flush.messages=1``, so an acknowledged record was fsynced before its answer.
After every restart the partition is read back from offset 0 and must hold every record the
producer saw acknowledged, in production order, exactly once (records whose delivery failed
may be there or not, at most once).  The producers do not retry, so a record can only be
written once; a new producer starts after each restart.

Kills land after a random number of new acknowledgements, so they hit the broker mid-append,
mid-fsync, mid-roll (small segments) and between requests.  A final read uses a real consumer.
``CRASH_KILLS`` sets the number of kills (default 50, the CI count; raise it for a soak run).
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
_ID = struct.Struct(">q")


def _read_ids(bootstrap: str, topic: str) -> list[int]:
    """Every record id in partition 0 from offset 0, by raw Fetch v12."""
    ids: list[int] = []
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
                return ids
            for position, _ in iter_batches(records):
                header, batch = decode_batch(records, position)
                for record in batch:
                    if header.base_offset + record.offset_delta >= offset:
                        assert record.value is not None
                        ids.append(_ID.unpack_from(record.value)[0])
                offset = header.next_offset
    finally:
        conn.close()


def _check(acked: set[int], ids: list[int]) -> None:
    assert all(a < b for a, b in itertools.pairwise(ids)), "out of order or duplicated"
    missing = acked.difference(ids)
    assert not missing, f"{len(missing)} acknowledged records lost, e.g. {sorted(missing)[:5]}"


def test_acknowledged_records_survive_repeated_sigkill(tmp_path: Path) -> None:
    started = time.monotonic()
    rng = random.Random(int(os.environ.get("CRASH_SEED", "20261122")))
    broker = BrokerProcess(tmp_path / "data")
    broker.start()
    topic = f"crash-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    configs = {"flush.messages": "1", "segment.bytes": "1048576"}
    admin.create_topics([NewTopic(topic, 1, 1, config=configs)])[topic].result(timeout=20)
    settings = {
        "bootstrap.servers": broker.bootstrap,
        "acks": "all",
        "retries": 0,
        "linger.ms": 0,
        "batch.num.messages": 5,
        "message.timeout.ms": 10000,
    }
    producer = Producer(settings)
    acked: set[int] = set()
    failed = 0

    def delivered(err: object, msg: object) -> None:
        nonlocal failed
        if err is None:
            acked.add(_ID.unpack(msg.value()[:8])[0])  # type: ignore[attr-defined]
        else:
            failed += 1

    next_id = 0
    checks = 0
    try:
        for _ in range(KILLS):
            target = len(acked) + rng.randrange(1, 80)
            deadline = time.monotonic() + 20
            while len(acked) < target:
                assert time.monotonic() < deadline, "the producer made no progress"
                while next_id - len(acked) - failed < 100:
                    value = _ID.pack(next_id) + bytes(rng.randrange(0, 300))
                    producer.produce(topic, value=value, partition=0, on_delivery=delivered)
                    next_id += 1
                producer.poll(0.001)
            broker.stop(signal.SIGKILL)
            # In-flight requests died with the broker: their records count as failed (they may
            # or may not be in the log).  A fresh producer spares librdkafka's reconnect backoff.
            producer.purge()
            producer.flush(5)
            broker.start()
            producer = Producer(settings)
            _check(set(acked), _read_ids(broker.bootstrap, topic))
            checks += 1
        producer.flush(20)
        final = set(acked)
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
            seen.append(_ID.unpack(message.value()[:8])[0])
        consumer.close()
        _check(final, seen)
    finally:
        broker.stop()
    elapsed = time.monotonic() - started
    print(
        f"crash test: {KILLS} kills, {checks} checks, {len(acked)} acked, {failed} failed deliveries, "
        f"{next_id} produced, {elapsed:.1f} s"
    )
    assert checks == KILLS
