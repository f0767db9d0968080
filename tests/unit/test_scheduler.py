"""The scheduler every broker timer runs on: exact deadlines on a ManualClock, no real time."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator

import pytest

from odradek.clock import ManualClock, SystemClock
from odradek.scheduler import Scheduler


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(5_000)


@pytest.fixture
def scheduler(clock: ManualClock) -> Scheduler:
    return Scheduler(clock)


def test_a_timer_runs_at_its_deadline_with_the_clock_standing_there(clock: ManualClock, scheduler: Scheduler) -> None:
    seen: list[tuple[int, int]] = []
    timer = scheduler.call_later(100, lambda: seen.append((scheduler.now_ms(), clock.time_ms())))
    assert timer.deadline_ms == 100
    clock.advance(99)
    assert seen == [] and timer.pending
    clock.advance(50)
    assert seen == [(100, 5_100)]
    assert clock.time_ms() == 5_149 and not timer.pending


def test_due_timers_run_in_deadline_order_then_in_the_order_they_were_set(
    clock: ManualClock, scheduler: Scheduler
) -> None:
    order: list[str] = []
    scheduler.call_at(30, lambda: order.append("c"))
    scheduler.call_at(10, lambda: order.append("a1"))
    scheduler.call_at(10, lambda: order.append("a2"))
    scheduler.call_at(20, lambda: order.append("b"))
    clock.advance(1_000)
    assert order == ["a1", "a2", "b", "c"]


def test_a_periodic_task_runs_once_per_period_within_one_advance(clock: ManualClock, scheduler: Scheduler) -> None:
    runs: list[int] = []
    task = scheduler.schedule_periodic(300, lambda: runs.append(scheduler.now_ms()), name="tick")
    clock.advance(1_000)
    assert runs == [300, 600, 900]
    assert task.next_deadline_ms == 1_200
    task.cancel()
    clock.advance(10_000)
    assert runs == [300, 600, 900] and scheduler.pending == 0


def test_a_periodic_task_keeps_its_rate_from_the_first_deadline(clock: ManualClock, scheduler: Scheduler) -> None:
    runs: list[int] = []
    scheduler.schedule_periodic(100, lambda: runs.append(scheduler.now_ms()), name="p", initial_delay_ms=5)
    clock.advance(250)
    assert runs == [5, 105, 205]


def test_timers_set_by_timers_run_in_the_same_advance(clock: ManualClock, scheduler: Scheduler) -> None:
    runs: list[tuple[str, int]] = []

    def first() -> None:
        runs.append(("first", scheduler.now_ms()))
        scheduler.call_later(20, lambda: runs.append(("second", scheduler.now_ms())))
        scheduler.call_later(500, lambda: runs.append(("late", scheduler.now_ms())))

    scheduler.call_at(10, first)
    clock.advance(100)
    assert runs == [("first", 10), ("second", 30)]
    clock.advance(410)
    assert runs[-1] == ("late", 510)


def test_a_cancelled_timer_never_runs(clock: ManualClock, scheduler: Scheduler) -> None:
    runs: list[str] = []
    timer = scheduler.call_later(10, lambda: runs.append("x"))
    other = scheduler.call_later(10, lambda: runs.append("y"))
    timer.cancel()
    assert scheduler.pending == 1
    clock.advance(10)
    assert runs == ["y"] and not other.pending


def test_cancel_all_cancels_every_pending_timer(clock: ManualClock, scheduler: Scheduler) -> None:
    runs: list[int] = []
    scheduler.call_later(1, lambda: runs.append(1))
    scheduler.schedule_periodic(1, lambda: runs.append(2), name="p")
    scheduler.cancel_all()
    clock.advance(10)
    assert runs == []


def test_a_failing_timer_is_logged_and_the_others_still_run(
    clock: ManualClock, scheduler: Scheduler, caplog: pytest.LogCaptureFixture
) -> None:
    runs: list[int] = []

    def boom() -> None:
        raise RuntimeError("boom")

    scheduler.schedule_periodic(10, boom, name="boom")
    scheduler.call_later(15, lambda: runs.append(scheduler.now_ms()))
    with caplog.at_level(logging.ERROR, "odradek.scheduler"):
        clock.advance(20)
    assert runs == [15]
    assert [r.message for r in caplog.records] == ["periodic task boom failed"] * 2


def test_advance_cannot_be_reentered_from_a_timer(clock: ManualClock, scheduler: Scheduler) -> None:
    errors: list[Exception] = []

    def reenter() -> None:
        try:
            clock.advance(1)
        except RuntimeError as exc:
            errors.append(exc)

    scheduler.call_later(1, reenter)
    clock.advance(1)
    assert len(errors) == 1


@pytest.fixture
def loop_thread() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop running on its own thread, as the in-process broker tests run a broker."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def test_advance_from_another_thread_runs_a_loops_timer_on_that_loop(
    clock: ManualClock, scheduler: Scheduler, loop_thread: asyncio.AbstractEventLoop
) -> None:
    ran_on: list[int] = []

    async def arm() -> int:
        scheduler.call_later(50, lambda: ran_on.append(threading.get_ident()))
        return threading.get_ident()

    loop_ident = asyncio.run_coroutine_threadsafe(arm(), loop_thread).result(timeout=10)
    clock.advance(49)
    assert ran_on == []
    clock.advance(1)
    assert ran_on == [loop_ident] != [threading.get_ident()]


def test_a_due_timer_set_on_a_loop_during_advance_runs_before_advance_returns(
    clock: ManualClock, scheduler: Scheduler, loop_thread: asyncio.AbstractEventLoop
) -> None:
    runs: list[tuple[str, int]] = []

    def first() -> None:
        runs.append(("first", scheduler.now_ms()))
        scheduler.call_later(0, lambda: runs.append(("due now", scheduler.now_ms())))

    async def arm() -> None:
        scheduler.call_later(10, first)

    asyncio.run_coroutine_threadsafe(arm(), loop_thread).result(timeout=10)
    clock.advance(20)
    assert runs == [("first", 10), ("due now", 10)]


def test_sleep_and_wait_for_are_resolved_by_advance_only(
    clock: ManualClock, scheduler: Scheduler, loop_thread: asyncio.AbstractEventLoop
) -> None:
    async def sleeper() -> int:
        await scheduler.sleep(1_000)
        return scheduler.now_ms()

    async def never() -> None:
        await asyncio.Event().wait()

    async def timed_out() -> bool:
        return await scheduler.wait_for(never(), 2_000)

    async def arm_timers() -> None:
        await asyncio.sleep(0)

    slept = asyncio.run_coroutine_threadsafe(sleeper(), loop_thread)
    waited = asyncio.run_coroutine_threadsafe(timed_out(), loop_thread)
    while scheduler.pending < 2:
        asyncio.run_coroutine_threadsafe(arm_timers(), loop_thread).result(timeout=10)
    clock.advance(999)
    assert not slept.done() and not waited.done()
    clock.advance(1)
    assert slept.result(timeout=10) == 1_000
    assert not waited.done()
    clock.advance(1_000)
    assert waited.result(timeout=10) is False


def test_wait_for_and_wait_any_report_completion_before_the_timeout(scheduler: Scheduler) -> None:
    async def main() -> tuple[bool, bool, bool]:
        done = await scheduler.wait_for(asyncio.sleep(0), 10)
        first, second = asyncio.Event(), asyncio.Event()
        asyncio.get_running_loop().call_soon(second.set)
        woken = await scheduler.wait_any([first, second], 10)
        return done, woken, scheduler.pending == 0

    assert asyncio.run(main()) == (True, True, True)


def test_a_timer_already_due_when_set_on_a_loop_runs_without_advance(scheduler: Scheduler) -> None:
    async def main() -> list[int]:
        runs: list[int] = []
        scheduler.call_later(0, lambda: runs.append(scheduler.now_ms()))
        await asyncio.sleep(0)
        return runs

    assert asyncio.run(main()) == [0]


def test_on_the_system_clock_timers_run_on_the_loop_and_never_early() -> None:
    scheduler = Scheduler(SystemClock())

    async def main() -> tuple[list[str], bool]:
        runs: list[str] = []
        start = scheduler.now_ms()
        scheduler.call_later(2, lambda: runs.append("late"))
        scheduler.call_later(1, lambda: runs.append("early"))
        await scheduler.sleep(3)
        return runs, scheduler.now_ms() - start >= 3

    assert asyncio.run(main()) == (["early", "late"], True)


def test_a_timer_on_the_system_clock_needs_a_loop() -> None:
    with pytest.raises(RuntimeError):
        Scheduler(SystemClock()).call_later(1, lambda: None)


def test_clock_and_scheduler_import_nothing_else_of_odradek() -> None:
    import ast
    from pathlib import Path

    import odradek.clock
    import odradek.scheduler

    for module, allowed in ((odradek.clock, set()), (odradek.scheduler, {"odradek.clock"})):
        tree = ast.parse(Path(str(module.__file__)).read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        assert {name for name in imported if name.startswith("odradek")} == allowed
        if module is odradek.clock:
            assert "asyncio" not in imported  # storage imports the clock, and storage stays free of asyncio
