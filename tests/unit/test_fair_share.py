"""The loop's share of a huge request (`odradek.fair_share`): on an asyncio loop, whose ready
callbacks run first in, first out, with a clock that only the tests move.  Each huge slice
"holds" the loop by moving the clock past `SLICE_SECONDS`; the log says what ran in which order."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Coroutine
from typing import Any

from odradek.fair_share import MAX_TURNS, FairShare
from odradek.handlers.slices import SLICE_SECONDS, LoopShare

SLICE = SLICE_SECONDS * 2


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _run(scenario: Callable[[FairShare, Clock, list[str]], Coroutine[Any, Any, None]]) -> list[str]:
    clock = Clock()
    fair = FairShare(clock)
    log: list[str] = []
    asyncio.run(scenario(fair, clock, log))
    return log


async def _huge(
    name: str,
    slices: int,
    fair: FairShare,
    clock: Clock,
    log: list[str],
    at: dict[int, Callable[[], None]] | None = None,
) -> None:
    """A huge request of ``slices`` slices; ``at[i]`` runs during slice i (e.g. a request arrives)."""
    share = LoopShare(fair)
    for index in range(slices):
        log.append(f"{name}{index}")
        clock.now += SLICE
        if at and index in at:
            at[index]()
        await share.share()


async def _ticker(log: list[str], fair: FairShare | None = None, clock: Clock | None = None, busy: float = 0.0) -> None:
    """Marks every loop turn; with ``fair``, a turn in which another request is answered, taking ``busy`` s."""
    while True:
        log.append("|")
        if fair is not None:
            fair.note()
        if clock is not None:
            clock.now += busy
        await asyncio.sleep(0)


def test_a_request_arriving_during_a_huge_slice_is_answered_before_the_next_slice() -> None:
    async def scenario(fair: FairShare, clock: Clock, log: list[str]) -> None:
        loop = asyncio.get_running_loop()

        async def answer() -> None:  # the connection's task: it runs the loop turn after the arrival
            log.append("answered")
            fair.note()

        answering: list[asyncio.Task[None]] = []

        def arrive() -> None:  # the bytes of a small request arrive on another connection
            fair.note()
            answering.append(loop.create_task(answer()))

        def during_slice() -> None:
            loop.call_soon(arrive)

        await _huge("H", 4, fair, clock, log, {1: during_slice})
        await answering[0]

    assert _run(scenario) == ["H0", "H1", "answered", "H2", "H3"]


def test_without_other_requests_a_huge_request_gives_the_loop_back_for_one_turn_a_slice() -> None:
    async def scenario(fair: FairShare, clock: Clock, log: list[str]) -> None:
        ticker = asyncio.get_running_loop().create_task(_ticker(log))
        await asyncio.sleep(0)
        await _huge("H", 4, fair, clock, log)
        ticker.cancel()

    log = _run(scenario)
    assert log[: log.index("H3") + 1] == ["|", "H0", "|", "H1", "|", "H2", "|", "H3"]


def test_under_a_steady_load_a_huge_request_still_gets_a_slice_once_others_had_as_long() -> None:
    # Others answer a request in every turn, each taking a fifth of what a huge slice holds.
    async def scenario(fair: FairShare, clock: Clock, log: list[str]) -> None:
        ticker = asyncio.get_running_loop().create_task(_ticker(log, fair, clock, SLICE / 5))
        await asyncio.sleep(0)
        await _huge("H", 3, fair, clock, log)
        ticker.cancel()

    log = _run(scenario)
    slices = [log.index(f"H{i}") for i in range(3)]
    turns_between = [later - earlier - 1 for earlier, later in itertools.pairwise(slices)]
    assert turns_between == [5, 5]


def test_a_frozen_clock_cannot_hold_a_huge_request_past_max_turns() -> None:
    async def scenario(fair: FairShare, clock: Clock, log: list[str]) -> None:
        ticker = asyncio.get_running_loop().create_task(_ticker(log, fair))
        await asyncio.sleep(0)
        await _huge("H", 2, fair, clock, log)
        ticker.cancel()

    log = _run(scenario)
    assert log.index("H1") - log.index("H0") - 1 == MAX_TURNS


def test_two_huge_requests_take_turns_and_never_slice_twice_in_one_loop_turn() -> None:
    async def scenario(fair: FairShare, clock: Clock, log: list[str]) -> None:
        loop = asyncio.get_running_loop()
        ticker = loop.create_task(_ticker(log))
        await asyncio.sleep(0)
        await asyncio.gather(_huge("A", 4, fair, clock, log), _huge("B", 4, fair, clock, log))
        ticker.cancel()

    log = _run(scenario)
    huge = [entry for entry in log if entry != "|"]
    assert huge == ["A0", "B0", "A1", "B1", "A2", "B2", "A3", "B3"]
    # Their first slices run as they come (neither is known to be huge before it); then never
    # two huge slices without a loop turn between them.
    after_first = log[log.index("A1") :]
    assert "HH" not in "".join("|" if entry == "|" else "H" for entry in after_first)


def test_a_huge_request_cancelled_while_waiting_leaves_its_place() -> None:
    async def scenario(fair: FairShare, clock: Clock, log: list[str]) -> None:
        loop = asyncio.get_running_loop()
        first = loop.create_task(_huge("A", 50, fair, clock, log))
        await asyncio.sleep(0)
        second = loop.create_task(_huge("B", 3, fair, clock, log))
        for _ in range(3):
            await asyncio.sleep(0)
        first.cancel()
        await second

    log = _run(scenario)
    assert log[-1] == "B2"


def test_a_requests_two_shares_count_from_when_either_last_took_the_loop_again() -> None:
    # The dispatcher's share is made before the handler's, whose slices give the loop back; the
    # codec's first boundary after the handler counts from the handler's last turn, not from the start.
    async def scenario(fair: FairShare, clock: Clock, log: list[str]) -> None:
        ticker = asyncio.get_running_loop().create_task(_ticker(log))
        await asyncio.sleep(0)
        dispatcher_share = LoopShare(fair)
        await _huge("handler", 3, fair, clock, log)
        clock.now += SLICE_SECONDS / 2
        await dispatcher_share.share()
        log.append("encoded")
        ticker.cancel()

    log = _run(scenario)
    after = log.index("handler2")
    assert log[after : after + 3] == ["handler2", "|", "encoded"]  # the handler's last turn only
