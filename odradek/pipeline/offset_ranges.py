"""Offset ranges, and how a read's ranges become Spark tasks: split as Spark's Kafka connector splits
them (``minPartitions``, ``maxRecordsPerPartition``), so that the same options give the same tasks.

Without either option a task reads one partition's whole range. Otherwise (the connector's rule):

1. with ``maxRecordsPerPartition`` m, a range of n offsets becomes ceil(n / m) even parts;
2. then, if ``minPartitions`` k exceeds the number of ranges, each range gets
   ``max(round(n / total * k), 1)`` parts (round half up); the ranges that get one part keep it, and
   the others share ``max(k - ones, 1)`` parts in proportion to their sizes (a partition that has
   one such small range keeps all its ranges whole);
3. a range split into p parts gives parts of n // p, n // (p - 1) of the rest, ..., the last one
   taking what rounding left, so consecutive parts cover the range exactly: no offset is lost or
   read twice.

The number of tasks is therefore about k, not always at least k: rounding can give fewer (three
ranges of 10 offsets with k = 4 stay three tasks), exactly as with the connector. A batch read
decides whether to split as the connector does (:func:`split_batch`: k against all subscribed
partitions, m against the offsets as given); a micro-batch always applies steps 1-3 to its
non-empty ranges (:func:`split_ranges`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["OffsetRange", "split_batch", "split_ranges"]


@dataclass(frozen=True, slots=True)
class OffsetRange:
    """Offsets ``start`` <= o < ``end`` of one partition, ``start`` < ``end``: one Spark task's read."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def size(self) -> int:
        return self.end - self.start


def _divide(span: OffsetRange, parts: int) -> list[OffsetRange]:
    """``span`` as ``parts`` consecutive ranges, the later ones taking the rounding (empty ones dropped)."""
    pieces = []
    remaining = span.end - span.start
    start = span.start
    for part in range(parts):
        size = remaining // (parts - part)
        remaining -= size
        end = min(start + size, span.end)
        if end > start:
            pieces.append(OffsetRange(span.topic, span.partition, start, end))
        start = end
    return pieces


def _part_count(size: int, total: int, parts: int) -> int:
    """The connector's share of ``parts`` for ``size`` of ``total``: rounded half up, at least one."""
    return max(math.floor(size / total * parts + 0.5), 1)


def split_ranges(
    ranges: Sequence[OffsetRange], min_partitions: int | None, max_records: int | None
) -> list[OffsetRange]:
    """The tasks for non-empty ``ranges`` (module docstring, steps 1-3)."""
    if max_records is None and (min_partitions is None or len(ranges) >= min_partitions):
        return list(ranges)
    divided = list(ranges)
    if max_records is not None:
        divided = [piece for span in ranges for piece in _divide(span, math.ceil(span.size / max_records))]
    if min_partitions is None or min_partitions <= len(divided):
        return divided
    total = sum(span.size for span in divided)
    whole = [span for span in divided if _part_count(span.size, total, min_partitions) == 1]
    whole_partitions = {(span.topic, span.partition) for span in whole}
    split_total = total - sum(span.size for span in whole)
    split_parts = max(min_partitions - len(whole), 1)
    tasks = []
    for span in divided:
        if (span.topic, span.partition) in whole_partitions:
            tasks.append(span)
        else:
            tasks.extend(_divide(span, _part_count(span.size, split_total, split_parts)))
    return tasks


def split_batch(
    ranges: Sequence[OffsetRange], planned_sizes: Sequence[int], min_partitions: int | None, max_records: int | None
) -> list[OffsetRange]:
    """The tasks of a batch read whose non-empty ranges are ``ranges``: split only when
    ``min_partitions`` exceeds the number of subscribed partitions (``planned_sizes`` has one entry
    per partition, empty ones included) or a planned size exceeds ``max_records``.

    The planned sizes are the connector's: ending minus starting offset as the options give them,
    -2 and -1 standing for earliest and latest, so that ``maxRecordsPerPartition`` alone splits only
    ranges given as explicit offsets or timestamps (from earliest to latest the planned size is 1)."""
    too_few = min_partitions is not None and min_partitions > len(planned_sizes)
    too_large = max_records is not None and any(size > max_records for size in planned_sizes)
    if not too_few and not too_large:
        return list(ranges)
    return split_ranges(ranges, min_partitions, max_records)
