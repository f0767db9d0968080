"""The topic-level settings the partition log obeys (Kafka's names, defaults and units).

Validation of values (ranges, parsing from strings) belongs to `odradek.config`; this is only
the frozen result the storage layer reads.  A change applies to the segments created after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["LONG_MAX", "LogConfig", "TimestampType"]

LONG_MAX = 2**63 - 1


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
    retention_ms: int = 7 * 24 * 60 * 60 * 1000
    """``retention.ms``: delete a closed segment whose largest timestamp is older; -1 keeps all."""
    retention_bytes: int = -1
    """``retention.bytes``: delete the oldest segments while the log stays at least this big; -1 off."""
    cleanup_policy: frozenset[str] = frozenset({"delete"})
    """``cleanup.policy``: any of ``delete`` and ``compact`` (empty keeps everything)."""
    flush_messages: int = LONG_MAX
    """``flush.messages``: fsync once this many messages are unflushed."""
    flush_ms: int = LONG_MAX
    """``flush.ms``: fsync at an append this long after the previous fsync."""
    delete_retention_ms: int = 24 * 60 * 60 * 1000
    """``delete.retention.ms``: how long compaction keeps a tombstone after first cleaning it."""
    min_cleanable_dirty_ratio: float = 0.5
    """``min.cleanable.dirty.ratio``: dirty share of the log that makes compaction worth it."""
    min_compaction_lag_ms: int = 0
    """``min.compaction.lag.ms``: records younger than this are not compacted."""
    max_compaction_lag_ms: int = LONG_MAX
    """``max.compaction.lag.ms``: dirty records older than this force a compaction."""
    file_delete_delay_ms: int = 60_000
    """``file.delete.delay.ms``: how long the files of a segment removed from the log stay on
    disk (renamed ``.deleted``) before they are deleted."""

    @property
    def log_append_time(self) -> bool:
        return self.message_timestamp_type is TimestampType.LOG_APPEND_TIME

    @property
    def delete(self) -> bool:
        """Whether retention deletes segments by time and size."""
        return "delete" in self.cleanup_policy

    @property
    def compact(self) -> bool:
        return "compact" in self.cleanup_policy
