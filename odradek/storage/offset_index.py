"""Kafka's sparse offset index, the ``.index`` file of a segment.

File grammar (big-endian, no header, see `odradek.storage.index_file` for the format decision)::

    OffsetIndex => Entry*
    Entry =>
      relativeOffset  int32   offset - segment base offset
      position        int32   byte position of a batch in the segment's .log

An entry ``(offset, position)`` says: the batch starting at ``position`` has ``offset`` as its
last offset.  Entries are added at most every ``index.interval.bytes`` of log.

Invariants:
- offsets and positions strictly increase;
- every offset fits the int32 relative range of the segment.
"""

from __future__ import annotations

import struct

from odradek.storage.index_file import INT32_MAX, IndexFile

__all__ = ["OffsetIndex"]

_ENTRY = struct.Struct(">ii")
_INT32 = struct.Struct(">i")


class OffsetIndex(IndexFile):
    """Offset -> file position lookups for one segment."""

    entry_size = _ENTRY.size

    def entry(self, n: int) -> tuple[int, int]:
        """The ``n``-th entry as ``(absolute offset, position)``."""
        relative, position = _ENTRY.unpack_from(self._buf, n * _ENTRY.size)
        return self.base_offset + relative, position

    def last_entry(self) -> tuple[int, int]:
        """The last entry, or ``(base offset, 0)`` when empty."""
        n = self.entries
        return self.entry(n - 1) if n else (self.base_offset, 0)

    def lookup(self, offset: int) -> tuple[int, int]:
        """The entry with the largest offset <= ``offset``, or ``(base offset, 0)``."""
        slot = self._largest_slot_at_most(offset - self.base_offset, _INT32, 0)
        return self.entry(slot) if slot >= 0 else (self.base_offset, 0)

    def lookup_position(self, position: int) -> tuple[int, int]:
        """The entry with the largest position <= ``position``, or ``(base offset, 0)``."""
        slot = self._largest_slot_at_most(position, _INT32, 4)
        return self.entry(slot) if slot >= 0 else (self.base_offset, 0)

    def first_offset_at_or_after(self, position: int) -> int | None:
        """The offset of the entry with the smallest position >= ``position``, None when none."""
        slot = self._largest_slot_at_most(position - 1, _INT32, 4) + 1
        return self.entry(slot)[0] if slot < self.entries else None

    def append(self, offset: int, position: int) -> None:
        relative = offset - self.base_offset
        if not 0 <= relative <= INT32_MAX:
            raise ValueError(f"offset {offset} is out of the index range of base offset {self.base_offset}")
        n = self.entries
        if n:
            last_offset, last_position = self.entry(n - 1)
            if offset <= last_offset or position <= last_position:
                raise ValueError(f"index entry ({offset}, {position}) does not follow ({last_offset}, {last_position})")
        self._buf += _ENTRY.pack(relative, position)

    def is_consistent(self, log_size: int) -> bool:
        """Whether the entries increase strictly and point inside a log of ``log_size`` bytes."""
        last_relative = last_position = -1
        for relative, position in _ENTRY.iter_unpack(self._buf):
            if relative <= last_relative or position <= last_position:
                return False
            last_relative, last_position = relative, position
        return last_position < log_size
