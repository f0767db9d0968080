"""The event loop's share of a huge request when other requests are waiting.

One event loop answers every connection.  A huge request (a Metadata request naming 100,000
topics: about a second of work) runs in slices (`odradek.handlers.slices`) and gives the loop
back between them; this module decides when it takes the loop again.

Giving the loop back for one turn is not enough: a well-behaved request needs a turn or two of
its own (its bytes arrive in one turn, its connection's task answers it in the next), and with
one huge slice in every turn it would wait for two or three slices; a second huge request would
double that.  So a huge request that has run a slice waits, a loop turn at a time, until

- it is the huge request that has waited longest, and no other huge slice started in this loop
  turn (huge requests take turns, first come first served: after its first slice, which runs
  before anything shows that the request is huge, at most one huge slice runs in a loop turn), and
- a whole loop turn passed in which nothing else happened: no request arrived, none was
  answered and no other huge slice started (the connections say when they receive and answer
  requests: `note`), or others have had the loop for as long as its slice held it (so under
  a steady load a huge request still gets about half the loop), or `MAX_TURNS` turns passed.

A request that arrives while a huge slice runs therefore waits for the rest of that slice, and
then for its own work only.  Requests that cannot go on (a long poll, a muted connection) leave
no trace, so they delay nobody.  Scheduling only: nothing the broker answers depends on it.

The process has one `fair_share`, as it has one event loop serving clients; the clock is
injectable for tests.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

__all__ = ["MAX_TURNS", "FairShare", "fair_share"]

MAX_TURNS = 64
"""The most loop turns a huge request waits after a slice while other requests keep going."""


class FairShare:
    """When a huge request that gave the loop back may take it again (module docstring)."""

    __slots__ = ("_queue", "_slices", "activity", "clock", "resumed_at")

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        #: Seconds, for how long a slice held the loop and how long others have had it since.
        self.clock = clock
        #: Requests received and answered so far (only its changes matter).
        self.activity = 0
        self._slices = 0  # huge slices started after waiting here
        #: When a huge request last took the loop again: the one running now, if it waited here
        #: (a request's handler and its codec share the loop as two `LoopShare`s, one clock).
        self.resumed_at = clock()
        self._queue: deque[object] = deque()  # the huge requests waiting for a slice, longest first

    def note(self, events: int = 1) -> None:
        """``events`` requests were received or answered."""
        self.activity += events

    async def give_way(self, held: float) -> None:
        """Wait until this huge request, whose slice held the loop for ``held`` seconds, may run
        its next slice."""
        ticket = object()
        self._queue.append(ticket)
        started = self.clock()
        turns = 0
        try:
            while True:
                seen, slices = self.activity, self._slices
                await asyncio.sleep(0)
                turns += 1
                if self._queue[0] is not ticket or self._slices != slices:
                    continue  # another huge request waited longer, or sliced in this turn
                if self.activity == seen or turns >= MAX_TURNS or self.clock() - started >= held:
                    break
        finally:
            self._queue.remove(ticket)
        self._slices += 1
        self.resumed_at = self.clock()


fair_share = FairShare()
"""The process's one: every connection notes its requests here, every huge request waits here."""
