"""The embedded broker's clock: system time until a test freezes it, then manual, then system again."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from odradek.clock import SwitchableClock
from odradek.scheduler import Scheduler


def test_a_running_clock_follows_the_system_clock_and_refuses_to_advance() -> None:
    clock = SwitchableClock()
    assert abs(clock.time_ms() - time.time_ns() // 1_000_000) < 1_000
    with pytest.raises(RuntimeError, match="freeze"):
        clock.advance(1)


def test_freezing_stops_time_and_resuming_continues_from_where_advance_left_it() -> None:
    clock = SwitchableClock()
    clock.freeze()
    wall, mono = clock.time_ms(), clock.monotonic_ns()
    assert clock.time_ms() == wall and clock.monotonic_ns() == mono
    clock.advance(3_600_000)
    assert clock.time_ms() == wall + 3_600_000
    clock.resume()
    assert clock.time_ms() >= wall + 3_600_000
    assert clock.monotonic_ns() >= mono + 3_600_000 * 1_000_000


@pytest.fixture
def loop_thread() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.close()


def _on(loop: asyncio.AbstractEventLoop, fn: object) -> object:
    async def run() -> object:
        return fn()  # type: ignore[operator]

    return asyncio.run_coroutine_threadsafe(run(), loop).result(timeout=10)


def test_a_timer_set_on_system_time_fires_on_advance_after_freezing(loop_thread: asyncio.AbstractEventLoop) -> None:
    clock = SwitchableClock()
    scheduler = Scheduler(clock)
    fired: list[int] = []
    _on(loop_thread, lambda: scheduler.call_later(60_000, lambda: fired.append(scheduler.now_ms())))
    start = scheduler.now_ms()
    clock.freeze()
    clock.advance(59_000)
    assert fired == []
    clock.advance(2_000)
    assert len(fired) == 1 and fired[0] >= start + 60_000


def test_a_timer_set_while_frozen_runs_on_its_loop_after_resuming(loop_thread: asyncio.AbstractEventLoop) -> None:
    clock = SwitchableClock()
    scheduler = Scheduler(clock)
    clock.freeze()
    done = threading.Event()
    _on(loop_thread, lambda: scheduler.call_later(20, done.set))
    assert not done.wait(0.2)
    clock.resume()
    assert done.wait(10)
