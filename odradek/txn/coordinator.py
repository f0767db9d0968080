"""The transaction coordinator: one pure state machine for every transactional id it owns.

Handlers call it with domain values and get a `TxnResult` (response, transitions to persist in
``__transaction_state``, marker writes to perform); `odradek.txn.messages` states the runtime's
contract.  Nothing here waits, writes or reads the wall clock except through the injected clock.

State lives in one dict, transactional id -> `TxnMetadata`, changed only by `apply` (live
results) and `replay` (records read back at start-up), both through `_install`.  The one
exception is `markers_written`, which shrinks a prepared transaction's partitions in memory, as
Kafka does, so DescribeTransactions shows the partitions still waiting for a marker.

Answers follow Kafka's TransactionCoordinator, checked in this order for each API:
- InitProducerId: null id -> a new idempotent producer id, epoch 0; empty id -> INVALID_REQUEST;
  producer id xor epoch given -> INVALID_REQUEST; timeout outside (0, max] ->
  INVALID_TRANSACTION_TIMEOUT; loading -> COORDINATOR_LOAD_IN_PROGRESS; an unknown producer
  id/epoch (KIP-360) -> PRODUCER_FENCED; Prepare* -> CONCURRENT_TRANSACTIONS; Ongoing -> the
  zombie's transaction is aborted and the answer is CONCURRENT_TRANSACTIONS (the client retries);
  otherwise the epoch is bumped (or, once exhausted, a new producer id starts at epoch 0).
- AddPartitionsToTxn / AddOffsetsToTxn: empty id -> INVALID_REQUEST; loading; unknown id or other
  producer id -> INVALID_PRODUCER_ID_MAPPING; other epoch -> PRODUCER_FENCED; Prepare* ->
  CONCURRENT_TRANSACTIONS; partitions already in the Ongoing transaction -> NONE, nothing written.
- EndTxn: see `odradek.txn.end_txn`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from odradek.clock import Clock
from odradek.coordinator.placement import OFFSETS_TOPIC
from odradek.java_order import java_hash_order, topic_partition_hash
from odradek.txn.end_txn import decide_end_txn, fence_and_abort
from odradek.txn.log_records import TopicPartition, TransactionLogRecord
from odradek.txn.messages import (
    DescribedTransaction,
    EndTxnResult,
    InitProducerIdResult,
    ListedTransaction,
    ListedTransactions,
    Transition,
    TxnResult,
    TxnSettings,
    WriteMarkers,
)
from odradek.txn.metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    TxnMetadata,
    add_partitions,
    bump_epoch,
    complete,
    dead,
    is_epoch_exhausted,
    rotate_producer_id,
)
from odradek.txn.txn_state import EXPIRATION_ALLOWED, TxnState
from odradek.wire.errors import ErrorCode

__all__ = ["TransactionCoordinator"]

_S = TxnState
_PREPARED = (_S.PREPARE_COMMIT, _S.PREPARE_ABORT)


class TransactionCoordinator:
    def __init__(
        self,
        settings: TxnSettings,
        clock: Clock,
        allocate_producer_id: Callable[[], int],
        offsets_partition_for: Callable[[str], int],
    ) -> None:
        """``offsets_partition_for`` maps a group id to its ``__consumer_offsets`` partition."""
        self.settings = settings
        self.clock = clock
        self._allocate = allocate_producer_id
        self._offsets_partition_for = offsets_partition_for
        self._txns: dict[str, TxnMetadata] = {}
        self._loading = False

    @property
    def transactions(self) -> Mapping[str, TxnMetadata]:
        return MappingProxyType(self._txns)

    @property
    def loading(self) -> bool:
        return self._loading

    # ------------------------------------------------------------------ persistence

    def _install(self, transactional_id: str, metadata: TxnMetadata | None) -> None:
        if metadata is None:
            self._txns.pop(transactional_id, None)
        else:
            self._txns[transactional_id] = metadata

    def apply(self, result: TxnResult[Any]) -> None:
        """Make the result's transitions current: call once its records are appended."""
        for transition in result.transitions:
            self._install(transition.transactional_id, transition.metadata)

    def replay(self, record: TransactionLogRecord) -> None:
        """Apply one record read back from ``__transaction_state`` (later records win)."""
        value = record.value
        metadata = None if value is None else TxnMetadata.from_value(record.transactional_id, value)
        self._install(record.transactional_id, metadata)

    def begin_load(self) -> None:
        """Forget everything and answer COORDINATOR_LOAD_IN_PROGRESS until `finish_load`."""
        self._txns.clear()
        self._loading = True

    def finish_load(self) -> TxnResult[None]:
        """End a load; its markers complete every transaction that was left prepared."""
        self._loading = False
        return TxnResult(None, markers=tuple(self._markers_for(m) for m in self._txns.values() if m.state in _PREPARED))

    def load(self, records: Iterable[TransactionLogRecord]) -> TxnResult[None]:
        self.begin_load()
        for record in records:
            self.replay(record)
        return self.finish_load()

    def _markers_for(self, prepared: TxnMetadata) -> WriteMarkers:
        return WriteMarkers(
            transactional_id=prepared.transactional_id,
            producer_id=prepared.producer_id,
            producer_epoch=prepared.producer_epoch,
            commit=prepared.state is _S.PREPARE_COMMIT,
            coordinator_epoch=self.settings.coordinator_epoch,
            partitions=frozenset(prepared.partitions),
            transaction_version=prepared.client_transaction_version,
        )

    def _prepared(self, response: Any, prepared: TxnMetadata) -> TxnResult[Any]:
        transition = Transition(prepared.transactional_id, prepared)
        return TxnResult(response, (transition,), (self._markers_for(prepared),))

    # ------------------------------------------------------------------ InitProducerId

    def init_producer_id(
        self,
        transactional_id: str | None,
        timeout_ms: int,
        producer_id: int = NO_PRODUCER_ID,
        producer_epoch: int = NO_PRODUCER_EPOCH,
    ) -> TxnResult[InitProducerIdResult]:
        """``producer_id``/``producer_epoch``: the producer's current ones (KIP-360), or -1."""
        if transactional_id is None:
            return TxnResult(InitProducerIdResult(ErrorCode.NONE, self._allocate(), 0))
        if transactional_id == "" or (producer_id == NO_PRODUCER_ID) != (producer_epoch == NO_PRODUCER_EPOCH):
            return _init_error(ErrorCode.INVALID_REQUEST)
        if not 0 < timeout_ms <= self.settings.max_timeout_ms:
            return _init_error(ErrorCode.INVALID_TRANSACTION_TIMEOUT)
        if self._loading:
            return _init_error(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
        now = self.clock.time_ms()
        meta = self._txns.get(transactional_id)
        if meta is None:
            meta = TxnMetadata(transactional_id, self._allocate(), NO_PRODUCER_EPOCH, timeout_ms, _S.EMPTY, now)
        expected = None if producer_id == NO_PRODUCER_ID else producer_epoch
        if expected is not None and not (
            meta.producer_epoch == NO_PRODUCER_EPOCH
            or producer_id == meta.producer_id
            or (producer_id == meta.previous_producer_id and is_epoch_exhausted(producer_epoch))
        ):
            return _init_error(ErrorCode.PRODUCER_FENCED)
        if meta.state in _PREPARED:
            return _init_error(ErrorCode.CONCURRENT_TRANSACTIONS)
        if meta.state is _S.ONGOING:
            prepared = fence_and_abort(meta, now)
            return self._prepared(InitProducerIdResult(ErrorCode.CONCURRENT_TRANSACTIONS), prepared)
        new: TxnMetadata | None
        if is_epoch_exhausted(meta.producer_epoch):
            if expected is not None and expected != meta.producer_epoch:
                # Kafka refuses to bump an exhausted epoch with an internal error.
                return _init_error(ErrorCode.UNKNOWN_SERVER_ERROR)
            new = rotate_producer_id(meta, self._allocate(), timeout_ms, now, record_last_epoch=expected is not None)
        else:
            new = bump_epoch(meta, timeout_ms, expected, now)
            if new is None:
                return _init_error(ErrorCode.PRODUCER_FENCED)
        response = InitProducerIdResult(ErrorCode.NONE, new.producer_id, new.producer_epoch)
        return TxnResult(response, (Transition(transactional_id, new),))

    # ------------------------------------------------------------------ AddPartitionsToTxn, AddOffsetsToTxn

    def _check_member(self, transactional_id: str, producer_id: int, producer_epoch: int) -> ErrorCode | TxnMetadata:
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST
        if self._loading:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        meta = self._txns.get(transactional_id)
        if meta is None or meta.producer_id != producer_id:
            return ErrorCode.INVALID_PRODUCER_ID_MAPPING
        if meta.producer_epoch != producer_epoch:
            return ErrorCode.PRODUCER_FENCED
        if meta.state in _PREPARED:
            return ErrorCode.CONCURRENT_TRANSACTIONS
        return meta

    def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
        client_transaction_version: int = 0,
    ) -> TxnResult[ErrorCode]:
        """AddPartitionsToTxn (v0-3 from clients, v4+ without verify-only from brokers): one error
        for every partition."""
        checked = self._check_member(transactional_id, producer_id, producer_epoch)
        if isinstance(checked, ErrorCode):
            return TxnResult(checked)
        wanted = tuple(partitions)
        if checked.state is _S.ONGOING and set(wanted) <= set(checked.partitions):
            return TxnResult(ErrorCode.NONE)
        new = add_partitions(checked, wanted, self.clock.time_ms(), client_transaction_version)
        return TxnResult(ErrorCode.NONE, (Transition(transactional_id, new),))

    def add_offsets(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        group_id: str,
        client_transaction_version: int = 0,
    ) -> TxnResult[ErrorCode]:
        """AddOffsetsToTxn: adds the group's ``__consumer_offsets`` partition."""
        partition = (OFFSETS_TOPIC, self._offsets_partition_for(group_id))
        return self.add_partitions(
            transactional_id, producer_id, producer_epoch, (partition,), client_transaction_version
        )

    def verify_partitions(
        self, transactional_id: str, producer_id: int, producer_epoch: int, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, ErrorCode]:
        """AddPartitionsToTxn v4+ with verify-only: is each partition in the open transaction?
        (TRANSACTION_ABORTABLE when not).  Changes nothing."""
        wanted = list(partitions)
        checked = self._check_member(transactional_id, producer_id, producer_epoch)
        if isinstance(checked, ErrorCode):
            return dict.fromkeys(wanted, checked)
        added = set(checked.partitions)
        return {tp: ErrorCode.NONE if tp in added else ErrorCode.TRANSACTION_ABORTABLE for tp in wanted}

    # ------------------------------------------------------------------ EndTxn and markers

    def end_txn(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        commit: bool,
        client_transaction_version: int = 0,
    ) -> TxnResult[EndTxnResult]:
        """EndTxn; ``client_transaction_version`` is 2 for EndTxn v5+ (KIP-890), else 0."""
        if not transactional_id:
            return TxnResult(EndTxnResult(ErrorCode.INVALID_REQUEST))
        if self._loading:
            return TxnResult(EndTxnResult(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS))
        meta = self._txns.get(transactional_id)
        if meta is None:
            return TxnResult(EndTxnResult(ErrorCode.INVALID_PRODUCER_ID_MAPPING))
        now = self.clock.time_ms()
        decision = decide_end_txn(
            meta, producer_id, producer_epoch, commit, client_transaction_version, self._allocate, now
        )
        v2 = client_transaction_version >= 2
        if decision.prepared is None:
            if decision.error is ErrorCode.NONE and v2:
                return TxnResult(EndTxnResult(ErrorCode.NONE, meta.producer_id, meta.producer_epoch))
            return TxnResult(EndTxnResult(decision.error))
        if v2:
            completion = complete(decision.prepared, now)
            return self._prepared(
                EndTxnResult(ErrorCode.NONE, completion.producer_id, completion.producer_epoch), decision.prepared
            )
        return self._prepared(EndTxnResult(ErrorCode.NONE), decision.prepared)

    def markers_written(
        self, markers: WriteMarkers, partitions: Iterable[TopicPartition] | None = None
    ) -> TxnResult[bool]:
        """``partitions`` (all of ``markers`` when None) now hold their marker.

        Once no partition of the prepared transaction is waiting, the result carries the
        CompleteCommit/CompleteAbort transition and its response is True.  Markers for a
        transaction that moved on (another producer id or epoch, another state) are ignored.
        """
        meta = self._txns.get(markers.transactional_id)
        wanted = _S.PREPARE_COMMIT if markers.commit else _S.PREPARE_ABORT
        if (
            meta is None
            or meta.state is not wanted
            or meta.producer_id != markers.producer_id
            or meta.producer_epoch != markers.producer_epoch
        ):
            return TxnResult(False)
        done = markers.partitions if partitions is None else frozenset(partitions)
        meta = replace(meta, partitions=tuple(p for p in meta.partitions if p not in done))
        self._txns[markers.transactional_id] = meta
        if meta.partitions:
            return TxnResult(False)
        return TxnResult(True, (Transition(markers.transactional_id, complete(meta, self.clock.time_ms())),))

    # ------------------------------------------------------------------ time

    def abort_timed_out(self) -> TxnResult[tuple[str, ...]]:
        """Abort every Ongoing transaction open longer than its timeout, fencing its producer."""
        if self._loading:
            return TxnResult(())
        now = self.clock.time_ms()
        transitions: list[Transition] = []
        markers: list[WriteMarkers] = []
        for transactional_id, meta in sorted(self._txns.items()):
            if meta.state is _S.ONGOING and meta.start_timestamp_ms + meta.timeout_ms < now:
                prepared = fence_and_abort(meta, now)
                transitions.append(Transition(transactional_id, prepared))
                markers.append(self._markers_for(prepared))
        return TxnResult(tuple(t.transactional_id for t in transitions), tuple(transitions), tuple(markers))

    def expire_transactional_ids(self) -> TxnResult[tuple[str, ...]]:
        """Tombstones for ids idle (Empty or Complete*) for ``transactional.id.expiration.ms``."""
        if self._loading:
            return TxnResult(())
        cutoff = self.clock.time_ms() - self.settings.transactional_id_expiration_ms
        expired = [
            tid
            for tid, meta in sorted(self._txns.items())
            if meta.state in EXPIRATION_ALLOWED and meta.last_update_timestamp_ms <= cutoff
        ]
        for tid in expired:
            dead(self._txns[tid])  # checks Dead against the table; only the tombstone is persisted
        return TxnResult(tuple(expired), tuple(Transition(tid, None) for tid in expired))

    # ------------------------------------------------------------------ admin

    def describe(self, transactional_id: str) -> DescribedTransaction:
        if not transactional_id:
            return DescribedTransaction(transactional_id, ErrorCode.INVALID_REQUEST)
        if self._loading:
            return DescribedTransaction(transactional_id, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
        meta = self._txns.get(transactional_id)
        if meta is None:
            return DescribedTransaction(transactional_id, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND)
        return DescribedTransaction(
            transactional_id,
            ErrorCode.NONE,
            state=meta.state.display_name,
            producer_id=meta.producer_id,
            producer_epoch=meta.producer_epoch,
            timeout_ms=meta.timeout_ms,
            start_timestamp_ms=meta.start_timestamp_ms,
            topics=_kafka_order(meta.partitions),
        )

    def list_transactions(
        self,
        states: Iterable[str] = (),
        producer_ids: Iterable[int] = (),
        duration_ms: int = -1,
        transactional_id_pattern: str | None = None,
    ) -> ListedTransactions:
        """ListTransactions: every filter given must match (an empty filter matches all).

        ``duration_ms`` >= 0 keeps transactions started more than that long ago; the pattern
        (v2+) must match the whole transactional id.  Unknown state names are reported back.
        """
        if self._loading:
            return ListedTransactions(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
        pattern = None
        if transactional_id_pattern:
            try:
                pattern = re.compile(transactional_id_pattern)
            except re.error:
                return ListedTransactions(ErrorCode.INVALID_REGULAR_EXPRESSION)
        names = list(states)
        wanted_states = {s for s in map(TxnState.from_name, names) if s is not None}
        unknown = tuple(name for name in names if TxnState.from_name(name) is None)
        wanted_ids = set(producer_ids)
        now = self.clock.time_ms()
        listed = tuple(
            ListedTransaction(tid, meta.producer_id, meta.state)
            for tid, meta in sorted(self._txns.items())
            if (not names or meta.state in wanted_states)
            and (not wanted_ids or meta.producer_id in wanted_ids)
            and (duration_ms < 0 or now - meta.start_timestamp_ms > duration_ms)
            and (pattern is None or pattern.fullmatch(tid) is not None)
        )
        return ListedTransactions(ErrorCode.NONE, unknown, listed)


def _kafka_order(partitions: tuple[TopicPartition, ...]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Partitions grouped by topic as Kafka iterates its hash set of them (added in this order)."""
    grouped: dict[str, list[int]] = {}
    for topic, partition in java_hash_order(partitions, lambda tp: topic_partition_hash(*tp)):
        grouped.setdefault(topic, []).append(partition)
    return tuple((topic, tuple(ids)) for topic, ids in grouped.items())


def _init_error(error: ErrorCode) -> TxnResult[InitProducerIdResult]:
    return TxnResult(InitProducerIdResult(error))
