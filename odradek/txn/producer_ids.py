"""Producer id allocation: unique ids across restarts, without a write per id.

Ids are handed out from blocks of ``BLOCK_SIZE``; before the first id of a block is used, the
end of that block is written (atomically) to ``producer_ids`` in the data directory.  After a
restart allocation resumes at that recorded end, so an id is never handed out twice even if
the broker crashed in the middle of a block (the rest of that block is simply skipped).
"""

from __future__ import annotations

from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["ProducerIdAllocator"]

BLOCK_SIZE = 1000


class ProducerIdAllocator:
    def __init__(self, fs: FileSystem, path: str) -> None:
        self._fs = fs
        self._path = path
        reserved = int(read_file(fs, path).decode()) if fs.exists(path) else 0
        self._next = reserved
        self._block_end = reserved

    def allocate(self) -> int:
        if self._next >= self._block_end:
            self._block_end = self._next + BLOCK_SIZE
            write_file_atomic(self._fs, self._path, str(self._block_end).encode())
        producer_id = self._next
        self._next += 1
        return producer_id
