"""DescribeTransactions and ListTransactions data."""

from __future__ import annotations

from txn_harness import FIRST_PRODUCER_ID, START_MS, TID, Harness

from odradek.txn.messages import DescribedTransaction, ListedTransaction, ListedTransactions
from odradek.txn.txn_state import TxnState
from odradek.wire.errors import ErrorCode

E = ErrorCode
S = TxnState
PID = FIRST_PRODUCER_ID


def test_describe_an_ongoing_transaction() -> None:
    h = Harness()
    h.init(timeout=30_000)
    h.clock.advance(4)
    h.add(("u", 2), ("t", 1), ("t", 0))
    assert h.coordinator.describe(TID) == DescribedTransaction(
        TID,
        E.NONE,
        state="Ongoing",
        producer_id=PID,
        producer_epoch=0,
        timeout_ms=30_000,
        start_timestamp_ms=START_MS + 4,
        topics=(("u", (2,)), ("t", (1, 0))),
    ), "in the order Kafka's hash set of the partitions iterates them"


def test_describe_errors() -> None:
    h = Harness()
    assert h.coordinator.describe("") == DescribedTransaction("", E.INVALID_REQUEST)
    assert h.coordinator.describe("nope") == DescribedTransaction("nope", E.TRANSACTIONAL_ID_NOT_FOUND)
    h.coordinator.begin_load()
    assert h.coordinator.describe(TID) == DescribedTransaction(TID, E.COORDINATOR_LOAD_IN_PROGRESS)


def _populated() -> Harness:
    h = Harness()
    h.ready("ongoing-0")  # pid 1000, started at START
    h.clock.advance(1000)
    h.ready("prepare-1")  # pid 1001, started at START + 1000
    h.end(True, tid="prepare-1")
    h.markers.clear()  # its markers stay unwritten: it remains PrepareCommit
    h.clock.advance(1000)
    h.init("empty-2")  # pid 1002, never started
    h.ready("aborted-3")  # pid 1003, started at START + 2000
    h.end(False, tid="aborted-3")
    h.write_markers()
    h.clock.advance(1000)
    return h


def _ids(listed: ListedTransactions) -> list[str]:
    assert listed.error is E.NONE
    return [t.transactional_id for t in listed.transactions]


def test_list_everything() -> None:
    h = _populated()
    listed = h.coordinator.list_transactions()
    assert listed.transactions == (
        ListedTransaction("aborted-3", PID + 3, S.COMPLETE_ABORT),
        ListedTransaction("empty-2", PID + 2, S.EMPTY),
        ListedTransaction("ongoing-0", PID, S.ONGOING),
        ListedTransaction("prepare-1", PID + 1, S.PREPARE_COMMIT),
    )


def test_list_by_state_reports_unknown_names() -> None:
    h = _populated()
    listed = h.coordinator.list_transactions(states=["Ongoing", "PrepareCommit", "Bogus"])
    assert _ids(listed) == ["ongoing-0", "prepare-1"]
    assert listed.unknown_state_filters == ("Bogus",)
    assert _ids(h.coordinator.list_transactions(states=["Bogus"])) == []
    assert _ids(h.coordinator.list_transactions(states=["Dead"])) == []


def test_list_by_producer_id() -> None:
    h = _populated()
    assert _ids(h.coordinator.list_transactions(producer_ids=[PID + 1, PID + 3, 9])) == ["aborted-3", "prepare-1"]
    assert _ids(h.coordinator.list_transactions(states=["Ongoing"], producer_ids=[PID + 1])) == []


def test_list_by_duration_keeps_those_running_longer() -> None:
    h = _populated()
    assert _ids(h.coordinator.list_transactions(duration_ms=0)) == ["aborted-3", "empty-2", "ongoing-0", "prepare-1"]
    assert _ids(h.coordinator.list_transactions(duration_ms=1000)) == ["empty-2", "ongoing-0", "prepare-1"]
    assert _ids(h.coordinator.list_transactions(duration_ms=2000)) == ["empty-2", "ongoing-0"]
    assert _ids(h.coordinator.list_transactions(duration_ms=3000)) == ["empty-2"]


def test_list_by_transactional_id_pattern() -> None:
    h = _populated()
    assert _ids(h.coordinator.list_transactions(transactional_id_pattern=".*-[01]")) == ["ongoing-0", "prepare-1"]
    assert _ids(h.coordinator.list_transactions(transactional_id_pattern="ongoing")) == []
    assert len(_ids(h.coordinator.list_transactions(transactional_id_pattern=""))) == 4
    assert h.coordinator.list_transactions(transactional_id_pattern="(ab") == ListedTransactions(
        E.INVALID_REGULAR_EXPRESSION
    )


def test_list_while_loading() -> None:
    h = _populated()
    h.coordinator.begin_load()
    assert h.coordinator.list_transactions() == ListedTransactions(E.COORDINATOR_LOAD_IN_PROGRESS)
