"""The coordinator's view of one transactional id, and every state change it can go through.

`TxnMetadata` is an immutable value; a change is a new value built by one of the functions below
(Kafka's ``TransactionMetadata.prepare*``), each of which goes through `TxnMetadata.transition`
and so through the one transition table (`odradek.txn.txn_state`).

Field notes (Kafka's semantics):
- ``previous_producer_id`` is the producer id the id had before its latest transition (equal to
  ``producer_id`` unless that transition rotated the producer id); it lets a producer that
  exhausted its epochs retry InitProducerId with its old id;
- ``next_producer_id`` is set while a transactions-v2 transaction that exhausted the epochs is
  being completed: completion switches to it with epoch 0;
- ``last_producer_epoch`` is the epoch before the latest bump; it is never persisted (a loaded
  value has -1), it only lets a retried InitProducerId or EndTxn be recognised;
- ``client_transaction_version`` is the transactions version the client used (2: KIP-890, every
  completed transaction bumps the epoch).

Invariants:
- a transition out of the table raises `IllegalTransition`; a negative producer id, or a negative
  epoch in any state but Dead, raises ValueError;
- ``partitions`` is empty in Empty, CompleteCommit and CompleteAbort, holds no duplicate, and
  keeps the order the partitions were added in (Kafka's hash set iterates by insertion within
  a bucket, so DescribeTransactions needs it; see `odradek.java_order`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from odradek.txn.log_records import TopicPartition, TransactionLogValue, group_partitions
from odradek.txn.txn_state import TxnState, check_transition

__all__ = [
    "MAX_EPOCH",
    "NO_PRODUCER_EPOCH",
    "NO_PRODUCER_ID",
    "TxnMetadata",
    "add_partitions",
    "bump_epoch",
    "complete",
    "dead",
    "fence_epoch",
    "is_epoch_exhausted",
    "prepare_end",
    "rotate_producer_id",
]

MAX_EPOCH = 2**15 - 1
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1


def is_epoch_exhausted(epoch: int) -> bool:
    """Kafka keeps the last epoch so that a coordinator can always fence the current producer."""
    return epoch >= MAX_EPOCH - 1


@dataclass(frozen=True, slots=True)
class TxnMetadata:
    transactional_id: str
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    state: TxnState
    last_update_timestamp_ms: int
    start_timestamp_ms: int = -1
    partitions: tuple[TopicPartition, ...] = ()
    previous_producer_id: int = NO_PRODUCER_ID
    next_producer_id: int = NO_PRODUCER_ID
    last_producer_epoch: int = NO_PRODUCER_EPOCH
    client_transaction_version: int = 0

    @property
    def supports_epoch_bump(self) -> bool:
        return self.client_transaction_version >= 2

    def transition(self, state: TxnState, **changes: Any) -> TxnMetadata:
        """The value after moving to ``state`` with ``changes``; the old producer id becomes previous."""
        check_transition(self.state, state)
        new = replace(self, state=state, previous_producer_id=self.producer_id, **changes)
        if new.producer_id < 0:
            raise ValueError(f"illegal producer id {new.producer_id}")
        if state is not TxnState.DEAD and new.producer_epoch < 0:
            raise ValueError(f"illegal producer epoch {new.producer_epoch}")
        return new

    def to_value(self) -> TransactionLogValue:
        return TransactionLogValue(
            producer_id=self.producer_id,
            producer_epoch=self.producer_epoch,
            timeout_ms=self.timeout_ms,
            state=self.state,
            partitions=() if self.state is TxnState.EMPTY else group_partitions(self.partitions),
            last_update_timestamp_ms=self.last_update_timestamp_ms,
            start_timestamp_ms=self.start_timestamp_ms,
            previous_producer_id=self.previous_producer_id,
            next_producer_id=self.next_producer_id,
            client_transaction_version=self.client_transaction_version,
        )

    @classmethod
    def from_value(cls, transactional_id: str, value: TransactionLogValue) -> TxnMetadata:
        """The metadata a loaded record stands for (the last epoch is not persisted: -1)."""
        return cls(
            transactional_id=transactional_id,
            producer_id=value.producer_id,
            producer_epoch=value.producer_epoch,
            timeout_ms=value.timeout_ms,
            state=value.state,
            last_update_timestamp_ms=value.last_update_timestamp_ms,
            start_timestamp_ms=value.start_timestamp_ms,
            partitions=() if value.state is TxnState.EMPTY else value.topic_partition_list(),
            previous_producer_id=value.previous_producer_id,
            next_producer_id=value.next_producer_id,
            client_transaction_version=value.client_transaction_version,
        )


def bump_epoch(meta: TxnMetadata, timeout_ms: int, expected_epoch: int | None, now: int) -> TxnMetadata | None:
    """InitProducerId in Empty or Complete*: the next epoch, or the same one for a retry.

    None when ``expected_epoch`` is neither the current nor the previous epoch (the producer is
    fenced).  Without ``expected_epoch`` the last epoch is forgotten, so an older producer's
    retry cannot be mistaken for this one's.
    """
    if is_epoch_exhausted(meta.producer_epoch):
        raise ValueError(f"producer id {meta.producer_id} has no epoch left")
    epoch, last = meta.producer_epoch + 1, NO_PRODUCER_EPOCH
    if expected_epoch is not None:
        if meta.producer_epoch == NO_PRODUCER_EPOCH or expected_epoch == meta.producer_epoch:
            last = meta.producer_epoch
        elif expected_epoch == meta.last_producer_epoch:
            epoch, last = meta.producer_epoch, meta.last_producer_epoch
        else:
            return None
    return meta.transition(
        TxnState.EMPTY,
        producer_epoch=epoch,
        last_producer_epoch=last,
        timeout_ms=timeout_ms,
        partitions=(),
        start_timestamp_ms=-1,
        last_update_timestamp_ms=now,
    )


def rotate_producer_id(
    meta: TxnMetadata, producer_id: int, timeout_ms: int, now: int, record_last_epoch: bool
) -> TxnMetadata:
    """InitProducerId once the epochs are exhausted: a new producer id at epoch 0."""
    if meta.state in (TxnState.ONGOING, TxnState.PREPARE_COMMIT, TxnState.PREPARE_ABORT):
        raise ValueError("cannot rotate the producer id of a pending transaction")
    return meta.transition(
        TxnState.EMPTY,
        producer_id=producer_id,
        producer_epoch=0,
        last_producer_epoch=meta.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
        timeout_ms=timeout_ms,
        partitions=(),
        start_timestamp_ms=-1,
        last_update_timestamp_ms=now,
    )


def add_partitions(
    meta: TxnMetadata, partitions: Iterable[TopicPartition], now: int, client_transaction_version: int
) -> TxnMetadata:
    """AddPartitionsToTxn / AddOffsetsToTxn: Ongoing with more partitions (a new transaction
    starts its clock now)."""
    starting = meta.state in (TxnState.EMPTY, TxnState.COMPLETE_COMMIT, TxnState.COMPLETE_ABORT)
    return meta.transition(
        TxnState.ONGOING,
        partitions=meta.partitions + tuple(dict.fromkeys(p for p in partitions if p not in meta.partitions)),
        start_timestamp_ms=now if starting else meta.start_timestamp_ms,
        last_update_timestamp_ms=now,
        client_transaction_version=client_transaction_version,
    )


def prepare_end(
    meta: TxnMetadata,
    state: TxnState,
    client_transaction_version: int,
    next_producer_id: int,
    now: int,
    no_partition_added: bool,
) -> TxnMetadata:
    """EndTxn: PrepareCommit or PrepareAbort.  Transactions v2 bump the epoch (except an abort
    already at the maximum epoch, which must still go through)."""
    if client_transaction_version >= 2:
        at_max_abort = meta.producer_epoch == MAX_EPOCH and state is TxnState.PREPARE_ABORT
        epoch = meta.producer_epoch if at_max_abort else meta.producer_epoch + 1
        last = meta.producer_epoch
    else:
        epoch, last = meta.producer_epoch, meta.last_producer_epoch
    return meta.transition(
        state,
        producer_epoch=epoch,
        last_producer_epoch=last,
        start_timestamp_ms=now if no_partition_added else meta.start_timestamp_ms,
        next_producer_id=next_producer_id,
        last_update_timestamp_ms=now,
        client_transaction_version=client_transaction_version,
    )


def complete(meta: TxnMetadata, now: int) -> TxnMetadata:
    """Every marker is written: CompleteCommit or CompleteAbort.  A v2 transaction that
    exhausted the epochs switches to its next producer id at epoch 0."""
    state = TxnState.COMPLETE_COMMIT if meta.state is TxnState.PREPARE_COMMIT else TxnState.COMPLETE_ABORT
    producer_id, epoch = meta.producer_id, meta.producer_epoch
    if meta.supports_epoch_bump and meta.next_producer_id != NO_PRODUCER_ID:
        producer_id, epoch = meta.next_producer_id, 0
    return meta.transition(
        state,
        producer_id=producer_id,
        producer_epoch=epoch,
        next_producer_id=NO_PRODUCER_ID,
        partitions=(),
        last_update_timestamp_ms=now,
    )


def fence_epoch(meta: TxnMetadata) -> TxnMetadata:
    """PrepareEpochFence (never persisted): the epoch a zombie's Ongoing transaction is aborted
    with, one above the zombie's (unless already at the maximum)."""
    epoch = meta.producer_epoch if meta.producer_epoch == MAX_EPOCH else meta.producer_epoch + 1
    return meta.transition(TxnState.PREPARE_EPOCH_FENCE, producer_epoch=epoch, last_producer_epoch=NO_PRODUCER_EPOCH)


def dead(meta: TxnMetadata) -> TxnMetadata:
    """The transactional id expired; its tombstone is the only record of this state."""
    return meta.transition(TxnState.DEAD, partitions=frozenset())
