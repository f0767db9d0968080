"""InitProducerId: new ids, epoch bumps, KIP-360 recovery, fencing a zombie, epoch exhaustion."""

from __future__ import annotations

from dataclasses import replace

import pytest
from txn_harness import FIRST_PRODUCER_ID, START_MS, TID, Harness

from odradek.txn.messages import InitProducerIdResult, Transition, TxnResult, WriteMarkers
from odradek.txn.metadata import MAX_EPOCH
from odradek.txn.txn_state import TxnState
from odradek.wire.errors import ErrorCode

E = ErrorCode
S = TxnState


def test_idempotent_producer_gets_a_fresh_id_and_nothing_is_written() -> None:
    h = Harness()
    assert h.init(None) == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID, 0)
    assert h.init(None) == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID + 1, 0)
    assert h.log == []


def test_new_transactional_id_starts_at_epoch_0() -> None:
    h = Harness()
    assert h.init(timeout=30_000) == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID, 0)
    meta = h.meta()
    assert (meta.state, meta.producer_epoch, meta.timeout_ms) == (S.EMPTY, 0, 30_000)
    assert (meta.previous_producer_id, meta.last_producer_epoch) == (FIRST_PRODUCER_ID, -1)
    assert (meta.start_timestamp_ms, meta.last_update_timestamp_ms) == (-1, START_MS)
    assert len(h.log) == 1 and h.log[0].value is not None and h.log[0].value.state is S.EMPTY
    h.assert_replay_matches()


def test_reinit_bumps_the_epoch_and_takes_the_new_timeout() -> None:
    h = Harness()
    h.init()
    h.clock.advance(5)
    assert h.init(timeout=1234) == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID, 1)
    assert (h.meta().timeout_ms, h.meta().last_update_timestamp_ms) == (1234, START_MS + 5)
    assert h.meta().last_producer_epoch == -1


@pytest.mark.parametrize(
    ("tid", "timeout", "pid", "epoch", "error"),
    [
        ("", 60_000, -1, -1, E.INVALID_REQUEST),
        (TID, 60_000, 5, -1, E.INVALID_REQUEST),
        (TID, 60_000, -1, 5, E.INVALID_REQUEST),
        (TID, 0, -1, -1, E.INVALID_TRANSACTION_TIMEOUT),
        (TID, -1, -1, -1, E.INVALID_TRANSACTION_TIMEOUT),
        (TID, 900_001, -1, -1, E.INVALID_TRANSACTION_TIMEOUT),
    ],
)
def test_request_errors(tid: str, timeout: int, pid: int, epoch: int, error: ErrorCode) -> None:
    h = Harness()
    assert h.init(tid, timeout, pid, epoch) == InitProducerIdResult(error)
    assert h.log == [] and not h.coordinator.transactions


def test_timeout_limit_is_transaction_max_timeout_ms() -> None:
    h = Harness(max_timeout_ms=1000)
    assert h.init(timeout=1000).error is E.NONE
    assert h.init(timeout=1001).error is E.INVALID_TRANSACTION_TIMEOUT


def test_loading_coordinator_answers_load_in_progress() -> None:
    h = Harness()
    h.coordinator.begin_load()
    assert h.init().error is E.COORDINATOR_LOAD_IN_PROGRESS
    h.persist(h.coordinator.finish_load())
    assert h.init().error is E.NONE


@pytest.mark.parametrize("state", [S.PREPARE_COMMIT, S.PREPARE_ABORT])
def test_prepared_transaction_answers_concurrent_transactions(state: TxnState) -> None:
    h = Harness()
    h.ready()
    h.end(commit=state is S.PREPARE_COMMIT)
    assert h.state() is state
    assert h.init().error is E.CONCURRENT_TRANSACTIONS
    assert h.state() is state


@pytest.mark.parametrize(("tv", "abort_epoch"), [(2, 1), (1, 1), (0, 1)])
def test_ongoing_transaction_of_a_zombie_is_aborted_first(tv: int, abort_epoch: int) -> None:
    """The fenced epoch is one above the zombie's whatever the transaction's version (``tv``: how
    the client opened it); the markers carry that version."""
    h = Harness(transaction_version=2)
    h.ready(tv=tv)
    h.clock.advance(7)
    result = h.coordinator.init_producer_id(TID, 60_000)
    assert result.response == InitProducerIdResult(E.CONCURRENT_TRANSACTIONS)
    expected = WriteMarkers(TID, FIRST_PRODUCER_ID, abort_epoch, False, 0, frozenset({("t", 0)}), tv)
    assert result.markers == (expected,)
    h.persist(result)
    meta = h.meta()
    assert (meta.state, meta.producer_epoch) == (S.PREPARE_ABORT, abort_epoch)
    assert meta.last_producer_epoch == -1
    assert meta.client_transaction_version == tv
    assert meta.last_update_timestamp_ms == START_MS + 7
    assert h.log[-1].value is not None and h.log[-1].value.state is S.PREPARE_ABORT
    # The client retries while the markers are being written, then after.
    assert h.init().error is E.CONCURRENT_TRANSACTIONS
    assert h.write_markers() == [True]
    assert h.state() is S.COMPLETE_ABORT
    assert h.init() == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID, abort_epoch + 1)
    h.assert_replay_matches()


