"""The topic-level settings the partition log obeys (Kafka's names, defaults and units).

Validation of values (ranges, parsing from strings) belongs to `odradek.config`, which builds
every `LogConfig` from its one table of keys (`odradek.config.log_config_for`: each field is the
topic key of the same name with dots for underscores) once per topic config change; this is only
the frozen, typed result the storage and produce paths read, so nothing parses a setting per
batch.  The defaults here are Kafka's, equal to the table's (a test holds them equal).  A change
applies to the segments created after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["LONG_MAX", "LogConfig", "TimestampType", "TopicCompression"]

LONG_MAX = 2**63 - 1


class TimestampType(StrEnum):
    """``message.timestamp.type``."""

    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"


class TopicCompression(StrEnum):
    """``compression.type``: the codec batches are stored with (``producer``: as sent)."""

    UNCOMPRESSED = "uncompressed"
    ZSTD = "zstd"
    LZ4 = "lz4"
    SNAPPY = "snappy"
    GZIP = "gzip"
    PRODUCER = "producer"


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
    max_message_bytes: int = 1048588
    """``max.message.bytes``: the largest record batch a produce may append."""
    message_timestamp_before_max_ms: int = LONG_MAX
    """``message.timestamp.before.max.ms``: how far in the past a CreateTime timestamp may be."""
    message_timestamp_after_max_ms: int = 3_600_000
    """``message.timestamp.after.max.ms``: how far in the future a CreateTime timestamp may be."""
    compression_type: TopicCompression = TopicCompression.PRODUCER
    """``compression.type``."""
    compression_gzip_level: int = -1
    """``compression.gzip.level`` (-1: the codec's default level)."""
    compression_lz4_level: int = 9
    """``compression.lz4.level``."""
    compression_zstd_level: int = 3
    """``compression.zstd.level``."""

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
