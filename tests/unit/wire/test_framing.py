"""Frame splitting: byte-at-a-time feeding, pipelining and the size limit."""

from __future__ import annotations

import pytest

from odradek.wire.framing import FrameDecoder, FrameError, frame


def test_frames_fed_one_byte_at_a_time() -> None:
    stream = frame(b"abc") + frame(b"") + frame(b"x" * 1000)
    decoder = FrameDecoder(max_frame_bytes=4096)
    frames: list[bytes] = []
    for i in range(len(stream)):
        frames.extend(bytes(f) for f in decoder.feed(stream[i : i + 1]))
    assert frames == [b"abc", b"", b"x" * 1000]
    assert decoder.pending_bytes() == 0


def test_pipelined_frames_in_one_read() -> None:
    decoder = FrameDecoder(max_frame_bytes=100)
    assert [bytes(f) for f in decoder.feed(frame(b"1") + frame(b"22") + frame(b"333")[:3])] == [b"1", b"22"]


@pytest.mark.parametrize("prefix", [b"\x00\x00\x01\x01", b"\xff\xff\xff\xff"])
def test_oversized_or_negative_size_is_refused_before_the_body_arrives(prefix: bytes) -> None:
    with pytest.raises(FrameError):
        FrameDecoder(max_frame_bytes=256).feed(prefix)


def test_every_request_schema_survives_byte_at_a_time_delivery() -> None:
    """Each request's default value, framed and fed one byte at a time, decodes back to itself."""
    from odradek.wire.codec import decode, encode
    from odradek.wire.messages import ALL_MESSAGES

    stream = bytearray()
    expected = []
    for request, _ in ALL_MESSAGES.values():
        version = request.valid.high if request.valid.high is not None else request.valid.low
        value = request()
        stream += frame(encode(request, version, value))
        expected.append((request, version, value))
    decoder = FrameDecoder(max_frame_bytes=1 << 20)
    bodies = [body for i in range(len(stream)) for body in decoder.feed(stream[i : i + 1])]
    assert len(bodies) == len(expected)
    for body, (request, version, value) in zip(bodies, expected, strict=True):
        assert decode(request, version, body) == value


def test_frames_larger_than_the_read_buffer_are_read_in_place() -> None:
    big = bytes(range(256)) * 40  # 10 KiB, over the 1 KiB read buffer
    stream = frame(b"small") + frame(big) + frame(b"after")
    decoder = FrameDecoder(max_frame_bytes=1 << 20, read_buffer=bytearray(1024))
    frames: list[bytes] = []
    position = 0
    while position < len(stream):
        target = decoder.get_buffer()
        count = min(len(target), 700, len(stream) - position)
        target[:count] = stream[position : position + count]
        position += count
        frames.extend(bytes(f) for f in decoder.buffer_updated(count))
    assert frames == [b"small", big, b"after"]
    assert decoder.pending_bytes() == 0


def test_frames_straddling_the_end_of_the_read_buffer() -> None:
    bodies = [bytes([i]) * (37 + i * 13) for i in range(40)]
    stream = b"".join(frame(b) for b in bodies)
    decoder = FrameDecoder(max_frame_bytes=1 << 20, read_buffer=bytearray(256))
    got = [bytes(f) for i in range(0, len(stream), 50) for f in decoder.feed(stream[i : i + 50])]
    assert got == bodies


def _deliver(decoder: FrameDecoder, stream: bytes, read_size: int) -> list[bytes]:
    """Socket-style delivery: each read fills at most ``read_size`` bytes of what get_buffer offers."""
    frames: list[bytes] = []
    position = 0
    while position < len(stream) and not decoder.blocked:
        target = decoder.get_buffer()
        count = min(len(target), read_size, len(stream) - position)
        target[:count] = stream[position : position + count]
        position += count
        frames.extend(bytes(f) for f in decoder.buffer_updated(count))
    return frames


