"""The one place time comes from.

Everything that needs the wall clock or a monotonic clock takes a `Clock`: the broker runs on
`SystemClock`, tests on `ManualClock`, whose time only moves when the test says so, or on a
`SwitchableClock`, which follows the system clock until a test freezes it and then behaves as a
`ManualClock` (the embedded test broker's clock).  Timers run on a `odradek.scheduler.Scheduler`
over one of these clocks; on a frozen clock the scheduler queues them here, and
`ManualClock.advance` runs them.

Invariants:
- ``monotonic_ns()`` never decreases;
- a `ManualClock` moves its wall and monotonic time together, only through `advance`;
- `ManualClock.advance` runs the queued timers that fall due in (deadline, queueing order),
  each with the clock standing at its own deadline, including timers queued while it runs;
  when it returns, the clock stands at the target and no queued timer is due;
- a `SwitchableClock` never jumps: freezing stops it where it stands, resuming continues from
  where `advance` left it (wall and monotonic time keep the offset the advances added).
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
import weakref
from collections.abc import Callable
from typing import Protocol

__all__ = ["Clock", "ClockSwitchListener", "ManualClock", "SwitchableClock", "SystemClock"]


class Clock(Protocol):
    """Wall time in milliseconds since the Unix epoch and a monotonic nanosecond counter."""

    def time_ms(self) -> int: ...

    def monotonic_ns(self) -> int: ...


class SystemClock:
    """The operating system's clocks."""

    def time_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def monotonic_ns(self) -> int:
        return time.monotonic_ns()


class ManualClock:
    """A clock that stands still until `advance` moves it; its monotonic time starts at 0.

    ``queue(deadline_ms, fire)`` is the scheduler's hook: ``fire()`` is called by `advance`
    once the monotonic time reaches ``deadline_ms`` (milliseconds).  `queue` may be called
    from any thread; `advance` must not be re-entered from a timer it runs.
    """

    def __init__(self, start_ms: int = 0) -> None:
        self._time_ms = start_ms
        self._monotonic_ns = 0
        self._lock = threading.Lock()
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._advancing = False

    def time_ms(self) -> int:
        return self._time_ms

    def monotonic_ns(self) -> int:
        return self._monotonic_ns

    @property
    def frozen(self) -> bool:
        """Whether time stands still until `advance` (always, for a plain manual clock)."""
        return True

    @property
    def advancing(self) -> bool:
        """Whether `advance` is running timers now (a timer it queues meanwhile may run in it)."""
        return self._advancing

    def queue(self, deadline_ms: int, fire: Callable[[], None]) -> None:
        """Have `advance` call ``fire()`` when the monotonic time reaches ``deadline_ms``."""
        with self._lock:
            heapq.heappush(self._queue, (deadline_ms, next(self._order), fire))

    def advance(self, ms: int) -> None:
        """Move both clocks forward by ``ms`` milliseconds (never backwards), running every
        queued timer that falls due on the way, each at its own deadline."""
        if ms < 0:
            raise ValueError(f"a clock cannot go backwards ({ms} ms)")
        if self._advancing:
            raise RuntimeError("ManualClock.advance called from a timer it is running")
        target_ns = self._monotonic_ns + ms * 1_000_000
        self._advancing = True
        try:
            while (fire := self._pop_due(target_ns)) is not None:
                fire()
        finally:
            self._advancing = False
        self._move_to(target_ns)

    def _pop_due(self, target_ns: int) -> Callable[[], None] | None:
        with self._lock:
            if not self._queue or self._queue[0][0] * 1_000_000 > target_ns:
                return None
            deadline_ms, _, fire = heapq.heappop(self._queue)
        self._move_to(max(deadline_ms * 1_000_000, self._monotonic_ns))
        return fire

    def _move_to(self, monotonic_ns: int) -> None:
        self._time_ms += (monotonic_ns - self._monotonic_ns) // 1_000_000
        self._monotonic_ns = monotonic_ns


class ClockSwitchListener(Protocol):
    """Told when a `SwitchableClock` freezes or resumes (a scheduler moves its timers)."""

    def clock_switched(self, frozen: bool) -> None: ...


class SwitchableClock(ManualClock):
    """The system clock until `freeze`, a `ManualClock` from then on until `resume`.

    While it runs, wall and monotonic time are the system's plus the offsets earlier advances
    added.  `freeze` and `resume` may be called from any thread; each tells its listeners
    (schedulers, held weakly) after the switch, so they move their pending timers between the
    event loop and this clock's queue.  `advance` on a running clock raises.
    """

    def __init__(self) -> None:
        super().__init__(time.time_ns() // 1_000_000)
        self._frozen = False
        self._wall_offset_ms = 0
        self._monotonic_offset_ns = 0
        self._listeners: weakref.WeakSet[ClockSwitchListener] = weakref.WeakSet()

    @property
    def frozen(self) -> bool:
        return self._frozen

    def time_ms(self) -> int:
        if self._frozen:
            return self._time_ms
        return time.time_ns() // 1_000_000 + self._wall_offset_ms

    def monotonic_ns(self) -> int:
        if self._frozen:
            return self._monotonic_ns
        return time.monotonic_ns() + self._monotonic_offset_ns

    def add_listener(self, listener: ClockSwitchListener) -> None:
        self._listeners.add(listener)

    def freeze(self) -> None:
        """Stop time where it stands; from now on only `advance` moves it."""
        if self._frozen:
            return
        # Whole milliseconds (rounded up: never backwards), so advances move both clocks alike.
        self._time_ms, self._monotonic_ns = self.time_ms(), -(-self.monotonic_ns() // 1_000_000) * 1_000_000
        self._frozen = True
        for listener in list(self._listeners):
            listener.clock_switched(True)

    def resume(self) -> None:
        """Let time run again from where it stands (timers left queued go back to their loops)."""
        if not self._frozen:
            return
        if self._advancing:
            raise RuntimeError("SwitchableClock.resume called from a timer advance is running")
        self._wall_offset_ms = self._time_ms - time.time_ns() // 1_000_000
        self._monotonic_offset_ns = self._monotonic_ns - time.monotonic_ns()
        self._frozen = False
        with self._lock:
            self._queue.clear()
        for listener in list(self._listeners):
            listener.clock_switched(False)

    def advance(self, ms: int) -> None:
        if not self._frozen:
            raise RuntimeError("the clock is running on system time: freeze it before advancing it")
        super().advance(ms)
