"""What the offset and time indexes share: fixed-size entries mirrored in memory, written lazily.

Format decision: index files are **append-only, never preallocated**.  Kafka preallocates
``segment.index.bytes`` and trims the file on roll and close; a file holding exactly its
entries is what Kafka leaves after a trim, so Kafka (and ``kafka-dump-log.sh``) read ours
as they read their own rolled segments, and we read Kafka's trimmed files.  An untrimmed
Kafka file (zero-filled tail after a crash) fails our validation and the segment's indexes
are rebuilt from its log, which is what Kafka does after a crash too.

The entries live in one ``bytearray`` holding exactly the file's bytes (8 or 12 bytes per
entry, so a 1 GiB segment's offset index is about 2 MiB) and are searched in place with
``unpack_from``; nothing is parsed at load.  Appends only touch memory; `IndexFile.flush`
writes the new entries in one write.  Indexes are derived data: a crash may lose or tear
their tail, and loading drops a torn partial entry.

Invariants:
- ``len(buf)`` is a multiple of the entry size;
- the first ``persisted`` bytes of ``buf`` are exactly the first bytes of the file; when the
  file holds more (a torn tail, or entries dropped in memory) `flush` truncates it first;
  a file size of -1 stands for a file to be written from scratch.
"""

from __future__ import annotations

import struct

from odradek.storage.filesystem import FileSystem

__all__ = ["INT32_MAX", "IndexFile"]

INT32_MAX = 2**31 - 1


class IndexFile:
    """A sparse index file of fixed-size entries for one segment."""

    entry_size = 0
    reserved_entries = 0
    """Slots kept free at the end: the index is full once only these are left."""

    def __init__(self, fs: FileSystem, path: str, base_offset: int, max_index_bytes: int, data: bytes | None) -> None:
        """``data`` is the file's content as read, or None to (re)write the file from scratch."""
        self._fs = fs
        self._path = path
        self.base_offset = base_offset
        self.max_entries = max_index_bytes // self.entry_size
        self._full_bytes = (self.max_entries - self.reserved_entries) * self.entry_size
        if data is None:
            self._buf = bytearray()
            self._persisted = 0
            self._file_size = -1
        else:
            whole = len(data) - len(data) % self.entry_size
            self._buf = bytearray(memoryview(data)[:whole])
            self._persisted = whole
            self._file_size = len(data)
        self._unsynced = False

    @property
    def path(self) -> str:
        return self._path

    @property
    def is_full(self) -> bool:
        """Whether no entry but the reserved ones fits any more (the segment rolls)."""
        return len(self._buf) >= self._full_bytes

    @property
    def entries(self) -> int:
        return len(self._buf) // self.entry_size

    @property
    def dirty(self) -> bool:
        """Whether the file differs from memory."""
        return self._persisted != len(self._buf) or self._file_size != self._persisted

    def to_bytes(self) -> bytes:
        """The entries as the file holds them."""
        return bytes(self._buf)

    def reset(self) -> None:
        """Drop every entry."""
        self._buf.clear()
        self._persisted = 0

    def truncate_entries(self, entries: int) -> None:
        """Keep the first ``entries`` entries."""
        keep = entries * self.entry_size
        del self._buf[keep:]
        self._persisted = min(self._persisted, keep)

    def _largest_slot_at_most(self, target: int, field: struct.Struct, field_pos: int) -> int:
        """The last slot whose field at ``field_pos`` is <= ``target`` (fields ascend), or -1."""
        buf = self._buf
        size = self.entry_size
        unpack = field.unpack_from
        hi = len(buf) // size - 1
        if hi < 0 or unpack(buf, field_pos)[0] > target:
            return -1
        lo = 0
        while lo < hi:
            mid = (lo + hi + 1) >> 1
            if unpack(buf, mid * size + field_pos)[0] <= target:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def flush(self, *, fsync: bool) -> None:
        """Write the entries not yet in the file (one write); with ``fsync`` make it durable."""
        dirty = self.dirty
        if not dirty and not (fsync and self._unsynced):
            return
        handle = self._fs.open_append(self._path)
        try:
            if dirty:
                if self._file_size != self._persisted:
                    handle.truncate(self._persisted)
                if self._persisted < len(self._buf):
                    handle.write(memoryview(self._buf)[self._persisted :])
                self._persisted = self._file_size = len(self._buf)
                self._unsynced = True
            if fsync:
                handle.fsync()
                self._unsynced = False
        finally:
            handle.close()
