"""Idempotent producers: per partition, which sequence numbers each producer id has written.

Kafka keeps, per (partition, producer id), the producer epoch and the last five batches
(first/last sequence and offsets).  A batch from an idempotent producer is checked before it
is appended:
- an epoch older than the one on record -> INVALID_PRODUCER_EPOCH;
- the same sequence range as one of the last five batches -> a duplicate: nothing is written,
  the original offsets are returned with no error;
- a new epoch must start at sequence 0 (unless the producer id was never seen here);
- otherwise the first sequence must follow the last one (wrapping from 2**31-1 to 0), else
  OUT_OF_ORDER_SEQUENCE_NUMBER; a known producer without a sequence that does not start at 0
  is also out of order.
The table is pure state: the partition owning it (`odradek.partition.partition`) checks and
records each batch inside its append, persists the table in snapshot files, and restores it at
start-up from the newest snapshot (`restore`) plus the batch headers after it (`record`).

Invariants: per producer, the cached batches all carry the producer's current epoch, in offset
order, at most `MAX_CACHED_BATCHES`; `truncate_head` leaves no producer whose last batch lies
entirely below the log start offset.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from odradek.wire.records.batch import BatchHeader

__all__ = ["BatchMetadata", "ProducerStateTable", "SequenceVerdict", "Verdict"]

MAX_CACHED_BATCHES = 5
_INT32_MAX = 2**31 - 1
NO_EPOCH = -1


class Verdict(Enum):
    APPEND = "append"
    DUPLICATE = "duplicate"
    INVALID_PRODUCER_EPOCH = "invalid producer epoch"
    OUT_OF_ORDER_SEQUENCE = "out of order sequence"


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


@dataclass(slots=True)
class _ProducerEntry:
    epoch: int = NO_EPOCH
    batches: deque[BatchMetadata] = field(default_factory=lambda: deque(maxlen=MAX_CACHED_BATCHES))

    @property
    def last_sequence(self) -> int | None:
        return self.batches[-1].last_sequence if self.batches else None


def _last_sequence(header: BatchHeader) -> int:
    return (header.base_sequence + header.last_offset_delta) % (_INT32_MAX + 1)


def _follows(last: int, first: int) -> bool:
    return first == (0 if last == _INT32_MAX else last + 1)


class ProducerStateTable:
    """The producer state of one partition."""

    def __init__(self) -> None:
        self._producers: dict[int, _ProducerEntry] = {}

    def __len__(self) -> int:
        return len(self._producers)

    def check(self, header: BatchHeader) -> SequenceVerdict:
        """Decide what to do with a batch before appending it (idempotent batches only)."""
        entry = self._producers.get(header.producer_id)
        if entry is None:
            return SequenceVerdict(Verdict.APPEND)
        epoch = header.producer_epoch
        if epoch < entry.epoch:
            return SequenceVerdict(
                Verdict.INVALID_PRODUCER_EPOCH,
                f"Epoch of producer {header.producer_id} at offset is {epoch}, which is smaller than the last seen "
                f"epoch {entry.epoch}",
            )
        first, last = header.base_sequence, _last_sequence(header)
        if epoch == entry.epoch:
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
        elif first != 0:
            return SequenceVerdict(
                Verdict.OUT_OF_ORDER_SEQUENCE,
                f"Invalid sequence number for new epoch of producer {header.producer_id} at offset: "
                f"{epoch} (request epoch), {first} (seq. number), {entry.epoch} (current producer epoch)",
            )
        return SequenceVerdict(Verdict.APPEND)

    def last_batch_offsets(self) -> frozenset[int]:
        """The base offset of every producer's last batch: the batches compaction must keep
        (empty if need be) so that this state can be rebuilt from the log."""
        return frozenset(entry.batches[-1].first_offset for entry in self._producers.values() if entry.batches)

    def record(self, header: BatchHeader, first_offset: int, timestamp: int) -> None:
        """Remember an appended idempotent batch (or one found in the log at start-up)."""
        self.restore(
            header.producer_id,
            header.producer_epoch,
            BatchMetadata(
                header.base_sequence,
                _last_sequence(header),
                first_offset,
                first_offset + header.last_offset_delta,
                timestamp,
            ),
        )

    def restore(self, producer_id: int, epoch: int, batch: BatchMetadata | None) -> None:
        """Remember ``batch`` as the producer's newest (a new epoch forgets the older batches);
        None records the epoch alone."""
        entry = self._producers.setdefault(producer_id, _ProducerEntry())
        if epoch != entry.epoch:
            entry.epoch = epoch
            entry.batches.clear()
        if batch is not None:
            entry.batches.append(batch)

    def entries(self) -> Iterator[tuple[int, int, BatchMetadata | None]]:
        """``(producer id, epoch, batch)`` for every cached batch, each producer's oldest first
        (``batch`` None for a producer known by its epoch alone): replaying them through
        `restore` rebuilds this table."""
        for producer_id, entry in self._producers.items():
            if not entry.batches:
                yield producer_id, entry.epoch, None
            for batch in entry.batches:
                yield producer_id, entry.epoch, batch

    def truncate_head(self, log_start_offset: int) -> None:
        """Forget every producer whose last batch lies entirely below ``log_start_offset``
        (retention or DeleteRecords removed it from the log)."""
        for producer_id, entry in list(self._producers.items()):
            if entry.batches and entry.batches[-1].last_offset < log_start_offset:
                del self._producers[producer_id]
