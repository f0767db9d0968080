"""Sharing the event loop during one huge request.

The broker answers every connection on one event loop, so a request that costs half a second of
work (a Metadata request for 100,000 topics: decoding the names, looking each one up, encoding
the answer) would hold every other client for that long.  Such work runs in slices instead: the
codec's generators (`odradek.wire.codec.decode_in_slices`, `encode_in_slices`) stop every few
hundred elements, and a handler's own loop over many topics calls `LoopShare.share`; once a
slice has held the loop for `SLICE_SECONDS`, the loop is given back, and the other connections'
requests go first (`odradek.fair_share`: the huge request takes the loop again once a loop turn
passed with nothing else to do, or once the others have had as long as its slice held it).
Scheduling only: what is answered does not depend on it.

Two costs of such a request are not in any slice of its own work, and are handled here:

- Freeing it: the request's and the answer's hundreds of thousands of values would all be
  freed at once when the request is done; `release_in_slices` drops the elements of their long
  lists a slice at a time instead, and a handler empties its own long lists and maps the same
  way before it returns (`empty_in_slices`).
- Python's cyclic garbage collector: the values a huge request allocates make a full collection
  come due while they are alive, and a full collection traverses all of them in one go (tens of
  milliseconds).  Those values hold no reference cycles and are freed when the request is done,
  so `CollectorPause` pauses automatic collection while a huge request is answered; once no
  such request is left (or after `COLLECTOR_PAUSE_LIMIT_SECONDS` of pause, so that overlapping
  huge requests cannot keep it paused), it runs again, by then without those values to traverse.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Generator
from typing import Any, TypeVar

from odradek.fair_share import FairShare, fair_share
from odradek.wire.codec import SLICE_ELEMENTS
from odradek.wire.schema import StructValue

__all__ = [
    "COLLECTOR_PAUSE_LIMIT_SECONDS",
    "LARGE_REQUEST_BYTES",
    "SLICE_SECONDS",
    "CollectorPause",
    "LoopShare",
    "collector_pause",
    "empty_in_slices",
    "release_in_slices",
    "run_in_slices",
]

SLICE_SECONDS = 0.0005
"""How long one huge request holds the loop before the others run."""

LARGE_REQUEST_BYTES = 64 * 1024
"""A request frame at least this large is decoded, and its answer encoded, in slices."""

COLLECTOR_PAUSE_LIMIT_SECONDS = 5.0
"""The longest the garbage collector stays paused for huge requests before it runs again."""

T = TypeVar("T")


class LoopShare:
    """How long one request has held the loop since it started or last gave it back (on ``fair``'s
    clock: also when another `LoopShare` of the same request, e.g. its handler's, gave it back).
    From the first slice boundary `run_in_slices` passes, the request counts as huge: it holds
    the `collector_pause` until `done`."""

    __slots__ = ("_fair", "_since", "steps")

    def __init__(self, fair: FairShare = fair_share) -> None:
        self._fair = fair
        self._since = fair.clock()
        #: Slice boundaries passed so far (`run_in_slices`).
        self.steps = 0

    def step(self) -> None:
        """A slice boundary passed."""
        if not self.steps:
            collector_pause.enter()
        self.steps += 1

    def done(self) -> None:
        """The request is answered, failed or cancelled."""
        if self.steps:
            collector_pause.leave()

    async def share(self) -> None:
        """Give the loop back if this request has held it for `SLICE_SECONDS`, until its fair
        share lets it go on (`odradek.fair_share.FairShare.give_way`)."""
        fair = self._fair
        held = fair.clock() - max(self._since, fair.resumed_at)
        if held > SLICE_SECONDS:
            await fair.give_way(held)
            self._since = fair.resumed_at


async def run_in_slices(steps: Generator[None, None, T], share: LoopShare) -> T:
    """Run ``steps`` to its end, sharing the loop between steps; its return value."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: T = done.value
            return result
        share.step()
        await share.share()


async def release_in_slices(value: StructValue, share: LoopShare) -> None:
    """Empty ``value``'s top-level lists longer than a slice, a slice of elements at a time, so
    that freeing them does not hold the loop (the list objects stay, empty)."""
    for field in value._schema.fields:
        items = getattr(value, field.name, None)
        if isinstance(items, list) and len(items) > SLICE_ELEMENTS:
            await empty_in_slices(share, items)


async def empty_in_slices(share: LoopShare, *containers: list[Any] | dict[Any, Any] | set[Any]) -> None:
    """Empty each of ``containers`` a slice of elements at a time (a handler's own long lists, maps
    and sets, before it returns: dropping a hundred thousand references at once holds the loop for
    milliseconds).  One call empties them all, so a small request's short containers cost one
    coroutine, not one each; a container of a slice or less is just cleared."""
    for items in containers:
        if isinstance(items, dict):
            while len(items) > SLICE_ELEMENTS:
                for _ in range(SLICE_ELEMENTS):
                    items.popitem()
                await share.share()
        elif isinstance(items, set):
            while len(items) > SLICE_ELEMENTS:
                for _ in range(SLICE_ELEMENTS):
                    items.pop()
                await share.share()
        else:
            while len(items) > SLICE_ELEMENTS:
                del items[-SLICE_ELEMENTS:]
                await share.share()
        items.clear()


class CollectorPause:
    """Automatic garbage collection paused while huge requests are answered (module docstring).

    It only ever re-enables a collector it disabled itself: a process that runs with automatic
    collection off keeps it off."""

    __slots__ = ("_active", "_paused_since")

    def __init__(self) -> None:
        self._active = 0
        self._paused_since: float | None = None

    def enter(self) -> None:
        """A huge request starts."""
        self._active += 1
        if self._paused_since is None and gc.isenabled():
            gc.disable()
            self._paused_since = time.monotonic()

    def leave(self) -> None:
        """A huge request is done (answered, failed or cancelled)."""
        self._active -= 1
        since = self._paused_since
        if since is not None and (self._active == 0 or time.monotonic() - since > COLLECTOR_PAUSE_LIMIT_SECONDS):
            gc.enable()
            self._paused_since = None

    @property
    def paused(self) -> bool:
        return self._paused_since is not None


collector_pause = CollectorPause()
"""The process's one pause: the collector is the process's, so is the count of huge requests."""
