"""Every legal transition of the table is reachable through the coordinator's operations,
and the transition functions refuse what Kafka refuses."""

from __future__ import annotations

import pytest
from test_txn_state_table import LEGAL
from txn_harness import TID, Harness

import odradek.txn.metadata as metadata_module
from odradek.txn.client_errors import append_error_to_response_error, fenced_error_for_version
from odradek.txn.messages import (
    Transition,
    TxnResult,
)
from odradek.txn.metadata import (
    MAX_EPOCH,
    TxnMetadata,
    bump_epoch,
    complete,
    is_epoch_exhausted,
    prepare_end,
    rotate_producer_id,
)
from odradek.txn.txn_state import IllegalTransition, TxnState
from odradek.wire.errors import ErrorCode

S = TxnState
E = ErrorCode


def _scenarios(h: Harness) -> None:
    h.init("a")  # Empty -> Empty (a brand-new id)
    h.init("a")  # Empty -> Empty
    h.add(tid="a")  # Empty -> Ongoing
    h.add(("t", 1), tid="a")  # Ongoing -> Ongoing
    h.end(True, tid="a")  # Ongoing -> PrepareCommit
    h.write_markers()  # PrepareCommit -> CompleteCommit
    h.add(tid="a")  # CompleteCommit -> Ongoing
    h.end(False, tid="a")  # Ongoing -> PrepareAbort
    h.write_markers()  # PrepareAbort -> CompleteAbort
    h.add(tid="a")  # CompleteAbort -> Ongoing
    h.init("a")  # Ongoing -> PrepareEpochFence -> PrepareAbort
    h.write_markers()
    h.init("a")  # CompleteAbort -> Empty
    h.end(False, tid="a", tv=2)  # Empty -> PrepareAbort (v2)
    h.write_markers()
    h.end(False, tid="a", tv=2)  # CompleteAbort -> PrepareAbort (v2)
    h.write_markers()
    h.ready("b", tv=2)
    h.end(True, tid="b", tv=2)
    h.write_markers()
    h.end(False, tid="b", tv=2)  # CompleteCommit -> PrepareAbort (v2)
    h.write_markers()
    h.ready("c")
    h.end(True, tid="c")
    h.write_markers()
    h.init("c")  # CompleteCommit -> Empty
    h.ready("d")
    h.end(False, tid="d")
    h.write_markers()
    h.ready("e")
    h.end(True, tid="e")
    h.write_markers()
    h.init("f")
    h.clock.advance(h.settings.transactional_id_expiration_ms)
    h.persist(h.coordinator.expire_transactional_ids())  # CompleteAbort/CompleteCommit/Empty -> Dead


def test_every_legal_transition_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: set[tuple[TxnState, TxnState]] = set()
    original = metadata_module.check_transition

    def spy(old: TxnState, new: TxnState) -> None:
        original(old, new)
        taken.add((old, new))

    monkeypatch.setattr(metadata_module, "check_transition", spy)
    h = Harness()
    _scenarios(h)
    assert taken == LEGAL
    assert not h.coordinator.transactions  # everything expired at the end


def _meta(state: TxnState, epoch: int = 3) -> TxnMetadata:
    return TxnMetadata(TID, 7, epoch, 1000, state, 0)


def test_transition_functions_refuse_illegal_moves() -> None:
    with pytest.raises(IllegalTransition):
        complete(_meta(S.ONGOING), 1)
    with pytest.raises(IllegalTransition):
        prepare_end(_meta(S.PREPARE_COMMIT), S.PREPARE_COMMIT, 0, -1, 1, False)
    with pytest.raises(IllegalTransition):
        bump_epoch(_meta(S.ONGOING), 1000, None, 1)
    with pytest.raises(ValueError):
        rotate_producer_id(_meta(S.ONGOING), 8, 1000, 1, False)
    with pytest.raises(ValueError):
        bump_epoch(_meta(S.EMPTY, epoch=MAX_EPOCH - 1), 1000, None, 1)
    with pytest.raises(ValueError):
        rotate_producer_id(_meta(S.EMPTY), -5, 1000, 1, False)


def test_epoch_exhaustion_threshold() -> None:
    assert not is_epoch_exhausted(MAX_EPOCH - 2)
    assert is_epoch_exhausted(MAX_EPOCH - 1) and is_epoch_exhausted(MAX_EPOCH)


def test_applying_a_tombstone_removes_the_id() -> None:
    h = Harness()
    h.init()
    h.coordinator.apply(TxnResult(None, (Transition(TID, None),)))
    assert TID not in h.coordinator.transactions


@pytest.mark.parametrize(
    ("append_error", "answer"),
    [
        (E.NONE, E.NONE),
        (E.UNKNOWN_TOPIC_OR_PARTITION, E.COORDINATOR_NOT_AVAILABLE),
        (E.NOT_ENOUGH_REPLICAS, E.COORDINATOR_NOT_AVAILABLE),
        (E.NOT_ENOUGH_REPLICAS_AFTER_APPEND, E.COORDINATOR_NOT_AVAILABLE),
        (E.REQUEST_TIMED_OUT, E.COORDINATOR_NOT_AVAILABLE),
        (E.NOT_LEADER_OR_FOLLOWER, E.NOT_COORDINATOR),
        (E.KAFKA_STORAGE_ERROR, E.NOT_COORDINATOR),
        (E.MESSAGE_TOO_LARGE, E.UNKNOWN_SERVER_ERROR),
        (E.RECORD_LIST_TOO_LARGE, E.UNKNOWN_SERVER_ERROR),
        (E.CORRUPT_MESSAGE, E.CORRUPT_MESSAGE),
    ],
)
def test_append_errors_become_coordinator_errors(append_error: ErrorCode, answer: ErrorCode) -> None:
    assert append_error_to_response_error(append_error) is answer


@pytest.mark.parametrize(
    ("api_key", "first_fenced_version"),
    [(22, 4), (24, 2), (25, 2), (26, 2)],
)
def test_old_clients_are_told_invalid_producer_epoch(api_key: int, first_fenced_version: int) -> None:
    old, new = first_fenced_version - 1, first_fenced_version
    assert fenced_error_for_version(api_key, old, E.PRODUCER_FENCED) is E.INVALID_PRODUCER_EPOCH
    assert fenced_error_for_version(api_key, new, E.PRODUCER_FENCED) is E.PRODUCER_FENCED
    assert fenced_error_for_version(api_key, old, E.CONCURRENT_TRANSACTIONS) is E.CONCURRENT_TRANSACTIONS
    assert fenced_error_for_version(0, 0, E.PRODUCER_FENCED) is E.PRODUCER_FENCED
