"""An accepted socket whose hand-over to a connection is cancelled (the listener stopping) is closed
at once, not left to a transport's close that a stopping loop may never run (a ResourceWarning)."""

from __future__ import annotations

import asyncio
import select
import socket
from typing import Any, cast

import pytest

from odradek.server.connection import Dispatch, MayWait
from odradek.server.listener import Listener, _accept


def test_a_hand_over_cancelled_by_stop_closes_the_accepted_socket() -> None:
    async def scenario() -> int:
        loop = asyncio.get_running_loop()
        never: asyncio.Future[None] = loop.create_future()

        async def stuck(*args: Any, **kwargs: Any) -> None:
            await never

        loop.connect_accepted_socket = stuck  # type: ignore[method-assign]
        listener = Listener(cast(Dispatch, None), cast(MayWait, None), "127.0.0.1", 0, 1 << 20)
        accepted, peer = socket.socketpair()
        try:
            task = loop.create_task(listener._serve(accepted, None))
            await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return accepted.fileno()
        finally:
            peer.close()
            accepted.close()

    assert asyncio.run(scenario()) == -1


def _pending(sock: socket.socket) -> bool:
    """Whether a connection waits in ``sock``'s accept queue."""
    return bool(select.select([sock], [], [], 0)[0])


def test_a_connection_accepted_as_the_listener_stops_is_closed_not_dropped() -> None:
    """The kernel hands a connection over, and the accept loop is cancelled before it resumes: the
    accepted socket must be closed (the client sees the end of the stream), not left to the garbage
    collector (a ResourceWarning) as when the accept's result dies with the cancelled await."""

    async def scenario() -> bytes:
        listening = socket.create_server(("127.0.0.1", 0))
        listening.setblocking(False)
        accept = asyncio.get_running_loop().create_task(_accept(listening))
        await asyncio.sleep(0)  # nothing to accept yet: the task waits for the socket to be readable
        client = socket.create_connection(listening.getsockname()[:2])
        try:
            while _pending(listening):  # until the accept has run, its task not yet resumed
                await asyncio.sleep(0)
            accept.cancel()
            with pytest.raises(asyncio.CancelledError):
                await accept
            client.settimeout(5.0)
            return client.recv(1)
        finally:
            client.close()
            listening.close()

    assert asyncio.run(scenario()) == b""
