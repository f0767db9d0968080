"""Probe sequences for the log: produce errors, log start and high watermark, DeleteRecords,
ListOffsets and Fetch at the edges (issue 4's record handling and retention rules).

Batches carry fixed CreateTime timestamps, so the bytes a Fetch returns are the same on both
brokers apart from the offsets and partition leader epoch the broker assigns, which are
behaviour and compared too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from probes.groups import topic_with
from probes.session import Session

__all__ = ["SEQUENCES", "T0", "produce_batch", "produce_one"]

#: One timestamp base for the whole run (both brokers get the same bytes), a minute in the past:
#: old enough for no "future" check, young enough that no retention pass deletes the records
#: in the middle of a sequence (that race once made the two brokers differ).
T0 = (time.time_ns() // 1_000_000_000) * 1000 - 60_000
#: Years in the past, for the timestamp refusal.
_OLD = 1_700_000_000_000


def _batch(first: int, count: int = 1, key: bytes | None = b"k", timestamp: int = T0) -> bytes:
    records = [Record(offset_delta=i, timestamp_delta=i, key=key, value=b"v%d" % (first + i)) for i in range(count)]
    return build_batch(records, base_timestamp=timestamp, max_timestamp=timestamp + count - 1)


def _produce(s: Session, label: str, topic: str, records: bytes | None, acks: int = -1, partition: int = 0) -> Any:
    data = [{"name": topic, "partition_data": [{"index": partition, "records": records}]}]
    return s.call(label, ApiKey.PRODUCE, 11, transactional_id=None, acks=acks, timeout_ms=5000, topic_data=data)


def produce_batch(s: Session, label: str, topic: str, batch: bytes, partition: int = 0) -> Any:
    """One produce request (acks all, v11) carrying ``batch``."""
    return _produce(s, label, topic, batch, partition=partition)


def produce_one(s: Session, label: str, topic: str, partition: int, n: int) -> Any:
    """One single-record batch with a fixed timestamp (so its bytes are the same on any broker)."""
    return _produce(s, label, topic, _batch(n, timestamp=T0 + n), partition=partition)


def _list_offsets(s: Session, label: str, topic: str, timestamp: int, partition: int = 0) -> None:
    parts = [{"partition_index": partition, "current_leader_epoch": -1, "timestamp": timestamp}]
    s.call(
        label, ApiKey.LIST_OFFSETS, 9, replica_id=-1, isolation_level=0, topics=[{"name": topic, "partitions": parts}]
    )


def _fetch(s: Session, label: str, topic: str, offset: int, partition: int = 0, max_bytes: int = 1 << 20) -> None:
    part = {
        "partition": partition,
        "current_leader_epoch": -1,
        "fetch_offset": offset,
        "last_fetched_epoch": -1,
        "log_start_offset": -1,
        "partition_max_bytes": max_bytes,
    }
    s.call(
        label,
        ApiKey.FETCH,
        12,
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=max_bytes,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[{"topic": topic, "partitions": [part]}],
        forgotten_topics_data=[],
        rack_id="",
    )


def _delete_records(s: Session, label: str, topic: str, offset: int, partition: int = 0) -> None:
    parts = [{"partition_index": partition, "offset": offset}]
    s.call(label, ApiKey.DELETE_RECORDS, 2, topics=[{"name": topic, "partitions": parts}], timeout_ms=5000)


def log_edges(s: Session, names: dict[str, str]) -> None:
    """Ten single-record batches, then every edge of the offset range before and after DeleteRecords."""
    topic = names["topic"]
    topic_with(s, topic, 2, {})
    for i in range(10):
        _produce(s, f"produce record {i}", topic, _batch(i, timestamp=T0 + 10 * i))
    _produce(s, "produce three records in one batch", topic, _batch(10, count=3, timestamp=T0 + 100))
    for label, timestamp in (
        ("earliest", -2),
        ("latest", -1),
        ("max timestamp", -3),
        ("timestamp 55", T0 + 55),
        ("timestamp past the end", T0 + 10_000),
        ("earliest local", -4),
    ):
        _list_offsets(s, f"list offsets {label}", topic, timestamp)
    _fetch(s, "fetch from 0", topic, 0, max_bytes=200)
    _fetch(s, "fetch inside the three-record batch", topic, 11)
    _fetch(s, "fetch at the high watermark", topic, 13)
    _fetch(s, "fetch past the high watermark", topic, 14)
    _fetch(s, "fetch a partition that does not exist", topic, 0, partition=5)
    _fetch(s, "fetch an unknown topic", names["missing"], 0)
    _delete_records(s, "delete records below 4", topic, 4)
    _delete_records(s, "delete records below 2 (behind the log start)", topic, 2)
    _delete_records(s, "delete records past the high watermark", topic, 99)
    _delete_records(s, "delete records up to the high watermark", topic, -1)
    _delete_records(s, "delete records of a partition that does not exist", topic, 1, partition=7)
    _delete_records(s, "delete records of an unknown topic", names["missing"], 1)
    _list_offsets(s, "list offsets earliest after deletes", topic, -2)
    _list_offsets(s, "list offsets by timestamp after deletes", topic, T0)
    _fetch(s, "fetch below the log start", topic, 3)
    _fetch(s, "fetch at the log start", topic, 13)
    _produce(s, "produce after everything was deleted", topic, _batch(13))
    _list_offsets(s, "list offsets latest", topic, -1)


def produce_errors(s: Session, names: dict[str, str]) -> None:
    """Each way a produce request is refused, per partition or whole.

    Not probed: a partition with null records.  Kafka 4.3.1 never answered it (the raw
    connection timed out after 30 s); odradek answers INVALID_RECORD.  No client sends it."""
    plain, compacted, strict, small = (
        names["topic"],
        names["topic"] + "-c",
        names["topic"] + "-s",
        names["topic"] + "-m",
    )
    topic_with(s, plain, 1, {})
    topic_with(s, compacted, 1, {"cleanup.policy": "compact"})
    topic_with(
        s, strict, 1, {"message.timestamp.before.max.ms": "3600000", "message.timestamp.after.max.ms": "3600000"}
    )
    topic_with(s, small, 1, {"max.message.bytes": "200"})
    _produce(s, "acks 2", plain, _batch(0), acks=2)
    _produce(s, "unknown topic", names["missing"], _batch(0))
    _produce(s, "partition past the end", plain, _batch(0), partition=3)
    corrupt = bytearray(_batch(0))
    corrupt[-1] ^= 0xFF
    _produce(s, "batch with a bad crc", plain, bytes(corrupt))
    _produce(s, "keyless record to a compacted topic", compacted, _batch(0, count=2, key=None))
    _produce(s, "timestamp far in the past", strict, _batch(0, timestamp=_OLD))
    _produce(s, "batch over max.message.bytes", small, _batch(0, count=20))
    _produce(s, "a good batch after all that", plain, _batch(0))
    _list_offsets(s, "nothing refused was written", plain, -1)


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "storage.log_edges": log_edges,
    "storage.produce_errors": produce_errors,
}
