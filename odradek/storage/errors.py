"""Exceptions of the storage layer; handlers turn them into Kafka error codes.

- `OffsetOutOfRange` -> OFFSET_OUT_OF_RANGE
- `RecordBatchTooLarge` -> RECORD_LIST_TOO_LARGE (Kafka's RecordBatchTooLargeException)
- `CorruptBatchError` (from `odradek.wire.records.batch`, raised by append) -> CORRUPT_MESSAGE
- `InconsistentTopicId` -> INCONSISTENT_TOPIC_ID
- any other `StorageError` -> KAFKA_STORAGE_ERROR
"""

from __future__ import annotations

__all__ = [
    "CorruptSegmentError",
    "InconsistentTopicId",
    "OffsetOutOfRange",
    "RecordBatchTooLarge",
    "StorageError",
]


class StorageError(Exception):
    """A storage operation failed."""


class OffsetOutOfRange(StorageError):
    """A read asked for an offset below the log start offset or above the log end offset."""

    def __init__(self, offset: int, log_start_offset: int, log_end_offset: int) -> None:
        super().__init__(f"offset {offset} is out of range [{log_start_offset}, {log_end_offset}] of the partition")
        self.offset = offset
        self.log_start_offset = log_start_offset
        self.log_end_offset = log_end_offset


class RecordBatchTooLarge(StorageError):
    """The batches of one append do not fit in an empty segment (``segment.bytes``)."""


class InconsistentTopicId(StorageError):
    """A partition directory already exists with another topic id."""


class CorruptSegmentError(StorageError):
    """A segment that passed recovery holds bytes that are not a batch where one must start."""
