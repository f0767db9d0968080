"""Timed-out transactions, expired transactional ids, and rebuilding state from the log."""

from __future__ import annotations

import pytest
from txn_harness import FIRST_PRODUCER_ID, START_MS, TID, Harness

from odradek.txn.log_records import TransactionLogRecord, decode_record, encode_record
from odradek.txn.messages import WriteMarkers
from odradek.txn.txn_state import TxnState
from odradek.wire.errors import ErrorCode

E = ErrorCode
S = TxnState
PID = FIRST_PRODUCER_ID
DAY = 24 * 3_600_000


class TestAbortTimedOut:
    def test_aborts_only_ongoing_transactions_past_their_timeout(self) -> None:
        h = Harness()
        h.ready("a")  # timeout 60 s, started now
        h.init("b", timeout=120_000)
        h.add(tid="b")
        h.init("c")
        h.add(tid="c")
        h.end(True, tid="c")
        h.init("d")
        h.clock.advance(60_000)
        assert h.persist(h.coordinator.abort_timed_out()) == ()  # start + timeout == now is not past
        h.clock.advance(1)
        assert h.persist(h.coordinator.abort_timed_out()) == ("a",)
        assert [m.transactional_id for m in h.markers] == ["c", "a"]
        assert (h.state("a"), h.state("b"), h.state("c"), h.state("d")) == (
            S.PREPARE_ABORT,
            S.ONGOING,
            S.PREPARE_COMMIT,
            S.EMPTY,
        )

    @pytest.mark.parametrize(("tv", "epoch"), [(2, 1), (0, 1)])
    def test_the_producer_is_fenced(self, tv: int, epoch: int) -> None:
        """As for a zombie, one epoch above the producer's; the markers carry the transaction's version."""
        h = Harness(transaction_version=2)
        h.ready(tv=tv)
        h.clock.advance(60_001)
        result = h.coordinator.abort_timed_out()
        assert result.markers == (WriteMarkers(TID, PID, epoch, False, 0, frozenset({("t", 0)}), tv),)
        h.persist(result)
        h.write_markers()
        assert (h.state(), h.meta().producer_epoch) == (S.COMPLETE_ABORT, epoch)
        assert h.add(epoch=0) is E.PRODUCER_FENCED
        assert h.end(True, epoch=0).error is E.PRODUCER_FENCED
        h.assert_replay_matches()

    def test_nothing_while_loading(self) -> None:
        h = Harness()
        h.ready()
        h.clock.advance(100_000)
        h.coordinator.begin_load()
        result = h.coordinator.abort_timed_out()
        assert result.response == () and result.transitions == ()


class TestTransactionalIdExpiration:
    def test_idle_ids_expire_after_the_expiration_time(self) -> None:
        h = Harness()
        h.init("empty")
        h.ready("committed")
        h.end(True, tid="committed")
        h.write_markers()
        h.ready("ongoing")
        h.ready("prepared")
        h.end(False, tid="prepared")
        h.clock.advance(7 * DAY - 1)
        assert h.persist(h.coordinator.expire_transactional_ids()) == ()
        h.clock.advance(1)
        result = h.coordinator.expire_transactional_ids()
        assert result.response == ("committed", "empty")
        assert result.records == (TransactionLogRecord("committed", None), TransactionLogRecord("empty", None))
        h.persist(result)
        assert set(h.coordinator.transactions) == {"ongoing", "prepared"}
        h.assert_replay_matches()
        # An expired id starts afresh with a new producer id.
        assert h.init("empty").producer_id == PID + 4

    def test_activity_postpones_expiration(self) -> None:
        h = Harness(transactional_id_expiration_ms=1000)
        h.init()
        h.clock.advance(999)
        h.init()
        h.clock.advance(999)
        assert h.persist(h.coordinator.expire_transactional_ids()) == ()
        h.clock.advance(1)
        assert h.persist(h.coordinator.expire_transactional_ids()) == (TID,)

    def test_nothing_while_loading(self) -> None:
        h = Harness(transactional_id_expiration_ms=1)
        h.init()
        h.clock.advance(10)
        h.coordinator.begin_load()
        assert h.coordinator.expire_transactional_ids().transitions == ()


class TestLoad:
    def test_replay_rebuilds_every_state_and_later_records_win(self) -> None:
        h = Harness()
        h.init("empty")
        h.ready("ongoing")
        h.ready("done")
        h.end(True, tid="done")
        h.write_markers()
        h.init("gone")
        h.persist(h.coordinator.expire_transactional_ids())
        h.clock.advance(7 * DAY)
        h.persist(h.coordinator.expire_transactional_ids())
        h.init("back")
        h.assert_replay_matches()
        assert set(h.reloaded().transactions) == {"ongoing", "back"}

    def test_prepared_transactions_found_by_a_load_are_completed_once(self) -> None:
        h = Harness()
        h.ready("c")
        h.add(("u", 2), tid="c")
        h.end(True, tid="c")
        h.ready("a")
        h.end(False, tid="a")
        h.ready("o")
        fresh = h.reloaded()
        assert fresh.transactions["c"].last_producer_epoch == -1
        done = h.clock.time_ms()
        h.clock.advance(3)
        first_load = fresh.load(h.log)
        assert first_load.transitions == ()
        assert sorted(first_load.markers, key=lambda m: m.transactional_id) == [
            WriteMarkers("a", PID + 1, 0, False, 0, frozenset({("t", 0)})),
            WriteMarkers("c", PID, 0, True, 0, frozenset({("t", 0), ("u", 2)})),
        ]
        completions = [fresh.markers_written(m) for m in first_load.markers]
        for result in completions:
            assert result.response is True
            fresh.apply(result)
        assert (fresh.transactions["c"].state, fresh.transactions["a"].state) == (S.COMPLETE_COMMIT, S.COMPLETE_ABORT)
        assert fresh.transactions["c"].last_update_timestamp_ms == done + 3
        assert fresh.transactions["o"].state is S.ONGOING
        # Once the completions are in the log, a later load has nothing left to complete.
        log = h.log + [record for result in completions for record in result.records]
        assert fresh.load(log).markers == ()

    def test_requests_during_a_load_wait_for_it(self) -> None:
        h = Harness()
        h.ready()
        coordinator = h.coordinator
        coordinator.begin_load()
        assert coordinator.loading and not coordinator.transactions
        for record in h.log:
            coordinator.replay(record)
        assert coordinator.end_txn(TID, PID, 0, True).response.error is E.COORDINATOR_LOAD_IN_PROGRESS
        assert coordinator.finish_load().markers == ()
        assert not coordinator.loading
        assert coordinator.end_txn(TID, PID, 0, True).response.error is E.NONE

    def test_value_version_0_log_loads_without_the_tagged_fields(self) -> None:
        h = Harness(transaction_version=1)
        h.ready()
        log = [decode_record(*encode_record(r, value_version=0)) for r in h.log]
        fresh = h.reloaded()
        fresh.load([r for r in log if r is not None])
        meta = fresh.transactions[TID]
        assert (meta.state, meta.producer_id, meta.previous_producer_id) == (S.ONGOING, PID, -1)
        assert meta.start_timestamp_ms == START_MS
