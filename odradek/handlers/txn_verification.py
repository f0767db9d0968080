"""Transaction verification: a transactional write checked with the transaction coordinator first.

Kafka (KIP-890) checks a transactional Produce, and the ``__consumer_offsets`` write of a
TxnOffsetCommit, with the coordinator before appending, for each partition where the producer
has no transaction open at its epoch.  What is asked, and how an error is told, depends on the
request version (Kafka's ``TransactionSupportedOperation``):

- DEFAULT (Produce v0-10, TxnOffsetCommit v0-3): is the partition in the open transaction
  (AddPartitionsToTxn verify-only)?  TRANSACTION_ABORTABLE is answered as INVALID_TXN_STATE;
- GENERIC (Produce v11, TxnOffsetCommit v4): the same, TRANSACTION_ABORTABLE as it is;
- ADD (Produce v12+, TxnOffsetCommit v5+, transactions v2): add the partition to the
  transaction (AddPartitionsToTxn with the producer's epoch), opening one if need be.

PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH (producers expect that one here).
``transaction.partition.verification.enable=false`` turns the DEFAULT and GENERIC checks off.
A partition added this way (ADD) takes a producer it does not know only from sequence 0, as Kafka.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from odradek.handlers.context import RequestContext
from odradek.wire.errors import ErrorCode

__all__ = ["Verification", "Verified", "produce_verification", "txn_offset_commit_verification", "verify_write"]

TopicPartition = tuple[str, int]

TRANSACTIONS_V2 = 2


@dataclass(frozen=True)
class Verified:
    """The outcome of a verification: the partitions refused, with the error to answer, and
    those the coordinator added to the transaction (transactions v2)."""

    refused: dict[TopicPartition, ErrorCode] = field(default_factory=dict)
    added: frozenset[TopicPartition] = frozenset()


class Verification(Enum):
    DEFAULT = "default"
    GENERIC = "generic"
    ADD = "add"


def produce_verification(version: int) -> Verification:
    if version > 11:
        return Verification.ADD
    return Verification.GENERIC if version > 10 else Verification.DEFAULT


def txn_offset_commit_verification(version: int) -> Verification:
    if version > 4:
        return Verification.ADD
    return Verification.GENERIC if version > 3 else Verification.DEFAULT


def verify_write(
    ctx: RequestContext,
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    partitions: list[TopicPartition],
    how: Verification,
) -> Verified:
    """The partitions of a transactional write that may not be written, with the error to answer
    (none: write them all), and those added to the transaction by this write."""
    needed = [
        tp
        for tp in partitions
        if ctx.partitions.needs_transaction_verification(tp[0], tp[1], producer_id, producer_epoch)
    ]
    if not needed:
        return Verified()
    if how is Verification.ADD:
        error = ctx.transactions.add_partitions(transactional_id, producer_id, producer_epoch, needed, TRANSACTIONS_V2)
        if error is ErrorCode.NONE:
            return Verified(added=frozenset(needed))
        errors = dict.fromkeys(needed, error)
    elif not ctx.cluster.config.transaction_partition_verification_enable:
        return Verified()
    else:
        found = ctx.transactions.verify_partitions(transactional_id, producer_id, producer_epoch, needed)
        errors = {tp: error for tp, error in found.items() if error is not ErrorCode.NONE}
    return Verified(refused={tp: _as_told(error, how) for tp, error in errors.items()})


def _as_told(error: ErrorCode, how: Verification) -> ErrorCode:
    if error is ErrorCode.PRODUCER_FENCED:
        return ErrorCode.INVALID_PRODUCER_EPOCH
    if error is ErrorCode.TRANSACTION_ABORTABLE and how is Verification.DEFAULT:
        return ErrorCode.INVALID_TXN_STATE
    return error
