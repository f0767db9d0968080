"""Retention: which whole segments of a partition log to delete, by Kafka's rules.

One pass (`delete_old_segments`) runs three deletions in Kafka's order, each walking the
segments from the oldest and stopping at the first one it keeps:

1. log start offset: a segment goes when the next segment starts at or below the log start
   offset (DeleteRecords moved it past the whole segment);
2. size, when ``cleanup.policy`` has ``delete`` and ``retention.bytes`` >= 0: with
   ``excess = log size - retention.bytes``, a segment goes while its size is <= what is left
   of the excess;
3. time, when ``cleanup.policy`` has ``delete`` and ``retention.ms`` >= 0: a segment goes when
   ``now - its largest timestamp > retention.ms``.  The largest timestamp is the largest batch
   max timestamp in it; a segment with no timestamp at all uses the time it was created or
   loaded (Kafka uses the file's modification time).

An empty last segment is never deleted.  When every segment is deletable the log rolls
first (see `PartitionLog.delete_oldest_segments`), so the active segment is never deleted
while it is the one appended to.  The high watermark is the log end offset on one replica,
so Kafka's "not beyond the high watermark" rule never holds a segment back here.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from enum import Enum

from odradek.storage.partition_log import PartitionLog
from odradek.storage.segment import LogSegment

__all__ = ["DeletionReason", "delete_old_segments", "largest_timestamp"]

_log = logging.getLogger(__name__)


class DeletionReason(Enum):
    LOG_START_OFFSET = "log start offset breach"
    RETENTION_SIZE = "retention size breach"
    RETENTION_TIME = "retention time breach"


def largest_timestamp(segment: LogSegment) -> int:
    """The segment's largest batch max timestamp, else the time it was created or loaded."""
    timestamp = segment.max_timestamp()[0]
    return timestamp if timestamp >= 0 else segment.created_ms


def delete_old_segments(log: PartitionLog, now_ms: int) -> int:
    """Apply the log's retention settings once; return the number of segments deleted.  Each
    rule counts its deletable segments over the log as the rule before it left it."""
    below_start = _below_log_start(log.segments, log.log_start_offset)
    deleted = _delete(log, now_ms, DeletionReason.LOG_START_OFFSET, below_start)
    config = log.config
    if config.delete:
        if config.retention_bytes >= 0:
            size = log.size_bytes
            if size >= config.retention_bytes:
                excess = size - config.retention_bytes
                deleted += _delete(log, now_ms, DeletionReason.RETENTION_SIZE, _over_size(log.segments, excess))
        if config.retention_ms >= 0:
            cutoff_ms = now_ms - config.retention_ms
            deleted += _delete(log, now_ms, DeletionReason.RETENTION_TIME, _expired(log.segments, cutoff_ms))
    return deleted


def _below_log_start(segments: Sequence[LogSegment], log_start_offset: int) -> int:
    """How many leading segments the next segment's base offset puts at or below the log start."""
    count = 0
    for following in segments[1:]:
        if following.base_offset > log_start_offset:
            break
        count += 1
    return count


def _deletable(segments: Sequence[LogSegment]) -> Sequence[LogSegment]:
    """The segments the size and time rules may count: all but an empty last one."""
    return segments[:-1] if segments and segments[-1].size == 0 else segments


def _over_size(segments: Sequence[LogSegment], excess: int) -> int:
    """How many leading segments fit, together, in ``excess`` bytes."""
    count = 0
    for segment in _deletable(segments):
        size = segment.size
        if size > excess:
            break
        excess -= size
        count += 1
    return count


def _expired(segments: Sequence[LogSegment], cutoff_ms: int) -> int:
    """How many leading segments have a largest timestamp before ``cutoff_ms``."""
    count = 0
    for segment in _deletable(segments):
        if largest_timestamp(segment) >= cutoff_ms:
            break
        count += 1
    return count


def _delete(log: PartitionLog, now_ms: int, reason: DeletionReason, count: int) -> int:
    """Delete the log's ``count`` oldest segments (none when 0), with one log line."""
    if count == 0:
        return 0
    _log.info(
        "deleting %d segment(s) of %s-%d from base offset %d (%s)",
        count,
        log.topic,
        log.partition,
        log.segments[0].base_offset,
        reason.value,
    )
    return log.delete_oldest_segments(count, now_ms)
