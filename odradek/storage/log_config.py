"""The topic-level settings the partition log obeys (Kafka's names, defaults and units).

Validation of values (ranges, parsing from strings) belongs to `odradek.config`; this is only
the frozen result the storage layer reads.  A change applies to the segments created after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["LogConfig", "TimestampType"]


class TimestampType(StrEnum):
    """``message.timestamp.type``."""

    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"


@dataclass(frozen=True, slots=True)
class LogConfig:
    segment_bytes: int = 1024 * 1024 * 1024
    """``segment.bytes``: roll before a segment would exceed this size."""
    segment_ms: int = 7 * 24 * 60 * 60 * 1000
    """``segment.ms``: roll a non-empty segment this old (by its first batch's timestamp)."""
    index_interval_bytes: int = 4096
    """``index.interval.bytes``: log bytes between two offset index entries."""
    segment_index_bytes: int = 10 * 1024 * 1024
    """``segment.index.bytes``: index size at which the segment rolls."""
    message_timestamp_type: TimestampType = TimestampType.CREATE_TIME
    """``message.timestamp.type``."""

    @property
    def log_append_time(self) -> bool:
        return self.message_timestamp_type is TimestampType.LOG_APPEND_TIME
