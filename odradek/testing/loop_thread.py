"""An event loop on a daemon thread of its own, driven from other threads.

The embedded broker (`odradek.testing.runtime.ThreadedRuntime`) and odradek's own in-process test
brokers run on one: the test's thread asks with `run` (a coroutine) or `call` (a function), each
run on the loop, and blocks until it is done, getting its result or its exception.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["LoopThread"]

T = TypeVar("T")


class LoopThread:
    def __init__(
        self,
        name: str,
        *,
        timeout_s: float = 60.0,
        loop_factory: Callable[[], asyncio.AbstractEventLoop] = asyncio.new_event_loop,
    ) -> None:
        self._timeout_s = timeout_s
        self._loop = loop_factory()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def run(self, coroutine: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """``coroutine()`` on the loop; its result (or exception) here."""
        if threading.current_thread() is self._thread:
            raise RuntimeError("a blocking call from the loop's own thread")
        return asyncio.run_coroutine_threadsafe(coroutine(), self._loop).result(self._timeout_s)

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()`` on the loop (state owned by the loop is only touched there)."""

        async def run() -> T:
            return fn()

        return self.run(run)

    def stop(self) -> None:
        """Stop the loop, wait for its thread, close the loop."""
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(self._timeout_s)
        if not self._loop.is_closed() and not self._loop.is_running():
            self._loop.close()
