"""A broker on a background thread's event loop, for real-client tests.

With ``manual_clock=True`` the broker runs on a `ManualClock`, so a test moves time (retention,
session timeouts, delayed deletion) with ``clock.advance`` and never sleeps.  Every timer then
waits for the test, as on Kafka's MockTime: a Fetch long poll with nothing to read only ends
when the clock reaches its ``max_wait_ms``, so a consumer that reassigns partitions while its
fetch is parked waits for the test too.  By default the broker runs on the system clock.

``call(fn)`` runs ``fn()`` on the broker's loop and returns its result, so a test never
touches broker state from its own thread (the loop thread is `odradek.testing.loop_thread`'s,
the one the embedded broker runs on).  ``loop_factory`` picks the event loop (asyncio's by
default; ``uvloop.new_event_loop`` runs the broker on the loop ``odradek run`` uses); ``fs``
replaces the disk under the partition logs (a test's injected faults).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from odradek.broker import Broker
from odradek.clock import ManualClock, SystemClock
from odradek.config import load_config
from odradek.storage.filesystem import FileSystem
from odradek.testing.loop_thread import LoopThread
from tests.integration.rawclient import RawConnection


class InProcessBroker(LoopThread):
    """The broker itself (`odradek.broker.Broker`, with its own listeners) on the loop thread the
    embedded broker runs on; ``broker`` is reached from the test through `call`."""

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
        super().__init__("in-process-broker", timeout_s=30, loop_factory=loop_factory)

    def start(self) -> None:
        super().start()
        self.run(self.broker.start)

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.broker.port}"

    def stop(self) -> None:
        try:
            self.run(self.broker.stop)
        finally:
            super().stop()


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
