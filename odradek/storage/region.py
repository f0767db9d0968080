"""A byte range of a segment file, handed to the server to send (with sendfile when it can).

A `FileRegion` always covers whole record batches.  It stays valid while the segment file is
open; the server must call `FileRegion.fileno` right before each ``os.sendfile`` and never keep
the descriptor across an ``await``: a deleted topic closes its files, and a descriptor number
kept across a suspension could by then name another file.

It is a `odradek.wire.primitives.FilePart` (``len`` is its length), so a fetch response can
carry it through encoding to the connection, which sends it without copying it through Python.
"""

from __future__ import annotations

from dataclasses import dataclass

from odradek.storage.filesystem import FileHandle

__all__ = ["FileRegion"]


@dataclass(frozen=True, slots=True)
class FileRegion:
    """``length`` bytes of ``file`` starting at ``position``."""

    file: FileHandle
    position: int
    length: int

    def __len__(self) -> int:
        return self.length

    def fileno(self) -> int | None:
        """The descriptor to sendfile from, or None for in-memory files (use `read`)."""
        return self.file.fileno()

    def read(self) -> bytes:
        """The bytes of the region (raises `ValueError` if the file is closed)."""
        data = self.file.pread(self.length, self.position)
        if len(data) != self.length:
            raise ValueError(f"{self.file.path} ends inside the region {self.position}+{self.length}")
        return data
