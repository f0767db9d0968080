"""One log segment: ``<base offset, 20 digits>.log`` with its ``.index``, ``.timeindex`` and
``.txnindex`` (the aborted transactions whose ABORT marker lies in the segment; the file exists
only once one was written, see `odradek.storage.txn_index`).

The ``.log`` file is Kafka's: record batches back to back, exactly as they travel on the wire
(base offset already patched).  Only batch headers are read here (hopping by their framing,
see `odradek.storage.segment_files`, which also names the files); records are decoded for
one batch at most, when a timestamp search must name a record.

Indexing rule (the same when appending and when recovering, so both build identical
indexes): a batch starting at position P gets an offset index entry (its last offset, P)
when P - (position of the last entry, 0 if none) > ``index.interval.bytes``; the time index
then gets (largest timestamp so far, last offset of the batch that set it) if that timestamp
grew.  Rolling or closing adds that final time entry as well.

Invariants:
- the log holds whole, verified batches with strictly increasing offsets, all within the
  int32 range above the base offset; `recover` re-establishes this after a crash;
- a `FileRegion` returned by `read` starts at a batch boundary and covers whole batches;
- indexes load lazily on first use; missing or inconsistent index files are rebuilt from
  the log by `recover`, which also drops the transaction index entries past the recovered end
  (entries need the producer state to be rebuilt: the partition owning the log re-adds those
  its replay finds missing).  The transaction index is fsynced at roll and close.

Not thread-safe: one thread (the event loop) uses a segment.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from odradek.storage.errors import CorruptSegmentError, StorageError
from odradek.storage.filesystem import Buffer, FileHandle, FileSystem, read_file
from odradek.storage.offset_index import OffsetIndex
from odradek.storage.region import FileRegion
from odradek.storage.segment_files import (
    DELETED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    filename_prefix,
    header_at,
    hop,
    read_exact,
    remove_segment_files,
    rename_segment_files,
    valid_batches,
    walk,
)
from odradek.storage.time_index import NO_TIMESTAMP, TimeIndex
from odradek.storage.txn_index import TransactionIndex
from odradek.wire.records.batch import (
    TIMESTAMP_TYPE_LOG_APPEND_TIME,
    BatchHeader,
    CorruptBatchError,
)
from odradek.wire.records.builder import decode_batch

__all__ = ["AppendedBatch", "LogSegment", "TimestampOffset"]

_log = logging.getLogger(__name__)

_MAX_POSITION_HINTS = 64

_Index = TypeVar("_Index", OffsetIndex, TimeIndex)


@dataclass(frozen=True, slots=True)
class AppendedBatch:
    """What the segment needs to index one batch of an append (position within the buffer)."""

    position: int
    last_offset: int
    max_timestamp: int


@dataclass(frozen=True, slots=True)
class TimestampOffset:
    """A record's timestamp and offset; ``leader_epoch`` is its batch's, -1 when unknown."""

    timestamp: int
    offset: int
    leader_epoch: int


class LogSegment:
    """A segment file and its two sparse indexes."""

    def __init__(
        self,
        fs: FileSystem,
        directory: str,
        base_offset: int,
        *,
        index_interval_bytes: int,
        max_index_bytes: int,
        created_ms: int,
    ) -> None:
        self._fs = fs
        self._stem = f"{directory}/{filename_prefix(base_offset)}"
        self.base_offset = base_offset
        self.created_ms = created_ms
        self._index_interval = index_interval_bytes
        self._max_index_bytes = max_index_bytes
        self._log: FileHandle = fs.open_append(self._stem + LOG_SUFFIX)
        self._size = self._log.size()
        self._log_unsynced = False
        self._offset_index: OffsetIndex | None = None
        self._time_index: TimeIndex | None = None
        self._txn_index: TransactionIndex | None = None
        self._last_index_position = 0
        self._max_timestamp = NO_TIMESTAMP
        self._offset_of_max_timestamp = base_offset
        self._next_offset: int | None = None
        self._first_batch_timestamp: int | None = None
        # offset -> position of the first batch whose last offset is >= it (appends and reads add them)
        self._hints: dict[int, int] = {}
        self._retired = False
        self.torn = False
        """Whether a failed write left bytes this segment could not cut back (see `append`)."""

    @classmethod
    def create(
        cls,
        fs: FileSystem,
        directory: str,
        base_offset: int,
        *,
        index_interval_bytes: int,
        max_index_bytes: int,
        now_ms: int,
    ) -> LogSegment:
        """A new empty segment; its three files exist when this returns."""
        path = f"{directory}/{filename_prefix(base_offset)}{LOG_SUFFIX}"
        if fs.exists(path) and fs.size(path) > 0:
            raise StorageError(f"cannot create segment {path}: a non-empty file is there")
        segment = cls(
            fs,
            directory,
            base_offset,
            index_interval_bytes=index_interval_bytes,
            max_index_bytes=max_index_bytes,
            created_ms=now_ms,
        )
        segment._offset_index = OffsetIndex(fs, segment._stem + INDEX_SUFFIX, base_offset, max_index_bytes, None)
        segment._time_index = TimeIndex(fs, segment._stem + TIME_INDEX_SUFFIX, base_offset, max_index_bytes, None)
        segment._next_offset = base_offset
        segment._flush_indexes(fsync=False)
        return segment

    @property
    def path(self) -> str:
        return self._stem + LOG_SUFFIX

    @property
    def size(self) -> int:
        return self._size

    @property
    def next_offset(self) -> int:
        """One past the last offset in the segment (the base offset when empty)."""
        if self._next_offset is None:
            offset_index, _ = self._indexes()
            next_offset = self.base_offset
            for _, header in walk(self._log, self.path, self._size, offset_index.last_entry()[1]):
                next_offset = header.next_offset
            self._next_offset = next_offset
        return self._next_offset

    @property
    def indexes_full(self) -> bool:
        offset_index, time_index = self._offset_index, self._time_index
        if offset_index is None or time_index is None:
            offset_index, time_index = self._indexes()
        return offset_index.is_full or time_index.is_full

    def max_timestamp(self) -> tuple[int, int]:
        """``(largest batch max timestamp, last offset of the batch holding it)``; (-1, base) if none."""
        self._indexes()
        return self._max_timestamp, self._offset_of_max_timestamp

    def time_waited_for_roll(self, now_ms: int, max_timestamp: int) -> int:
        """Kafka's segment.ms clock: by the first batch's timestamp if it has one, else by age."""
        if self._first_batch_timestamp is None and self._size > 0:
            self._first_batch_timestamp = header_at(self._log, self.path, 0).max_timestamp
        first = self._first_batch_timestamp
        if first is not None and first >= 0:
            return max_timestamp - first
        return now_ms - self.created_ms

    def append(self, data: Buffer, batches: Sequence[AppendedBatch]) -> None:
        """Write ``data`` (whole batches, offsets patched) in one write and index its batches.

        A failed write (disk full, a short write) is undone by truncating the file back to
        its previous size, then raised as `StorageError`; when even that truncation fails
        the segment is beyond repair here and recovery at the next start cuts the tail.
        """
        offset_index, time_index = self._indexes()
        start = self._write(data)
        for batch in batches:
            self._track(offset_index, time_index, start + batch.position, batch.last_offset, batch.max_timestamp)
        if start == 0:
            self._first_batch_timestamp = batches[0].max_timestamp
        self._size = start + len(data)
        self._next_offset = batches[-1].last_offset + 1
        self._remember(self._next_offset, self._size)
        self._log_unsynced = True

    def append_batch(self, data: Buffer, last_offset: int, max_timestamp: int) -> None:
        """`append` of exactly one batch (a client's produce), without the list: the same write,
        index entries and bookkeeping."""
        offset_index, time_index = self._offset_index, self._time_index
        if offset_index is None or time_index is None:
            offset_index, time_index = self._indexes()
        start = self._write(data)
        if max_timestamp > self._max_timestamp:
            self._max_timestamp = max_timestamp
            self._offset_of_max_timestamp = last_offset
        if start - self._last_index_position > self._index_interval:
            offset_index.append(last_offset, start)
            time_index.maybe_append(self._max_timestamp, self._offset_of_max_timestamp)
            self._last_index_position = start
        if start == 0:
            self._first_batch_timestamp = max_timestamp
        self._size = size = start + len(data)
        self._next_offset = next_offset = last_offset + 1
        hints = self._hints
        if len(hints) >= _MAX_POSITION_HINTS:
            hints.clear()
        hints[next_offset] = size
        self._log_unsynced = True

    def _write(self, data: Buffer) -> int:
        """Write ``data`` at the end in one write; its position.  A failed write is undone (see
        `append`) and raised as `StorageError`."""
        try:
            return self._log.write(data)
        except OSError as exc:
            try:
                self._log.truncate(self._size)
            except OSError as again:
                self.torn = True
                raise StorageError(f"{self.path}: write failed ({exc}) and could not be undone ({again})") from exc
            raise StorageError(f"{self.path}: write failed and was undone: {exc}") from exc

    def _track(
        self,
        offset_index: OffsetIndex,
        time_index: TimeIndex,
        position: int,
        last_offset: int,
        max_timestamp: int,
    ) -> None:
        if max_timestamp > self._max_timestamp:
            self._max_timestamp = max_timestamp
            self._offset_of_max_timestamp = last_offset
        if position - self._last_index_position > self._index_interval:
            offset_index.append(last_offset, position)
            time_index.maybe_append(self._max_timestamp, self._offset_of_max_timestamp)
            self._last_index_position = position

    @property
    def txn_index(self) -> TransactionIndex:
        """The aborted transactions whose marker is in this segment (loaded on first use)."""
        if self._txn_index is None:
            self._txn_index = TransactionIndex(self._fs, self._stem + TXN_INDEX_SUFFIX, self.base_offset)
        return self._txn_index

    def read(
        self, offset: int, max_bytes: int, *, whole_batches: bool = True, max_position: int | None = None
    ) -> FileRegion | None:
        """The bytes from the batch holding ``offset`` (or the first one after it).

        Always covers the first batch whole, even when it is larger than ``max_bytes``.  Beyond
        it: as many whole batches as fit, or with ``whole_batches=False`` Kafka's slice of
        exactly ``max_bytes`` (or up to the segment end), which may end inside a batch; clients
        drop such a partial last batch.  None when the segment has no batch with a last offset
        >= ``offset``.  ``max_position`` (a batch boundary, Kafka's read_committed limit) is a
        hard end: nothing at or after it is returned, not even the first batch.
        """
        located = self._locate(offset)
        if located is None:
            return None
        position, first_size = located
        if max_position is not None:
            if position >= max_position:
                return None
            if whole_batches:
                max_bytes = min(max_bytes, max_position - position)
            else:
                end = min(position + max(max_bytes, first_size), max_position)
                return FileRegion(self._log, position, end - position)
        if first_size >= max_bytes:
            return FileRegion(self._log, position, first_size)
        limit = position + max_bytes
        if not whole_batches:
            return FileRegion(self._log, position, min(limit, self._size) - position)
        end = self._size if limit >= self._size else self._last_boundary(position + first_size, limit)
        return FileRegion(self._log, position, end - position)

    def position_of(self, offset: int) -> int | None:
        """The position of the batch holding ``offset`` (or the first after it), None past the end."""
        located = self._locate(offset)
        return None if located is None else located[0]

    def fetch_upper_bound_offset(self, position: int, size: int) -> int | None:
        """Kafka's bound for a read of ``size`` bytes from ``position``: the offset of the first
        offset index entry at or past its end, None when there is none."""
        offset_index, _ = self._indexes()
        return offset_index.first_offset_at_or_after(position + size)

    def _locate(self, offset: int) -> tuple[int, int] | None:
        """``(position, size)`` of the first batch whose last offset is >= ``offset``.

        Remembers where the batch after it starts (keyed by the offset after its last), so a
        reader going on from there, as a consumer's next fetch does after a whole batch, finds
        it with one header read instead of the index lookup and the walk from the batch before.
        """
        if self._next_offset is not None and offset >= self._next_offset:
            return None
        position = self._hints.get(offset)
        if position is not None and position < self._size:
            header = header_at(self._log, self.path, position)
        else:
            found = self._walk_to(offset)
            if found is None:
                return None
            position, header = found
        size = header.total_size
        self._remember(header.last_offset + 1, position + size)
        return position, size

    def _walk_to(self, offset: int) -> tuple[int, BatchHeader] | None:
        """The first batch whose last offset is >= ``offset``, walked to from the index entry below it."""
        offset_index, _ = self._indexes()
        for position, header in walk(self._log, self.path, self._size, offset_index.lookup(offset)[1]):
            if header.last_offset >= offset:
                return position, header
        return None

    def _last_boundary(self, position: int, limit: int) -> int:
        """The last batch boundary <= ``limit``, hopping from ``position`` or a later index entry.

        Requires ``position <= limit < size``; remembers the boundary for the next fetch.
        """
        offset_index, _ = self._indexes()
        for batch_position, base_offset, size, _, _ in hop(
            self._log, self.path, self._size, max(position, offset_index.lookup_position(limit)[1])
        ):
            if batch_position + size > limit:
                self._remember(base_offset, batch_position)
                return batch_position
        raise CorruptSegmentError(f"{self.path} ends before position {limit}")

    def _remember(self, offset: int, position: int) -> None:
        if len(self._hints) >= _MAX_POSITION_HINTS:
            self._hints.clear()
        self._hints[offset] = position

    def find_offset_by_timestamp(self, timestamp: int, start_offset: int) -> TimestampOffset | None:
        """The first record at or after ``start_offset`` whose timestamp is >= ``timestamp``."""
        offset_index, time_index = self._indexes()
        indexed_offset = time_index.lookup(timestamp)[1]
        for position, header in walk(
            self._log, self.path, self._size, offset_index.lookup(max(indexed_offset, start_offset))[1]
        ):
            if header.max_timestamp >= timestamp and header.last_offset >= start_offset:
                for record_offset, record_timestamp in self._record_timestamps(position, header):
                    if record_timestamp >= timestamp and record_offset >= start_offset:
                        return TimestampOffset(record_timestamp, record_offset, _epoch(header))
        return None

    def find_max_timestamp(self) -> TimestampOffset | None:
        """The first record carrying the segment's largest timestamp, None when empty."""
        offset_index, _ = self._indexes()
        timestamp = self._max_timestamp
        for position, header in walk(
            self._log, self.path, self._size, offset_index.lookup(self._offset_of_max_timestamp)[1]
        ):
            if header.max_timestamp == timestamp:
                for record_offset, record_timestamp in self._record_timestamps(position, header):
                    if record_timestamp == timestamp:
                        return TimestampOffset(timestamp, record_offset, _epoch(header))
                return TimestampOffset(timestamp, header.base_offset, _epoch(header))
        return None

    def _record_timestamps(self, position: int, header: BatchHeader) -> Iterator[tuple[int, int]]:
        """``(offset, timestamp)`` of each record; a batch that cannot be decoded (the append
        path does not decompress) counts as one record at its base offset with its max timestamp."""
        try:
            header, records = decode_batch(read_exact(self._log, self.path, header.total_size, position))
        except CorruptBatchError:
            yield header.base_offset, header.max_timestamp
            return
        if header.timestamp_type == TIMESTAMP_TYPE_LOG_APPEND_TIME:
            for record in records:
                yield header.base_offset + record.offset_delta, header.max_timestamp
        else:
            for record in records:
                yield header.base_offset + record.offset_delta, header.base_timestamp + record.timestamp_delta

    def recover(self) -> int:
        """Verify every batch from the start, truncate at the first bad or torn one, rebuild the
        indexes; return the number of bytes truncated."""
        offset_index = OffsetIndex(self._fs, self._stem + INDEX_SUFFIX, self.base_offset, self._max_index_bytes, None)
        time_index = TimeIndex(self._fs, self._stem + TIME_INDEX_SUFFIX, self.base_offset, self._max_index_bytes, None)
        self._offset_index, self._time_index = offset_index, time_index
        self._last_index_position = 0
        self._max_timestamp, self._offset_of_max_timestamp = NO_TIMESTAMP, self.base_offset
        valid_end, next_offset = 0, self.base_offset
        for position, header in valid_batches(self._log, self._size, 0, self.base_offset):
            self._track(offset_index, time_index, position, header.last_offset, header.max_timestamp)
            valid_end, next_offset = position + header.total_size, header.next_offset
        truncated = self._size - valid_end
        if truncated:
            self._log.truncate(valid_end)
            self._size = valid_end
            self._log_unsynced = True
        time_index.maybe_append(self._max_timestamp, self._offset_of_max_timestamp)
        self._next_offset = next_offset
        self._first_batch_timestamp = None
        self._hints.clear()
        self.txn_index.truncate_to(next_offset)
        self._flush_indexes(fsync=False)
        return truncated

    def check_tail(self) -> int:
        """Cheap recovery for the active segment of a cleanly closed log.

        Verifies (CRC included) the batches from the last offset index entry to the end: at
        most about ``index.interval.bytes`` plus one batch.  Any inconsistency triggers a full
        `recover`; returns the bytes it truncated (0 when the tail is sound).
        """
        if self._offset_index is None or self._time_index is None:
            truncated = self._load_indexes()
            if truncated is not None:
                return truncated
        offset_index, time_index = self._indexes()
        entry_offset, start = offset_index.last_entry()
        self._last_index_position = start
        end, next_offset = start, self.base_offset
        for position, header in valid_batches(self._log, self._size, start, self.base_offset):
            if position == start and offset_index.entries and header.last_offset != entry_offset:
                return self.recover()
            self._track(offset_index, time_index, position, header.last_offset, header.max_timestamp)
            end, next_offset = position + header.total_size, header.next_offset
        if end != self._size or not time_index.is_consistent(next_offset):
            return self.recover()
        self._next_offset = next_offset
        return 0

    def on_roll(self) -> None:
        """The segment stops being active: add the final time index entry, write the indexes."""
        _, time_index = self._indexes()
        time_index.maybe_append(self._max_timestamp, self._offset_of_max_timestamp)
        self._flush_indexes(fsync=False)
        if self._txn_index is not None:
            self._txn_index.flush()

    def flush(self) -> None:
        """Make the log and the loaded indexes durable."""
        if self._log_unsynced:
            self._log.fsync()
            self._log_unsynced = False
        self._flush_indexes(fsync=True)

    def close(self) -> None:
        """Write the final time index entry, make everything durable and close the log file."""
        if self._log.closed:
            return
        if self._time_index is not None:
            self._time_index.maybe_append(self._max_timestamp, self._offset_of_max_timestamp)
        self.flush()
        self._log.close()

    def close_without_flush(self) -> None:
        """Close the log file, dropping unwritten index entries (the segment is going away)."""
        self._log.close()

    def index_sizes(self) -> tuple[int, int]:
        """Bytes of the offset index and of the time index (what Kafka's cleaner groups by)."""
        offset_index, time_index = self._indexes()
        return offset_index.entries * offset_index.entry_size, time_index.entries * time_index.entry_size

    def retire(self) -> None:
        """Stop writing the segment's index files and load what reads need from its files (the
        indexes, the transaction index) into memory: a compaction swap is about to rename the
        files on a worker thread while the loop still reads the segment (from memory and the open
        log file) until the cleaned segment takes its place."""
        self._indexes()
        _ = self.txn_index
        self._retired = True

    def rename_for_deletion(self) -> None:
        """Rename the segment's files with the ``.deleted`` suffix, the log first (the caller
        fsyncs the directory).  The log file stays open, so a `FileRegion` handed out before
        keeps reading the same bytes until `delete_files` runs."""
        self._retired = True
        rename_segment_files(self._fs, self._stem, DELETED_SUFFIX)

    def remove_deleted_files(self) -> None:
        """Remove the ``.deleted`` files left by `rename_for_deletion` (those already gone,
        e.g. with their directory, are skipped); the log file is closed already.  Safe on a
        worker thread."""
        remove_segment_files(self._fs, self._stem, DELETED_SUFFIX)

    def delete(self) -> None:
        """Close the log file and remove the segment's three files."""
        self.close_without_flush()
        remove_segment_files(self._fs, self._stem)

    def _flush_indexes(self, *, fsync: bool) -> None:
        if self._retired:
            return
        if self._offset_index is not None:
            self._offset_index.flush(fsync=fsync)
        if self._time_index is not None:
            self._time_index.flush(fsync=fsync)
        if fsync and self._txn_index is not None:
            self._txn_index.flush()

    def _indexes(self) -> tuple[OffsetIndex, TimeIndex]:
        if self._offset_index is None or self._time_index is None:
            self._load_indexes()
        offset_index, time_index = self._offset_index, self._time_index
        if offset_index is None or time_index is None:
            raise CorruptSegmentError(f"indexes of {self.path} could not be loaded")
        return offset_index, time_index

    def _load_indexes(self) -> int | None:
        """Read both index files; `recover` instead when one is missing or inconsistent.

        Returns the bytes recovery truncated, or None when the files were sound.
        """
        offset_index = self._read_index(OffsetIndex, INDEX_SUFFIX)
        time_index = self._read_index(TimeIndex, TIME_INDEX_SUFFIX)
        if (
            offset_index is None
            or time_index is None
            or not offset_index.is_consistent(self._size)
            or not time_index.is_consistent(self._next_offset)
        ):
            problem = "missing" if offset_index is None or time_index is None else "corrupt"
            truncated = self.recover()
            _log.warning(
                "index files of %s were %s: verified the segment, truncated %d bytes, rebuilt the indexes",
                self.path,
                problem,
                truncated,
            )
            return truncated
        self._offset_index, self._time_index = offset_index, time_index
        self._last_index_position = offset_index.last_entry()[1]
        self._max_timestamp, self._offset_of_max_timestamp = time_index.last_entry()
        return None

    def _read_index(self, kind: type[_Index], suffix: str) -> _Index | None:
        path = self._stem + suffix
        if not self._fs.exists(path):
            return None
        index: _Index = kind(self._fs, path, self.base_offset, self._max_index_bytes, read_file(self._fs, path))
        return index

    def batch_headers(self, start_offset: int = 0) -> Iterator[BatchHeader]:
        """The header of every batch whose last offset is >= ``start_offset``, in offset order
        (after recovery every batch is whole); the offset index skips the batches before it."""
        position = 0
        if start_offset > self.base_offset:
            offset_index, _ = self._indexes()
            position = offset_index.lookup(start_offset)[1]
        for _, header in walk(self._log, self.path, self._size, position):
            if header.last_offset >= start_offset:
                yield header


def _epoch(header: BatchHeader) -> int:
    return header.partition_leader_epoch if header.partition_leader_epoch >= 0 else -1
