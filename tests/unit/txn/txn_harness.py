"""A synchronous stand-in for the transaction runtime: records go through their bytes to a list.

Every result is persisted the way the runtime will: its records are encoded (value version 1),
decoded back and kept in ``log``; then the result is applied.  `Harness.reloaded` replays that
log into a fresh coordinator, so a test can check that replay rebuilds the live state.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any, TypeVar

from odradek.clock import ManualClock
from odradek.txn.coordinator import TransactionCoordinator
from odradek.txn.log_records import TransactionLogRecord, decode_record, encode_record
from odradek.txn.messages import EndTxnResult, InitProducerIdResult, TxnResult, TxnSettings, WriteMarkers
from odradek.txn.metadata import TxnMetadata
from odradek.txn.txn_state import TxnState
from odradek.wire.errors import ErrorCode

T = TypeVar("T")

TID = "txn-1"
START_MS = 1_000_000
FIRST_PRODUCER_ID = 1000


def offsets_partition(group_id: str) -> int:
    return len(group_id) % 50


class Harness:
    def __init__(self, **settings: Any) -> None:
        self.settings = TxnSettings(**settings)
        self.clock = ManualClock(START_MS)
        self._ids = itertools.count(FIRST_PRODUCER_ID)
        self.coordinator = TransactionCoordinator(self.settings, self.clock, self.allocate, offsets_partition)
        self.log: list[TransactionLogRecord] = []
        self.markers: list[WriteMarkers] = []

    def allocate(self) -> int:
        return next(self._ids)

    def persist(self, result: TxnResult[T]) -> T:
        for record in result.records:
            key, value = encode_record(record)
            decoded = decode_record(key, value)
            assert decoded == record
            self.log.append(decoded)
        self.coordinator.apply(result)
        self.markers.extend(result.markers)
        return result.response

    def meta(self, tid: str = TID) -> TxnMetadata:
        return self.coordinator.transactions[tid]

    def state(self, tid: str = TID) -> TxnState:
        return self.meta(tid).state

    def init(
        self, tid: str | None = TID, timeout: int = 60_000, pid: int = -1, epoch: int = -1
    ) -> InitProducerIdResult:
        return self.persist(self.coordinator.init_producer_id(tid, timeout, pid, epoch))

    def add(
        self,
        *partitions: tuple[str, int],
        tid: str = TID,
        pid: int | None = None,
        epoch: int | None = None,
        tv: int = 0,
    ) -> ErrorCode:
        m = self.coordinator.transactions.get(tid)
        pid = pid if pid is not None else (m.producer_id if m else -1)
        epoch = epoch if epoch is not None else (m.producer_epoch if m else -1)
        return self.persist(self.coordinator.add_partitions(tid, pid, epoch, partitions or (("t", 0),), tv))

    def end(
        self, commit: bool, tid: str = TID, pid: int | None = None, epoch: int | None = None, tv: int = 0
    ) -> EndTxnResult:
        m = self.coordinator.transactions.get(tid)
        pid = pid if pid is not None else (m.producer_id if m else -1)
        epoch = epoch if epoch is not None else (m.producer_epoch if m else -1)
        return self.persist(self.coordinator.end_txn(tid, pid, epoch, commit, tv))

    def write_markers(self) -> list[bool]:
        """Write every pending marker batch and report it; the completions are persisted."""
        pending, self.markers = self.markers, []
        return [self.persist(self.coordinator.markers_written(m)) for m in pending]

    def ready(self, tid: str = TID, tv: int = 0) -> InitProducerIdResult:
        """An initialised id with an Ongoing transaction on ("t", 0)."""
        result = self.init(tid)
        assert result.error is ErrorCode.NONE
        assert self.add(("t", 0), tid=tid, tv=tv) is ErrorCode.NONE
        return result

    def reloaded(self) -> TransactionCoordinator:
        fresh = TransactionCoordinator(self.settings, self.clock, self.allocate, offsets_partition)
        fresh.load(self.log)
        return fresh

    def assert_replay_matches(self) -> None:
        """Replaying the log gives the live state, except the never-persisted last epoch and
        the order the partitions were added in."""
        fresh = self.reloaded()
        live = {tid: _persisted(m) for tid, m in self.coordinator.transactions.items()}
        loaded = {tid: _persisted(m) for tid, m in fresh.transactions.items()}
        assert loaded == live


def _persisted(meta: TxnMetadata) -> TxnMetadata:
    """What a record keeps: no last epoch, and the partitions in the record's (sorted) order."""
    return replace(meta, last_producer_epoch=-1, partitions=tuple(sorted(meta.partitions)))
