"""EndTxn under transactions v1 and v2, marker completion, and the epoch overflow of v2."""

from __future__ import annotations

from dataclasses import replace

import pytest
from txn_harness import FIRST_PRODUCER_ID, START_MS, TID, Harness

from odradek.txn.messages import EndTxnResult, Transition, TxnResult, WriteMarkers
from odradek.txn.metadata import MAX_EPOCH
from odradek.txn.txn_state import TxnState
from odradek.wire.errors import ErrorCode

E = ErrorCode
S = TxnState
PID = FIRST_PRODUCER_ID


@pytest.mark.parametrize("commit", [True, False])
def test_v1_commit_or_abort_then_markers_then_complete(commit: bool) -> None:
    h = Harness()
    h.ready()
    h.add(("u", 1))
    h.clock.advance(50)
    result = h.coordinator.end_txn(TID, PID, 0, commit)
    assert result.response == EndTxnResult(E.NONE)
    assert result.markers == (WriteMarkers(TID, PID, 0, commit, 0, frozenset({("t", 0), ("u", 1)})),)
    h.persist(result)
    meta = h.meta()
    assert meta.state is (S.PREPARE_COMMIT if commit else S.PREPARE_ABORT)
    assert (meta.producer_epoch, meta.start_timestamp_ms, meta.last_update_timestamp_ms) == (0, START_MS, START_MS + 50)
    assert meta.client_transaction_version == 0
    h.assert_replay_matches()
    h.clock.advance(5)
    assert h.write_markers() == [True]
    meta = h.meta()
    assert meta.state is (S.COMPLETE_COMMIT if commit else S.COMPLETE_ABORT)
    assert (meta.partitions, meta.producer_epoch, meta.last_update_timestamp_ms) == ((), 0, START_MS + 55)
    assert meta.start_timestamp_ms == START_MS
    h.assert_replay_matches()


def test_markers_complete_partition_by_partition() -> None:
    h = Harness()
    h.ready()
    h.add(("u", 1))
    h.end(True)
    (markers,) = h.markers
    assert h.persist(h.coordinator.markers_written(markers, [("t", 0)])) is False
    assert set(h.meta().partitions) == {("u", 1)}
    assert h.coordinator.describe(TID).topics == (("u", (1,)),)
    assert h.persist(h.coordinator.markers_written(markers, [("u", 1)])) is True
    assert h.state() is S.COMPLETE_COMMIT
    # Reported again (a duplicate report): ignored.
    assert h.coordinator.markers_written(markers).response is False


def test_stale_markers_are_ignored() -> None:
    h = Harness()
    h.ready()
    h.end(True)
    (markers,) = h.markers
    for stale in (replace(markers, producer_epoch=1), replace(markers, commit=False), replace(markers, producer_id=7)):
        result = h.coordinator.markers_written(stale)
        assert result.response is False and result.transitions == ()
    assert h.coordinator.markers_written(replace(markers, transactional_id="other")).transitions == ()
    assert h.state() is S.PREPARE_COMMIT


@pytest.mark.parametrize(
    ("tid", "pid", "epoch", "error"),
    [
        ("", PID, 0, E.INVALID_REQUEST),
        ("unknown", PID, 0, E.INVALID_PRODUCER_ID_MAPPING),
        (TID, PID + 1, 0, E.INVALID_PRODUCER_ID_MAPPING),
        (TID, PID, 1, E.PRODUCER_FENCED),
    ],
)
@pytest.mark.parametrize("tv", [0, 2])
def test_request_errors(tid: str, pid: int, epoch: int, error: ErrorCode, tv: int) -> None:
    h = Harness()
    h.ready(tv=tv)
    assert h.end(True, tid=tid, pid=pid, epoch=epoch, tv=tv) == EndTxnResult(error)
    assert h.state() is S.ONGOING


def test_loading_answers_load_in_progress() -> None:
    h = Harness()
    h.ready()
    h.coordinator.begin_load()
    assert h.coordinator.end_txn(TID, PID, 0, True).response == EndTxnResult(E.COORDINATOR_LOAD_IN_PROGRESS)


