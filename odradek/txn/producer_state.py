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
The state is rebuilt at start-up from the batch headers of the log, so nothing else needs
persisting.
"""

from __future__ import annotations

from collections import deque
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
        entry = self._producers.setdefault(header.producer_id, _ProducerEntry())
        if header.producer_epoch != entry.epoch:
            entry.epoch = header.producer_epoch
            entry.batches.clear()
        entry.batches.append(
            BatchMetadata(
                header.base_sequence,
                _last_sequence(header),
                first_offset,
                first_offset + header.last_offset_delta,
                timestamp,
            )
        )
