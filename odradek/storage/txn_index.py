"""Kafka's transaction index, the ``.txnindex`` file of a segment: the aborted transactions.

File grammar (big-endian, no header, entries in the order they were appended)::

    TransactionIndex => Entry*
    Entry (34 bytes) =>
      version           int16   0
      producerId        int64
      firstOffset       int64   the transaction's first offset in the partition
      lastOffset        int64   the offset of its ABORT marker (in this segment)
      lastStableOffset  int64   the partition's LSO once the marker was written

An entry is appended when an ABORT marker is written to the segment; a transaction may start in
an earlier segment.  A read_committed fetch of [fetch offset, upper bound) collects, segment by
segment, the entries whose range overlaps it, and may stop at the first entry whose LSO reaches
the upper bound (no later abort can overlap the range).

The entries are mirrored in one ``bytearray``; an append is written to the file at once (the
file is created by the first one), `TransactionIndex.flush` makes the file durable.  A torn
partial entry at the end of the file (a crash during an append) is dropped at load.

Invariants:
- ``last_offset`` strictly increases from entry to entry (`append` raises ValueError otherwise);
- every entry read has version 0, else the file is refused with `CorruptTxnIndexError`;
- the file's first ``len(buf)`` bytes are the entries.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from odradek.storage.errors import StorageError
from odradek.storage.filesystem import FileSystem, read_file

__all__ = ["ENTRY_SIZE", "AbortedTxn", "CorruptTxnIndexError", "TransactionIndex", "TxnIndexSearch"]

_ENTRY = struct.Struct(">hqqqq")
ENTRY_SIZE = _ENTRY.size
_VERSION = 0
_LAST_OFFSET_POS = 18

assert ENTRY_SIZE == 34


class CorruptTxnIndexError(StorageError):
    """A transaction index holds an entry it cannot hold; the segment's index must be rebuilt."""


@dataclass(frozen=True, slots=True)
class AbortedTxn:
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int

    def to_bytes(self) -> bytes:
        return _ENTRY.pack(_VERSION, self.producer_id, self.first_offset, self.last_offset, self.last_stable_offset)


@dataclass(frozen=True, slots=True)
class TxnIndexSearch:
    """The aborted transactions overlapping a range; ``complete``: later segments need no search."""

    aborted: tuple[AbortedTxn, ...]
    complete: bool


class TransactionIndex:
    """The aborted transactions of one segment whose first offset is ``start_offset``."""

    def __init__(self, fs: FileSystem, path: str, start_offset: int) -> None:
        """Load the file at ``path`` if there is one (a missing file is an empty index)."""
        self._fs = fs
        self.path = path
        self.start_offset = start_offset
        data = read_file(fs, path) if fs.exists(path) else b""
        whole = len(data) - len(data) % ENTRY_SIZE
        self._buf = bytearray(memoryview(data)[:whole])
        self._file_size = len(data) if fs.exists(path) else -1
        for version, *_rest in _ENTRY.iter_unpack(self._buf):
            if version != _VERSION:
                raise CorruptTxnIndexError(f"unexpected aborted transaction version {version} in {path}")

    def __len__(self) -> int:
        return len(self._buf) // ENTRY_SIZE

    def __iter__(self) -> Iterator[AbortedTxn]:
        buf = self._buf
        for position in range(0, len(buf), ENTRY_SIZE):
            _version, producer_id, first, last, lso = _ENTRY.unpack_from(buf, position)
            yield AbortedTxn(producer_id, first, last, lso)

    @property
    def last_offset(self) -> int | None:
        if not self._buf:
            return None
        return int(struct.unpack_from(">q", self._buf, len(self._buf) - ENTRY_SIZE + _LAST_OFFSET_POS)[0])

    def append(self, txn: AbortedTxn) -> None:
        last = self.last_offset
        if last is not None and txn.last_offset <= last:
            raise ValueError(
                f"aborted transactions must be appended in last offset order: {txn.last_offset} after {last}"
            )
        entry = txn.to_bytes()
        self._write(len(self._buf), entry)
        self._buf += entry

    def collect(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearch:
        """Aborted transactions overlapping [``fetch_offset``, ``upper_bound_offset``)."""
        found: list[AbortedTxn] = []
        for txn in self:
            if txn.last_offset >= fetch_offset and txn.first_offset < upper_bound_offset:
                found.append(txn)
            if txn.last_stable_offset >= upper_bound_offset:
                return TxnIndexSearch(tuple(found), True)
        return TxnIndexSearch(tuple(found), False)

    def truncate_to(self, offset: int) -> None:
        """Drop the entries of transactions ending at or after ``offset`` (the log is cut there)."""
        for n, txn in enumerate(self):
            if txn.last_offset >= offset:
                self._resize(n * ENTRY_SIZE)
                return

    def reset(self) -> None:
        """Drop every entry."""
        self._resize(0)

    def sanity_check(self) -> None:
        """Raise `CorruptTxnIndexError` if an entry ends before the segment starts."""
        for txn in self:
            if txn.last_offset < self.start_offset:
                raise CorruptTxnIndexError(
                    f"aborted transaction {txn} in {self.path} ends before the segment start {self.start_offset}"
                )

    def flush(self) -> None:
        """Make the file durable (nothing to do when it was never written)."""
        if self._file_size < 0:
            return
        handle = self._fs.open_append(self.path)
        try:
            handle.fsync()
        finally:
            handle.close()

    def delete(self) -> None:
        if self._fs.exists(self.path):
            self._fs.remove(self.path)
        self._buf.clear()
        self._file_size = -1

    def _resize(self, size: int) -> None:
        del self._buf[size:]
        if self._file_size > size:
            handle = self._fs.open_append(self.path)
            try:
                handle.truncate(size)
            finally:
                handle.close()
            self._file_size = size

    def _write(self, position: int, entry: bytes) -> None:
        handle = self._fs.open_append(self.path)
        try:
            if self._file_size != position:
                handle.truncate(position)
            handle.write(entry)
        finally:
            handle.close()
        self._file_size = position + len(entry)
