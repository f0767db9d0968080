"""The clocks storage reads time from."""

from __future__ import annotations

import pytest

from odradek.clock import Clock, ManualClock, SystemClock


def test_manual_clock_moves_only_when_advanced() -> None:
    clock = ManualClock(1_000)
    assert (clock.time_ms(), clock.monotonic_ns()) == (1_000, 0)
    clock.advance(250)
    assert (clock.time_ms(), clock.monotonic_ns()) == (1_250, 250_000_000)
    clock.advance(0)
    assert clock.time_ms() == 1_250
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert clock.time_ms() == 1_250


def test_system_clock_is_a_clock() -> None:
    clock: Clock = SystemClock()
    first = clock.monotonic_ns()
    assert clock.monotonic_ns() >= first
    assert clock.time_ms() > 1_600_000_000_000