# (state reached, commit?) -> v1 answer for a request with the current epoch.
V1 = [
    (S.EMPTY, True, E.INVALID_TXN_STATE),
    (S.EMPTY, False, E.INVALID_TXN_STATE),
    (S.PREPARE_COMMIT, True, E.CONCURRENT_TRANSACTIONS),
    (S.PREPARE_COMMIT, False, E.INVALID_TXN_STATE),
    (S.PREPARE_ABORT, False, E.CONCURRENT_TRANSACTIONS),
    (S.PREPARE_ABORT, True, E.INVALID_TXN_STATE),
    (S.COMPLETE_COMMIT, True, E.NONE),
    (S.COMPLETE_COMMIT, False, E.INVALID_TXN_STATE),
    (S.COMPLETE_ABORT, False, E.NONE),
    (S.COMPLETE_ABORT, True, E.INVALID_TXN_STATE),
]


def _reach(h: Harness, state: TxnState, tv: int) -> None:
    h.init()
    if state is S.EMPTY:
        return
    h.add(tv=tv)
    if state is S.ONGOING:
        return
    h.end(state in (S.PREPARE_COMMIT, S.COMPLETE_COMMIT), tv=tv)
    if state in (S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
        h.write_markers()
    assert h.state() is state


@pytest.mark.parametrize(("state", "commit", "error"), V1)
def test_v1_answers_in_each_state(state: TxnState, commit: bool, error: ErrorCode) -> None:
    h = Harness()
    _reach(h, state, 0)
    records = len(h.log)
    assert h.end(commit) == EndTxnResult(error)
    assert len(h.log) == records and h.state() is state


def test_v2_commit_bumps_the_epoch_and_returns_it() -> None:
    h = Harness()
    h.ready(tv=2)
    result = h.coordinator.end_txn(TID, PID, 0, True, 2)
    assert result.response == EndTxnResult(E.NONE, PID, 1)
    assert result.markers[0].producer_epoch == 1
    h.persist(result)
    meta = h.meta()
    assert (meta.state, meta.producer_epoch, meta.last_producer_epoch) == (S.PREPARE_COMMIT, 1, 0)
    h.write_markers()
    assert (h.state(), h.meta().producer_epoch) == (S.COMPLETE_COMMIT, 1)
    # The next transaction uses the returned epoch.
    assert h.add(epoch=1, tv=2) is E.NONE
    assert h.end(False, epoch=1, tv=2) == EndTxnResult(E.NONE, PID, 2)
    h.assert_replay_matches()


# v2: (state reached, commit?, request epoch relative to the current one) -> answer.
V2 = [
    (S.ONGOING, True, -1, E.PRODUCER_FENCED),
    (S.ONGOING, True, 1, E.PRODUCER_FENCED),
    (S.EMPTY, True, 0, E.INVALID_TXN_STATE),
    (S.EMPTY, True, -1, E.PRODUCER_FENCED),
    (S.EMPTY, False, -1, E.PRODUCER_FENCED),
    (S.PREPARE_COMMIT, True, -1, E.CONCURRENT_TRANSACTIONS),
    (S.PREPARE_COMMIT, False, -1, E.INVALID_TXN_STATE),
    (S.PREPARE_COMMIT, True, 0, E.PRODUCER_FENCED),
    (S.PREPARE_ABORT, False, -1, E.CONCURRENT_TRANSACTIONS),
    (S.PREPARE_ABORT, True, -1, E.INVALID_TXN_STATE),
    (S.COMPLETE_COMMIT, True, 0, E.INVALID_TXN_STATE),
    (S.COMPLETE_COMMIT, False, -1, E.INVALID_TXN_STATE),
    (S.COMPLETE_COMMIT, True, -2, E.PRODUCER_FENCED),
    (S.COMPLETE_ABORT, True, 0, E.INVALID_TXN_STATE),
    (S.COMPLETE_ABORT, True, -1, E.INVALID_TXN_STATE),
]


@pytest.mark.parametrize(("state", "commit", "delta", "error"), V2)
def test_v2_refusals_in_each_state(state: TxnState, commit: bool, delta: int, error: ErrorCode) -> None:
    h = Harness()
    _reach(h, state, 2)
    records = len(h.log)
    epoch = h.meta().producer_epoch
    assert h.end(commit, epoch=epoch + delta, tv=2) == EndTxnResult(error)
    assert len(h.log) == records and h.state() is state


@pytest.mark.parametrize("commit", [True, False])
def test_v2_retry_of_a_completed_end_answers_again_without_writing(commit: bool) -> None:
    h = Harness()
    _reach(h, S.COMPLETE_COMMIT if commit else S.COMPLETE_ABORT, 2)
    records = len(h.log)
    assert h.end(commit, epoch=0, tv=2) == EndTxnResult(E.NONE, PID, 1)
    assert len(h.log) == records


@pytest.mark.parametrize("state", [S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT])
def test_v2_abort_with_the_current_epoch_aborts_an_empty_transaction(state: TxnState) -> None:
    h = Harness()
    _reach(h, state, 2)
    epoch = h.meta().producer_epoch
    h.clock.advance(9)
    assert h.end(False, epoch=epoch, tv=2) == EndTxnResult(E.NONE, PID, epoch + 1)
    meta = h.meta()
    assert (meta.state, meta.partitions, meta.start_timestamp_ms) == (S.PREPARE_ABORT, (), h.clock.time_ms())
    assert h.markers[-1].partitions == frozenset()
    assert h.write_markers() == [True]
    assert (h.state(), h.meta().producer_epoch) == (S.COMPLETE_ABORT, epoch + 1)
    h.assert_replay_matches()


def _at_epoch(h: Harness, epoch: int) -> None:
    h.coordinator.apply(TxnResult(None, (Transition(TID, replace(h.meta(), producer_epoch=epoch)),)))


def test_v2_exhausted_epoch_completes_on_a_new_producer_id() -> None:
    h = Harness()
    h.init()
    _at_epoch(h, MAX_EPOCH - 1)
    h.add(epoch=MAX_EPOCH - 1, tv=2)
    result = h.coordinator.end_txn(TID, PID, MAX_EPOCH - 1, True, 2)
    assert result.response == EndTxnResult(E.NONE, PID + 1, 0)
    h.persist(result)
    meta = h.meta()
    assert (meta.producer_id, meta.producer_epoch, meta.next_producer_id) == (PID, MAX_EPOCH, PID + 1)
    assert result.markers[0].producer_epoch == MAX_EPOCH
    h.write_markers()
    meta = h.meta()
    assert (meta.state, meta.producer_id, meta.producer_epoch) == (S.COMPLETE_COMMIT, PID + 1, 0)
    assert (meta.previous_producer_id, meta.next_producer_id, meta.last_producer_epoch) == (PID, -1, MAX_EPOCH - 1)
    h.assert_replay_matches()
    # The client lost the response and retries with its old id and epoch.
    assert h.end(True, pid=PID, epoch=MAX_EPOCH - 1, tv=2) == EndTxnResult(E.NONE, PID + 1, 0)
    # An abort retried that way is not a valid new abort.
    assert h.end(False, pid=PID, epoch=MAX_EPOCH - 1, tv=2) == EndTxnResult(E.INVALID_TXN_STATE)
    # The new producer id works.
    assert h.add(pid=PID + 1, epoch=0, tv=2) is E.NONE


def test_v2_abort_already_at_the_maximum_epoch_does_not_overflow() -> None:
    h = Harness(transaction_version=2)
    h.init()
    _at_epoch(h, MAX_EPOCH - 1)
    h.add(epoch=MAX_EPOCH - 1, tv=2)
    h.persist(h.coordinator.init_producer_id(TID, 60_000))
    assert (h.state(), h.meta().producer_epoch) == (S.PREPARE_ABORT, MAX_EPOCH)
