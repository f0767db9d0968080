"""What the transaction coordinator answers: domain values, not wire messages.

Every operation returns a `TxnResult`: the response, the `Transition`s to persist in
``__transaction_state`` (their ``record``), and the `WriteMarkers` side effects.  The runtime:

1. appends ``result.records`` (one record per transition, to the partition of its id);
2. on success calls `TransactionCoordinator.apply(result)`, then answers ``result.response`` and
   starts ``result.markers``; on failure applies nothing, answers with
   `odradek.txn.client_errors.append_error_to_response_error` of the append error, and performs no marker write;
3. for each `WriteMarkers`, writes a COMMIT or ABORT marker (producer id and epoch, coordinator
   epoch) to each partition, then reports them with `TransactionCoordinator.markers_written`,
   whose result carries the CompleteCommit/CompleteAbort transition (steps 1-2 again).

A runtime performs steps 1 and 2 without any other coordinator call in between.

Invariant: a `TxnResult` with no transitions changes nothing and has no markers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from odradek.txn.log_records import TopicPartition, TransactionLogRecord
from odradek.txn.metadata import NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TxnMetadata
from odradek.txn.txn_state import TxnState
from odradek.wire.errors import ErrorCode

__all__ = [
    "DescribedTransaction",
    "EndTxnResult",
    "InitProducerIdResult",
    "ListedTransaction",
    "ListedTransactions",
    "Transition",
    "TxnResult",
    "TxnSettings",
    "WriteMarkers",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TxnSettings:
    """The coordinator's configuration, with Kafka's defaults.

    ``transaction_version`` is the finalized ``transaction.version`` feature level: it picks the
    value version of the records and the version used for aborts the coordinator starts itself.
    The two intervals are for the runtime's timers (`abort_timed_out`, `expire_transactional_ids`).
    """

    max_timeout_ms: int = 900_000
    transactional_id_expiration_ms: int = 7 * 24 * 3_600_000
    abort_timed_out_interval_ms: int = 10_000
    remove_expired_interval_ms: int = 3_600_000
    transaction_version: int = 2
    coordinator_epoch: int = 0


@dataclass(frozen=True, slots=True)
class Transition:
    """The new state of one transactional id; None removes it (its tombstone is persisted)."""

    transactional_id: str
    metadata: TxnMetadata | None

    @property
    def record(self) -> TransactionLogRecord:
        value = None if self.metadata is None else self.metadata.to_value()
        return TransactionLogRecord(self.transactional_id, value)


@dataclass(frozen=True, slots=True)
class WriteMarkers:
    """Write a COMMIT (``commit``) or ABORT marker for the producer to each partition, then
    report them with `TransactionCoordinator.markers_written`.  No partitions: report at once.
    ``transaction_version`` is the transaction's (2: the marker carries the bumped epoch)."""

    transactional_id: str
    producer_id: int
    producer_epoch: int
    commit: bool
    coordinator_epoch: int
    partitions: frozenset[TopicPartition]
    transaction_version: int = 0


@dataclass(frozen=True, slots=True)
class TxnResult(Generic[T]):
    response: T
    transitions: tuple[Transition, ...] = ()
    markers: tuple[WriteMarkers, ...] = ()

    @property
    def records(self) -> tuple[TransactionLogRecord, ...]:
        return tuple(t.record for t in self.transitions)


@dataclass(frozen=True, slots=True)
class InitProducerIdResult:
    error: ErrorCode
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH


@dataclass(frozen=True, slots=True)
class EndTxnResult:
    """``producer_id``/``producer_epoch`` are what EndTxn v5+ returns (-1 unless transactions v2)."""

    error: ErrorCode
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH


@dataclass(frozen=True, slots=True)
class DescribedTransaction:
    """One DescribeTransactions entry; every field but the id is zero (Kafka's answer) unless
    ``error`` is NONE.

    ``topics`` holds the partitions still without a marker while the transaction is prepared, in
    the order Kafka's hash set of the transaction's partitions iterates them (`odradek.java_order`).
    """

    transactional_id: str
    error: ErrorCode
    state: str = ""
    producer_id: int = 0
    producer_epoch: int = 0
    timeout_ms: int = 0
    start_timestamp_ms: int = 0
    topics: tuple[tuple[str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class ListedTransaction:
    transactional_id: str
    producer_id: int
    state: TxnState


@dataclass(frozen=True, slots=True)
class ListedTransactions:
    error: ErrorCode
    unknown_state_filters: tuple[str, ...] = ()
    transactions: tuple[ListedTransaction, ...] = ()
