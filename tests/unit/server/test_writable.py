"""`WritableWatch` over a real TCP pair: a full socket reported when room appears, and only then."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable, Iterator

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


@pytest.fixture
def watched(
    loop: asyncio.AbstractEventLoop, pair: tuple[socket.socket, socket.socket]
) -> Iterator[tuple[WritableWatch, int]]:
    """A listener's watch and a connection's duplicate of the sender in it, both closed after."""
    watch = WritableWatch(loop)
    fd = watch.watch(pair[0].fileno())
    yield watch, fd
    watch.release(fd)
    watch.close()


def _fill(sender: socket.socket) -> int:
    """Write until the socket refuses more; how many bytes it took."""
    chunk, total = b"x" * (64 << 10), 0
    while True:
        try:
            total += sender.send(chunk)
        except BlockingIOError:
            return total


def _turns(loop: asyncio.AbstractEventLoop, seconds: float) -> None:
    loop.run_until_complete(asyncio.sleep(seconds))


def test_a_full_socket_is_reported_when_room_appears_and_not_while_it_merely_has_room(
    loop: asyncio.AbstractEventLoop,
    pair: tuple[socket.socket, socket.socket],
    watched: tuple[WritableWatch, int],
) -> None:
    sender, receiver = pair
    watch, fd = watched
    _turns(loop, 0.05)  # the registration itself reports the room the socket has: nobody waits yet
    calls: list[int] = []
    watch.wait(fd, lambda: calls.append(fd))
    sent = _fill(sender)
    _turns(loop, 0.1)  # room appears while the receiver's kernel takes what fits its window
    sent += _fill(sender)
    calls.clear()
    _turns(loop, 0.1)
    assert calls == [], "no room while nobody reads"
    receiver.recv(sent, socket.MSG_WAITALL)
    _turns(loop, 0.1)
    reported = len(calls)
    assert 1 <= reported <= 3, "room appeared"
    _turns(loop, 0.2)
    assert len(calls) == reported, "a socket with room is not reported again and again (edge-triggered)"
    sent = _fill(sender)
    receiver.recv(sent, socket.MSG_WAITALL)
    _turns(loop, 0.1)
    assert len(calls) > reported, "the next write that fills it brings the next report"


def test_a_socket_nobody_waits_on_is_not_reported(
    loop: asyncio.AbstractEventLoop,
    pair: tuple[socket.socket, socket.socket],
    watched: tuple[WritableWatch, int],
) -> None:
    sender, receiver = pair
    watch, fd = watched
    calls: list[int] = []
    watch.wait(fd, lambda: calls.append(fd))
    watch.stop(fd)
    sent = _fill(sender)
    receiver.recv(sent, socket.MSG_WAITALL)
    _turns(loop, 0.1)
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