def test_a_frame_over_the_chunk_size_is_received_in_chunks_and_joined() -> None:
    big = bytes(range(256)) * 100  # 25,600 bytes in chunks of 4 KiB
    reserved: list[int] = []

    def reserve(size: int) -> bool:
        reserved.append(size)
        return True

    decoder = FrameDecoder(1 << 20, read_buffer=bytearray(1024), reserve=reserve, chunk_bytes=4096)
    frames = _deliver(decoder, frame(b"x") + frame(big) + frame(b"y"), read_size=999)
    assert frames == [b"x", big, b"y"]
    assert reserved == [1, *[4096] * 6, len(big) - 6 * 4096, 1]
    assert decoder.reserved_in_progress() == 0


def test_a_frame_over_the_chunk_size_grows_the_buffer_the_socket_reads_into() -> None:
    """When each read's view is released (as the event loop does), a large frame's buffer grows in
    place a chunk at a time and comes out without being joined: the frame is that buffer."""
    big = bytes(range(256)) * 100
    reserved: list[int] = []

    def reserve(size: int) -> bool:
        reserved.append(size)
        return True

    read_buffer = bytearray(1024)
    decoder = FrameDecoder(1 << 20, read_buffer=read_buffer, reserve=reserve, chunk_bytes=4096)
    stream = frame(big)
    owners: set[int] = set()  # the buffers reads landed in, besides the read buffer
    frames: list[bytearray] = []
    position = 0
    while position < len(stream):
        target = decoder.get_buffer()
        count = min(len(target), 999, len(stream) - position)
        target[:count] = stream[position : position + count]
        if target.obj is not read_buffer:
            owners.add(id(target.obj))
        target.release()
        position += count
        frames.extend(decoder.buffer_updated(count))
    assert [bytes(f) for f in frames] == [big]
    assert reserved == [*[4096] * 6, len(big) - 6 * 4096]
    assert owners == {id(frames[0])}


def test_an_announced_frame_holds_only_what_was_sent_plus_one_chunk() -> None:
    """A peer announcing 100 MiB and sending 10 KiB makes the decoder allocate 12 KiB, not 100 MiB."""
    decoder = FrameDecoder(100 << 20, read_buffer=bytearray(1024), chunk_bytes=4096)
    assert _deliver(decoder, frame(b"\x00" * (100 << 20))[: 4 + 10_000], read_size=700) == []
    assert decoder.reserved_in_progress() == 3 * 4096
    assert decoder.pending_bytes() == 4 + 10_000


def test_a_refused_reservation_holds_the_frame_back_until_resume() -> None:
    grant = {"open": False}
    asked: list[int] = []

    def reserve(size: int) -> bool:
        asked.append(size)
        return grant["open"] or size == 3

    decoder = FrameDecoder(1 << 20, read_buffer=bytearray(256), reserve=reserve)
    stream = frame(b"one") + frame(b"second frame") + frame(b"3rd")
    assert decoder.feed(stream[:12]) == [b"one"]  # the second frame's reservation is refused
    assert decoder.blocked
    assert decoder.buffer_updated(0) == []  # reads while blocked are kept aside, never cut
    assert decoder.resume() == []
    grant["open"] = True
    assert decoder.resume() == []  # granted; the frame still needs its last bytes
    assert not decoder.blocked
    assert decoder.feed(stream[12:]) == [b"second frame", b"3rd"]
    assert asked == [3, 12, 12, 12, 3]


def test_bytes_read_while_blocked_are_kept_and_cut_after_resume() -> None:
    grant = {"open": False}
    decoder = FrameDecoder(1 << 20, reserve=lambda size: grant["open"])
    stream = frame(b"a" * 10) + frame(b"b" * 20)
    assert decoder.feed(stream) == []
    assert decoder.blocked
    assert decoder.pending_bytes() == len(stream)
    grant["open"] = True
    assert [bytes(f) for f in decoder.resume()] == [b"a" * 10, b"b" * 20]
