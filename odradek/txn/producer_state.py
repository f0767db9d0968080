"""Idempotent and transactional producers of one partition (Kafka's ProducerStateManager).

Kafka keeps, per (partition, producer id): the producer epoch, the last five batches (first and
last sequence, offsets, timestamp), the epoch of the transaction coordinator that wrote the
producer's last marker, the first offset of its open transaction on this partition, and the
timestamp of its last write.  A batch carrying a producer id is checked before it is appended
(`check`), in Kafka's order:

- an epoch older than the one on record -> INVALID_PRODUCER_EPOCH;
- the same sequence range as one of the last five batches of the same epoch -> a duplicate:
  nothing is written, the original offsets are returned with no error;
- a new epoch must start at sequence 0 (unless the producer id was never seen here);
  otherwise the first sequence must follow the last one (wrapping from 2**31-1 to 0), else
  OUT_OF_ORDER_SEQUENCE_NUMBER.  Batches without a sequence (the coordinator's transactional
  offset commits) skip the sequence checks;
- a non-transactional batch while the producer has a transaction open here -> INVALID_TXN_STATE.

A transaction marker (`check_marker`) must not carry an older producer epoch (under transactions
v2 it must carry a newer one, unless it repeats the marker that already closed the transaction)
-> INVALID_PRODUCER_EPOCH, nor an older coordinator epoch -> TRANSACTION_COORDINATOR_FENCED.

A transactional batch opens the producer's transaction on this partition at its first offset;
the marker closes it (`record_marker`, which reports a non-empty transaction as a
`CompletedTxn`).  The first offset of the oldest open transaction is the first unstable offset:
the partition's last stable offset never passes it.

The table is pure state: the partition owning it (`odradek.partition.partition`) checks and
records each batch inside its append, persists the table in snapshot files, and restores it at
start-up from the newest snapshot (`restore`) plus the batches after it (`record`,
`record_marker`).

Invariants: per producer, the cached batches all carry the producer's current epoch, in offset
order, at most `MAX_CACHED_BATCHES`; a producer is in the open-transaction map exactly when its
``txn_first_offset`` is >= 0; `expire` never removes a producer with an open transaction.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from odradek.wire.records.batch import BatchHeader

__all__ = [
    "BatchMetadata",
    "CompletedTxn",
    "ProducerSnapshotRow",
    "ProducerStateTable",
    "ProducerView",
    "SequenceVerdict",
    "Verdict",
]

MAX_CACHED_BATCHES = 5
_INT32_MAX = 2**31 - 1
NO_EPOCH = -1
NO_OFFSET = -1


class Verdict(Enum):
    APPEND = "append"
    DUPLICATE = "duplicate"
    INVALID_PRODUCER_EPOCH = "invalid producer epoch"
    OUT_OF_ORDER_SEQUENCE = "out of order sequence"
    INVALID_TXN_STATE = "invalid transaction state"
    COORDINATOR_FENCED = "transaction coordinator fenced"


@dataclass(frozen=True, slots=True)
class BatchMetadata:
    first_sequence: int
    last_sequence: int
    first_offset: int
    last_offset: int
    timestamp: int


@dataclass(frozen=True, slots=True)
class SequenceVerdict:
    verdict: Verdict
    message: str = ""
    duplicate_of: BatchMetadata | None = None


@dataclass(frozen=True, slots=True)
class CompletedTxn:
    """A transaction a marker closed on this partition: its data spans [first, last) and the
    marker is at ``last_offset``."""

    producer_id: int
    first_offset: int
    last_offset: int
    aborted: bool


@dataclass(frozen=True, slots=True)
class ProducerView:
    """One producer as DescribeProducers reports it."""

    producer_id: int
    epoch: int
    last_sequence: int
    last_timestamp: int
    coordinator_epoch: int
    txn_first_offset: int


@dataclass(frozen=True, slots=True)
class ProducerSnapshotRow:
    """One row of a snapshot: a cached batch of a producer (``batch`` None for a producer known
    without one) and the producer's transactional fields.  ``last_timestamp`` is the batch's
    timestamp, except in a producer's last row, where it is the producer's last write."""

    producer_id: int
    epoch: int
    batch: BatchMetadata | None
    coordinator_epoch: int = -1
    txn_first_offset: int = NO_OFFSET
    last_timestamp: int = -1


@dataclass(slots=True)
class _ProducerEntry:
    epoch: int = NO_EPOCH
    batches: deque[BatchMetadata] = field(default_factory=lambda: deque(maxlen=MAX_CACHED_BATCHES))
    coordinator_epoch: int = -1
    txn_first_offset: int = NO_OFFSET
    last_timestamp: int = -1

    @property
    def last_sequence(self) -> int | None:
        return self.batches[-1].last_sequence if self.batches else None

    def set_epoch(self, epoch: int) -> None:
        if epoch != self.epoch:
            self.epoch = epoch
            self.batches.clear()


def _last_sequence(header: BatchHeader) -> int:
    return (header.base_sequence + header.last_offset_delta) % (_INT32_MAX + 1)


def _follows(last: int, first: int) -> bool:
    return first == (0 if last == _INT32_MAX else last + 1)


class ProducerStateTable:
    """The producer state of one partition."""

    def __init__(self) -> None:
        self._producers: dict[int, _ProducerEntry] = {}
        self._open: dict[int, int] = {}
        """Producer id -> first offset of its open transaction here."""
        self._first_unstable: int | None = None

    def __len__(self) -> int:
        return len(self._producers)

    # ------------------------------------------------------------------ checks

    def check(self, header: BatchHeader, *, verified_v2: bool = False) -> SequenceVerdict:
        """Decide what to do with a data batch carrying a producer id before appending it.
        ``verified_v2``: transactions v2 verification just added the partition to the
        transaction; a producer with no batch here must then start at sequence 0."""
        entry = self._producers.get(header.producer_id)
        if verified_v2 and header.base_sequence != 0 and (entry is None or not entry.batches):
            return SequenceVerdict(
                Verdict.OUT_OF_ORDER_SEQUENCE,
                f"Invalid sequence number for producer {header.producer_id}: {header.base_sequence} (incoming "
                "seq. number). Expected sequence 0 for transactions v2 idempotent producer with no existing state.",
            )
        if entry is None:
            return SequenceVerdict(Verdict.APPEND)
        epoch = header.producer_epoch
        if epoch < entry.epoch:
            return SequenceVerdict(
                Verdict.INVALID_PRODUCER_EPOCH,
                f"Epoch of producer {header.producer_id} is {epoch}, which is smaller than the last seen "
                f"epoch {entry.epoch}",
            )
        if header.base_sequence >= 0:
            refused = self._check_sequence(header, entry)
            if refused is not None:
                return refused
        if entry.txn_first_offset >= 0 and not header.is_transactional:
            return SequenceVerdict(
                Verdict.INVALID_TXN_STATE, f"Expected transactional write from producer {header.producer_id}"
            )
        return SequenceVerdict(Verdict.APPEND)

    @staticmethod
    def _check_sequence(header: BatchHeader, entry: _ProducerEntry) -> SequenceVerdict | None:
        epoch, first, last = header.producer_epoch, header.base_sequence, _last_sequence(header)
        if epoch != entry.epoch:
            if first != 0 and entry.epoch != NO_EPOCH:
                return SequenceVerdict(
                    Verdict.OUT_OF_ORDER_SEQUENCE,
                    f"Invalid sequence number for new epoch of producer {header.producer_id}: "
                    f"{epoch} (request epoch), {first} (seq. number), {entry.epoch} (current producer epoch)",
                )
            return None
        for cached in entry.batches:
            if cached.first_sequence == first and cached.last_sequence == last:
                return SequenceVerdict(Verdict.DUPLICATE, duplicate_of=cached)
        current = entry.last_sequence
        if (current is None and first != 0) or (current is not None and not _follows(current, first)):
            return SequenceVerdict(
                Verdict.OUT_OF_ORDER_SEQUENCE,
                f"Out of order sequence number for producer {header.producer_id}: {first} "
                f"(incoming seq. number), {current} (current end sequence number)",
            )
        return None

    def check_marker(
        self, producer_id: int, epoch: int, coordinator_epoch: int, transaction_version: int
    ) -> SequenceVerdict:
        """Decide whether a COMMIT/ABORT marker may be written for the producer."""
        entry = self._producers.get(producer_id)
        if entry is None:
            return SequenceVerdict(Verdict.APPEND)
        v2 = transaction_version >= 2
        stale = epoch <= entry.epoch if v2 else epoch < entry.epoch
        if stale and not (v2 and epoch == entry.epoch and entry.txn_first_offset < 0):
            return SequenceVerdict(
                Verdict.INVALID_PRODUCER_EPOCH,
                f"Epoch of producer {producer_id} is {epoch}, which is {'<=' if v2 else '<'} the last seen "
                f"epoch {entry.epoch} (TV{transaction_version})",
            )
        if entry.coordinator_epoch > coordinator_epoch:
            return SequenceVerdict(
                Verdict.COORDINATOR_FENCED,
                f"Invalid coordinator epoch for producerId {producer_id}: {coordinator_epoch} (zombie), "
                f"{entry.coordinator_epoch} (current)",
            )
        return SequenceVerdict(Verdict.APPEND)

    def has_open_transaction(self, producer_id: int, epoch: int) -> bool:
        """Whether the producer, at this epoch, has a transaction open on this partition."""
        entry = self._producers.get(producer_id)
        return entry is not None and entry.txn_first_offset >= 0 and entry.epoch == epoch

    # ------------------------------------------------------------------ updates

    def record(self, header: BatchHeader, first_offset: int, timestamp: int) -> None:
        """Remember an appended data batch carrying a producer id (or one found in the log at
        start-up); a transactional batch opens the producer's transaction if none is open."""
        entry = self._producers.setdefault(header.producer_id, _ProducerEntry())
        entry.set_epoch(header.producer_epoch)
        if header.base_sequence >= 0:
            last_offset = first_offset + header.last_offset_delta
            entry.batches.append(
                BatchMetadata(header.base_sequence, _last_sequence(header), first_offset, last_offset, timestamp)
            )
        entry.last_timestamp = timestamp
        if header.is_transactional and entry.txn_first_offset < 0:
            entry.txn_first_offset = first_offset
            self._open[header.producer_id] = first_offset
            self._first_unstable = None

    def record_marker(
        self, producer_id: int, epoch: int, coordinator_epoch: int, offset: int, timestamp: int, commit: bool
    ) -> CompletedTxn | None:
        """Remember a marker written at ``offset``; the transaction it closed, if it had data here."""
        entry = self._producers.setdefault(producer_id, _ProducerEntry())
        completed = None
        if entry.txn_first_offset >= 0:
            completed = CompletedTxn(producer_id, entry.txn_first_offset, offset, not commit)
            del self._open[producer_id]
            self._first_unstable = None
        entry.set_epoch(epoch)
        entry.coordinator_epoch = coordinator_epoch
        entry.txn_first_offset = NO_OFFSET
        entry.last_timestamp = timestamp
        return completed

    # ------------------------------------------------------------------ stability

    @property
    def first_unstable_offset(self) -> int | None:
        """The first offset of the oldest open transaction, None when none is open."""
        if self._first_unstable is None and self._open:
            self._first_unstable = min(self._open.values())
        return self._first_unstable

    def open_transactions(self) -> int:
        return len(self._open)

    def stable_offset_after(self, completed: CompletedTxn) -> int:
        """The last stable offset once ``completed`` is closed (Kafka's value for its
        transaction index entry): the oldest other open transaction's start, else past the marker."""
        first = self.first_unstable_offset
        return first if first is not None else completed.last_offset + 1

    # ------------------------------------------------------------------ views

    def producers(self) -> Iterator[ProducerView]:
        for producer_id, entry in self._producers.items():
            last_sequence = entry.last_sequence
            yield ProducerView(
                producer_id,
                entry.epoch,
                -1 if last_sequence is None else last_sequence,
                entry.last_timestamp,
                entry.coordinator_epoch,
                entry.txn_first_offset,
            )

    def last_batch_offsets(self) -> frozenset[int]:
        """The base offset of every producer's last batch: the batches compaction must keep
        (empty if need be) so that this state can be rebuilt from the log."""
        return frozenset(entry.batches[-1].first_offset for entry in self._producers.values() if entry.batches)

    def marker_epochs(self) -> frozenset[tuple[int, int]]:
        """``(producer id, epoch)`` of the producers known by their markers alone (no batch at
        their epoch): compaction keeps their markers of that epoch, which hold it."""
        return frozenset((pid, entry.epoch) for pid, entry in self._producers.items() if not entry.batches)

    # ------------------------------------------------------------------ persistence

    def entries(self) -> Iterator[ProducerSnapshotRow]:
        """One row per cached batch, each producer's oldest first (one row with no batch for a
        producer known without one): replaying them through `restore` rebuilds this table."""
        for producer_id, entry in self._producers.items():
            coordinator_epoch, txn_first = entry.coordinator_epoch, entry.txn_first_offset
            if not entry.batches:
                yield ProducerSnapshotRow(
                    producer_id, entry.epoch, None, coordinator_epoch, txn_first, entry.last_timestamp
                )
            last = len(entry.batches) - 1
            for n, batch in enumerate(entry.batches):
                timestamp = entry.last_timestamp if n == last else batch.timestamp
                yield ProducerSnapshotRow(producer_id, entry.epoch, batch, coordinator_epoch, txn_first, timestamp)

    def restore(self, row: ProducerSnapshotRow) -> None:
        """Remember a snapshot row (a new epoch forgets the older batches)."""
        entry = self._producers.setdefault(row.producer_id, _ProducerEntry())
        entry.set_epoch(row.epoch)
        if row.batch is not None:
            entry.batches.append(row.batch)
        entry.coordinator_epoch = row.coordinator_epoch
        entry.last_timestamp = row.last_timestamp
        self._open.pop(row.producer_id, None)
        entry.txn_first_offset = row.txn_first_offset
        if row.txn_first_offset >= 0:
            self._open[row.producer_id] = row.txn_first_offset
        self._first_unstable = None

    # ------------------------------------------------------------------ removal

    def truncate_head(self, log_start_offset: int) -> None:
        """Forget every producer whose last batch lies entirely below ``log_start_offset``
        (retention or DeleteRecords removed it from the log), unless its transaction is open."""
        for producer_id, entry in list(self._producers.items()):
            if entry.batches and entry.batches[-1].last_offset < log_start_offset and entry.txn_first_offset < 0:
                del self._producers[producer_id]

    def expire(self, now_ms: int, expiration_ms: int) -> int:
        """Forget producers with no open transaction whose last write is ``expiration_ms`` or
        more old (Kafka's ``producer.id.expiration.ms``); return how many."""
        expired = [
            producer_id
            for producer_id, entry in self._producers.items()
            if entry.txn_first_offset < 0 and now_ms - entry.last_timestamp >= expiration_ms
        ]
        for producer_id in expired:
            del self._producers[producer_id]
        return len(expired)
