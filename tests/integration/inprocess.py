"""A broker on a background thread's event loop, for real-client tests.

With ``manual_clock=True`` the broker runs on a `ManualClock`, so a test moves time (retention,
session timeouts, delayed deletion) with ``clock.advance`` and never sleeps.  Every timer then
waits for the test, as on Kafka's MockTime: a Fetch long poll with nothing to read only ends
when the clock reaches its ``max_wait_ms``, so a consumer that reassigns partitions while its
fetch is parked waits for the test too.  By default the broker runs on the system clock.

``call(fn)`` runs ``fn()`` on the broker's loop and returns its result, so a test never
touches broker state from its own thread.  ``loop_factory`` picks the event loop (asyncio's by
default; ``uvloop.new_event_loop`` runs the broker on the loop ``odradek run`` uses); ``fs``
replaces the disk under the partition logs (a test's injected faults).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from odradek.broker import Broker
from odradek.clock import ManualClock, SystemClock
from odradek.config import load_config
from odradek.storage.filesystem import FileSystem
from tests.integration.rawclient import RawConnection

T = TypeVar("T")


class InProcessBroker:
    def __init__(
        self,
        data_dir: Path,
        overrides: list[str] | None = None,
        loop_factory: Callable[[], asyncio.AbstractEventLoop] = asyncio.new_event_loop,
        fs: FileSystem | None = None,
        *,
        manual_clock: bool = False,
    ) -> None:
        self.clock = ManualClock(time.time_ns() // 1_000_000) if manual_clock else SystemClock()
        config = load_config(None, ["port=0", f"log.dirs={data_dir}", *(overrides or [])])
        self.broker = Broker(config, self.clock, fs)
        self._loop = loop_factory()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.broker.start(), self._loop).result(timeout=30)

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.broker.port}"

    def call(self, fn: Callable[[], T]) -> T:
        async def run() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(timeout=30)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.broker.stop(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()


@contextmanager
def raw_broker(
    data_dir: Path, overrides: list[str] | None = None, fs: FileSystem | None = None
) -> Iterator[tuple[InProcessBroker, RawConnection]]:
    """A started in-process broker and one raw connection to it; both closed on the way out."""
    broker = InProcessBroker(data_dir, overrides, fs=fs)
    broker.start()
    try:
        connection = RawConnection(broker.bootstrap)
        try:
            yield broker, connection
        finally:
            connection.close()
    finally:
        broker.stop()
