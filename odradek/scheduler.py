"""Timers on the injected clock: every delay, timeout and periodic task of the broker runs here.

A `Scheduler` wraps one `Clock`.  Deadlines are milliseconds of that clock's monotonic time
(`Scheduler.now_ms`); a timer runs its callback once, at or after its deadline, never before.

On the system clock a timer is an asyncio ``call_at`` on the event loop it was set from (the
monotonic deadline converted to loop time); a timer the loop wakes a little early re-arms
itself until the clock has reached its deadline.

On a `ManualClock` nothing runs on real time.  ``clock.advance(ms)`` runs every timer that falls
due, in (deadline, order set) order, with the clock standing at each timer's deadline while it
runs; periodic tasks falling due several times, and timers set by timers, run in the same
advance.  The thread rule: a timer belongs to the event loop running in the thread that set it
(or to no loop).  ``advance`` runs a loop's timer on that loop: inline when ``advance`` is
itself called on that loop, otherwise through ``call_soon_threadsafe``, waiting until the
callback has run (so a test thread may advance the clock of a broker running on its own loop
thread).  A timer whose deadline has already come when it is set runs on its loop at once
(``call_soon``), as on the system clock, unless an ``advance`` is running, which then runs it
before returning; a timer set outside any loop runs only in ``advance``.

On a `SwitchableClock` the scheduler follows the clock's switches: when it freezes, every
timer not yet due leaves its event loop for the clock's queue (and then runs only in
``advance``); when it resumes, every queued timer goes back to its loop at its deadline.  The
move happens on each timer's loop, so a test thread may freeze the clock of a broker running on
its own loop thread.

A callback's exception is logged and does not stop other timers, nor a periodic task's next run.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from odradek.clock import Clock, ManualClock, SwitchableClock

__all__ = ["PeriodicTask", "Scheduler", "Timer"]

log = logging.getLogger("odradek.scheduler")

Callback = Callable[[], object]


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Timer:
    """One callback at one deadline; `cancel` before it runs and it never runs."""

    __slots__ = ("_callback", "_handle", "_loop", "_scheduler", "_state", "deadline_ms", "name")

    def __init__(
        self,
        scheduler: Scheduler,
        deadline_ms: int,
        callback: Callback,
        name: str,
        loop: asyncio.AbstractEventLoop | None,
    ) -> None:
        self._scheduler = scheduler
        self.deadline_ms = deadline_ms
        self._callback = callback
        self.name = name
        self._loop = loop
        self._handle: asyncio.Handle | None = None
        self._state = "pending"

    def __repr__(self) -> str:
        return f"Timer({self.name or self._callback!r} at {self.deadline_ms} ms, {self._state})"

    @property
    def pending(self) -> bool:
        """Neither run nor cancelled yet."""
        return self._state == "pending"

    def cancel(self) -> None:
        if self._state != "pending":
            return
        self._state = "cancelled"
        self._scheduler._timers.discard(self)
        if self._handle is not None:
            self._handle.cancel()

    def _run(self) -> None:
        if self._state != "pending":
            return
        self._state = "done"
        self._scheduler._timers.discard(self)
        try:
            self._callback()
        except Exception:
            log.exception("timer %s failed", self.name or self._callback)

    def _run_when_due(self) -> None:
        """System clock: the loop woke us; run, or re-arm if the clock has not got there yet."""
        remaining = self.deadline_ms - self._scheduler.now_ms()
        if remaining > 0 and self._loop is not None:
            self._handle = self._loop.call_at(self._loop.time() + remaining / 1000, self._run_when_due)
            return
        self._run()

    def _fire(self) -> None:
        """Manual clock: `ManualClock.advance` reached the deadline (on the advancing thread)."""
        loop = self._loop
        if self._state != "pending":
            return
        if loop is None or loop is _running_loop() or not loop.is_running():
            self._run()
            return
        ran: concurrent.futures.Future[None] = concurrent.futures.Future()

        def run_on_loop() -> None:
            try:
                self._run()
            finally:
                ran.set_result(None)

        loop.call_soon_threadsafe(run_on_loop)
        ran.result()


class PeriodicTask:
    """A callback every ``period_ms``: each run is due one period after the previous deadline
    (fixed rate, as Kafka's scheduled tasks), whenever the previous run actually happened."""

    def __init__(self, scheduler: Scheduler, period_ms: int, callback: Callback, name: str) -> None:
        if period_ms <= 0:
            raise ValueError(f"a periodic task needs a positive period ({period_ms} ms)")
        self._scheduler = scheduler
        self.period_ms = period_ms
        self._callback = callback
        self.name = name
        self._loop = _running_loop()
        self._timer: Timer | None = None
        self._cancelled = False

    @property
    def next_deadline_ms(self) -> int | None:
        return None if self._timer is None or self._cancelled else self._timer.deadline_ms

    def cancel(self) -> None:
        self._cancelled = True
        if self._timer is not None:
            self._timer.cancel()

    def _arm(self, deadline_ms: int) -> None:
        self._timer = self._scheduler._set(deadline_ms, self._run, self.name, self._loop)

    def _run(self) -> None:
        assert self._timer is not None
        deadline = self._timer.deadline_ms
        try:
            self._callback()
        except Exception:
            log.exception("periodic task %s failed", self.name)
        if not self._cancelled:
            self._arm(deadline + self.period_ms)


class Scheduler:
    """Timers, sleeps and timeouts on one clock (see the module docstring for the rules)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._manual = clock if isinstance(clock, ManualClock) else None
        self._timers: set[Timer] = set()
        if isinstance(clock, SwitchableClock):
            clock.add_listener(self)

    def now_ms(self) -> int:
        """The clock's monotonic time in milliseconds: the time deadlines are written in."""
        return self.clock.monotonic_ns() // 1_000_000

    def call_at(self, deadline_ms: int, callback: Callback, *, name: str = "") -> Timer:
        """Run ``callback()`` once the clock reaches ``deadline_ms`` (monotonic ms)."""
        return self._set(deadline_ms, callback, name, _running_loop())

    def call_later(self, delay_ms: int, callback: Callback, *, name: str = "") -> Timer:
        """Run ``callback()`` ``delay_ms`` milliseconds from now (a negative delay means now)."""
        return self.call_at(self.now_ms() + max(delay_ms, 0), callback, name=name)

    def schedule_periodic(
        self, period_ms: int, callback: Callback, *, name: str, initial_delay_ms: int | None = None
    ) -> PeriodicTask:
        """Run ``callback()`` every ``period_ms``, first after ``initial_delay_ms`` (default: one period)."""
        task = PeriodicTask(self, period_ms, callback, name)
        task._arm(self.now_ms() + (period_ms if initial_delay_ms is None else max(initial_delay_ms, 0)))
        return task

    def cancel_all(self) -> None:
        """Cancel every timer still pending (the owner is shutting down)."""
        for timer in list(self._timers):
            timer.cancel()

    @property
    def pending(self) -> int:
        """How many timers are set and neither run nor cancelled."""
        return len(self._timers)

    def _set(self, deadline_ms: int, callback: Callback, name: str, loop: asyncio.AbstractEventLoop | None) -> Timer:
        timer = Timer(self, deadline_ms, callback, name, loop)
        self._timers.add(timer)
        if self._manual is None or not self._manual.frozen:
            if loop is None:
                raise RuntimeError("a timer on the system clock needs a running event loop")
            delay_s = max(deadline_ms - self.now_ms(), 0) / 1000
            timer._handle = loop.call_at(loop.time() + delay_s, timer._run_when_due)
        elif loop is not None and deadline_ms <= self.now_ms() and not self._manual.advancing:
            timer._handle = loop.call_soon(timer._run)
        else:
            self._manual.queue(deadline_ms, timer._fire)
        return timer

    # ------------------------------------------------------------- clock switches

    def clock_switched(self, frozen: bool) -> None:
        """The `SwitchableClock` froze or resumed: move every pending timer, on its own loop."""
        by_loop: dict[asyncio.AbstractEventLoop | None, list[Timer]] = {}
        for timer in list(self._timers):
            by_loop.setdefault(timer._loop, []).append(timer)
        for loop, timers in by_loop.items():
            move = functools.partial(self._move_timers, timers, frozen)
            if loop is None or loop is _running_loop() or not loop.is_running():
                move()
                continue
            moved: concurrent.futures.Future[None] = concurrent.futures.Future()

            def run_on_loop(move: Callable[[], None] = move, moved: concurrent.futures.Future[None] = moved) -> None:
                try:
                    move()
                finally:
                    moved.set_result(None)

            loop.call_soon_threadsafe(run_on_loop)
            moved.result()

    def _move_timers(self, timers: list[Timer], frozen: bool) -> None:
        manual = self._manual
        assert manual is not None
        now = self.now_ms()
        for timer in timers:
            if not timer.pending:
                continue
            if frozen:
                if timer._handle is None or timer.deadline_ms <= now:
                    continue  # queued already, or due: its loop runs it now
                timer._handle.cancel()
                timer._handle = None
                manual.queue(timer.deadline_ms, timer._fire)
            elif timer._loop is None:
                manual.queue(timer.deadline_ms, timer._fire)
            elif timer._handle is None:
                delay_s = max(timer.deadline_ms - now, 0) / 1000
                timer._handle = timer._loop.call_at(timer._loop.time() + delay_s, timer._run_when_due)

    # ------------------------------------------------------------------ awaiting

    async def sleep(self, delay_ms: int) -> None:
        """Return after ``delay_ms`` milliseconds of the clock."""
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        timer = self.call_later(delay_ms, lambda: _resolve(woken), name="sleep")
        try:
            await woken
        finally:
            timer.cancel()

    async def wait_for(self, awaitable: Awaitable[object], timeout_ms: int) -> bool:
        """Wait for ``awaitable`` at most ``timeout_ms``: True when it completed (its exception,
        if it raised, propagates), False when the time ran out first (it is then cancelled)."""
        task = asyncio.ensure_future(awaitable)
        await self._first_of([task], timeout_ms)
        if task.done():
            task.result()
            return True
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return False

    async def wait_any(self, events: Iterable[asyncio.Event], timeout_ms: int) -> bool:
        """Wait until any of ``events`` is set, at most ``timeout_ms``: True when one was set
        (no events: just the timeout).  The Fetch long poll's "data arrived or max wait"."""
        waiters = [asyncio.ensure_future(event.wait()) for event in events]
        try:
            return await self._first_of(waiters, timeout_ms)
        finally:
            for waiter in waiters:
                waiter.cancel()
            if waiters:
                await asyncio.gather(*waiters, return_exceptions=True)

    async def _first_of(self, futures: Sequence[asyncio.Future[Any]], timeout_ms: int) -> bool:
        """Wait until one of ``futures`` is done or ``timeout_ms`` passed; whether one is done."""
        expired: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        timer = self.call_later(timeout_ms, lambda: _resolve(expired), name="timeout")
        try:
            await asyncio.wait([*futures, expired], return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
            expired.cancel()
        return any(f.done() for f in futures)
