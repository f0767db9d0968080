"""`write_parts` and `Drain` over a real TCP socket pair: sendfile, the rest at a full socket, fallbacks."""

from __future__ import annotations

import asyncio
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import cast

import pytest
import uvloop

from odradek.server.writable import WritableWatch
from odradek.server.zerocopy import Drain, HeldFile, Unsent, buffer_pieces, write_parts
from odradek.storage.filesystem import MemoryFileSystem, OsFileSystem
from odradek.storage.region import FileRegion
from odradek.wire.primitives import Part


class FakeTransport:
    """Records what reaches the transport; ``queued`` is its write buffer's size."""

    def __init__(self, queued: int = 0) -> None:
        self.queued = queued
        self.written: list[bytes] = []

    def writelines(self, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        self.written.extend(bytes(part) for part in parts)

    def get_write_buffer_size(self) -> int:
        return self.queued

    def is_closing(self) -> bool:
        return False


class SendfileSpy:
    """Wraps ``os.sendfile``: every call's requested count and result."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self._real = os.sendfile

    def __call__(self, out_fd: int, in_fd: int, offset: int, count: int) -> int:
        try:
            sent = self._real(out_fd, in_fd, offset, count)
        except BlockingIOError:
            self.calls.append((count, -1))
            raise
        self.calls.append((count, sent))
        return sent


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> SendfileSpy:
    found = SendfileSpy()
    monkeypatch.setattr(os, "sendfile", found)
    return found


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """(non-blocking sender, blocking receiver), connected over 127.0.0.1."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        receiver = socket.create_connection(server.getsockname(), timeout=10)
        sender, _ = server.accept()
    sender.setblocking(False)
    yield sender, receiver
    sender.close()
    receiver.close()


def _send(transport: FakeTransport, sock: socket.socket | None, parts: Sequence[Part]) -> None:
    write_parts(cast(asyncio.WriteTransport, transport), sock, parts)


def _os_region(tmp_path: Path, data: bytes, position: int) -> FileRegion:
    handle = OsFileSystem().open_append(str(tmp_path / f"{position:020d}.log"))
    handle.write(os.urandom(position) + data + os.urandom(100))
    return FileRegion(handle, position, len(data))


def _memory_region(data: bytes) -> FileRegion:
    fs = MemoryFileSystem()
    fs.makedirs("/d")
    handle = fs.open_append("/d/0.log")
    handle.write(b"x" * 10 + data)
    return FileRegion(handle, 10, len(data))


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), 1 << 20))
        assert chunk, f"peer closed after {len(data)} of {size} bytes"
        data += chunk
    return bytes(data)


def _assert_nothing_more(sock: socket.socket) -> None:
    """Nothing beyond what was read arrives (the socket had time to deliver the rest)."""
    time.sleep(0.2)
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        sock.recv(1)


def _expected(parts: Sequence[Part]) -> bytes:
    return b"".join(bytes(p) if isinstance(p, (bytes, bytearray, memoryview)) else p.read() for p in parts)


