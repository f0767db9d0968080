"""The transaction state enum and its one transition table, against Kafka's TransactionState."""

from __future__ import annotations

import itertools

import pytest

from odradek.txn.txn_state import EXPIRATION_ALLOWED, IllegalTransition, TxnState, check_transition

S = TxnState

# Kafka's validPreviousStates, written out independently of the module's table.
LEGAL = {
    (S.EMPTY, S.EMPTY),
    (S.COMPLETE_COMMIT, S.EMPTY),
    (S.COMPLETE_ABORT, S.EMPTY),
    (S.ONGOING, S.ONGOING),
    (S.EMPTY, S.ONGOING),
    (S.COMPLETE_COMMIT, S.ONGOING),
    (S.COMPLETE_ABORT, S.ONGOING),
    (S.ONGOING, S.PREPARE_COMMIT),
    (S.ONGOING, S.PREPARE_ABORT),
    (S.PREPARE_EPOCH_FENCE, S.PREPARE_ABORT),
    (S.EMPTY, S.PREPARE_ABORT),
    (S.COMPLETE_COMMIT, S.PREPARE_ABORT),
    (S.COMPLETE_ABORT, S.PREPARE_ABORT),
    (S.PREPARE_COMMIT, S.COMPLETE_COMMIT),
    (S.PREPARE_ABORT, S.COMPLETE_ABORT),
    (S.EMPTY, S.DEAD),
    (S.COMPLETE_ABORT, S.DEAD),
    (S.COMPLETE_COMMIT, S.DEAD),
    (S.ONGOING, S.PREPARE_EPOCH_FENCE),
}


@pytest.mark.parametrize(("old", "new"), list(itertools.product(TxnState, TxnState)))
def test_every_pair_of_states(old: TxnState, new: TxnState) -> None:
    if (old, new) in LEGAL:
        check_transition(old, new)
    else:
        with pytest.raises(IllegalTransition):
            check_transition(old, new)


def test_state_bytes_and_names_are_kafkas() -> None:
    expected = {
        0: "Empty",
        1: "Ongoing",
        2: "PrepareCommit",
        3: "PrepareAbort",
        4: "CompleteCommit",
        5: "CompleteAbort",
        6: "Dead",
        7: "PrepareEpochFence",
    }
    assert {int(s): s.display_name for s in TxnState} == expected
    for state in TxnState:
        assert TxnState.from_name(state.display_name) is state
    assert TxnState.from_name("ongoing") is None
    assert TxnState.from_name("Unknown") is None


def test_only_idle_states_may_expire() -> None:
    assert {S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT} == EXPIRATION_ALLOWED
