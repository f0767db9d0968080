"""When a connection stops reading (its answers back up, its queue is long, or request memory is
spent), and when it gives the event loop back to the others.

`ReadHolds` keeps, per connection, the reasons reading is paused; the transport reads again
only when none is left, so the reasons never undo each other:

- ``ANSWERS``: the transport's write buffer is over its high-water mark (the client does not read
  its answers).  Kafka mutes such a channel; a client that pipelines without reading then fills
  its own socket buffers, not the broker's memory.
- ``QUEUE``: the requests read but not yet answered reach `MAX_QUEUED_FRAMES` or
  `MAX_QUEUED_BYTES`; released at half of each.
- ``MEMORY``: the broker-wide `RequestMemory` refused to reserve the next frame's bytes.

`Turn`: a connection answering pipelined requests that never wait would keep the loop as long as
its queue lasts (a read of 64 KiB of small requests is thousands of them); after `TURN_SECONDS` of
answering it sends what it has and lets every other ready connection run first, so one client's
burst delays the others by at most a turn plus one request.  Each turn costs a write that wakes
the client and a pass of the event loop, so the turn's length trades that bound against the CPU a
pipelined request costs: 2 ms (about 30 one-record Produce requests) against 0.5 ms cut a
one-record Produce to 1,000 partitions over 64 pipelining connections from 83 to 74 µs of broker
CPU and raised W6's throughput by 9% (benchmarks/profiles.md, issue 19).

`set_socket_buffers` applies Kafka's ``socket.send.buffer.bytes`` and ``socket.receive.buffer.bytes``
(100 KiB each by default): without them Linux lets a socket's send buffer grow to megabytes, so a
client that does not read would have thousands of answers computed for it before its answers
back up and it is muted.  A fetch answer larger than the send buffer goes out with ``sendfile``
as the socket drains (`odradek.server.zerocopy.Drain`), as Kafka keeps calling ``transferTo``.

`RequestMemory` is Kafka's ``queued.max.request.bytes``: the bytes of requests being received,
queued or processed, over every connection.  A reservation is granted while the total is under
the limit, so it exceeds the limit by at most one reservation (a frame up to
``socket.request.max.bytes``, or one chunk of a larger one, `odradek.wire.framing`); a refused
connection waits, in arrival order, until released bytes bring the total under the limit.  The
limit -1 (Kafka's default), or any limit of 0 or less, grants everything and only counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable
from enum import IntEnum
from typing import Protocol

__all__ = [
    "MAX_QUEUED_BYTES",
    "MAX_QUEUED_FRAMES",
    "TURN_SECONDS",
    "Hold",
    "ReadHolds",
    "RequestMemory",
    "Turn",
    "set_socket_buffers",
]

MAX_QUEUED_FRAMES = 128
MAX_QUEUED_BYTES = 4 * 1024 * 1024
TURN_SECONDS = 0.002


class Hold(IntEnum):
    """A reason to stop reading, one bit each: the holds of a connection are one int, so taking and
    releasing one (several times per request) costs no Python-level ``Enum.__hash__`` call."""

    ANSWERS = 1  # answers back up
    QUEUE = 2  # queue full
    MEMORY = 4  # request memory spent


class ReadHolds:
    """The reasons one connection's transport is not reading (module docstring)."""

    __slots__ = ("_held", "_transport")

    def __init__(self) -> None:
        self._transport: asyncio.Transport | None = None
        self._held = 0  # the `Hold` bits taken

    def attach(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        if self._held:
            transport.pause_reading()

    def hold(self, reason: Hold) -> None:
        if self._held & reason:
            return
        if not self._held and self._transport is not None and not self._transport.is_closing():
            self._transport.pause_reading()
        self._held |= reason

    def release(self, reason: Hold) -> None:
        if not self._held & reason:
            return
        self._held &= ~reason
        if not self._held and self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()

    def holds(self, reason: Hold) -> bool:
        return bool(self._held & reason)

    @property
    def reading(self) -> bool:
        return not self._held


class Turn:
    """How long a connection's worker has held the event loop since it last gave way (module
    docstring).  Scheduling only: nothing the broker answers depends on this clock."""

    __slots__ = ("_since",)

    def __init__(self) -> None:
        self._since = time.perf_counter()

    def over(self) -> bool:
        return time.perf_counter() - self._since > TURN_SECONDS

    async def give_way(self) -> None:
        await asyncio.sleep(0)
        self._since = time.perf_counter()


class RequestMemory:
    """Bytes of requests held over every connection, against ``queued.max.request.bytes``."""

    __slots__ = ("_waiters", "limit", "used")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self._waiters: deque[Callable[[], None]] = deque()

    def try_reserve(self, size: int) -> bool:
        """Reserve ``size`` bytes if the total is under the limit (Kafka's non-strict pool)."""
        if self.limit > 0 and self.used >= self.limit:
            return False
        self.used += size
        return True

    def release(self, size: int) -> None:
        """Give ``size`` reserved bytes back and wake waiters while the total is under the limit."""
        self.used -= size
        while self._waiters and (self.limit <= 0 or self.used < self.limit):
            self._waiters.popleft()()

    def wait(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` (once) when released bytes bring the total under the limit."""
        self._waiters.append(wake)

    def forget(self, wake: Callable[[], None]) -> None:
        """Drop a waiter that no longer wants waking (its connection closed)."""
        with contextlib.suppress(ValueError):
            self._waiters.remove(wake)


class _SocketOptions(Protocol):
    def setsockopt(self, level: int, option: int, value: int, /) -> None: ...


def set_socket_buffers(listening: Iterable[_SocketOptions], send_bytes: int, receive_bytes: int) -> None:
    """Set the buffer sizes on the listening sockets, which the sockets they accept inherit; a size
    of -1 (or less than 1) leaves the operating system's default and autotuning."""
    for sock in listening:
        if send_bytes > 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_bytes)
        if receive_bytes > 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_bytes)
