"""The log of one topic-partition: the directory ``<topic>-<partition>/`` and its segments.

Directory content, as Kafka lays it out: segments and ``partition.metadata`` (see
`odradek.storage.log_creation`).

Append (the produce hot path) is all-or-nothing and costs one write: every batch of the
buffer is verified and stamped in place (`odradek.storage.batch_stamping`), then the whole
buffer goes to the active segment in a single write.  The segment rolls first
when the buffer would push it past ``segment.bytes``, when it is older than ``segment.ms``,
when an index is full, or when an offset would leave the int32 range of its base offset.

Opening (`open`) settles what a crash left and recovers the segments: see
`odradek.storage.log_loader`.

Durability follows ``flush.messages`` and ``flush.ms``: an append that leaves at least
``flush.messages`` messages unflushed, or comes ``flush.ms`` after the last flush, fsyncs
the log before returning (Kafka's defaults leave it all to the page cache).

The log start offset moves up only: by retention (`delete_oldest_segments`, whole segments)
and by DeleteRecords (`increment_log_start_offset`, anywhere up to the high watermark).
Persisting it is the log manager's job (its checkpoint file).

Removing segments (retention, DeleteRecords-driven retention, a compaction swap) is Kafka's
asynchronous deletion (`odradek.storage.pending_deletions`).

Invariants:
- segments are sorted by base offset, the last one is active (the only one appended to);
- first segment's base offset <= log start offset <= high watermark == log end offset (a
  single replica: no follower lags);
- append listeners run after the data is written; an exception in one is logged and does
  not undo the append;
- the `observer` (the partition owning the log) hears of every roll, log start offset move and
  clean close, after the change (see `odradek.storage.log_observer`).

Not thread-safe: one thread (the event loop) uses a log; `flush` may be slow (fsync).  The
exceptions are the work on the log's files that runs off the loop, the deferred durability jobs
(`defer_sync`) and a compaction swap's renames (`begin_replacement`), whose rules live in
`odradek.storage.log_background`.
"""

from __future__ import annotations

import logging
import uuid
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence

from odradek.clock import Clock
from odradek.storage.batch_stamping import stamp_batches, stamp_single, verify_batches
from odradek.storage.committed_reads import CommittedRead, add_aborted_txn, collect_aborted_txns, read_committed
from odradek.storage.errors import OffsetOutOfRange, RecordBatchTooLarge, StorageError
from odradek.storage.filesystem import FileSystem
from odradek.storage.index_file import INT32_MAX
from odradek.storage.log_background import LogBackgroundWork, closed_run_of
from odradek.storage.log_config import LONG_MAX, LogConfig
from odradek.storage.log_creation import create_log_directory
from odradek.storage.log_loader import load_segments
from odradek.storage.log_observer import AppendInfo, LogObserver
from odradek.storage.partition_metadata import write_partition_metadata
from odradek.storage.pending_deletions import PendingDeletions
from odradek.storage.region import FileRegion
from odradek.storage.segment import AppendedBatch, LogSegment, TimestampOffset
from odradek.storage.segment_reads import offset_for_timestamp, read_batches
from odradek.storage.time_index import NO_TIMESTAMP
from odradek.storage.txn_index import AbortedTxn
from odradek.wire.records.batch import (
    LOG_OVERHEAD,
    BatchHeader,
)

__all__ = ["AppendInfo", "AppendListener", "PartitionLog"]

_log = logging.getLogger(__name__)

AppendListener = Callable[["PartitionLog", AppendInfo], None]


