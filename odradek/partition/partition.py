"""One partition: its log, its producer state, its offsets, its leader epoch, its fetch waiters.

The model is Kafka's ``Partition`` + ``UnifiedLog`` + ``ProducerStateManager``: everything that
must change together when a batch is appended lives here, so an append is one call.

Append (`append`), in order: a batch carrying a producer id (idempotent or transactional) is
checked against the producer state (`odradek.txn.producer_state`); a duplicate answers with the
original batch's offsets and writes nothing; a transactional batch of a producer with no
transaction open here must have been verified with the transaction coordinator by the caller
(else INVALID_TXN_STATE, as Kafka's "Record was not part of an ongoing transaction"); a sequence,
epoch or transaction state error writes nothing; otherwise the log writes the batch (stamped
with this partition's leader epoch), the producer state records it, and every waiting fetch is
woken.

Transaction markers (`append_marker`, written for the transaction coordinator) close a
producer's transaction here; an ABORT that closes one with data goes into the transaction
index of the marker's segment with the last stable offset it leaves (Kafka's ``.txnindex``).
The last stable offset is the first offset of the oldest open transaction (never below the log
start offset), or the high watermark when none is open.

Producer state persistence (Kafka's snapshot files, see `odradek.partition.producer_snapshot`):

- a snapshot named N holds the state of the batches below N; one is written when the log rolls
  a segment (N = the new segment's base offset) and when the log closes cleanly (N = log end),
  unless the log is empty or a snapshot at N exists.  Its bytes are the state at that moment;
  the log's deferred queue writes and fsyncs them on a worker (Kafka's roll does not flush the
  snapshot on its request thread either): a crash before that loses the snapshot only, and the
  next open replays from the previous one;
- opening reads the newest snapshot at or below the log end (a newer one describes data a crash
  lost: deleted; a damaged one: deleted, the next older one is tried), then replays the batch
  headers from there to the log end (`loaded_batches` counts them), reading the record of each
  transaction marker; aborted transactions missing from the transaction index (written through
  but fsynced only at roll and close, so a crash may lose the newest entries) are indexed again.
  Without any snapshot the replay starts at the log start offset: a log written before
  snapshots existed.  The log is never scanned from its start when a snapshot exists;
- when retention or DeleteRecords move the log start offset, producers whose last batch lies
  below it are forgotten and snapshots below it are deleted (the newest is always kept).

Invariants:
- the producer state always describes exactly the batches below the log end offset;
- the high watermark is the log end offset (one replica); the last stable offset is at most
  the high watermark;
- a waiter is called at most once, after the append that woke it wrote its data.

Not thread-safe: the event loop uses a partition; nothing here awaits.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from odradek.partition.producer_snapshot import (
    CorruptSnapshot,
    delete_snapshot,
    encode_snapshot,
    list_snapshots,
    read_snapshot,
    write_snapshot,
)
from odradek.partition.results import AppendResult
from odradek.storage.committed_reads import CommittedRead
from odradek.storage.errors import RecordBatchTooLarge, StorageError
from odradek.storage.filesystem import FileSystem
from odradek.storage.leader_epochs import LeaderEpochCache
from odradek.storage.partition_log import PartitionLog
from odradek.storage.region import FileRegion
from odradek.storage.txn_cleaning import CleaningHints
from odradek.storage.txn_index import AbortedTxn
from odradek.txn.markers import Marker, marker_batch, read_marker
from odradek.txn.producer_state import CompletedTxn, ProducerStateTable, ProducerView, SequenceVerdict, Verdict
from odradek.wire.errors import ErrorCode
from odradek.wire.records.batch import BatchHeader, CorruptBatchError, read_header, verify_batch

__all__ = ["Partition", "Waker"]

log = logging.getLogger("odradek.partition")

Waker = Callable[[], None]

_SEQUENCE_ERRORS = {
    Verdict.INVALID_PRODUCER_EPOCH: ErrorCode.INVALID_PRODUCER_EPOCH,
    Verdict.OUT_OF_ORDER_SEQUENCE: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
    Verdict.INVALID_TXN_STATE: ErrorCode.INVALID_TXN_STATE,
    Verdict.COORDINATOR_FENCED: ErrorCode.TRANSACTION_COORDINATOR_FENCED,
}


def _has_producer(header: BatchHeader) -> bool:
    """A data batch the producer state tracks: idempotent, or transactional (the coordinator's
    transactional offset commits carry no sequence)."""
    return header.producer_id >= 0 and (header.base_sequence >= 0 or header.is_transactional) and not header.is_control


class Partition:
    """The one object that owns a partition's log and the state derived from it."""

    def __init__(self, fs: FileSystem, log: PartitionLog, leader_epoch: int) -> None:
        self._fs = fs
        self._log = log
        self.leader_epoch = leader_epoch
        self.epochs = LeaderEpochCache.load(fs, log.directory)
        """Where each leader epoch starts in this log (`odradek.storage.leader_epochs`)."""
        self.producers = ProducerStateTable()
        """The idempotent producers of this partition (read it; `append` changes it)."""
        self.loaded_batches = 0
        """How many batch headers `open` replayed after the snapshot it loaded."""
        self._last_snapshot = -1
        self._waiters: dict[object, Waker] = {}

    @classmethod
    def open(cls, fs: FileSystem, log: PartitionLog, *, leader_epoch: int) -> Partition:
        """Take ownership of ``log`` as its leader at ``leader_epoch``: record the epoch in the
        leader epoch cache, load the producer state (snapshot + tail) and observe the log."""
        partition = cls(fs, log, leader_epoch)
        partition.epochs.lead(leader_epoch, log.log_start_offset, log.log_end_offset)
        partition._load_producers()
        log.observer = partition
        return partition

    # ------------------------------------------------------------------ state

    @property
    def topic(self) -> str:
        return self._log.topic

    @property
    def index(self) -> int:
        return self._log.partition

    @property
    def log(self) -> PartitionLog:
        return self._log

    @property
    def log_start_offset(self) -> int:
        return self._log.log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self._log.log_end_offset

    @property
    def high_watermark(self) -> int:
        return self._log.high_watermark

    @property
    def last_stable_offset(self) -> int:
        first_unstable = self.producers.first_unstable_offset
        if first_unstable is None:
            return self.high_watermark
        return min(self.high_watermark, max(first_unstable, self.log_start_offset))

    def read_offsets(self) -> tuple[int, int, int, int] | None:
        """(high watermark, last stable offset, log start offset, log end offset), as the properties
        give them, in one call: every fetch of the partition reads all four.  None while the log is
        offline."""
        log = self._log
        if log.offline:
            return None
        high_watermark = log.high_watermark
        log_start = log.log_start_offset
        first_unstable = self.producers.first_unstable_offset
        if first_unstable is None:
            return high_watermark, high_watermark, log_start, log.log_end_offset
        return high_watermark, min(high_watermark, max(first_unstable, log_start)), log_start, log.log_end_offset

    def has_open_transaction(self, producer_id: int, producer_epoch: int) -> bool:
        return self.producers.has_open_transaction(producer_id, producer_epoch)

    def active_producers(self) -> list[ProducerView]:
        return list(self.producers.producers())

    def expire_producers(self, now_ms: int, expiration_ms: int) -> int:
        """Forget producers idle for ``expiration_ms`` (``producer.id.expiration.ms``)."""
        return self.producers.expire(now_ms, expiration_ms)

    @property
    def offline(self) -> bool:
        return self._log.offline

    def cleaning_hints(self) -> CleaningHints:
        """What compaction must keep (each producer's last batch, or the markers holding its
        epoch) and where it must stop (the first unstable offset)."""
        producers = self.producers
        return CleaningHints(producers.last_batch_offsets(), producers.marker_epochs(), producers.first_unstable_offset)

    # ----------------------------------------------------------------- append

    def append(
        self,
        records: bytearray | memoryview,
        now_ms: int,
        header: BatchHeader | None = None,
        *,
        transaction_verified: bool = False,
        verified_v2: bool = False,
    ) -> AppendResult:
        """Append ``records`` (patched in place): producer state check, write, producer state,
        wake-up (module docstring).  ``header`` is the first batch's as ``records`` holds it,
        when the caller read it already; ``transaction_verified``: the caller checked with the transaction coordinator
        that a transactional batch belongs to an open transaction (or verification is off);
        ``verified_v2``: that check added the partition (transactions v2), so a producer new
        here must start at sequence 0.  Kafka's errors come back as values."""
        try:
            if header is None:
                header = read_header(records)
            tracked = header.producer_id >= 0 and _has_producer(header)
            if tracked:
                verdict = self.producers.check(header, verified_v2=verified_v2)
                if verdict.verdict is Verdict.DUPLICATE:
                    verify_batch(records)
                    return self._sequence_refusal(verdict)
                if (
                    header.is_transactional
                    and not transaction_verified
                    and not self.producers.has_open_transaction(header.producer_id, header.producer_epoch)
                ):
                    return self._refused(ErrorCode.INVALID_TXN_STATE, "Record was not part of an ongoing transaction")
                if verdict.verdict is not Verdict.APPEND:
                    verify_batch(records)
                    return self._sequence_refusal(verdict)
            appended = self._log.append(records, leader_epoch=self.leader_epoch, now_ms=now_ms, header=header)
        except CorruptBatchError as exc:
            return self._refused(ErrorCode.CORRUPT_MESSAGE, str(exc))
        except RecordBatchTooLarge as exc:
            return self._refused(ErrorCode.RECORD_LIST_TOO_LARGE, str(exc))
        except StorageError as exc:
            return self._refused(ErrorCode.KAFKA_STORAGE_ERROR, str(exc))
        if tracked:
            timestamp = header.max_timestamp if appended.log_append_time_ms < 0 else appended.log_append_time_ms
            self.producers.record(header, appended.base_offset, timestamp)
        if self._waiters:
            self._wake()
        return AppendResult(
            base_offset=appended.base_offset,
            log_append_time_ms=appended.log_append_time_ms,
            log_start_offset=appended.log_start_offset,
        )

    def append_marker(self, marker: Marker, transaction_version: int, now_ms: int) -> AppendResult:
        """Write a COMMIT or ABORT marker for ``marker.producer_id`` (for the transaction
        coordinator): epoch checks, write, close the producer's transaction, index an abort."""
        verdict = self.producers.check_marker(
            marker.producer_id, marker.producer_epoch, marker.coordinator_epoch, transaction_version
        )
        if verdict.verdict is not Verdict.APPEND:
            return self._sequence_refusal(verdict)
        try:
            appended = self._log.append(
                bytearray(marker_batch(marker, now_ms)), leader_epoch=self.leader_epoch, now_ms=now_ms
            )
        except StorageError as exc:
            return self._refused(ErrorCode.KAFKA_STORAGE_ERROR, str(exc))
        self._close_transaction(marker, appended.base_offset, now_ms)
        if self._waiters:
            self._wake()
        return AppendResult(base_offset=appended.base_offset, log_start_offset=appended.log_start_offset)

    def _close_transaction(self, marker: Marker, offset: int, timestamp: int) -> CompletedTxn | None:
        completed = self.producers.record_marker(
            marker.producer_id, marker.producer_epoch, marker.coordinator_epoch, offset, timestamp, marker.commit
        )
        if completed is not None and completed.aborted:
            stable = self.producers.stable_offset_after(completed)
            self._log.add_aborted_txn(
                AbortedTxn(completed.producer_id, completed.first_offset, completed.last_offset, stable)
            )
        return completed

    def _refused(self, code: ErrorCode, detail: str) -> AppendResult:
        """A refusal of the whole batch: Kafka answers with the code and no message (checked
        against Kafka 4.3.1), so the detail goes to the debug log only."""
        log.debug("append to %s-%d refused with %s: %s", self.topic, self.index, code.name, detail)
        return AppendResult(code)

    def _sequence_refusal(self, verdict: SequenceVerdict) -> AppendResult:
        """As Kafka 4.3.1 answers (compat-tests/probes/idempotence.py): a duplicate gets the
        original offsets and, as log append time, the original batch's max timestamp; a sequence
        or epoch error gets the log start offset and no message."""
        start = self.log_start_offset
        if verdict.duplicate_of is not None:
            original = verdict.duplicate_of
            return AppendResult(
                base_offset=original.first_offset, log_append_time_ms=original.timestamp, log_start_offset=start
            )
        code = _SEQUENCE_ERRORS[verdict.verdict]
        log.debug("append to %s-%d refused with %s: %s", self.topic, self.index, code.name, verdict.message)
        return AppendResult(code, log_start_offset=start)

    # ------------------------------------------------------------------- read

    def read(self, offset: int, max_bytes: int, *, min_one_batch: bool, whole_batches: bool) -> FileRegion | None:
        """`PartitionLog.read`: raises `OffsetOutOfRange` or `StorageError`."""
        return self._log.read(offset, max_bytes, min_one_batch=min_one_batch, whole_batches=whole_batches)

    def read_committed(self, offset: int, max_bytes: int, *, min_one_batch: bool) -> CommittedRead:
        """`PartitionLog.read_committed` up to this partition's last stable offset."""
        return self._log.read_committed(
            offset, max_bytes, last_stable_offset=self.last_stable_offset, min_one_batch=min_one_batch
        )

    # ---------------------------------------------------------------- waiters

    def watch(self, wake: Waker) -> Callable[[], None]:
        """Call ``wake()`` once, after the next append; returns the function that cancels it."""
        token = object()
        self._waiters[token] = wake

        def cancel() -> None:
            self._waiters.pop(token, None)

        return cancel

    def wake_waiters(self) -> None:
        """Wake every waiting fetch now (the partition's log is being replaced)."""
        self._wake()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, {}
        for wake in waiters.values():
            wake()

    # ------------------------------------------------ producer state snapshots

    def _load_producers(self) -> None:
        directory, end = self._log.directory, self._log.log_end_offset
        start = self._log.log_start_offset
        snapshots = list_snapshots(self._fs, directory)
        for offset in reversed(snapshots):
            if offset > end:
                log.info("deleting producer snapshot %d of %s: past the log end %d", offset, directory, end)
                delete_snapshot(self._fs, directory, offset)
                continue
            try:
                rows = read_snapshot(self._fs, directory, offset)
            except (CorruptSnapshot, OSError) as exc:
                log.warning("deleting producer snapshot %d of %s: %s", offset, directory, exc)
                delete_snapshot(self._fs, directory, offset)
                continue
            for row in rows:
                self.producers.restore(row)
            self._last_snapshot = offset
            start = max(start, offset)
            break
        for header in self._log.batch_headers(start):
            self.loaded_batches += 1
            if _has_producer(header):
                self.producers.record(header, header.base_offset, header.max_timestamp)
            elif header.is_control and header.is_transactional:
                self._replay_marker(header)
        self.producers.truncate_head(self._log.log_start_offset)

    def _replay_marker(self, header: BatchHeader) -> None:
        region = self._log.read(header.base_offset, header.total_size, min_one_batch=True, whole_batches=True)
        if region is None:
            return
        try:
            marker = read_marker(region.read()[: header.total_size])
        except CorruptBatchError as exc:
            log.warning("skipping an unreadable marker at %d of %s: %s", header.base_offset, self._log.directory, exc)
            return
        if marker is not None:
            self._close_transaction(marker, header.base_offset, header.max_timestamp)

    def take_snapshot(self) -> None:
        """Take the snapshot at the log end offset; nothing when one is already there or the
        log is empty (its state is empty and its replay free).  Its bytes are the state now;
        the log's deferred queue writes them (`PartitionLog.defer_sync`), off the loop."""
        offset = self._log.log_end_offset
        if offset in (self._last_snapshot, self._log.log_start_offset):
            return
        fs, directory, data = self._fs, self._log.directory, encode_snapshot(self.producers.entries())
        self._log.defer_sync(lambda: write_snapshot(fs, directory, offset, data))
        self._last_snapshot = offset

    def _delete_snapshots_below(self, offset: int) -> None:
        """Queue the deletion of the snapshots below ``offset`` but the newest, after the
        snapshot writes queued before it."""
        fs, directory = self._fs, self._log.directory

        def delete() -> None:
            for old in list_snapshots(fs, directory)[:-1]:
                if old < offset:
                    delete_snapshot(fs, directory, old)

        self._log.defer_sync(delete)

    # --------------------------------------------- storage.LogObserver hooks

    def rolled(self, base_offset: int) -> None:
        self.take_snapshot()

    def log_start_moved(self, log_start_offset: int) -> None:
        self.epochs.truncate_from_start(log_start_offset)
        self._log.defer_sync(self.epochs.sync)
        self.producers.truncate_head(log_start_offset)
        self._delete_snapshots_below(log_start_offset)

    def closing(self) -> None:
        self.take_snapshot()
