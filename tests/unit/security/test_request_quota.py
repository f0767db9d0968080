"""The request_percentage quota on the manual clock, and the handler-time measure behind it: the
handler time is injected (a number, or a timer that advances a fixed step per reading), so every
figure is exact whatever the machine's speed."""

from __future__ import annotations

import asyncio

import pytest

from odradek.clock import ManualClock
from odradek.handlers.request_time import StepTimer
from odradek.security.quota_store import QuotaStore
from odradek.security.quotas import QuotaManager
from odradek.storage.filesystem import MemoryFileSystem

SECOND_NS = 1_000_000_000


def _manager(clock: ManualClock, percentage: float, settings: dict[str, str] | None = None) -> QuotaManager:
    store = QuotaStore(MemoryFileSystem(), "/quotas.json")
    store.apply({(("client-id", "busy"),): {"request_percentage": percentage}})
    return QuotaManager(store, clock, settings or {})


def test_handler_time_counts_as_percent_seconds_of_one_thread() -> None:
    clock = ManualClock(1_000_000)
    quotas = _manager(clock, 50.0)
    # One sample: the window counts as (11 - 1) * 1 s.  5 s of handler time = 500 -> 50 %, at the quota.
    assert quotas.throttle_request_time("alice", "busy", 5 * SECOND_NS) == 0
    # 0.2 s more: 52 %, over by 2 / 50 of the 10 s window = 400 ms.
    assert quotas.throttle_request_time("alice", "busy", SECOND_NS // 5) == 400


def test_the_throttle_time_is_bounded_by_one_window() -> None:
    clock = ManualClock(1_000_000)
    quotas = _manager(clock, 50.0)
    # 10 s of handler time: 100 %, over by 50 / 50 of 10 s, bounded to quota.window.size.seconds.
    assert quotas.throttle_request_time("alice", "busy", 10 * SECOND_NS) == 1000
    wide = _manager(ManualClock(1_000_000), 50.0, {"quota.window.size.seconds": "2"})
    # Windows of 2 s: 20 s counted, 20 s of handler time = 100 %, over by 20 s, bounded to 2 s.
    assert wide.throttle_request_time("alice", "busy", 20 * SECOND_NS) == 2000


def test_the_charge_drains_as_the_window_moves_on() -> None:
    clock = ManualClock(1_000_000)
    quotas = _manager(clock, 10.0)
    assert quotas.throttle_request_time("alice", "busy", 2 * SECOND_NS) == 1000
    clock.advance(20_000)  # the sample of the charge has left the window
    assert quotas.throttle_request_time("alice", "busy", SECOND_NS // 2) == 0


def test_only_the_clients_under_a_request_quota_are_charged() -> None:
    quotas = _manager(ManualClock(1_000_000), 1.0)
    assert quotas.charges_request_time("alice", "busy")
    assert not quotas.charges_request_time("alice", "idle")
    assert quotas.throttle_request_time("alice", "idle", 100 * SECOND_NS) == 0


class _StepClock:
    def __init__(self, step_ns: int) -> None:
        self.readings = 0
        self._step_ns = step_ns

    def __call__(self) -> int:
        self.readings += 1
        return self.readings * self._step_ns


def test_the_step_timer_counts_running_steps_not_waits() -> None:
    async def handler(parked: asyncio.Event) -> str:
        await asyncio.sleep(0)
        await parked.wait()
        return "answer"

    async def scenario() -> tuple[str, int]:
        parked = asyncio.Event()
        timed = StepTimer(handler(parked), _StepClock(7))
        task = asyncio.ensure_future(timed)
        for _ in range(5):  # the handler waits across these turns of the loop without being charged
            await asyncio.sleep(0)
        parked.set()
        return await task, timed.nanoseconds

    # Three steps: to the sleep, to the wait, to the return; 7 ns each.
    assert asyncio.run(scenario()) == ("answer", 21)


def test_the_step_timer_passes_cancellation_and_errors_through() -> None:
    cleaned: list[str] = []

    async def handler() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            cleaned.append("cleaned")

    async def failing() -> None:
        await asyncio.sleep(0)
        raise ValueError("bad")

    async def scenario() -> int:
        timed = StepTimer(handler(), _StepClock(1))
        task = asyncio.ensure_future(timed)
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        with pytest.raises(ValueError, match="bad"):
            await StepTimer(failing(), _StepClock(1))
        return timed.nanoseconds

    assert asyncio.run(scenario()) == 2
    assert cleaned == ["cleaned"]
