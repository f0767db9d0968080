"""A `Connection` writing file parts: in order with other answers, and one log line for a lost peer."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct
from collections.abc import Callable
from pathlib import Path

import pytest
import uvloop

from odradek.server.connection import Connection, Dispatch
from odradek.server.writable import WritableWatch
from odradek.storage.filesystem import OsFileSystem
from odradek.storage.region import FileRegion
from odradek.wire.primitives import Part

LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,
}


def _region(tmp_path: Path, data: bytes) -> FileRegion:
    handle = OsFileSystem().open_append(str(tmp_path / "00000000000000000000.log"))
    handle.write(b"\x00" * 5 + data)
    return FileRegion(handle, 5, len(data))


def _frame(body: bytes) -> bytes:
    return struct.pack(">i", len(body)) + body


def _read(loop: asyncio.AbstractEventLoop, client: socket.socket, size: int) -> bytes:
    """``size`` bytes from ``client`` (made non-blocking), read on ``loop`` within 30 s."""
    received = bytearray()

    async def read() -> None:
        while len(received) < size:
            chunk = await loop.sock_recv(client, 1 << 20)
            assert chunk, "the connection was closed"
            received.extend(chunk)

    client.setblocking(False)
    loop.run_until_complete(asyncio.wait_for(read(), 30))
    return bytes(received)


def _serve(
    loop: asyncio.AbstractEventLoop, dispatch: Dispatch, send_buffer: int | None = None
) -> tuple[Connection, socket.socket]:
    """A connection on one end of a TCP pair (its send buffer fixed at ``send_buffer`` bytes, as
    the listener sets Kafka's ``socket.send.buffer.bytes``); the other end, blocking, for the test."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname(), timeout=10)
        accepted, _ = server.accept()
    if send_buffer is not None:
        accepted.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    watch = _WATCHES.get(loop) or _WATCHES.setdefault(loop, WritableWatch(loop))
    connection = Connection(dispatch, lambda body: False, 1 << 20, lambda conn: None, watch=watch)
    loop.run_until_complete(loop.connect_accepted_socket(lambda: connection, accepted))
    return connection, client


def _serve_a_file(loop: asyncio.AbstractEventLoop, region: FileRegion) -> tuple[Connection, socket.socket]:
    """A connection answering every request with ``region`` (its length first), through a send
    buffer of Kafka's 100 KiB, to a client whose receive buffer is 64 KiB: every answer drains."""

    async def dispatch(body: bytearray, connection: Connection) -> list[Part]:
        return [struct.pack(">i", len(region)), region]

    connection, client = _serve(loop, dispatch, send_buffer=100 << 10)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
    return connection, client


_WATCHES: dict[asyncio.AbstractEventLoop, WritableWatch] = {}
"""The listener's watch each test loop's connections share (`_close` closes it with the loop)."""


def _close(loop: asyncio.AbstractEventLoop) -> None:
    """Let the closed connections' transports finish, then close the watch and the loop."""
    loop.run_until_complete(asyncio.sleep(0.05))
    watch = _WATCHES.pop(loop, None)
    if watch is not None:
        watch.close()
    loop.close()


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_pipelined_answers_with_and_without_file_parts_arrive_in_request_order(loop_name: str, tmp_path: Path) -> None:
    data = os.urandom(3 << 20)
    region = _region(tmp_path, data)

    async def dispatch(body: bytearray, connection: Connection) -> list[Part]:
        if body.startswith(b"file"):
            return [struct.pack(">i", len(body) + len(data)), body, region]
        return [_frame(bytes(body))]

    loop = LOOPS[loop_name]()
    try:
        connection, client = _serve(loop, dispatch)
        with client:
            names = [b"a", b"file1", b"b", b"c", b"file2", b"d"]
            client.sendall(b"".join(_frame(name) for name in names))
            expected = b"".join(_frame(name + data) if name.startswith(b"file") else _frame(name) for name in names)
            received = _read(loop, client, len(expected))
        assert received == expected
        connection.close()
    finally:
        _close(loop)


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_a_peer_gone_before_the_answer_closes_the_connection_with_one_log_line(
    loop_name: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    region = _region(tmp_path, os.urandom(1 << 20))
    release = asyncio.Event()

    async def dispatch(body: bytearray, connection: Connection) -> list[Part]:
        assert connection.transport is not None
        connection.transport.pause_reading()  # the reset is seen by the write, not by a read
        await release.wait()
        return [struct.pack(">i", len(region)), region]

    loop = LOOPS[loop_name]()
    try:
        connection, client = _serve(loop, dispatch)
        client.sendall(_frame(b"fetch"))
        loop.run_until_complete(asyncio.sleep(0.1))
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
        with caplog.at_level(logging.INFO, logger="odradek.server"):
            loop.call_later(0.1, release.set)
            loop.run_until_complete(asyncio.sleep(0.5))
        assert connection.closed
        lines = [r for r in caplog.records if r.name == "odradek.server"]
        assert len(lines) == 1 and "closing connection" in lines[0].getMessage()
    finally:
        _close(loop)


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_an_answer_with_file_parts_leaves_before_the_next_request_awaits(loop_name: str, tmp_path: Path) -> None:
    data = os.urandom(200_000)
    region = _region(tmp_path, data)

    async def dispatch(body: bytearray, connection: Connection) -> list[Part]:
        if body == b"file":
            return [struct.pack(">i", len(data)), region]
        region.file.close()  # what deleting the topic does while a later request waits
        await asyncio.sleep(0.01)
        return [_frame(bytes(body))]

    loop = LOOPS[loop_name]()
    try:
        connection, client = _serve(loop, dispatch)
        with client:
            client.sendall(_frame(b"file") + _frame(b"next"))
            expected = _frame(data) + _frame(b"next")
            received = _read(loop, client, len(expected))
        assert received == expected
        connection.close()
    finally:
        _close(loop)


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_a_client_that_does_not_read_stops_the_answering(loop_name: str) -> None:
    """Write flow control: with the transport's buffer full, the next request waits (Kafka
    mutes the connection until its answer is sent), and answering resumes once the client reads."""
    answered: list[bytes] = []
    big = os.urandom(4 << 20)

    async def dispatch(body: bytearray, connection: Connection) -> list[Part]:
        answered.append(bytes(body))
        return [_frame(big)]

    loop = LOOPS[loop_name]()
    try:
        connection, client = _serve(loop, dispatch)
        with client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
            client.sendall(b"".join(_frame(b"r%d" % i) for i in range(20)))
            loop.run_until_complete(asyncio.sleep(0.3))
            held = len(answered)
            assert 1 <= held < 20, "answering went on although nobody read"
            client.setblocking(False)
            received = 0

            async def drain() -> None:
                nonlocal received
                while received < 20 * (len(big) + 4):
                    chunk = await loop.sock_recv(client, 1 << 20)
                    assert chunk
                    received += len(chunk)

            loop.run_until_complete(asyncio.wait_for(drain(), 60))
        assert len(answered) == 20
        connection.close()
    finally:
        _close(loop)


def _open_descriptors() -> int:
    """Descriptors of sockets and files (the event loop's own /dev/null and pipes come and go)."""
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except FileNotFoundError:
            continue
        count += target.startswith("socket:") or target.endswith(".log")
    return count


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_while_a_file_answer_drains_the_next_request_waits_and_a_closed_segment_does_not_matter(
    loop_name: str, tmp_path: Path
) -> None:
    data = os.urandom(3 << 20)
    region = _region(tmp_path, data)
    answered: list[bytes] = []

    async def dispatch(body: bytearray, connection: Connection) -> list[Part]:
        answered.append(bytes(body))
        if body == b"file":
            return [struct.pack(">i", len(data)), region]
        return [_frame(bytes(body))]

    loop = LOOPS[loop_name]()
    try:
        connection, client = _serve(loop, dispatch, send_buffer=100 << 10)
        with client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
            client.sendall(_frame(b"file") + _frame(b"next"))
            loop.run_until_complete(asyncio.sleep(0.2))
            assert answered == [b"file"], "the next request waits for the answer before it (Kafka's mute)"
            region.file.close()  # retention deleting the segment while its answer drains
            expected = _frame(data) + _frame(b"next")
            received = _read(loop, client, len(expected))
        assert received == expected
        assert answered == [b"file", b"next"]
        connection.close()
    finally:
        _close(loop)


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_closing_a_connection_during_a_drain_closes_its_socket_and_every_duplicate(
    loop_name: str, tmp_path: Path
) -> None:
    """The drain holds duplicates of the socket and the segment; the peer must still see the close."""
    region = _region(tmp_path, os.urandom(3 << 20))
    loop = LOOPS[loop_name]()
    try:
        descriptors = _open_descriptors()
        connection, client = _serve_a_file(loop, region)
        with client:
            client.sendall(_frame(b"fetch"))
            loop.run_until_complete(asyncio.sleep(0.2))
            assert _open_descriptors() >= descriptors + 4, "client, accepted socket and the two duplicates"
            connection.close()
            loop.run_until_complete(asyncio.sleep(0.1))
            client.setblocking(False)

            async def read_to_the_end() -> None:
                while await loop.sock_recv(client, 1 << 20):
                    pass

            loop.run_until_complete(asyncio.wait_for(read_to_the_end(), 10))
        assert _open_descriptors() == descriptors
    finally:
        _close(loop)


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_every_drain_of_a_connection_writes_through_its_one_duplicate_of_the_socket(
    loop_name: str, tmp_path: Path
) -> None:
    """The duplicate the watch needs is made by the first drain and kept until the connection closes."""
    data = os.urandom(2 << 20)
    region = _region(tmp_path, data)
    loop = LOOPS[loop_name]()
    try:
        descriptors = _open_descriptors()
        connection, client = _serve_a_file(loop, region)
        with client:
            during, after = [], []
            for _ in range(3):
                client.setblocking(True)
                client.sendall(_frame(b"fetch"))
                loop.run_until_complete(asyncio.sleep(0.1))
                during.append(_open_descriptors() - descriptors)
                assert _read(loop, client, len(data) + 4) == _frame(data)
                after.append(_open_descriptors() - descriptors)
            assert during == [4, 4, 4], "client, accepted socket, its duplicate and the segment's"
            assert after == [3, 3, 3], "the segment's duplicate goes with the drain, the socket's stays"
            connection.close()
            loop.run_until_complete(asyncio.sleep(0.1))
        assert _open_descriptors() == descriptors
    finally:
        _close(loop)
