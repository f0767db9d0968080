"""A stopping listener closes its connections' sockets before `Listener.stop` returns, even one
holding answers its client has not read: an embedding (the test double, a test's in-process broker)
closes the loop next, and a socket left to a transport's later close is then only closed by the
garbage collector (a ResourceWarning), with the client never told."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
import uvloop

from odradek.server.connection import Connection
from odradek.server.listener import Listener
from odradek.wire.primitives import Part

_ANSWER_BYTES = 8 * 1024 * 1024  # far more than the two sockets' buffers hold


async def _big_answer(body: bytearray, connection: Connection) -> list[Part]:
    return [struct.pack(">i", _ANSWER_BYTES), bytes(_ANSWER_BYTES)]


def _never_waits(body: bytearray) -> bool:
    return False


T = TypeVar("T")
LOOPS = pytest.mark.parametrize(
    "loop_factory", [asyncio.new_event_loop, uvloop.new_event_loop], ids=["asyncio", "uvloop"]
)


def _run(scenario: Callable[[], Coroutine[Any, Any, T]], loop_factory: Callable[[], asyncio.AbstractEventLoop]) -> T:
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(scenario())


@LOOPS
def test_stop_closes_a_connection_whose_answers_are_not_read(
    loop_factory: Callable[[], asyncio.AbstractEventLoop],
) -> None:
    async def scenario() -> tuple[int, int]:
        listener = Listener(_big_answer, _never_waits, "127.0.0.1", 0, 1 << 20, socket_buffers=(102400, 102400))
        await listener.start()
        client = socket.create_connection(("127.0.0.1", listener.port))
        try:
            client.sendall(struct.pack(">i", 4) + b"ping")
            while not listener.connections or not any(
                c.transport is not None and c.transport.get_write_buffer_size() for c in listener.connections
            ):
                await asyncio.sleep(0.01)
            (connection,) = listener.connections
            assert connection.transport is not None
            server_side = connection.transport.get_extra_info("socket")
            await listener.stop()
            return server_side.fileno(), len(listener.connections)
        finally:
            client.close()

    assert _run(scenario, loop_factory) == (-1, 0)


@LOOPS
def test_stop_closes_an_idle_connection_before_returning(loop_factory: Callable[[], asyncio.AbstractEventLoop]) -> None:
    async def scenario() -> tuple[int, bytes]:
        listener = Listener(_big_answer, _never_waits, "127.0.0.1", 0, 1 << 20)
        await listener.start()
        client = socket.create_connection(("127.0.0.1", listener.port))
        try:
            while not listener.connections:
                await asyncio.sleep(0.01)
            (connection,) = listener.connections
            assert connection.transport is not None
            server_side = connection.transport.get_extra_info("socket")
            await listener.stop()
            fileno = server_side.fileno()
            client.settimeout(5.0)
            return fileno, client.recv(1)
        finally:
            client.close()

    assert _run(scenario, loop_factory) == (-1, b"")
