"""`WritableWatch` over a real TCP pair: a full socket reported when room appears, and only then."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
import uvloop

from odradek.server.writable import WritableWatch

LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,
}


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """(non-blocking sender, blocking receiver) over 127.0.0.1, with buffers of 64 KiB."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        receiver = socket.create_connection(server.getsockname(), timeout=10)
        sender, _ = server.accept()
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 10)
    receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
    sender.setblocking(False)
    yield sender, receiver
    sender.close()
    receiver.close()


@pytest.fixture(params=list(LOOPS))
def loop(request: pytest.FixtureRequest) -> Iterator[asyncio.AbstractEventLoop]:
    made = LOOPS[request.param]()
    yield made
    made.close()


@dataclass(frozen=True)
class Watched:
    """The pair's sender watched as a connection's is: its duplicate ``fd`` in a listener's ``watch``."""

    loop: asyncio.AbstractEventLoop
    sender: socket.socket
    receiver: socket.socket
    watch: WritableWatch
    fd: int

    def turns(self, seconds: float) -> None:
        self.loop.run_until_complete(asyncio.sleep(seconds))

    def fill(self) -> int:
        """Write until the sender refuses more; how many bytes it took."""
        chunk, total = b"x" * (64 << 10), 0
        while True:
            try:
                total += self.sender.send(chunk)
            except BlockingIOError:
                return total


@pytest.fixture
def watched(loop: asyncio.AbstractEventLoop, pair: tuple[socket.socket, socket.socket]) -> Iterator[Watched]:
    """The sender's duplicate in a listener's watch, both closed after."""
    watch = WritableWatch(loop)
    fd = watch.watch(pair[0].fileno())
    yield Watched(loop, *pair, watch, fd)
    watch.release(fd)
    watch.close()


def test_a_full_socket_is_reported_when_room_appears_and_not_while_it_merely_has_room(watched: Watched) -> None:
    watched.turns(0.05)  # the registration itself reports the room the socket has: nobody waits yet
    calls: list[int] = []
    watched.watch.wait(watched.fd, lambda: calls.append(watched.fd))
    sent = watched.fill()
    watched.turns(0.1)  # room appears while the receiver's kernel takes what fits its window
    sent += watched.fill()
    calls.clear()
    watched.turns(0.1)
    assert calls == [], "no room while nobody reads"
    watched.receiver.recv(sent, socket.MSG_WAITALL)
    watched.turns(0.1)
    reported = len(calls)
    assert 1 <= reported <= 3, "room appeared"
    watched.turns(0.2)
    assert len(calls) == reported, "a socket with room is not reported again and again (edge-triggered)"
    sent = watched.fill()
    watched.receiver.recv(sent, socket.MSG_WAITALL)
    watched.turns(0.1)
    assert len(calls) > reported, "the next write that fills it brings the next report"


def test_a_socket_nobody_waits_on_is_not_reported(watched: Watched) -> None:
    calls: list[int] = []
    watched.watch.wait(watched.fd, lambda: calls.append(watched.fd))
    watched.watch.stop(watched.fd)
    sent = watched.fill()
    watched.receiver.recv(sent, socket.MSG_WAITALL)
    watched.turns(0.1)
    assert calls == []


def test_a_released_duplicate_is_closed_so_the_peer_sees_the_socket_close(
    loop: asyncio.AbstractEventLoop, pair: tuple[socket.socket, socket.socket]
) -> None:
    sender, receiver = pair
    watch = WritableWatch(loop)
    fd = watch.watch(sender.fileno())
    assert fd != sender.fileno()
    watch.release(fd)
    with pytest.raises(OSError):
        os.fstat(fd)
    sender.close()
    assert receiver.recv(1) == b"", "no duplicate keeps the socket open"
    watch.close()
    watch.close()
