"""Telling drains that their sockets have room again: one edge-triggered epoll set per listener.

A `Drain` (`odradek.server.zerocopy`) sends the rest of a fetch answer as its socket drains.  Asking
the event loop to watch the socket for each answer costs, per answer, a duplicate descriptor (the
loop refuses to watch the one its transport owns), a poll handle made, started, stopped and dropped
(with uvloop: about ten system calls and the handle's objects) and the reading paused and resumed.
Instead a connection's first drain makes one duplicate of its socket (`watch`), registered here
once, for the connection's life, and the event loop watches this set's one descriptor: a drain then
costs nothing to start or end, and each wake-up one ``epoll_wait`` on this set.

The registration is edge-triggered (``EPOLLOUT | EPOLLET``): the kernel reports a socket when room
appears after a write found it full (a short or refused write marks the socket out of space, and the
room freed later wakes its watchers), not on every turn while it merely has room, so a connection
that is not draining costs nothing.  Hence the invariant the drains keep: a drain waits for its
callback only after a write to its socket stopped short or was refused; a callback for a socket
nobody waits on is ignored, and a drain woken without room finds its write refused again and waits
for the next edge.  Hang-ups and errors are reported whatever the registration says; the drain's
next write then raises.

Linux only (``select.epoll``): elsewhere `available` is False and a connection hands what the
socket does not take to its transport instead (`odradek.server.zerocopy.write_parts`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
from collections.abc import Callable

__all__ = ["WritableWatch", "available"]

available = hasattr(select, "epoll")
"""Whether this platform has the edge-triggered set the watch is made of."""


class WritableWatch:
    """One listener's set of watched sockets (module docstring).  Each is a duplicate descriptor
    the watch made and owns until `release`; `close` once the listener's connections are closed."""

    __slots__ = ("_epoll", "_loop", "_waiting")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._epoll = select.epoll()
        #: What to call when a watched descriptor has room, for those a drain waits on.
        self._waiting: dict[int, Callable[[], None]] = {}
        loop.add_reader(self._epoll.fileno(), self._ready)

    def watch(self, socket_fd: int) -> int:
        """A duplicate of the socket descriptor ``socket_fd``, registered for the edges of its room
        (the transport may close its own number, and it be reused, while this one is in use)."""
        fd = os.dup(socket_fd)
        try:
            self._epoll.register(fd, select.EPOLLOUT | select.EPOLLET)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def wait(self, fd: int, on_room: Callable[[], None]) -> None:
        """Call ``on_room`` at each edge of ``fd``'s room until `stop` (the caller's write to it
        stopped short or was refused: module docstring)."""
        self._waiting[fd] = on_room

    def stop(self, fd: int) -> None:
        self._waiting.pop(fd, None)

    def release(self, fd: int) -> None:
        """Forget ``fd`` and close it (unregistered first: the socket may still be open elsewhere)."""
        self._waiting.pop(fd, None)
        if not self._epoll.closed:
            with contextlib.suppress(OSError):
                self._epoll.unregister(fd)
        os.close(fd)

    def close(self) -> None:
        if self._epoll.closed:
            return
        self._loop.remove_reader(self._epoll.fileno())
        self._epoll.close()
        self._waiting.clear()

    def _ready(self) -> None:
        waiting = self._waiting
        for fd, _events in self._epoll.poll(0):
            on_room = waiting.get(fd)
            if on_room is not None:
                on_room()
