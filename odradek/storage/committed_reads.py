"""Reads under read_committed: data up to the last stable offset, with the aborted transactions.

Kafka's rules (``LocalLog.read`` with a maximum offset and ``addAbortedTransactions``):

- the read stops at the last stable offset (LSO), a batch boundary: nothing at or after it is
  returned, not even a first batch;
- the aborted transactions reported are those of the transaction indexes that overlap
  [fetch offset, upper bound), where the upper bound is the offset of the first offset index
  entry at or past the end of the bytes read, or else the next segment's base offset, or else
  the log end offset: a bound at index granularity, so transactions a little past the data may
  be listed too (the consumer ignores them);
- the indexes are searched from the segment holding the fetch offset onwards, and the search
  stops at the first entry whose LSO reaches the upper bound (no later entry can overlap).

A transaction is in the index of the segment holding its ABORT marker (`add_aborted_txn`).

Invariant: every function here only reads the log, except `add_aborted_txn`, which appends one
entry to one segment's transaction index unless that index already holds it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from odradek.storage.region import FileRegion
from odradek.storage.segment import LogSegment
from odradek.storage.txn_index import AbortedTxn

__all__ = ["CommittedRead", "add_aborted_txn", "collect_aborted_txns", "read_committed"]


@dataclass(frozen=True, slots=True)
class CommittedRead:
    """The bytes of a read_committed read (None: nothing below the LSO) and the aborted
    transactions to report with them."""

    records: FileRegion | None
    aborted: tuple[AbortedTxn, ...]


def _segment_index(base_offsets: Sequence[int], offset: int) -> int:
    return max(bisect_right(base_offsets, offset) - 1, 0)


def read_committed(
    segments: Sequence[LogSegment],
    base_offsets: Sequence[int],
    log_end_offset: int,
    offset: int,
    max_bytes: int,
    *,
    last_stable_offset: int,
    min_one_batch: bool,
) -> CommittedRead:
    """Read from ``offset`` (inside the log: the caller checked the range) up to the LSO;
    ``base_offsets`` are the segments' base offsets, ascending."""
    if offset >= last_stable_offset:
        return CommittedRead(None, ())
    first = _segment_index(base_offsets, offset)
    stable_segment = _segment_index(base_offsets, last_stable_offset)
    for index in range(first, min(stable_segment, len(segments) - 1) + 1):
        segment = segments[index]
        max_position = segment.position_of(last_stable_offset) if index == stable_segment else None
        region = segment.read(offset, max_bytes, whole_batches=False, max_position=max_position)
        if region is None:
            continue
        if region.length > max_bytes and not min_one_batch:
            region = None
        searched = _first_holding_txns(segments, index)
        if searched is None:  # the usual case: no aborted transaction, no bound to look up
            return CommittedRead(region, ())
        size = 0 if region is None else region.length
        upper = segment.fetch_upper_bound_offset(region.position if region is not None else 0, size)
        if upper is None:
            upper = segments[index + 1].base_offset if index + 1 < len(segments) else log_end_offset
        return CommittedRead(region, collect_aborted_txns(segments, searched, offset, upper))
    return CommittedRead(None, ())


def _first_holding_txns(segments: Sequence[LogSegment], first: int) -> int | None:
    """The first of ``segments[first:]`` whose transaction index holds an entry, None when none
    does: where `collect_aborted_txns` may start, since it passes over empty indexes anyway."""
    return next((index for index in range(first, len(segments)) if len(segments[index].txn_index)), None)


def collect_aborted_txns(
    segments: Sequence[LogSegment], first: int, start_offset: int, upper_bound: int
) -> tuple[AbortedTxn, ...]:
    """The aborted transactions overlapping [``start_offset``, ``upper_bound``), searching the
    transaction indexes of ``segments[first:]`` in order until one says the search is complete
    (an empty index costs nothing once loaded)."""
    found: list[AbortedTxn] = []
    for index in range(first, len(segments)):
        txn_index = segments[index].txn_index
        if not len(txn_index):
            continue
        search = txn_index.collect(start_offset, upper_bound)
        found.extend(search.aborted)
        if search.complete:
            break
    return tuple(found)


def add_aborted_txn(segments: Sequence[LogSegment], base_offsets: Sequence[int], txn: AbortedTxn) -> bool:
    """Record ``txn`` in the index of the segment holding its marker (``txn.last_offset``);
    False when that index already holds it (a replay after a restart)."""
    index = segments[_segment_index(base_offsets, txn.last_offset)].txn_index
    last = index.last_offset
    if last is not None and last >= txn.last_offset:
        return False
    index.append(txn)
    return True
