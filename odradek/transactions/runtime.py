"""The transaction coordinator's runtime: persistence, markers and timers around the pure state
machine (`odradek.txn.coordinator.TransactionCoordinator`), as `odradek.txn.messages` requires.

- Every operation's `TxnResult` takes one path (`_complete`): its records are appended to
  their ``__transaction_state`` partitions (``abs(hash(transactional id)) % 50``, one batch per
  partition, Kafka's key and value formats), then applied; a failed append applies nothing and
  answers the append error as Kafka maps it.  Then its markers are written.
- Markers are written at once, before the answer, to every partition of the transaction
  (`odradek.transactions.marker_channel`: the partition's append, and for ``__consumer_offsets``
  the group coordinator's pending offsets; retries and stale markers are the channel's).  Once
  every partition holds its marker, the CompleteCommit/CompleteAbort transition is persisted
  the same way.
- Start-up replays every partition of the topic (`load`); transactions left prepared by a crash
  get their markers written again (a partition that has the marker already refuses nothing:
  markers are idempotent for the partition's producer state).
- Timers: the abort of transactions open past their timeout every
  ``transaction.abort.timed.out.transaction.cleanup.interval.ms``, the expiry of idle
  transactional ids every ``transaction.remove.expired.transaction.cleanup.interval.ms``.

A transactional id whose ``__transaction_state`` partition does not exist yet (FindCoordinator
for a TRANSACTION key creates the topic) answers NOT_COORDINATOR, as a Kafka broker that does
not own the partition does.

Everything runs on the event loop, synchronously: no response is sent for state that was not
persisted, and no other request runs between an append and its apply.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Protocol, TypeVar

from odradek.coordinator.placement import partition_for
from odradek.partition.internal_topic import AppendFailed
from odradek.scheduler import Scheduler
from odradek.transactions.marker_channel import MarkerChannel, MarkerTarget
from odradek.txn.client_errors import append_error_to_response_error
from odradek.txn.coordinator import TransactionCoordinator
from odradek.txn.log_records import (
    TRANSACTION_STATE_TOPIC,
    TopicPartition,
    TransactionLogRecord,
    decode_record,
    encode_record,
)
from odradek.txn.markers import Marker
from odradek.txn.messages import (
    DescribedTransaction,
    EndTxnResult,
    InitProducerIdResult,
    ListedTransactions,
    TxnResult,
    WriteMarkers,
)
from odradek.txn.metadata import TxnMetadata
from odradek.wire.errors import ErrorCode
from odradek.wire.primitives import DecodeError
from odradek.wire.records.batch import CorruptBatchError
from odradek.wire.records.builder import build_batch, decode_batch
from odradek.wire.records.record import Record

__all__ = ["StateLog", "TransactionRuntime", "transaction_state_configs"]

log = logging.getLogger("odradek.transactions")

T = TypeVar("T")


def transaction_state_configs(segment_bytes: int) -> dict[str, str]:
    """The topic configs Kafka gives ``__transaction_state``."""
    return {"cleanup.policy": "compact", "compression.type": "uncompressed", "segment.bytes": str(segment_bytes)}


class StateLog(Protocol):
    """``__transaction_state`` as the runtime needs it (`odradek.partition.internal_topic`)."""

    def ensure_topic(self) -> bool: ...

    def exists(self) -> bool: ...

    def append(self, partition: int, batch: bytes) -> None:
        """Append one batch; raises `odradek.partition.internal_topic.AppendFailed`."""

    def batches(self, partition: int) -> Iterator[bytes]: ...


class TransactionRuntime:
    def __init__(
        self,
        coordinator: TransactionCoordinator,
        state_log: StateLog,
        markers: MarkerTarget,
        scheduler: Scheduler,
        num_partitions: int,
        value_version: int,
    ) -> None:
        self.coordinator = coordinator
        self._log = state_log
        self._channel = MarkerChannel(markers, scheduler, self._markers_written)
        self._scheduler = scheduler
        self._partitions = num_partitions
        self._value_version = value_version

    def partition_for(self, transactional_id: str) -> int:
        return partition_for(transactional_id, self._partitions)

    def ensure_topic(self) -> bool:
        """Create ``__transaction_state`` if needed; True when it existed before this call."""
        return self._log.ensure_topic()

    # -------------------------------------------------------------- persistence

    def load(self) -> None:
        """Replay every partition of the topic; undecodable records are skipped with a log line."""
        coordinator = self.coordinator
        coordinator.begin_load()
        replayed = 0
        if self._log.exists():
            for partition in range(self._partitions):
                for batch in self._log.batches(partition):
                    for record in self._decode(batch, partition):
                        coordinator.replay(record)
                        replayed += 1
        result = coordinator.finish_load()
        log.info(
            "loaded %d transactional ids from %d records of %s",
            len(coordinator.transactions),
            replayed,
            TRANSACTION_STATE_TOPIC,
        )
        self._complete(result)

    def _decode(self, batch: bytes, partition: int) -> Iterator[TransactionLogRecord]:
        try:
            header, records = decode_batch(batch)
        except CorruptBatchError as exc:
            log.warning("skipping a corrupt batch of %s-%d: %s", TRANSACTION_STATE_TOPIC, partition, exc)
            return
        if header.is_control:
            return
        for raw in records:
            if raw.key is None:
                continue
            try:
                record = decode_record(raw.key, raw.value)
            except DecodeError as exc:
                log.warning("skipping an undecodable record of %s-%d: %s", TRANSACTION_STATE_TOPIC, partition, exc)
                continue
            if record is not None:
                yield record

    def _complete(self, result: TxnResult[T]) -> ErrorCode:
        """Persist and apply ``result``, then write its markers; the append's error, mapped."""
        error = self._append(result.records)
        if error is not ErrorCode.NONE:
            return append_error_to_response_error(error)
        self.coordinator.apply(result)
        for markers in result.markers:
            self._channel.send(markers)
        return ErrorCode.NONE

    def _append(self, records: Iterable[TransactionLogRecord]) -> ErrorCode:
        by_partition: dict[int, list[TransactionLogRecord]] = defaultdict(list)
        for record in records:
            by_partition[self.partition_for(record.transactional_id)].append(record)
        now = self.coordinator.clock.time_ms()
        for partition, batch_records in sorted(by_partition.items()):
            encoded = [encode_record(r, self._value_version) for r in batch_records]
            batch = build_batch([Record(i, 0, k, v) for i, (k, v) in enumerate(encoded)], base_timestamp=now)
            try:
                self._log.append(partition, batch)
            except AppendFailed as exc:
                log.error("cannot append to %s-%d: %s", TRANSACTION_STATE_TOPIC, partition, exc.code.name)
                return exc.code
        return ErrorCode.NONE

    def _markers_written(self, markers: WriteMarkers, written: list[TopicPartition]) -> bool:
        """The channel's report: shrink the prepared transaction, persist its completion once no
        partition waits; False when that completion could not be persisted."""
        report = self.coordinator.markers_written(markers, written)
        return not report.transitions or self._complete(report) is ErrorCode.NONE

    # ------------------------------------------------------------------ requests

    def _owned(self, transactional_id: str | None) -> bool:
        return transactional_id is None or transactional_id == "" or self._log.exists()

    def init_producer_id(
        self, transactional_id: str | None, timeout_ms: int, producer_id: int, producer_epoch: int
    ) -> InitProducerIdResult:
        if not self._owned(transactional_id):
            return InitProducerIdResult(ErrorCode.NOT_COORDINATOR)
        result = self.coordinator.init_producer_id(transactional_id, timeout_ms, producer_id, producer_epoch)
        return self._answer(result, lambda error: InitProducerIdResult(error))

    def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
        client_transaction_version: int = 0,
    ) -> ErrorCode:
        if not self._owned(transactional_id):
            return ErrorCode.NOT_COORDINATOR
        result = self.coordinator.add_partitions(
            transactional_id, producer_id, producer_epoch, partitions, client_transaction_version
        )
        return self._answer(result, lambda error: error)

    def add_offsets(
        self, transactional_id: str, producer_id: int, producer_epoch: int, group_id: str, client_version: int = 0
    ) -> ErrorCode:
        if not self._owned(transactional_id):
            return ErrorCode.NOT_COORDINATOR
        result = self.coordinator.add_offsets(transactional_id, producer_id, producer_epoch, group_id, client_version)
        return self._answer(result, lambda error: error)

    def verify_partitions(
        self, transactional_id: str, producer_id: int, producer_epoch: int, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, ErrorCode]:
        wanted = list(partitions)
        if not self._owned(transactional_id):
            return dict.fromkeys(wanted, ErrorCode.NOT_COORDINATOR)
        return self.coordinator.verify_partitions(transactional_id, producer_id, producer_epoch, wanted)

    def end_txn(
        self, transactional_id: str, producer_id: int, producer_epoch: int, commit: bool, client_version: int = 0
    ) -> EndTxnResult:
        if not self._owned(transactional_id):
            return EndTxnResult(ErrorCode.NOT_COORDINATOR)
        result = self.coordinator.end_txn(transactional_id, producer_id, producer_epoch, commit, client_version)
        return self._answer(result, lambda error: EndTxnResult(error))

    def _answer(self, result: TxnResult[T], failed: Callable[[ErrorCode], T]) -> T:
        """Persist ``result``; its response, or ``failed(error)`` when the append failed."""
        error = self._complete(result)
        return result.response if error is ErrorCode.NONE else failed(error)

    def describe(self, transactional_id: str) -> DescribedTransaction:
        if not self._owned(transactional_id):
            return DescribedTransaction(transactional_id, ErrorCode.NOT_COORDINATOR)
        return self.coordinator.describe(transactional_id)

    def list_transactions(
        self,
        states: Iterable[str],
        producer_ids: Iterable[int],
        duration_ms: int,
        transactional_id_pattern: str | None,
    ) -> ListedTransactions:
        return self.coordinator.list_transactions(states, producer_ids, duration_ms, transactional_id_pattern)

    def write_marker(self, topic: str, partition: int, marker: Marker, transaction_version: int) -> ErrorCode:
        """One marker written outside a coordinator transition (WriteTxnMarkers)."""
        return self._channel.target.write_marker(topic, partition, marker, transaction_version)

    @property
    def transactions(self) -> Mapping[str, TxnMetadata]:
        return self.coordinator.transactions

    # --------------------------------------------------------------------- time

    def start_timers(self, abort_interval_ms: int, expiry_interval_ms: int) -> None:
        """Kafka's ``transaction-abort`` and ``transactionalId-expiration`` tasks."""
        self._scheduler.schedule_periodic(
            abort_interval_ms, lambda: self._complete(self.coordinator.abort_timed_out()), name="transaction-abort"
        )
        self._scheduler.schedule_periodic(
            expiry_interval_ms,
            lambda: self._complete(self.coordinator.expire_transactional_ids()),
            name="transactionalId-expiration",
        )
