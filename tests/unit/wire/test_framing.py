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


def test_frames_larger_than_the_scratch_buffer_are_read_in_place() -> None:
    big = bytes(range(256)) * 40  # 10 KiB, over the 1 KiB scratch buffer
    stream = frame(b"small") + frame(big) + frame(b"after")
    decoder = FrameDecoder(max_frame_bytes=1 << 20, scratch_bytes=1024)
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


def test_frames_straddling_the_end_of_the_scratch_buffer() -> None:
    bodies = [bytes([i]) * (37 + i * 13) for i in range(40)]
    stream = b"".join(frame(b) for b in bodies)
    decoder = FrameDecoder(max_frame_bytes=1 << 20, scratch_bytes=256)
    got = [bytes(f) for i in range(0, len(stream), 50) for f in decoder.feed(stream[i : i + 50])]
    assert got == bodies