def test_zombie_epoch_is_fenced_afterwards() -> None:
    h = Harness()
    old = h.ready()
    h.init()
    h.write_markers()
    new = h.init()
    assert new.producer_epoch > old.producer_epoch
    assert h.add(("t", 1), pid=old.producer_id, epoch=old.producer_epoch) is E.PRODUCER_FENCED
    assert h.end(True, pid=old.producer_id, epoch=old.producer_epoch).error is E.PRODUCER_FENCED


class TestKip360Recovery:
    def test_current_epoch_bumps_and_remembers_it(self) -> None:
        h = Harness()
        h.init()
        assert h.init(pid=FIRST_PRODUCER_ID, epoch=0) == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID, 1)
        assert h.meta().last_producer_epoch == 0

    def test_retry_with_the_previous_epoch_returns_the_same_epoch(self) -> None:
        h = Harness()
        h.init()
        h.init(pid=FIRST_PRODUCER_ID, epoch=0)
        records = len(h.log)
        assert h.init(pid=FIRST_PRODUCER_ID, epoch=0) == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID, 1)
        assert h.meta().producer_epoch == 1 and len(h.log) == records + 1

    def test_other_epoch_is_fenced(self) -> None:
        h = Harness()
        h.init()
        h.init()
        h.init()
        assert h.init(pid=FIRST_PRODUCER_ID, epoch=0).error is E.PRODUCER_FENCED
        assert h.meta().producer_epoch == 2

    def test_other_producer_id_is_fenced(self) -> None:
        h = Harness()
        h.init()
        assert h.init(pid=7, epoch=0).error is E.PRODUCER_FENCED

    def test_unknown_transactional_id_accepts_any_producer(self) -> None:
        h = Harness()
        assert h.init(pid=7, epoch=3) == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID, 0)

    def test_previous_producer_id_with_an_exhausted_epoch_is_a_retry_of_the_rotation(self) -> None:
        h = Harness()
        h.init()
        _exhaust(h)
        rotated = h.init(pid=FIRST_PRODUCER_ID, epoch=MAX_EPOCH - 1)
        assert rotated == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID + 1, 0)
        assert h.meta().last_producer_epoch == MAX_EPOCH - 1
        assert h.meta().previous_producer_id == FIRST_PRODUCER_ID
        # The response was lost: the producer retries with its old id and exhausted epoch.
        retried = h.init(pid=FIRST_PRODUCER_ID, epoch=MAX_EPOCH - 1)
        assert retried == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID + 1, 0)

    def test_previous_producer_id_without_exhausted_epoch_is_fenced(self) -> None:
        h = Harness()
        h.init()
        _exhaust(h)
        h.init()
        assert h.init(pid=FIRST_PRODUCER_ID, epoch=5).error is E.PRODUCER_FENCED


def _exhaust(h: Harness) -> None:
    """Jump the id's epoch to the last one a client may use (as if after 32766 bumps)."""
    meta = h.meta()
    h.coordinator.apply(TxnResult(None, (Transition(TID, replace(meta, producer_epoch=MAX_EPOCH - 1)),)))


def test_exhausted_epoch_rotates_to_a_new_producer_id() -> None:
    h = Harness()
    h.init()
    _exhaust(h)
    assert h.init() == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID + 1, 0)
    meta = h.meta()
    assert (meta.previous_producer_id, meta.last_producer_epoch, meta.state) == (FIRST_PRODUCER_ID, -1, S.EMPTY)
    h.assert_replay_matches()


def test_exhausted_epoch_with_another_expected_epoch_is_an_internal_error() -> None:
    h = Harness()
    h.init()
    _exhaust(h)
    assert h.init(pid=FIRST_PRODUCER_ID, epoch=3).error is E.UNKNOWN_SERVER_ERROR


def test_fencing_at_the_exhausted_epoch_leads_to_a_new_producer_id() -> None:
    h = Harness()
    h.init()
    _exhaust(h)
    assert h.add() is E.NONE
    assert h.init().error is E.CONCURRENT_TRANSACTIONS
    assert h.meta().producer_epoch == MAX_EPOCH  # fenced to MAX-1+1, the v2 abort cannot go higher
    h.write_markers()
    assert h.init() == InitProducerIdResult(E.NONE, FIRST_PRODUCER_ID + 1, 0)