class PartitionLog:
    """The segments of one partition, appended to at the end and read anywhere."""

    def __init__(
        self,
        fs: FileSystem,
        directory: str,
        topic: str,
        partition: int,
        topic_id: uuid.UUID | None,
        config: LogConfig,
        segments: list[LogSegment],
        listeners: list[AppendListener] | None,
    ) -> None:
        self._fs = fs
        self.directory = directory
        self.topic = topic
        self.partition = partition
        self.topic_id = topic_id
        self._config = config
        self._log_append_time = config.log_append_time
        self._flush_policy = config.flush_messages != LONG_MAX or config.flush_ms != LONG_MAX
        self._segments = segments
        self._base_offsets = [segment.base_offset for segment in segments]
        self._log_start_offset = segments[0].base_offset
        self._log_end_offset = segments[-1].next_offset
        self._recovery_point = self._log_end_offset
        self._last_flush_ms: int | None = None
        self._offline: str | None = None
        self.listeners: list[AppendListener] = listeners if listeners is not None else []
        """Called after every append; the list may be shared by every log of a broker."""
        self.recovered_bytes = 0
        """Bytes recovery truncated when the log was opened."""
        self.recovered_segments = 0
        """How many segments the last open scanned batch by batch (0 after a clean shutdown)."""
        self._background = LogBackgroundWork(self, fs, directory, self._go_offline)
        self.swap_lock = self._background.swap_lock
        """Held by a swap's renames on their worker thread; `close` and `discard` wait for it."""
        self.deletions = PendingDeletions()
        """Removed segments whose files wait for ``file.delete.delay.ms``."""
        self.deletions.remove_files = self.defer_sync
        self._closed = False
        self.observer: LogObserver | None = None
        """Told of rolls, log start offset moves and clean closes (the partition owning the log)."""

    @classmethod
    def create(
        cls,
        fs: FileSystem,
        directory: str,
        topic: str,
        partition: int,
        topic_id: uuid.UUID,
        config: LogConfig,
        clock: Clock,
        *,
        listeners: list[AppendListener] | None = None,
        durable: bool = True,
    ) -> PartitionLog:
        """A new empty log in a new directory, with its partition.metadata.

        ``durable=False`` skips the fsyncs (thousands of partitions are created in one request);
        `sync_creation` makes the directory durable later, and `flush` does so first.
        """
        segment = create_log_directory(fs, directory, topic_id, config, clock.time_ms(), durable=durable)
        log = cls(fs, directory, topic, partition, topic_id, config, [segment], listeners)
        log._background.creation_unsynced = not durable
        return log

    def sync_creation(self, *, parent: bool = True) -> None:
        """Make a non-durable creation durable (`LogBackgroundWork.sync_creation`, thread-safe)."""
        self._background.sync_creation(parent=parent)

    def adopt_topic_id(self, topic_id: uuid.UUID) -> None:
        """Give a log whose partition.metadata a crash emptied its topic id back."""
        write_partition_metadata(self._fs, self.directory, topic_id, durable=True)
        self.topic_id = topic_id

    @classmethod
    def open(
        cls,
        fs: FileSystem,
        directory: str,
        topic: str,
        partition: int,
        config: LogConfig,
        clock: Clock,
        *,
        clean_shutdown: bool,
        log_start_offset: int = 0,
        recovery_point: int = 0,
        listeners: list[AppendListener] | None = None,
    ) -> PartitionLog:
        """Load an existing log directory, recovering what a crash may have left behind.

        ``recovery_point`` is the checkpointed offset below which everything was flushed:
        after a crash, only the segments from the one holding it onwards are scanned.

        ``log_start_offset`` is the checkpointed one; the log starts at the larger of it and
        the first segment's base offset.  When it lies past the recovered log end (segment
        files lost), every segment is deleted and the log restarts empty there, as Kafka does.
        """
        loaded = load_segments(
            fs,
            directory,
            config,
            clock.time_ms(),
            clean_shutdown=clean_shutdown,
            log_start_offset=log_start_offset,
            recovery_point=recovery_point,
        )
        log = cls(fs, directory, topic, partition, loaded.topic_id, config, loaded.segments, listeners)
        log._log_start_offset = loaded.log_start_offset
        log.recovered_bytes = loaded.recovered_bytes
        log.recovered_segments = loaded.recovered_segments
        return log

    @property
    def config(self) -> LogConfig:
        return self._config

    def update_config(self, config: LogConfig) -> None:
        """New settings; index settings apply to segments created from now on."""
        self._config = config
        self._log_append_time = config.log_append_time
        self._flush_policy = config.flush_messages != LONG_MAX or config.flush_ms != LONG_MAX

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self._log_end_offset

    @property
    def high_watermark(self) -> int:
        return self._log_end_offset

    @property
    def size_bytes(self) -> int:
        return sum(segment.size for segment in self._segments)

    @property
    def segments(self) -> tuple[LogSegment, ...]:
        return tuple(self._segments)

    @property
    def oldest_base_offset(self) -> int:
        """The base offset of the oldest segment (a log always holds at least one)."""
        return self._base_offsets[0]

    def batch_headers(self, start_offset: int = 0) -> Iterator[BatchHeader]:
        """Every batch header from the batch holding ``start_offset`` (or the first after it) to
        the end, without reading any records; the segments before it are not read at all."""
        first = max(bisect_right(self._base_offsets, start_offset) - 1, 0)
        for segment in self._segments[first:]:
            yield from segment.batch_headers(start_offset)

    def _notify(self, tell: Callable[[LogObserver], None]) -> None:
        if self.observer is None:
            return
        try:
            tell(self.observer)
        except Exception:
            _log.exception("log observer failed for %s-%d", self.topic, self.partition)

    def append(
        self,
        records: bytearray | memoryview,
        *,
        leader_epoch: int,
        now_ms: int,
        log_append_time: bool = False,
        header: BatchHeader | None = None,
    ) -> AppendInfo:
        """Verify, assign offsets to and write the batches of ``records`` (patched in place).

        ``log_append_time`` forces log append time; the topic's ``message.timestamp.type``
        can also ask for it.  ``header``: the first batch's header as ``records`` holds it now,
        when the caller read it already (it is not read again).  Raises `CorruptBatchError`
        (nothing written) when any batch is invalid or ``records`` is empty,
        `RecordBatchTooLarge` when ``records`` exceeds ``segment.bytes``.
        """
        if self._offline is not None:
            raise StorageError(self._offline)
        if header is not None and header.batch_length + LOG_OVERHEAD == len(records) and not log_append_time:
            return self._append_one(records, header, leader_epoch, now_ms)
        size = len(records)
        headers = verify_batches(records)
        if size > self._config.segment_bytes:
            raise RecordBatchTooLarge(f"{size} bytes of batches exceed the segment size {self._config.segment_bytes}")
        append_time = now_ms if log_append_time or self._log_append_time else NO_TIMESTAMP
        first_offset = self._log_end_offset
        batches, offset, max_timestamp = stamp_batches(records, headers, first_offset, leader_epoch, append_time)
        return self._write(records, size, batches, first_offset, offset - 1, append_time, max_timestamp, now_ms)

    def _append_one(
        self, records: bytearray | memoryview, header: BatchHeader, leader_epoch: int, now_ms: int
    ) -> AppendInfo:
        """`append` of a buffer holding exactly the one batch ``header`` describes (a client's
        produce): the same checks, patches, roll, write and flush, the header read once."""
        size = header.batch_length + LOG_OVERHEAD
        config = self._config
        if size > config.segment_bytes:
            verify_batches(records)  # a corrupt batch is refused as such first
            raise RecordBatchTooLarge(f"{size} bytes of batches exceed the segment size {config.segment_bytes}")
        first_offset = self._log_end_offset
        last_offset = first_offset + header.last_offset_delta
        append_time = now_ms if self._log_append_time else NO_TIMESTAMP
        max_timestamp = stamp_single(records, header, first_offset, leader_epoch, append_time)
        return self._write(records, size, None, first_offset, last_offset, append_time, max_timestamp, now_ms)

    def _write(
        self,
        records: bytearray | memoryview,
        size: int,
        batches: list[AppendedBatch] | None,
        first_offset: int,
        last_offset: int,
        append_time: int,
        max_timestamp: int,
        now_ms: int,
    ) -> AppendInfo:
        """Write stamped batches (exactly one when ``batches`` is None) after a roll if one is
        due, then flush if due and tell the listeners."""
        segment = self._maybe_roll(size, max_timestamp, last_offset, now_ms)
        try:
            if batches is None:
                segment.append_batch(records, last_offset, max_timestamp)
            else:
                segment.append(records, batches)
        except StorageError as exc:
            if segment.torn:
                self._go_offline(f"{self.directory} is offline after a write it could not undo: {exc}")
            raise
        self._log_end_offset = last_offset + 1
        if self._flush_policy or self._last_flush_ms is None:
            self._maybe_flush(now_ms)
        info = AppendInfo(first_offset, last_offset, append_time, self._log_start_offset)
        for listener in self.listeners:
            try:
                listener(self, info)
            except Exception:
                _log.exception("append listener failed for %s-%d", self.topic, self.partition)
        return info

    def _maybe_flush(self, now_ms: int) -> None:
        """Kafka's ``flush.messages`` / ``flush.ms``: fsync when the append crossed either."""
        config = self._config
        if self._last_flush_ms is None:
            self._last_flush_ms = now_ms
        if (
            self._log_end_offset - self._recovery_point >= config.flush_messages
            or now_ms - self._last_flush_ms >= config.flush_ms
        ):
            self.flush()
            self._last_flush_ms = now_ms

    def _maybe_roll(self, size: int, max_timestamp: int, last_offset: int, now_ms: int) -> LogSegment:
        """The segment to append ``size`` bytes to: the active one, or a new one when it must roll
        (cheapest checks first).  Raises `StorageError` when rolling fails."""
        segment = self._segments[-1]
        config = self._config
        if segment.size > 0 and (
            segment.size > config.segment_bytes - size
            or last_offset - segment.base_offset > INT32_MAX
            or segment.time_waited_for_roll(now_ms, max_timestamp) > config.segment_ms
            or segment.indexes_full
        ):
            try:
                segment = self.roll(now_ms)
            except OSError as exc:
                raise StorageError(f"{self.directory}: cannot roll a new segment: {exc}") from exc
        return segment

    def roll(self, now_ms: int) -> LogSegment:
        """Close the active segment and start a new one at the log end (nothing if it is empty)."""
        segment = self._segments[-1]
        if segment.size == 0:
            return segment
        config = self._config
        segment.on_roll()
        segment = LogSegment.create(
            self._fs,
            self.directory,
            self._log_end_offset,
            index_interval_bytes=config.index_interval_bytes,
            max_index_bytes=config.segment_index_bytes,
            now_ms=now_ms,
        )
        self._segments.append(segment)
        self._base_offsets.append(segment.base_offset)
        self._background.sync_new_entries_later()
        self._notify(lambda observer: observer.rolled(segment.base_offset))
        return segment

    @property
    def on_sync_deferred(self) -> Callable[[PartitionLog], None] | None:
        """Arranges a `run_deferred` on a worker (`LogBackgroundWork.on_sync_deferred`)."""
        return self._background.on_sync_deferred

    @on_sync_deferred.setter
    def on_sync_deferred(self, arrange: Callable[[PartitionLog], None] | None) -> None:
        self._background.on_sync_deferred = arrange

    def defer_sync(self, job: Callable[[], None]) -> None:
        """Queue ``job`` for a worker (`odradek.storage.log_background` says what a job may do)."""
        self._background.defer_sync(job)

    def run_deferred(self) -> None:
        """Run the queued jobs in order (safe on a worker thread; see `LogBackgroundWork`)."""
        self._background.run_deferred()

    def _go_offline(self, message: str) -> None:
        self._offline = message
        _log.error("%s", message)

    def holds(self, segments: Sequence[LogSegment]) -> bool:
        """Whether ``segments`` are still consecutive closed segments of this log (the cleaner
        checks that nothing removed or replaced them while it worked)."""
        return self._offline is None and not self._closed and closed_run_of(self._segments, segments)

    def begin_replacement(self, old: Sequence[LogSegment]) -> None:
        """Reserve ``old`` (see `holds`) for a compaction swap whose renames run off the loop, until
        `finish_replacement` or `fail_replacement` (`odradek.storage.log_background`)."""
        self._background.begin_replacement(old, held=self.holds(old))

    def finish_replacement(self, new: LogSegment, now_ms: int) -> None:
        """Put ``new`` (opened on the swapped-in files) in place of the reserved segments, whose
        files (already renamed ``.deleted``, durably) are deleted after ``file.delete.delay.ms``."""
        old = self._background.end_replacement()
        index = self._segments.index(old[0])
        self._segments[index : index + len(old)] = [new]
        self._base_offsets[index : index + len(old)] = [new.base_offset]
        self.deletions.schedule(old, now_ms + self._config.file_delete_delay_ms)

    def fail_replacement(self, exc: OSError) -> StorageError:
        """A swap's renames failed part way: take the log offline; return the error to raise."""
        return self._background.fail_replacement(exc)

    def end_replacement(self) -> None:
        """Release the reservation of a swap that will not finish (its log was closed meanwhile)."""
        self._background.end_replacement()

    def increment_log_start_offset(self, offset: int) -> bool:
        """Move the log start offset up to ``offset`` (DeleteRecords); return whether it moved.

        Raises `OffsetOutOfRange` above the high watermark.  Segments below it stay on disk
        until the next retention pass deletes them, as in Kafka.
        """
        if offset > self.high_watermark:
            raise OffsetOutOfRange(offset, self._log_start_offset, self.high_watermark)
        if offset <= self._log_start_offset:
            return False
        self._log_start_offset = offset
        self._notify(lambda observer: observer.log_start_moved(offset))
        return True

    def delete_oldest_segments(self, count: int, now_ms: int) -> int:
        """Remove the ``count`` oldest segments and start the log at the next one's base offset;
        their files are deleted ``file.delete.delay.ms`` after ``now_ms``.

        Deleting every segment rolls first, so the log keeps an (empty) active segment and the
        segment being deleted is never the one appended to.  The renames are made durable by the
        deferred queue (`defer_sync`), off the loop, as Kafka's retention runs off its request
        threads.  Returns how many were deleted.
        """
        count = min(count, len(self._segments))
        replacing = self._background.replacing
        if replacing:  # a swap in progress holds these; a later pass deletes them
            count = min(count, self._segments.index(replacing[0]))
        if count <= 0:
            return 0
        if count == len(self._segments):
            self.roll(now_ms)
            if len(self._segments) == count:
                count -= 1
                if count == 0:
                    return 0
        doomed = self._segments[:count]
        del self._segments[:count]
        del self._base_offsets[:count]
        moved = self._segments[0].base_offset > self._log_start_offset
        self._log_start_offset = max(self._log_start_offset, self._segments[0].base_offset)
        if moved:
            start = self._log_start_offset
            self._notify(lambda observer: observer.log_start_moved(start))
        for segment in doomed:
            segment.rename_for_deletion()
        self._background.sync_new_entries_later()
        self.deletions.schedule(doomed, now_ms + self._config.file_delete_delay_ms)
        return count

    def read(
        self, offset: int, max_bytes: int, *, min_one_batch: bool = True, whole_batches: bool = True
    ) -> FileRegion | None:
        """Batches from the one holding ``offset``, within one segment.

        At most ``max_bytes``, except that the first batch is returned whole even when larger
        if ``min_one_batch`` (Kafka's rule for the first partition of a fetch); without it an
        oversized first batch gives None (Kafka answers such a partition with no records).
        ``whole_batches=False`` is Kafka's Fetch slice: it may end inside the last batch (see
        `LogSegment.read`).  None at the log end offset.  Raises `OffsetOutOfRange` below the
        log start offset or above the log end offset.
        """
        if offset < self._log_start_offset or offset > self._log_end_offset:
            raise OffsetOutOfRange(offset, self._log_start_offset, self._log_end_offset)
        if offset == self._log_end_offset:
            return None
        return read_batches(
            self._segments,
            self._base_offsets,
            offset,
            max_bytes,
            min_one_batch=min_one_batch,
            whole_batches=whole_batches,
        )

    def read_committed(
        self, offset: int, max_bytes: int, *, last_stable_offset: int, min_one_batch: bool
    ) -> CommittedRead:
        """A read_committed read (`odradek.storage.committed_reads`): up to the last stable
        offset, with the aborted transactions overlapping it.  Raises `OffsetOutOfRange` as `read`."""
        if offset < self._log_start_offset or offset > self._log_end_offset:
            raise OffsetOutOfRange(offset, self._log_start_offset, self._log_end_offset)
        return read_committed(
            self._segments,
            self._base_offsets,
            self._log_end_offset,
            offset,
            max_bytes,
            last_stable_offset=last_stable_offset,
            min_one_batch=min_one_batch,
        )

    def aborted_txns(self, start_offset: int, upper_bound: int) -> tuple[AbortedTxn, ...]:
        """The aborted transactions overlapping [``start_offset``, ``upper_bound``)."""
        first = max(bisect_right(self._base_offsets, start_offset) - 1, 0)
        return collect_aborted_txns(self._segments, first, start_offset, upper_bound)

    def add_aborted_txn(self, txn: AbortedTxn) -> bool:
        """Index an aborted transaction in the segment holding its marker; False if already there."""
        return add_aborted_txn(self._segments, self._base_offsets, txn)

    def offset_for_timestamp(self, timestamp: int) -> TimestampOffset | None:
        """The first record (from the log start) whose timestamp is >= ``timestamp``, if any."""
        return offset_for_timestamp(self._segments, timestamp, self._log_start_offset)

    def max_timestamp(self) -> TimestampOffset | None:
        """The first record carrying the largest timestamp of the log (ListOffsets MAX_TIMESTAMP)."""
        if self._log_end_offset == self._log_start_offset:
            return None
        return max(self._segments, key=lambda s: s.max_timestamp()[0]).find_max_timestamp()

    @property
    def recovery_point(self) -> int:
        """Every offset below this is known to be on disk (flushed): a crash loses none of it."""
        return self._recovery_point

    def flush(self) -> None:
        """Make every appended byte durable.

        A failed fsync takes the log offline (every later append raises `StorageError`): after
        one, the kernel may have dropped the dirty pages, so nothing written since the last
        good fsync can be trusted until recovery at the next start, as Kafka's log dir failure.
        """
        if self._offline is not None:
            raise StorageError(self._offline)
        try:
            self._background.sync_creation(parent=True)
            self._background.sync_new_entries()
            for segment in self._segments:
                segment.flush()
        except OSError as exc:
            message = f"{self.directory} is offline after a failed flush: {exc}"
            self._go_offline(message)
            raise StorageError(message) from exc
        self._recovery_point = self._log_end_offset

    @property
    def offline(self) -> bool:
        """Whether a failed flush, or a failed write that could not be undone, took the log
        offline: appends raise `StorageError` until the log is reopened (and recovered)."""
        return self._offline is not None

    def close(self) -> None:
        """Run the deferred jobs here (a job queued while closing wakes no worker), then flush
        and close every segment (an offline log is closed without flushing); the log
        must not be used afterwards.  Files of removed segments stay until the next open."""
        if self._offline is not None:
            self.discard()
            return
        self._background.wait_for_swap()
        self.on_sync_deferred = None
        self._notify(lambda observer: observer.closing())
        self.run_deferred()
        for segment in self._segments:
            segment.close()
        self.deletions.close_all()
        self._closed = True
        self._recovery_point = self._log_end_offset

    def discard(self) -> None:
        """Close every segment file without flushing: the caller is about to delete the log."""
        self._background.wait_for_swap()
        self._background.drop_deferred()
        for segment in self._segments:
            segment.close_without_flush()
        self.deletions.close_all()
        self._closed = True
