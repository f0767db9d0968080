"""Plain reads across the segments of a log (read_committed reads are
`odradek.storage.committed_reads`): the batches from an offset, and the first record at or after
a timestamp.  Each takes the log's segments in offset order (and their base offsets, for the
bisection to the segment holding an offset); nothing here changes the log.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from odradek.storage.region import FileRegion
from odradek.storage.segment import LogSegment, TimestampOffset

__all__ = ["offset_for_timestamp", "read_batches"]


def read_batches(
    segments: Sequence[LogSegment],
    base_offsets: Sequence[int],
    offset: int,
    max_bytes: int,
    *,
    min_one_batch: bool,
    whole_batches: bool,
) -> FileRegion | None:
    """The region `PartitionLog.read` answers for an ``offset`` below the log end: from the
    segment holding it (or the next with data), None when the first batch alone exceeds
    ``max_bytes`` and ``min_one_batch`` is off."""
    for index in range(max(bisect_right(base_offsets, offset) - 1, 0), len(segments)):
        region = segments[index].read(offset, max_bytes, whole_batches=whole_batches)
        if region is not None:
            return region if region.length <= max_bytes or min_one_batch else None
    return None


def offset_for_timestamp(
    segments: Sequence[LogSegment], timestamp: int, log_start_offset: int
) -> TimestampOffset | None:
    """The first record from ``log_start_offset`` on whose timestamp is >= ``timestamp``, if any."""
    for segment in segments:
        if segment.max_timestamp()[0] >= timestamp:
            return segment.find_offset_by_timestamp(timestamp, log_start_offset)
    return None
