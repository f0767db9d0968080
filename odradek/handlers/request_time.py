"""The time a request's handler spends running, as Kafka's request quota charges it.

Kafka charges a client for the time its request occupies a request handler thread.  A handler here
is a coroutine on the event loop: while it awaits (a long poll, a replication barrier, an fsync in an
executor) other connections run, so the wall time around ``await handler.handle(...)`` would charge
one client for everyone's work.  `StepTimer` drives the coroutine itself and adds up only the steps
in which it runs: each ``send``/``throw`` into it is one step, timed with the given nanosecond timer.

The awaitable passes whatever the coroutine yields (asyncio futures) to the task unchanged, and
passes back what the task sends or throws in (results, cancellation), so it is transparent to the
event loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any, Generic, TypeVar

__all__ = ["StepTimer"]

T = TypeVar("T")


class StepTimer(Generic[T]):
    """``await StepTimer(awaitable, timer)`` is ``await awaitable``; afterwards ``nanoseconds`` holds
    the sum of ``timer()`` differences over the steps in which it ran."""

    __slots__ = ("_steps", "_timer", "nanoseconds")

    def __init__(self, awaitable: Awaitable[T], timer: Callable[[], int]) -> None:
        self._steps = awaitable.__await__()
        self._timer = timer
        self.nanoseconds = 0

    def __await__(self) -> Generator[Any, Any, T]:
        steps, timer = self._steps, self._timer
        sent: Any = None
        error: BaseException | None = None
        while True:
            started = timer()
            try:
                yielded = steps.send(sent) if error is None else steps.throw(error)
            except StopIteration as done:
                self.nanoseconds += timer() - started
                result: T = done.value
                return result
            except BaseException:
                self.nanoseconds += timer() - started
                raise
            self.nanoseconds += timer() - started
            try:
                sent, error = (yield yielded), None
            except BaseException as thrown:  # cancellation and the like go to the awaitable
                sent, error = None, thrown
