"""AddPartitionsToTxn (and its verify-only form) and AddOffsetsToTxn."""

from __future__ import annotations

import pytest
from txn_harness import FIRST_PRODUCER_ID, START_MS, TID, Harness, offsets_partition

from odradek.txn.txn_state import TxnState
from odradek.wire.errors import ErrorCode

E = ErrorCode
S = TxnState
PID = FIRST_PRODUCER_ID


def test_first_add_opens_the_transaction_and_starts_its_clock() -> None:
    h = Harness()
    h.init()
    h.clock.advance(10)
    assert h.add(("t", 0), ("u", 3)) is E.NONE
    meta = h.meta()
    assert meta.state is S.ONGOING
    assert set(meta.partitions) == {("t", 0), ("u", 3)}
    assert meta.start_timestamp_ms == meta.last_update_timestamp_ms == START_MS + 10
    h.clock.advance(10)
    assert h.add(("t", 1)) is E.NONE
    assert set(h.meta().partitions) == {("t", 0), ("t", 1), ("u", 3)}
    assert h.meta().start_timestamp_ms == START_MS + 10
    assert h.meta().last_update_timestamp_ms == START_MS + 20
    h.assert_replay_matches()


def test_partitions_already_in_the_transaction_write_nothing() -> None:
    h = Harness()
    h.ready()
    records = len(h.log)
    assert h.add(("t", 0)) is E.NONE
    assert len(h.log) == records


@pytest.mark.parametrize("commit", [True, False])
def test_a_completed_transaction_is_followed_by_a_new_one(commit: bool) -> None:
    h = Harness()
    h.ready()
    h.end(commit)
    h.write_markers()
    h.clock.advance(100)
    assert h.add(("t", 0)) is E.NONE
    assert set(h.meta().partitions) == {("t", 0)}
    assert h.meta().start_timestamp_ms == START_MS + 100


def test_client_transaction_version_is_recorded() -> None:
    h = Harness()
    h.init()
    assert h.add(tv=2) is E.NONE
    assert h.meta().client_transaction_version == 2
    assert h.log[-1].value is not None and h.log[-1].value.client_transaction_version == 2


@pytest.mark.parametrize(
    ("tid", "pid", "epoch", "error"),
    [
        ("", PID, 0, E.INVALID_REQUEST),
        ("unknown", PID, 0, E.INVALID_PRODUCER_ID_MAPPING),
        (TID, PID + 1, 0, E.INVALID_PRODUCER_ID_MAPPING),
        (TID, PID, 1, E.PRODUCER_FENCED),
        (TID, PID, -1, E.PRODUCER_FENCED),
    ],
)
def test_errors(tid: str, pid: int, epoch: int, error: ErrorCode) -> None:
    h = Harness()
    h.init()
    records = len(h.log)
    assert h.add(("t", 0), tid=tid, pid=pid, epoch=epoch) is error
    assert h.coordinator.add_offsets(tid, pid, epoch, "group").response is error
    assert h.coordinator.verify_partitions(tid, pid, epoch, [("t", 0), ("t", 1)]) == {("t", 0): error, ("t", 1): error}
    assert len(h.log) == records and h.state() is S.EMPTY


@pytest.mark.parametrize("commit", [True, False])
def test_prepared_transaction_answers_concurrent_transactions(commit: bool) -> None:
    h = Harness()
    h.ready()
    h.end(commit)
    assert h.add(("t", 9)) is E.CONCURRENT_TRANSACTIONS
    assert h.coordinator.verify_partitions(TID, PID, 0, [("t", 0)]) == {("t", 0): E.CONCURRENT_TRANSACTIONS}


def test_loading_answers_load_in_progress() -> None:
    h = Harness()
    h.ready()
    h.coordinator.begin_load()
    assert h.coordinator.add_partitions(TID, PID, 0, [("t", 1)]).response is E.COORDINATOR_LOAD_IN_PROGRESS
    assert h.coordinator.verify_partitions(TID, PID, 0, [("t", 1)]) == {("t", 1): E.COORDINATOR_LOAD_IN_PROGRESS}


def test_verify_only_checks_membership_without_writing() -> None:
    h = Harness()
    h.ready()
    records = len(h.log)
    got = h.coordinator.verify_partitions(TID, PID, 0, [("t", 0), ("t", 1)])
    assert got == {("t", 0): E.NONE, ("t", 1): E.TRANSACTION_ABORTABLE}
    assert len(h.log) == records
    assert h.coordinator.verify_partitions("", PID, 0, [("t", 0)]) == {("t", 0): E.INVALID_REQUEST}


def test_add_offsets_adds_the_groups_offsets_partition() -> None:
    h = Harness()
    h.init()
    result = h.coordinator.add_offsets(TID, PID, 0, "my-group")
    assert result.response is E.NONE
    h.persist(result)
    assert set(h.meta().partitions) == {("__consumer_offsets", offsets_partition("my-group"))}
    assert h.state() is S.ONGOING


def test_adding_no_partition_still_opens_a_transaction() -> None:
    h = Harness()
    h.init()
    assert h.persist(h.coordinator.add_partitions(TID, PID, 0, [])) is E.NONE
    assert (h.state(), h.meta().partitions) == (S.ONGOING, ())
    records = len(h.log)
    assert h.persist(h.coordinator.add_partitions(TID, PID, 0, [])) is E.NONE
    assert len(h.log) == records
