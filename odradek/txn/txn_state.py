"""The states of a transactional id and the one table of legal transitions (Kafka's TransactionState).

- Empty: a producer id and epoch are assigned, no transaction is open.
- Ongoing: partitions (or a group's offsets partition) were added; the transaction is open.
- PrepareCommit / PrepareAbort: the decision is persisted; markers are being written to every
  partition of the transaction.  Nothing else may happen to the transactional id meanwhile.
- CompleteCommit / CompleteAbort: every marker is written; the next transaction may start.
- PrepareEpochFence: a zombie is being fenced (InitProducerId or a timeout found the transaction
  Ongoing); it only ever leads to PrepareAbort and is never written to the log.
- Dead: the transactional id expired; its tombstone is being written.

The value of each state is the byte Kafka writes in ``TransactionStatus`` of
``__transaction_state`` values; `TxnState.display_name` is the name DescribeTransactions and
ListTransactions report.

Invariants:
- `VALID_PREVIOUS` is the only statement of which transitions are legal; `check_transition`
  raises `IllegalTransition` for any other (a coordinator bug, never a client's fault);
- only Empty, CompleteCommit and CompleteAbort allow the transactional id to expire.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["EXPIRATION_ALLOWED", "VALID_PREVIOUS", "IllegalTransition", "TxnState", "check_transition"]


class TxnState(IntEnum):
    EMPTY = 0
    ONGOING = 1
    PREPARE_COMMIT = 2
    PREPARE_ABORT = 3
    COMPLETE_COMMIT = 4
    COMPLETE_ABORT = 5
    DEAD = 6
    PREPARE_EPOCH_FENCE = 7

    @property
    def display_name(self) -> str:
        return _NAMES[self]

    @classmethod
    def from_name(cls, name: str) -> TxnState | None:
        """The state Kafka reports under ``name`` (case-sensitive), or None."""
        return _BY_NAME.get(name)


_NAMES = {
    TxnState.EMPTY: "Empty",
    TxnState.ONGOING: "Ongoing",
    TxnState.PREPARE_COMMIT: "PrepareCommit",
    TxnState.PREPARE_ABORT: "PrepareAbort",
    TxnState.COMPLETE_COMMIT: "CompleteCommit",
    TxnState.COMPLETE_ABORT: "CompleteAbort",
    TxnState.DEAD: "Dead",
    TxnState.PREPARE_EPOCH_FENCE: "PrepareEpochFence",
}
_BY_NAME = {name: state for state, name in _NAMES.items()}


class IllegalTransition(RuntimeError):
    """A transition the table does not allow."""


_S = TxnState
# Target state -> the states it may be entered from.  PrepareAbort is also entered from Empty and
# the Complete states: with transactions v2 a client may abort when unsure whether one is open.
VALID_PREVIOUS: dict[TxnState, frozenset[TxnState]] = {
    _S.EMPTY: frozenset({_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}),
    _S.ONGOING: frozenset({_S.ONGOING, _S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}),
    _S.PREPARE_COMMIT: frozenset({_S.ONGOING}),
    _S.PREPARE_ABORT: frozenset({_S.ONGOING, _S.PREPARE_EPOCH_FENCE, _S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}),
    _S.COMPLETE_COMMIT: frozenset({_S.PREPARE_COMMIT}),
    _S.COMPLETE_ABORT: frozenset({_S.PREPARE_ABORT}),
    _S.DEAD: frozenset({_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}),
    _S.PREPARE_EPOCH_FENCE: frozenset({_S.ONGOING}),
}

EXPIRATION_ALLOWED = frozenset({_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT})


def check_transition(old: TxnState, new: TxnState) -> None:
    if old not in VALID_PREVIOUS[new]:
        raise IllegalTransition(f"a transaction cannot go from {old.display_name} to {new.display_name}")
