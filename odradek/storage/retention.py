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
from collections.abc import Callable
from enum import Enum

from odradek.storage.partition_log import PartitionLog
from odradek.storage.segment import LogSegment

__all__ = ["DeletionReason", "delete_old_segments", "largest_timestamp"]

_log = logging.getLogger(__name__)

_Predicate = Callable[[LogSegment, LogSegment | None], bool]


class DeletionReason(Enum):
    LOG_START_OFFSET = "log start offset breach"
    RETENTION_SIZE = "retention size breach"
    RETENTION_TIME = "retention time breach"


def largest_timestamp(segment: LogSegment) -> int:
    """The segment's largest batch max timestamp, else the time it was created or loaded."""
    timestamp = segment.max_timestamp()[0]
    return timestamp if timestamp >= 0 else segment.created_ms


def delete_old_segments(log: PartitionLog, now_ms: int) -> int:
    """Apply the log's retention settings once; return the number of segments deleted."""
    deleted = _delete(log, now_ms, DeletionReason.LOG_START_OFFSET, _log_start_offset_breached(log))
    config = log.config
    if config.delete:
        if config.retention_bytes >= 0 and log.size_bytes >= config.retention_bytes:
            deleted += _delete(
                log, now_ms, DeletionReason.RETENTION_SIZE, _size_breached(log.size_bytes - config.retention_bytes)
            )
        if config.retention_ms >= 0:
            deleted += _delete(log, now_ms, DeletionReason.RETENTION_TIME, _time_breached(now_ms, config.retention_ms))
    return deleted


def _log_start_offset_breached(log: PartitionLog) -> _Predicate:
    return lambda _segment, following: following is not None and following.base_offset <= log.log_start_offset


def _size_breached(excess: int) -> _Predicate:
    left = excess

    def breached(segment: LogSegment, _following: LogSegment | None) -> bool:
        nonlocal left
        if left - segment.size < 0:
            return False
        left -= segment.size
        return True

    return breached


def _time_breached(now_ms: int, retention_ms: int) -> _Predicate:
    return lambda segment, _following: now_ms - largest_timestamp(segment) > retention_ms


def _delete(log: PartitionLog, now_ms: int, reason: DeletionReason, predicate: _Predicate) -> int:
    segments = log.segments
    count = 0
    for index, segment in enumerate(segments):
        following = segments[index + 1] if index + 1 < len(segments) else None
        if (following is None and segment.size == 0) or not predicate(segment, following):
            break
        count += 1
    if count == 0:
        return 0
    _log.info(
        "deleting %d segment(s) of %s-%d from base offset %d (%s)",
        count,
        log.topic,
        log.partition,
        segments[0].base_offset,
        reason.value,
    )
    return log.delete_oldest_segments(count, now_ms)
