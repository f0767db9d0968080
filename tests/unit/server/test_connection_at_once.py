"""A `Connection` whose dispatcher answers some frames at once (`AnswersAtOnce`): from the read
callback while the connection is idle, in request order with the answers of the worker, and every
frame's reserved bytes given back."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from odradek.server.backpressure import RequestMemory
from odradek.server.connection import Connection
from odradek.storage.region import FileRegion
from odradek.wire.errors import ProtocolViolation
from odradek.wire.primitives import Part
from tests.unit.server.test_connection_output import LOOPS, _region


def _frame(body: bytes) -> bytes:
    return struct.pack(">i", len(body)) + body


class Later:
    """The answer of a ``later*`` frame, after a pause (a long-poll fetch's `LaterAnswer`)."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def answer(self) -> list[Part] | None:
        for _ in range(3):
            await asyncio.sleep(0)
        return [_frame(self.body)]


class Dispatcher:
    """Answers ``now*`` frames at once (``now-silent`` with no answer, ``now-bad`` by refusing the
    frame), begins ``later*`` frames at once and answers them after a pause, and every frame, after
    a pause, through the coroutine (which refuses ``slow-bad``)."""

    def __init__(self) -> None:
        self.at_once: list[bytes] = []
        self.begun: list[bytes] = []
        self.awaited: list[bytes] = []

    def answer_now(self, body: bytearray, connection: Connection) -> list[Part] | Later | None:
        if body.startswith(b"later"):
            self.begun.append(bytes(body))
            return Later(bytes(body))
        if body == b"now-bad":
            raise ProtocolViolation("refused")
        if not body.startswith(b"now"):
            return None
        self.at_once.append(bytes(body))
        return [] if body == b"now-silent" else [_frame(bytes(body))]

    async def __call__(self, body: bytearray, connection: Connection) -> list[Part] | None:
        await asyncio.sleep(0)
        if body == b"slow-bad":
            raise ProtocolViolation("refused")
        self.awaited.append(bytes(body))
        return None if body == b"now-silent" else [_frame(bytes(body))]


def _serve(loop: asyncio.AbstractEventLoop, dispatcher: Dispatcher, memory: RequestMemory) -> socket.socket:
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname(), timeout=10)
        accepted, _ = server.accept()
    connection = Connection(dispatcher, lambda body: False, 1 << 20, lambda conn: None, memory=memory)
    loop.run_until_complete(loop.connect_accepted_socket(lambda: connection, accepted))
    return client


def _receive(loop: asyncio.AbstractEventLoop, client: socket.socket, size: int) -> bytes:
    received = bytearray()

    async def drain() -> None:
        while len(received) < size:
            chunk = await loop.sock_recv(client, 1 << 20)
            if not chunk:
                return
            received.extend(chunk)

    loop.run_until_complete(asyncio.wait_for(drain(), 30))
    return bytes(received)


def _exchange(
    loop_name: str,
    dispatcher: Dispatcher,
    sent: bytes,
    size: int,
    on_client: Callable[[socket.socket], None] | None = None,
) -> tuple[bytes, RequestMemory]:
    """Send ``sent`` in one write to a connection of ``dispatcher`` on a fresh loop and read ``size``
    answer bytes; the connection's request memory is returned to check that every byte came back."""
    loop = LOOPS[loop_name]()
    memory = RequestMemory(1 << 20)
    try:
        client = _serve(loop, dispatcher, memory)
        if on_client is not None:
            on_client(client)
        with client:
            client.setblocking(False)
            loop.run_until_complete(loop.sock_sendall(client, sent))
            received = _receive(loop, client, size)
        loop.run_until_complete(asyncio.sleep(0.05))
    finally:
        loop.close()
    return received, memory


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_answers_at_once_and_awaited_keep_the_request_order(loop_name: str) -> None:
    loop = LOOPS[loop_name]()
    memory = RequestMemory(1 << 20)
    dispatcher = Dispatcher()
    try:
        client = _serve(loop, dispatcher, memory)
        with client:
            client.setblocking(False)
            first = [b"now1", b"now-silent", b"now2", b"slow1", b"now3", b"now-silent", b"slow2", b"now4"]
            loop.run_until_complete(loop.sock_sendall(client, b"".join(_frame(body) for body in first)))
            answered = [body for body in first if body != b"now-silent"]
            expected = b"".join(_frame(_frame(body)[4:]) for body in answered)
            assert _receive(loop, client, len(expected)) == expected
            # Idle again: the next read is answered at once.
            loop.run_until_complete(loop.sock_sendall(client, _frame(b"now5")))
            assert _receive(loop, client, len(_frame(b"now5"))) == _frame(b"now5")
        loop.run_until_complete(asyncio.sleep(0.05))
    finally:
        loop.close()
    # What was read with nothing queued went at once; from the first frame the dispatcher would
    # not take, the rest of that read waited its turn in the queue, where the worker too answers
    # what the dispatcher answers at once without awaiting its coroutine.
    assert dispatcher.at_once == [b"now1", b"now-silent", b"now2", b"now3", b"now-silent", b"now4", b"now5"]
    assert dispatcher.awaited == [b"slow1", b"slow2"]
    assert memory.used == 0


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_an_answer_begun_at_once_is_awaited_in_its_turn_and_begun_once(loop_name: str) -> None:
    """A frame the read callback begins but cannot finish (a long poll) goes first to the queue; the
    worker awaits its answer there, before the frames after it, without beginning it again."""
    dispatcher = Dispatcher()
    frames = [b"later1", b"now1", b"slow1", b"later2", b"now2"]
    expected = b"".join(_frame(_frame(body)[4:]) for body in frames)
    received, memory = _exchange(loop_name, dispatcher, b"".join(_frame(body) for body in frames), len(expected))
    assert received == expected
    assert dispatcher.begun == [b"later1", b"later2"]
    assert dispatcher.at_once == [b"now1", b"now2"]
    assert dispatcher.awaited == [b"slow1"]
    assert memory.used == 0


