"""What compaction must know about transactions (Kafka's CleanedTransactionMetadata), and what the
partition owning a log tells its cleaner.

Walking a log's batches in offset order with the aborted transactions of the range (from the
transaction indexes), `CleanedTransactions` says, batch by batch:

- a transactional data batch of a transaction that was aborted: discard it (its records never
  count for compaction, and go);
- an ABORT marker: discardable once no batch of its transaction was seen in this pass (the
  marker stays while the transaction's data is still being removed; when it stays, its aborted
  transaction goes to the cleaned segment's transaction index, ``retained_aborted``);
- a COMMIT marker: discardable when no batch of its transaction was seen in this pass.

A discardable marker is not removed at once: it gets a delete horizon (``delete.retention.ms``
from now, KIP-534) and goes in a later pass once the horizon passed, so a consumer that read the
transaction's data has the time to read its marker too.

`CleaningHints` carry the partition's producer state (Kafka's ``lastRecordsOfActiveProducers``):
the batch holding each active producer's last data (kept, emptied if need be, so the producer's
sequence survives), and for a producer whose last entry is a marker, its producer id and epoch
(its markers of that epoch are kept, emptied if need be, so the epoch survives); and the first
unstable offset, past which nothing is cleaned.

Invariant: the batches are fed in offset order, each once.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from odradek.storage.txn_index import AbortedTxn
from odradek.wire.records.batch import BatchHeader

__all__ = ["CleanedTransactions", "CleaningHints"]


@dataclass(frozen=True, slots=True)
class CleaningHints:
    """What the owner of a log tells compaction (module docstring)."""

    retained_batches: frozenset[int] = frozenset()
    """Base offsets of the data batches to keep even when empty."""
    retained_markers: frozenset[tuple[int, int]] = frozenset()
    """``(producer id, epoch)`` whose markers are kept even when empty."""
    first_unstable_offset: int | None = None
    """The first offset of the oldest open transaction: cleaning stops before it."""


@dataclass(slots=True)
class _Aborted:
    txn: AbortedTxn
    seen_batch: bool = False


class CleanedTransactions:
    def __init__(self, aborted: Sequence[AbortedTxn]) -> None:
        self._upcoming = sorted(aborted, key=lambda txn: txn.first_offset)
        self._firsts = [txn.first_offset for txn in self._upcoming]
        self._next = 0
        self._ongoing_aborted: dict[int, _Aborted] = {}
        self._ongoing_committed: set[int] = set()
        self.retained_aborted: list[AbortedTxn] = []
        """The aborted transactions whose ABORT marker stays: the cleaned segment's index."""

    def _reach(self, offset: int) -> None:
        """Aborted transactions that started at or before ``offset`` are now ongoing."""
        stop = bisect.bisect_right(self._firsts, offset, lo=self._next)
        for txn in self._upcoming[self._next : stop]:
            self._ongoing_aborted[txn.producer_id] = _Aborted(txn)
        self._next = stop

    def data_batch(self, header: BatchHeader) -> bool:
        """A data batch was read: True when it belongs to an aborted transaction."""
        self._reach(header.last_offset)
        if not header.is_transactional:
            return False
        aborted = self._ongoing_aborted.get(header.producer_id)
        if aborted is not None:
            aborted.seen_batch = True
            return True
        self._ongoing_committed.add(header.producer_id)
        return False

    def marker(self, header: BatchHeader, commit: bool) -> bool:
        """A marker was read: True when it may be removed (module docstring)."""
        self._reach(header.last_offset)
        if commit:
            seen = header.producer_id in self._ongoing_committed
            self._ongoing_committed.discard(header.producer_id)
            return not seen
        aborted = self._ongoing_aborted.pop(header.producer_id, None)
        if aborted is not None and aborted.seen_batch:
            self.retained_aborted.append(aborted.txn)
            return False
        return True
