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
``record_errors`` do.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from odradek.wire.records.batch import BatchHeader
from odradek.wire.records.builder import decode_batch

__all__ = ["RecordRefusal", "Refusal", "check_records"]

UNBOUNDED = 2**63 - 1


class Refusal(Enum):
    INVALID_TIMESTAMP = "invalid timestamp"
    INVALID_RECORD = "invalid record"


@dataclass(frozen=True, slots=True)
class RecordRefusal:
    kind: Refusal
    message: str
    record_errors: tuple[tuple[int, str], ...]


def check_records(
    batch: memoryview,
    header: BatchHeader,
    *,
    now_ms: int,
    create_time: bool,
    before_max_ms: int,
    after_max_ms: int,
    compacted: bool,
) -> RecordRefusal | None:
    """None when the batch may be appended, else what is wrong with which records."""
    check_time = create_time and not header.is_control
    too_new = check_time and header.max_timestamp - now_ms > after_max_ms
    needs_records = too_new or (check_time and before_max_ms != UNBOUNDED) or compacted
    if not needs_records:
        return None
    _, records = decode_batch(batch)
    if compacted and not header.is_control:
        keyless = tuple(
            (i, f"Compacted topic cannot accept message without key in topic partition at offset {i}.")
            for i, record in enumerate(records)
            if record.key is None
        )
        if keyless:
            return RecordRefusal(Refusal.INVALID_RECORD, "One or more records have been rejected", keyless)
    if not check_time:
        return None
    bad = []
    for i, record in enumerate(records):
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
    if bad:
        return RecordRefusal(
            Refusal.INVALID_TIMESTAMP, "One or more records have been rejected due to invalid timestamp", tuple(bad)
        )
    return None