class FileDispatcher(Dispatcher):
    """Answers ``file*`` frames at once with records left in a file, and notes, as each frame is
    answered at once, how many answer bytes its client could already read."""

    def __init__(self, region: FileRegion) -> None:
        super().__init__()
        self.region = region
        self.client: socket.socket | None = None
        self.readable_before: dict[bytes, int] = {}

    def answer_now(self, body: bytearray, connection: Connection) -> list[Part] | Later | None:
        assert self.client is not None
        try:
            self.readable_before[bytes(body)] = len(self.client.recv(1 << 20, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except BlockingIOError:
            self.readable_before[bytes(body)] = 0
        if body.startswith(b"file"):
            return [struct.pack(">i", len(self.region)), self.region]
        return super().answer_now(body, connection)


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_an_answer_with_file_parts_goes_out_before_the_next_frame_is_answered(loop_name: str, tmp_path: Path) -> None:
    """Records left in a segment file are sent before anything else is read or appended (a segment
    file is only valid until then), also when the read callback answers several frames at once."""
    records = bytes(range(256)) * 16
    dispatcher = FileDispatcher(_region(tmp_path, records))
    expected = _frame(records) + _frame(b"now1")

    def watch(client: socket.socket) -> None:
        dispatcher.client = client

    sent = _frame(b"file1") + _frame(b"now1")
    received, memory = _exchange(loop_name, dispatcher, sent, len(expected), watch)
    assert received == expected
    assert dispatcher.readable_before == {b"file1": 0, b"now1": len(_frame(records))}
    assert memory.used == 0


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_a_frame_refused_at_once_closes_the_connection_and_gives_its_bytes_back(loop_name: str) -> None:
    loop = LOOPS[loop_name]()
    memory = RequestMemory(1 << 20)
    try:
        client = _serve(loop, Dispatcher(), memory)
        with client:
            client.setblocking(False)
            frames = [b"now1", b"now-bad", b"now2", b"slow"]
            loop.run_until_complete(loop.sock_sendall(client, b"".join(_frame(body) for body in frames)))
            assert _receive(loop, client, 1 << 20) == _frame(b"now1")  # then the connection closes
        loop.run_until_complete(asyncio.sleep(0.05))
    finally:
        loop.close()
    assert memory.used == 0


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_a_frame_the_worker_refuses_closes_the_connection_after_the_answers_before_it(loop_name: str) -> None:
    loop = LOOPS[loop_name]()
    memory = RequestMemory(1 << 20)
    try:
        client = _serve(loop, Dispatcher(), memory)
        with client:
            client.setblocking(False)
            frames = [b"slow1", b"slow2", b"slow-bad", b"slow3"]
            loop.run_until_complete(loop.sock_sendall(client, b"".join(_frame(body) for body in frames)))
            expected = _frame(b"slow1") + _frame(b"slow2")
            assert _receive(loop, client, 1 << 20) == expected  # then the connection closes
        loop.run_until_complete(asyncio.sleep(0.05))
    finally:
        loop.close()
    assert memory.used == 0
