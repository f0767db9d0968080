"""Probe sequences for record batches whose CRC is right but whose shape is odd (found by fuzzing
the produce path): inner offset deltas out of order or with gaps, a record count that disagrees
with the last offset delta or with the records present, an empty batch, a control batch or a
negative sequence from a client.  Each goes to a plain topic, a topic whose compression.type
rewrites the batch, and a compacted topic; a Fetch from 0 then shows what each broker stored.

Not probed, known differences: a batch whose records do not number ``records_count`` (Kafka reads
every record of every produce and answers INVALID_RECORD; odradek leaves records opaque unless a
topic setting needs them, and answers CORRUPT_MESSAGE then), and a transactional batch in a
request without a transactional id (Kafka answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the
whole request; transactions are not wired in odradek yet).
"""

from __future__ import annotations

from collections.abc import Callable

from odradek.wire.api import ApiKey
from odradek.wire.records.batch import (
    BATCH_OVERHEAD,
    CONTROL_MASK,
    LOG_OVERHEAD,
    MAGIC,
    BatchHeader,
    write_header,
)
from odradek.wire.records.record import Record, encode_record_into
from probes.groups import topic_with
from probes.session import Session
from probes.storage import T0, produce_batch

__all__ = ["SEQUENCES"]


def _raw_batch(
    deltas: list[int],
    *,
    last_offset_delta: int | None = None,
    records_count: int | None = None,
    attributes: int = 0,
    producer_id: int = -1,
    base_sequence: int = -1,
) -> bytes:
    """A batch with exactly the given record offset deltas and header counts (no checks)."""
    buf = bytearray(BATCH_OVERHEAD)
    for i, delta in enumerate(deltas):
        encode_record_into(buf, Record(offset_delta=delta, timestamp_delta=i, key=b"k%d" % i, value=b"v%d" % i))
    header = BatchHeader(
        base_offset=0,
        batch_length=len(buf) - LOG_OVERHEAD,
        partition_leader_epoch=-1,
        magic=MAGIC,
        crc=0,
        attributes=attributes,
        last_offset_delta=(deltas[-1] if deltas else 0) if last_offset_delta is None else last_offset_delta,
        base_timestamp=T0,
        max_timestamp=T0 + max(len(deltas) - 1, 0),
        producer_id=producer_id,
        producer_epoch=0 if producer_id >= 0 else -1,
        base_sequence=base_sequence,
        records_count=len(deltas) if records_count is None else records_count,
    )
    write_header(buf, 0, header)
    return bytes(buf)


_SHAPES: list[tuple[str, bytes]] = [
    ("deltas out of order (0, 2, 1)", _raw_batch([0, 2, 1])),
    ("deltas with gaps, last delta = count - 1 (0, 1, 2 written as 0, 5, 2)", _raw_batch([0, 5, 2])),
    ("deltas with gaps, last delta past the count (0, 5, 9)", _raw_batch([0, 5, 9])),
    ("last offset delta disagrees with the count", _raw_batch([0, 1, 2], last_offset_delta=5)),
    ("no records", _raw_batch([])),
    ("a control batch from a client", _raw_batch([0], attributes=CONTROL_MASK)),
    ("a producer id with sequence -1", _raw_batch([0, 1], producer_id=7, base_sequence=-1)),
]


def _fetch_all(s: Session, label: str, topic: str) -> None:
    part = {
        "partition": 0,
        "current_leader_epoch": -1,
        "fetch_offset": 0,
        "last_fetched_epoch": -1,
        "log_start_offset": -1,
        "partition_max_bytes": 1 << 20,
    }
    s.call(
        label,
        ApiKey.FETCH,
        12,
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=1 << 20,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[{"topic": topic, "partitions": [part]}],
        forgotten_topics_data=[],
        rack_id="",
    )


def odd_shapes(s: Session, names: dict[str, str]) -> None:
    """Every shape in `_SHAPES` to three topics, then what each topic holds."""
    topics = {
        "plain": (names["topic"], {}),
        "gzip": (names["topic"] + "-z", {"compression.type": "gzip"}),
        "compacted": (names["topic"] + "-c", {"cleanup.policy": "compact"}),
    }
    for topic, configs in topics.values():
        topic_with(s, topic, 1, configs)
    for kind, (topic, _) in topics.items():
        for label, batch in _SHAPES:
            produce_batch(s, f"{kind}: {label}", topic, batch)
        _fetch_all(s, f"{kind}: what was stored", topic)


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "batches.odd_shapes": odd_shapes,
}
