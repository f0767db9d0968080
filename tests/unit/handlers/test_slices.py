"""Sharing the event loop during a huge request (`odradek.handlers.slices`): other tasks run
between slices, the garbage collector is paused while a huge request is answered and only ever
re-enabled by whoever disabled it, and long lists are emptied a slice at a time."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Generator, Iterator

import pytest

from odradek.handlers import slices
from odradek.handlers.slices import (
    SLICE_SECONDS,
    CollectorPause,
    LoopShare,
    empty_in_slices,
    release_in_slices,
    run_in_slices,
)
from odradek.wire.codec import SLICE_ELEMENTS
from odradek.wire.messages.metadata import MetadataRequest


@pytest.fixture(autouse=True)
def collector_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def _long_steps(count: int) -> Generator[None, None, str]:
    """``count`` steps, each holding the thread for longer than a slice."""
    for _ in range(count):
        started = time.perf_counter()
        while time.perf_counter() - started <= SLICE_SECONDS:
            pass
        yield
    return "done"


def test_other_tasks_run_between_slices_of_a_long_job() -> None:
    async def scenario() -> tuple[str, int]:
        turns = 0

        async def other() -> None:
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        task = asyncio.get_running_loop().create_task(other())
        await asyncio.sleep(0)
        before = turns
        share = LoopShare()
        try:
            result = await run_in_slices(_long_steps(5), share)
        finally:
            share.done()
            task.cancel()
        return result, turns - before

    result, turns = asyncio.run(scenario())
    assert result == "done"
    assert turns >= 5


def test_the_collector_is_paused_from_the_first_slice_until_the_request_is_done() -> None:
    async def scenario() -> list[bool]:
        share = LoopShare()
        seen = [gc.isenabled()]
        await run_in_slices(_long_steps(2), share)
        seen.append(gc.isenabled())
        share.done()
        seen.append(gc.isenabled())
        return seen

    assert asyncio.run(scenario()) == [True, False, True]


def test_a_job_of_one_slice_never_pauses_the_collector() -> None:
    share = LoopShare()
    asyncio.run(run_in_slices(_long_steps(0), share))
    assert gc.isenabled()
    share.done()
    assert gc.isenabled()


def test_overlapping_requests_resume_the_collector_when_the_last_is_done() -> None:
    pause = CollectorPause()
    pause.enter()
    pause.enter()
    pause.leave()
    assert not gc.isenabled()
    pause.leave()
    assert gc.isenabled()


def test_overlapping_requests_cannot_keep_the_collector_paused_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    pause = CollectorPause()
    pause.enter()
    pause.enter()
    now[0] += slices.COLLECTOR_PAUSE_LIMIT_SECONDS + 1
    pause.leave()
    assert gc.isenabled()
    pause.enter()  # a new huge request pauses it again
    assert not gc.isenabled()
    pause.leave()
    pause.leave()
    assert gc.isenabled()


def test_a_collector_disabled_by_someone_else_stays_disabled() -> None:
    gc.disable()
    pause = CollectorPause()
    pause.enter()
    pause.leave()
    assert not gc.isenabled()


def test_long_lists_are_emptied_and_short_ones_kept() -> None:
    request = MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name=f"t{i}") for i in range(3 * SLICE_ELEMENTS + 1)]
    )
    asyncio.run(release_in_slices(request, LoopShare()))
    assert request.topics == []
    short = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="t")])
    asyncio.run(release_in_slices(short, LoopShare()))
    assert short.topics is not None
    assert len(short.topics) == 1


def test_a_handlers_long_lists_and_maps_are_emptied() -> None:
    names = [f"t{i}" for i in range(3 * SLICE_ELEMENTS + 1)]
    by_name = dict.fromkeys(names, 0)
    short = ["t"]

    async def scenario() -> None:
        share = LoopShare()
        for items in (names, by_name, short):
            await empty_in_slices(share, items)

    asyncio.run(scenario())
    assert (names, by_name, short) == ([], {}, [])


def test_several_containers_are_emptied_in_one_call_the_long_one_in_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slices, "SLICE_SECONDS", -1.0)  # every slice boundary gives the loop back
    names = [f"t{i}" for i in range(3 * SLICE_ELEMENTS + 1)]
    seen, by_name, short = {"t"}, {"t": 0}, ["t"]
    ran_between: list[int] = []

    async def other() -> None:
        ran_between.append(len(names))

    async def scenario() -> None:
        task = asyncio.get_running_loop().create_task(other())
        await empty_in_slices(LoopShare(), short, seen, names, by_name)
        await task

    asyncio.run(scenario())
    assert (names, seen, by_name, short) == ([], set(), {}, [])
    assert ran_between and 0 < ran_between[0] < 3 * SLICE_ELEMENTS + 1  # the loop was given back midway
