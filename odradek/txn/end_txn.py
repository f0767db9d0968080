"""EndTxn's decision: which error, or which prepared state to persist (Kafka's endTransaction).

Two rule sets, chosen by the client's transactions version:

- v1 (EndTxn v0-4): the request's epoch must equal the current one; the prepared state keeps the
  epoch.  A retry of a completed commit/abort succeeds; anything else in the wrong state is
  INVALID_TXN_STATE; a retry while the markers are being written is CONCURRENT_TRANSACTIONS.
- v2 (EndTxn v5+, KIP-890): every prepared state bumps the epoch, so a retry carries the epoch
  just below the current one.  Completed or Empty states answer (PF: PRODUCER_FENCED,
  ITS: INVALID_TXN_STATE, NONE: a retry answered again, EB: a new abort with an epoch bump)::

                     Abort              Commit
                     retry   current    retry   current
      Empty          PF      EB         PF      ITS
      CompleteAbort  NONE    EB         ITS     ITS
      CompleteCommit ITS     EB         NONE    ITS

  A v2 transaction whose epoch is exhausted takes a new producer id (``next_producer_id``) that
  completion switches to; a retry after that switch is recognised through the previous id.

`fence_and_abort` is the abort the coordinator starts itself (a zombie found Ongoing by
InitProducerId, or a timed-out transaction): the epoch is bumped past the zombie's first.

Invariant: a decision either carries an error (and no state) or a prepared state whose epoch is
at least the current one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from odradek.txn.metadata import (
    MAX_EPOCH,
    NO_PRODUCER_ID,
    TxnMetadata,
    fence_epoch,
    is_epoch_exhausted,
    prepare_end,
)
from odradek.txn.txn_state import TxnState
from odradek.wire.errors import ErrorCode

__all__ = ["EndDecision", "decide_end_txn", "fence_and_abort"]

_S = TxnState


@dataclass(frozen=True, slots=True)
class EndDecision:
    """``prepared`` is the PrepareCommit/PrepareAbort to persist; otherwise ``error`` is the answer
    (NONE for a retry of a transaction already completed)."""

    error: ErrorCode
    prepared: TxnMetadata | None = None


def decide_end_txn(
    meta: TxnMetadata,
    producer_id: int,
    producer_epoch: int,
    commit: bool,
    client_transaction_version: int,
    allocate_producer_id: Callable[[], int],
    now: int,
) -> EndDecision:
    if client_transaction_version >= 2:
        return _decide_v2(
            meta, producer_id, producer_epoch, commit, client_transaction_version, allocate_producer_id, now
        )
    return _decide_v1(meta, producer_id, producer_epoch, commit, now)


def _decide_v1(meta: TxnMetadata, producer_id: int, producer_epoch: int, commit: bool, now: int) -> EndDecision:
    if meta.producer_id != producer_id:
        return EndDecision(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
    if producer_epoch != meta.producer_epoch:
        return EndDecision(ErrorCode.PRODUCER_FENCED)
    state = meta.state
    if state is _S.ONGOING:
        target = _S.PREPARE_COMMIT if commit else _S.PREPARE_ABORT
        return EndDecision(ErrorCode.NONE, prepare_end(meta, target, 0, NO_PRODUCER_ID, now, no_partition_added=False))
    if state is _S.COMPLETE_COMMIT or state is _S.COMPLETE_ABORT:
        return EndDecision(ErrorCode.NONE if commit == (state is _S.COMPLETE_COMMIT) else ErrorCode.INVALID_TXN_STATE)
    if state is _S.PREPARE_COMMIT or state is _S.PREPARE_ABORT:
        same = commit == (state is _S.PREPARE_COMMIT)
        return EndDecision(ErrorCode.CONCURRENT_TRANSACTIONS if same else ErrorCode.INVALID_TXN_STATE)
    return _illegal_or_invalid(meta)


def _decide_v2(
    meta: TxnMetadata,
    producer_id: int,
    producer_epoch: int,
    commit: bool,
    client_transaction_version: int,
    allocate_producer_id: Callable[[], int],
    now: int,
) -> EndDecision:
    state = meta.state
    retry_on_overflow = (
        meta.previous_producer_id == producer_id and producer_epoch == MAX_EPOCH - 1 and meta.producer_epoch == 0
    )
    retry_on_bump = meta.producer_epoch == producer_epoch + 1
    if state is _S.PREPARE_COMMIT or state is _S.PREPARE_ABORT:
        valid_epoch = retry_on_bump
    elif state is _S.COMPLETE_COMMIT or state is _S.COMPLETE_ABORT:
        valid_epoch = retry_on_bump or retry_on_overflow or producer_epoch == meta.producer_epoch
    else:
        valid_epoch = producer_epoch == meta.producer_epoch
    is_retry = retry_on_bump or retry_on_overflow

    def prepare(target: TxnState, no_partition_added: bool) -> EndDecision:
        next_id = allocate_producer_id() if is_epoch_exhausted(meta.producer_epoch) else NO_PRODUCER_ID
        prepared = prepare_end(meta, target, client_transaction_version, next_id, now, no_partition_added)
        return EndDecision(ErrorCode.NONE, prepared)

    if meta.producer_id != producer_id and not retry_on_overflow:
        return EndDecision(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
    if not valid_epoch:
        return EndDecision(ErrorCode.PRODUCER_FENCED)
    if state is _S.ONGOING:
        return prepare(_S.PREPARE_COMMIT if commit else _S.PREPARE_ABORT, False)
    if state is _S.COMPLETE_COMMIT:
        if commit:
            return EndDecision(ErrorCode.NONE if is_retry else ErrorCode.INVALID_TXN_STATE)
        return EndDecision(ErrorCode.INVALID_TXN_STATE) if is_retry else prepare(_S.PREPARE_ABORT, True)
    if state is _S.COMPLETE_ABORT:
        if not commit:
            return EndDecision(ErrorCode.NONE) if is_retry else prepare(_S.PREPARE_ABORT, True)
        return EndDecision(ErrorCode.INVALID_TXN_STATE)
    if state is _S.PREPARE_COMMIT or state is _S.PREPARE_ABORT:
        same = commit == (state is _S.PREPARE_COMMIT)
        return EndDecision(ErrorCode.CONCURRENT_TRANSACTIONS if same else ErrorCode.INVALID_TXN_STATE)
    if state is _S.EMPTY:
        return EndDecision(ErrorCode.INVALID_TXN_STATE) if commit else prepare(_S.PREPARE_ABORT, True)
    return _illegal_or_invalid(meta)


def _illegal_or_invalid(meta: TxnMetadata) -> EndDecision:
    if meta.state is _S.EMPTY:
        return EndDecision(ErrorCode.INVALID_TXN_STATE)
    raise RuntimeError(f"transactional id {meta.transactional_id} is {meta.state.display_name}, which is never stored")


def fence_and_abort(meta: TxnMetadata, now: int) -> TxnMetadata:
    """The PrepareAbort of an Ongoing transaction the coordinator aborts itself.

    The epoch goes one above the zombie's (PrepareEpochFence), and only one: a transactions-v2
    transaction is not bumped a second time by its abort, which keeps the transaction's version
    (its markers are written as v2 markers, whose epoch must exceed the data's).  Kafka 4.4 does
    so for a zombie fenced by InitProducerId and for a timed-out transaction alike (checked with
    compat-tests/probes, sequence txn.fencing_and_timeout, and the Java client's txn_timeout
    scenario: the late v2 commit is answered INVALID_TXN_STATE, a retry of the bumped epoch).
    """
    fenced = fence_epoch(meta)
    prepared = prepare_end(fenced, _S.PREPARE_ABORT, 0, NO_PRODUCER_ID, now, no_partition_added=False)
    return replace(prepared, client_transaction_version=meta.client_transaction_version)
