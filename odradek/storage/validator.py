"""Record-level checks Kafka's LogValidator makes before an append, done without decoding
records unless a setting requires it.

- ``message.timestamp.after.max.ms`` (CreateTime topics): a record stamped further in the
  future than this is refused.  The batch header's max timestamp decides whether any record
  is too new, so records are decoded only to name the culprits.
- ``message.timestamp.before.max.ms``: a record older than this is refused.  The header has no
  minimum timestamp, so this decodes the batch, and only when the limit is not the default
  (unbounded).
- compacted topics refuse records without a key, which needs the keys: decoded only there.

A refusal names the offending records by their index in the batch, as Kafka's
``record_errors`` do.  `batch_shape_error` makes the checks of Kafka's ``validateBatch`` on a
client's batch that need only its header.  `recompress` rewrites a batch when the topic's
``compression.type`` asks for another codec than the producer used: the one case where the
broker decodes and re-encodes records on the produce path, as Kafka does, and like Kafka it
numbers the records 0, 1, 2, ... whatever offset deltas the producer wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from odradek.wire.records.batch import BatchHeader, verify_batch
from odradek.wire.records.builder import build_batch, decode_batch, iter_records

__all__ = ["RecordRefusal", "Refusal", "batch_shape_error", "check_records", "recompress", "target_codec"]

UNBOUNDED = 2**63 - 1


class Refusal(Enum):
    INVALID_TIMESTAMP = "invalid timestamp"
    INVALID_RECORD = "invalid record"


@dataclass(frozen=True, slots=True)
class RecordRefusal:
    kind: Refusal
    message: str
    record_errors: tuple[tuple[int, str], ...]


def batch_shape_error(header: BatchHeader) -> str | None:
    """Why Kafka refuses this batch from a client as an INVALID_RECORD before reading its
    records (its ``LogValidator.validateBatch``), or None.  Checked against Kafka 4.4.0
    (compat-tests/probes/batch_shapes.py): the record count must be positive and equal to the
    last offset delta + 1, a batch with a producer id needs a sequence, and clients never write
    control batches.  Whether the records really number ``records_count`` needs the records,
    which the produce path leaves opaque (decode-only paths check it)."""
    count = header.records_count
    if header.last_offset_delta < 0:
        return f"batch has an invalid offset range: last offset delta {header.last_offset_delta}"
    if count <= 0:
        return f"invalid reported count for record batch: {count}"
    if count != header.last_offset_delta + 1:
        return f"inconsistent batch offset range (last offset delta {header.last_offset_delta}) and count {count}"
    if header.producer_id >= 0 and header.base_sequence < 0:
        return f"invalid sequence number {header.base_sequence} with producer id {header.producer_id}"
    if header.is_control:
        return "clients are not allowed to write control records"
    return None


def check_records(
    batch: memoryview,
    header: BatchHeader,
    *,
    now_ms: int,
    create_time: bool,
    before_max_ms: int,
    after_max_ms: int,
    compacted: bool,
    partition_name: str,
) -> RecordRefusal | None:
    """None when the batch may be appended, else what is wrong with which records.

    ``partition_name`` (``topic-partition``) appears in the messages as Kafka words them."""
    check_time = create_time and not header.is_control
    too_new = check_time and header.max_timestamp - now_ms > after_max_ms
    needs_records = too_new or (check_time and before_max_ms != UNBOUNDED) or compacted
    if not needs_records:
        return None
    verify_batch(batch)
    keyless: list[tuple[int, str]] = []
    no_key = f"Compacted topic cannot accept message without key in topic partition {partition_name}"
    bad = []
    # One record at a time: a batch of millions of tiny records is never held as objects.
    for i, record in enumerate(iter_records(batch, header)):
        if compacted and not header.is_control and record.key is None:
            keyless.append((i, no_key))
        if not check_time:
            continue
        timestamp = header.base_timestamp + record.timestamp_delta
        if timestamp - now_ms > after_max_ms or now_ms - timestamp > before_max_ms:
            bad.append(
                (
                    i,
                    f"Timestamp {timestamp} of message with offset {i} is out of range. The timestamp should be "
                    f"within [{now_ms - before_max_ms if before_max_ms != UNBOUNDED else 'unbounded'}, "
                    f"{now_ms + after_max_ms}]",
                )
            )
    if keyless:
        return RecordRefusal(Refusal.INVALID_RECORD, _summary(tuple(keyless)), tuple(keyless))
    if bad:
        return RecordRefusal(
            Refusal.INVALID_TIMESTAMP, "One or more records have been rejected due to invalid timestamp", tuple(bad)
        )
    return None


def _summary(errors: tuple[tuple[int, str], ...]) -> str:
    """Kafka's INVALID_RECORD message: the count, then at most three of the record errors."""
    shown = ", ".join(f"RecordError(batchIndex={i}, message='{message}')" for i, message in errors[:3])
    return (
        f"One or more records have been rejected due to {len(errors)} record errors in total, and only "
        f"showing the first three errors at most: [{shown}]"
    )


_CODECS = {"uncompressed": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def target_codec(compression_type: str) -> int | None:
    """The codec a topic's ``compression.type`` forces, or None for ``producer`` (keep as sent)."""
    return _CODECS.get(compression_type)


def recompress(batch: memoryview, header: BatchHeader, codec: int, level: int | None) -> bytearray:
    """The same batch written with ``codec``: what Kafka does when a topic's compression.type
    is not ``producer`` and differs from the batch's.  Records, timestamps, producer fields and
    flags are kept; the records are numbered 0, 1, 2, ... (Kafka keeps inner offsets only when it
    writes a batch in place) and the base offset is assigned afterwards by the append as usual."""
    _, records = decode_batch(batch)
    numbered = [
        record if record.offset_delta == i else replace(record, offset_delta=i) for i, record in enumerate(records)
    ]
    return bytearray(
        build_batch(
            numbered,
            compression=codec,
            producer_id=header.producer_id,
            producer_epoch=header.producer_epoch,
            base_sequence=header.base_sequence,
            is_transactional=header.is_transactional,
            partition_leader_epoch=header.partition_leader_epoch,
            base_timestamp=header.base_timestamp,
            timestamp_type=header.timestamp_type,
            last_offset_delta=header.last_offset_delta,
            max_timestamp=header.max_timestamp,
            compression_level=level,
        )
    )
