"""The one place time comes from.

Everything that needs the wall clock or a monotonic clock takes a `Clock`: the broker runs on
`SystemClock`, tests on `ManualClock`, whose time only moves when the test says so.

Invariants:
- ``monotonic_ns()`` never decreases;
- a `ManualClock` moves its wall and monotonic time together, only through `advance`.
"""

from __future__ import annotations

import time
from typing import Protocol

__all__ = ["Clock", "ManualClock", "SystemClock"]


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
    """A clock that stands still until `advance` moves it; its monotonic time starts at 0."""

    def __init__(self, start_ms: int = 0) -> None:
        self._time_ms = start_ms
        self._monotonic_ns = 0

    def time_ms(self) -> int:
        return self._time_ms

    def monotonic_ns(self) -> int:
        return self._monotonic_ns

    def advance(self, ms: int) -> None:
        """Move both clocks forward by ``ms`` milliseconds (never backwards)."""
        if ms < 0:
            raise ValueError(f"a clock cannot go backwards ({ms} ms)")
        self._time_ms += ms
        self._monotonic_ns += ms * 1_000_000