def test_file_parts_go_out_with_sendfile_and_bytes_around_them_in_order(
    tmp_path: Path, pair: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = pair
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    first = _os_region(tmp_path, os.urandom(70_000), 1234)
    second = _os_region(tmp_path, os.urandom(90_000), 0)
    parts: list[Part] = [bytearray(b"head"), first, b"", memoryview(b"middle"), second, bytearray(b"tail")]
    transport = FakeTransport()
    _send(transport, sender, parts)
    assert transport.written == []
    assert [count for count, _ in spy.calls] == [70_000, 90_000]
    assert _recv_exact(receiver, len(_expected(parts))) == _expected(parts)


def test_a_full_socket_hands_the_rest_to_the_transport_in_order(
    tmp_path: Path, pair: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = pair
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    parts: list[Part] = [
        b"head",
        _os_region(tmp_path, os.urandom(1 << 20), 77),
        b"middle",
        _os_region(tmp_path, os.urandom(300_000), 5),
        b"tail",
    ]
    expected = _expected(parts)
    transport = FakeTransport()
    _send(transport, sender, parts)
    handed_over = b"".join(transport.written)
    direct = _recv_exact(receiver, len(expected) - len(handed_over))
    _assert_nothing_more(receiver)
    assert direct + handed_over == expected
    assert 0 < spy.calls[0][1] < spy.calls[0][0], "the first region went out in part with sendfile"
    assert len(handed_over) > 300_000, "the second region was read, not sent"


def test_bytes_that_fill_the_socket_hand_over_the_unsent_tail_and_the_regions_read(
    tmp_path: Path, pair: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = pair
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    parts: list[Part] = [os.urandom(3 << 20), _os_region(tmp_path, os.urandom(100_000), 0), b"tail"]
    expected = _expected(parts)
    transport = FakeTransport()
    _send(transport, sender, parts)
    handed_over = b"".join(transport.written)
    assert len(handed_over) > 100_000 + 4
    assert spy.calls == []
    assert _recv_exact(receiver, len(expected) - len(handed_over)) + handed_over == expected
    _assert_nothing_more(receiver)


def test_more_parts_than_one_writev_takes(
    tmp_path: Path, pair: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = pair
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    small: list[Part] = [i.to_bytes(4, "big") for i in range(5000)]
    parts = [*small, _os_region(tmp_path, os.urandom(65_536), 3), *small]
    transport = FakeTransport()
    _send(transport, sender, parts)
    assert transport.written == []
    assert len(spy.calls) == 1
    assert _recv_exact(receiver, len(_expected(parts))) == _expected(parts)


@pytest.mark.parametrize("case", ["queued", "tls", "memory"])
def test_the_buffered_path_reads_the_regions(
    case: str, tmp_path: Path, pair: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = pair
    data = os.urandom(80_000)
    region = _memory_region(data) if case == "memory" else _os_region(tmp_path, data, 9)
    transport = FakeTransport(queued=10 if case == "queued" else 0)
    _send(transport, None if case == "tls" else sender, [b"head", region, b"tail"])
    assert spy.calls == []
    handed_over = b"".join(transport.written)
    direct = b"head" if case == "memory" else b""  # bytes before a memory file may go directly
    assert handed_over == (b"head" + data + b"tail")[len(direct) :]
    assert _recv_exact(receiver, len(direct)) == direct


def test_bytes_only_go_to_the_transport_untouched(pair: tuple[socket.socket, socket.socket]) -> None:
    sender, _ = pair
    body = bytearray(b"answer")
    transport = FakeTransport()
    _send(transport, sender, [body, b"!"])
    assert transport.written == [b"answer", b"!"]


def test_a_peer_that_is_gone_raises_os_error(tmp_path: Path, pair: tuple[socket.socket, socket.socket]) -> None:
    sender, receiver = pair
    receiver.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    receiver.close()
    region = _os_region(tmp_path, os.urandom(70_000), 0)
    with pytest.raises((BrokenPipeError, ConnectionResetError)):
        for _ in range(3):
            _send(FakeTransport(), sender, [b"head", region])


def test_a_closed_file_is_an_error_not_garbage(tmp_path: Path, pair: tuple[socket.socket, socket.socket]) -> None:
    sender, _ = pair
    region = _os_region(tmp_path, os.urandom(70_000), 0)
    region.file.close()
    with pytest.raises(ValueError):
        _send(FakeTransport(), sender, [b"head", region])


def test_the_receiver_sees_the_same_bytes_while_draining_concurrently(
    tmp_path: Path, pair: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = pair
    parts: list[Part] = []
    for i in range(8):
        parts += [i.to_bytes(8, "big") * 3, _os_region(tmp_path, os.urandom(512 * 1024 + i), i * 100)]
    expected = _expected(parts)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(_recv_exact(receiver, len(expected))))
    reader.start()
    transport = FakeTransport()
    _send(transport, sender, parts)
    handed_over = b"".join(transport.written)
    if handed_over:
        sender.setblocking(True)
        sender.sendall(handed_over)
    reader.join(timeout=30)
    assert received == [expected]
    assert spy.calls


def test_buffer_pieces_cut_the_parts_into_runs_of_the_given_size_without_copying() -> None:
    parts: list[bytes | bytearray] = [b"head", bytearray(range(256)) * 10, b"", b"tail"]
    runs = list(buffer_pieces(parts, 1000))
    assert b"".join(bytes(cast(memoryview, piece)) for run in runs for piece in run) == b"".join(parts)
    assert [sum(len(piece) for piece in run) for run in runs] == [1000, 1000, 568]
    assert all(isinstance(piece, memoryview) and piece.obj in [*parts] for run in runs for piece in run)


LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,
}


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def small(pair: tuple[socket.socket, socket.socket]) -> tuple[socket.socket, socket.socket]:
    """The pair with buffers that hold a fraction of the answers below (smaller ones make TCP crawl)."""
    sender, receiver = pair
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
    receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    return pair


def _held(sender: socket.socket, parts: Sequence[Part]) -> list[Unsent]:
    """What `write_parts` leaves to a drain after filling ``sender`` (nothing reaches a transport)."""
    transport = FakeTransport()
    rest = write_parts(cast(asyncio.WriteTransport, transport), sender, parts, drain=True)
    assert transport.written == [], "nothing was read into the transport"
    return rest


@contextmanager
def _watched(loop: asyncio.AbstractEventLoop, sender: socket.socket) -> Iterator[tuple[WritableWatch, int]]:
    """A listener's watch and a connection's duplicate of ``sender`` in it, both closed on leaving."""
    watch = WritableWatch(loop)
    fd = watch.watch(sender.fileno())
    try:
        yield watch, fd
    finally:
        watch.release(fd)
        watch.close()


def _drain_to_the_end(
    loop: asyncio.AbstractEventLoop,
    sender: socket.socket,
    receiver: socket.socket,
    rest: list[Unsent],
    size: int,
    before_reading: Callable[[Drain], None] = lambda drain: None,
) -> tuple[bytes, list[Exception | None]]:
    """Run a `Drain` of ``rest`` while the receiver reads ``size`` bytes; (bytes, on_end's calls)."""
    ended: list[Exception | None] = []
    received = bytearray()

    async def run() -> None:
        with _watched(loop, sender) as (watch, fd):
            drain = Drain(watch, fd, rest, ended.append)
            before_reading(drain)
            await asyncio.sleep(0.05)  # the socket is full: nothing moves until the receiver reads
            receiver.setblocking(False)
            while len(received) < size:
                chunk = await loop.sock_recv(receiver, 64 * 1024)
                assert chunk, "the sender closed"
                received.extend(chunk)
            for _ in range(20):
                if ended:
                    break
                await asyncio.sleep(0.01)

    loop.run_until_complete(asyncio.wait_for(run(), 30))
    return bytes(received), ended


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_a_full_socket_leaves_the_rest_to_a_drain_that_sends_files_with_sendfile(
    loop_name: str, tmp_path: Path, small: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = small
    first, second = _os_region(tmp_path, os.urandom(1 << 20), 77), _os_region(tmp_path, os.urandom(300_000), 5)
    parts: list[Part] = [b"head", first, b"middle", second, b"tail"]
    expected = _expected(parts)
    loop = LOOPS[loop_name]()
    try:
        descriptors = _open_descriptors()
        rest = _held(sender, parts)
        held = [part for part in rest if isinstance(part, HeldFile)]
        assert [part.length for part in held][1:] == [300_000] and 0 < held[0].length < 1 << 20
        assert {part.fd for part in held}.isdisjoint({first.fileno(), second.fileno()}), "duplicates, not borrowed"
        received, ended = _drain_to_the_end(loop, sender, receiver, rest, len(expected))
        assert _open_descriptors() == descriptors, "the drain closed its duplicates"
    finally:
        loop.close()
    assert received == expected
    assert ended == [None]
    assert sum(sent for _, sent in spy.calls if sent > 0) == (1 << 20) + 300_000, "every file byte by sendfile"


def test_bytes_that_fill_the_socket_before_a_file_part_leave_both_to_a_drain(
    tmp_path: Path, small: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = small
    region = _os_region(tmp_path, os.urandom(200_000), 11)
    parts: list[Part] = [b"", os.urandom(1 << 20), b"", region, b"", bytearray(b"tail")]
    expected = _expected(parts)
    loop = uvloop.new_event_loop()
    try:
        rest = _held(sender, parts)
        assert spy.calls == [], "the socket filled before the file part"
        assert [type(part) for part in rest] == [memoryview, memoryview, HeldFile, memoryview, memoryview]
        assert 0 < len(rest[0]) < 1 << 20
        received, ended = _drain_to_the_end(loop, sender, receiver, rest, len(expected))
    finally:
        loop.close()
    assert received == expected
    assert ended == [None]


def test_a_held_file_outlives_its_segment(
    tmp_path: Path, small: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    """Retention or topic deletion may close and delete the segment while its answer drains."""
    sender, receiver = small
    region = _os_region(tmp_path, os.urandom(1 << 20), 0)
    expected = _expected([b"head", region])
    rest = _held(sender, [b"head", region])
    region.file.close()
    for path in tmp_path.iterdir():
        path.unlink()
    loop = uvloop.new_event_loop()
    try:
        received, ended = _drain_to_the_end(loop, sender, receiver, rest, len(expected))
    finally:
        loop.close()
    assert (received, ended) == (expected, [None])


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_parts_added_to_a_drain_go_out_after_its_own_in_order(
    loop_name: str, tmp_path: Path, small: tuple[socket.socket, socket.socket], spy: SendfileSpy
) -> None:
    sender, receiver = small
    first = _os_region(tmp_path, os.urandom(500_000), 3)
    later: list[Part] = [b"next answer", _os_region(tmp_path, os.urandom(200_000), 0), bytearray(b"end")]
    expected = _expected([first, *later])
    rest = _held(sender, [first])
    loop = LOOPS[loop_name]()
    try:
        received, ended = _drain_to_the_end(
            loop, sender, receiver, rest, len(expected), before_reading=lambda drain: drain.add(later)
        )
    finally:
        loop.close()
    assert (received, ended) == (expected, [None])


@pytest.mark.parametrize("loop_name", list(LOOPS))
def test_a_peer_gone_during_a_drain_ends_it_with_the_error_and_closes_every_descriptor(
    loop_name: str, tmp_path: Path, small: tuple[socket.socket, socket.socket]
) -> None:
    sender, receiver = small
    regions = [_os_region(tmp_path, os.urandom(400_000), i) for i in range(3)]
    ended: list[Exception | None] = []
    loop = LOOPS[loop_name]()
    try:
        descriptors = _open_descriptors()
        rest = _held(sender, [b"head", *regions])
        assert sum(isinstance(part, HeldFile) for part in rest) == 3

        async def run() -> None:
            with _watched(loop, sender) as (watch, fd):
                Drain(watch, fd, rest, ended.append)
                receiver.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                receiver.close()
                for _ in range(100):
                    if ended:
                        return
                    await asyncio.sleep(0.01)

        loop.run_until_complete(run())
        assert _open_descriptors() == descriptors - 1  # the receiver is closed too
    finally:
        loop.close()
    assert len(ended) == 1 and isinstance(ended[0], (BrokenPipeError, ConnectionResetError))


def test_a_cancelled_drain_closes_every_descriptor_and_writes_nothing_more(
    tmp_path: Path, small: tuple[socket.socket, socket.socket]
) -> None:
    sender, receiver = small
    region = _os_region(tmp_path, os.urandom(1 << 20), 0)
    ended: list[Exception | None] = []
    loop = uvloop.new_event_loop()
    try:
        descriptors = _open_descriptors()
        rest = _held(sender, [region])

        async def run() -> int:
            with _watched(loop, sender) as (watch, fd):
                drain = Drain(watch, fd, rest, ended.append)
                drain.cancel()
                drain.cancel()
                receiver.setblocking(False)
                got = idle = 0
                while idle < 30:  # 0.3 s without a byte
                    try:
                        got += len(receiver.recv(1 << 20))
                        idle = 0
                    except BlockingIOError:
                        idle += 1
                        await asyncio.sleep(0.01)
                return got

        before_cancel_sent = region.length - sum(len(part) for part in rest)
        assert loop.run_until_complete(run()) == before_cancel_sent
        assert _open_descriptors() == descriptors
    finally:
        loop.close()
    assert ended == []


def test_a_file_shorter_than_its_part_ends_the_drain_with_a_value_error(
    tmp_path: Path, small: tuple[socket.socket, socket.socket]
) -> None:
    sender, receiver = small
    handle = OsFileSystem().open_append(str(tmp_path / "short.log"))
    handle.write(os.urandom(600_000))
    short = FileRegion(handle, 0, 800_000)
    rest = _held(sender, [short])
    ended: list[Exception | None] = []
    loop = uvloop.new_event_loop()
    try:

        async def run() -> None:
            with _watched(loop, sender) as (watch, fd):
                Drain(watch, fd, rest, ended.append)
                receiver.setblocking(False)
                for _ in range(300):
                    if ended:
                        return
                    try:
                        receiver.recv(1 << 20)
                    except BlockingIOError:
                        await asyncio.sleep(0.01)

        loop.run_until_complete(run())
    finally:
        loop.close()
    assert len(ended) == 1 and isinstance(ended[0], ValueError)


def test_files_without_a_descriptor_never_make_a_drain(pair: tuple[socket.socket, socket.socket]) -> None:
    """The test double's in-memory segments: read and handed to the transport as before."""
    sender, _ = pair
    data = os.urandom(300_000)
    transport = FakeTransport()
    rest = write_parts(cast(asyncio.WriteTransport, transport), sender, [b"head", _memory_region(data)], drain=True)
    assert rest == []
    assert b"".join(transport.written) == data


def test_only_a_full_socket_leaves_a_rest_to_a_drain(tmp_path: Path, pair: tuple[socket.socket, socket.socket]) -> None:
    """A drain waits for the edge of the socket's room, which only a write that found it full brings:
    stopped at an in-memory file with room to spare, the rest (OS files too) goes to the transport."""
    sender, receiver = pair
    in_memory, on_disk = os.urandom(1000), os.urandom(2000)
    transport = FakeTransport()
    parts: list[Part] = [b"head", _memory_region(in_memory), _os_region(tmp_path, on_disk, 3)]
    rest = write_parts(cast(asyncio.WriteTransport, transport), sender, parts, drain=True)
    assert rest == []
    assert _recv_exact(receiver, 4) == b"head"
    assert b"".join(transport.written) == in_memory + on_disk


def test_a_drain_writes_through_its_own_descriptor_when_the_transport_closes_the_socket_first(
    tmp_path: Path, small: tuple[socket.socket, socket.socket]
) -> None:
    """The socket's own number may be closed and reused before the connection cancels the drain."""
    sender, receiver = small
    region = _os_region(tmp_path, os.urandom(1 << 20), 0)
    expected = _expected([b"head", region])
    rest = _held(sender, [b"head", region])
    loop = uvloop.new_event_loop()
    try:

        def close_and_reuse(drain: Drain) -> None:
            number = sender.detach()
            os.close(number)
            reused = os.open(tmp_path / "bystander", os.O_CREAT | os.O_WRONLY)
            assert reused == number, "the number was reused (what makes the old way dangerous)"

        received, ended = _drain_to_the_end(loop, sender, receiver, rest, len(expected), close_and_reuse)
    finally:
        loop.close()
    assert (received, ended) == (expected, [None])
    assert (tmp_path / "bystander").stat().st_size == 0
