"""Kafka's sparse time index, the ``.timeindex`` file of a segment.

File grammar (big-endian, no header, see `odradek.storage.index_file` for the format decision)::

    TimeIndex => Entry*
    Entry =>
      timestamp       int64   the largest timestamp in the segment up to offset
      relativeOffset  int32   offset - segment base offset: the last offset of the batch
                              where that timestamp was first reached

An entry ``(timestamp, offset)`` says: no record at an offset <= ``offset`` has a timestamp
above ``timestamp``, so a search for the first timestamp >= T can start at the entry with
the largest timestamp <= T.  An entry is added alongside each offset index entry when the
maximum timestamp grew, and once more when the segment is rolled or closed.

Invariants:
- timestamps strictly increase, offsets never decrease;
- with no entry the index behaves as ``(-1, base offset)`` (Kafka's NO_TIMESTAMP).
"""

from __future__ import annotations

import struct

from odradek.storage.index_file import INT32_MAX, IndexFile

__all__ = ["NO_TIMESTAMP", "TimeIndex"]

NO_TIMESTAMP = -1

_ENTRY = struct.Struct(">qi")
_INT64 = struct.Struct(">q")


class TimeIndex(IndexFile):
    """Timestamp -> offset lookups for one segment."""

    entry_size = _ENTRY.size
    reserved_entries = 1
    """Full one entry early: the last slot is kept for the entry written on roll."""

    def entry(self, n: int) -> tuple[int, int]:
        """The ``n``-th entry as ``(timestamp, absolute offset)``."""
        timestamp, relative = _ENTRY.unpack_from(self._buf, n * _ENTRY.size)
        return timestamp, self.base_offset + relative

    def last_entry(self) -> tuple[int, int]:
        """The last entry, or ``(NO_TIMESTAMP, base offset)`` when empty."""
        n = self.entries
        return self.entry(n - 1) if n else (NO_TIMESTAMP, self.base_offset)

    def lookup(self, timestamp: int) -> tuple[int, int]:
        """The entry with the largest timestamp <= ``timestamp``, or ``(NO_TIMESTAMP, base offset)``."""
        slot = self._largest_slot_at_most(timestamp, _INT64, 0)
        return self.entry(slot) if slot >= 0 else (NO_TIMESTAMP, self.base_offset)

    def maybe_append(self, timestamp: int, offset: int) -> None:
        """Append ``(timestamp, offset)`` if ``timestamp`` is above the last entry's."""
        last_timestamp, last_offset = self.last_entry()
        if timestamp <= last_timestamp:
            return
        relative = offset - self.base_offset
        if not 0 <= relative <= INT32_MAX:
            raise ValueError(f"offset {offset} is out of the index range of base offset {self.base_offset}")
        if self.entries and offset < last_offset:
            raise ValueError(f"time index offset {offset} is below the last one, {last_offset}")
        self._buf += _ENTRY.pack(timestamp, relative)

    def is_consistent(self, next_offset: int | None) -> bool:
        """Whether timestamps increase, offsets do not decrease and (if given) stay below ``next_offset``."""
        last_timestamp = NO_TIMESTAMP
        last_relative = 0
        for timestamp, relative in _ENTRY.iter_unpack(self._buf):
            if timestamp <= last_timestamp or relative < last_relative:
                return False
            last_timestamp, last_relative = timestamp, relative
        return next_offset is None or not self._buf or self.base_offset + last_relative < next_offset
