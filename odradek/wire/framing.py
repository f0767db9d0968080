"""Splitting a byte stream into Kafka frames: int32 size, then that many bytes.

Invariant: the size is checked against the limit before any room for the body is reserved,
so a peer cannot make us allocate more than ``max_frame_bytes`` plus one read's worth.
"""

from __future__ import annotations

import struct

__all__ = ["FrameDecoder", "FrameError", "frame"]

_SIZE = struct.Struct(">i")


class FrameError(ValueError):
    """The peer sent a size prefix we refuse (negative or over the limit)."""


class FrameDecoder:
    """Feed received bytes; get back each complete frame body as a mutable bytearray."""

    __slots__ = ("_buf", "max_frame_bytes")

    def __init__(self, max_frame_bytes: int) -> None:
        self.max_frame_bytes = max_frame_bytes
        self._buf = bytearray()

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytearray]:
        buf = self._buf
        buf += data
        frames: list[bytearray] = []
        start = 0
        end = len(buf)
        while end - start >= 4:
            (size,) = _SIZE.unpack_from(buf, start)
            if size < 0 or size > self.max_frame_bytes:
                raise FrameError(f"frame size {size} outside 0..{self.max_frame_bytes}")
            if end - start - 4 < size:
                break
            frames.append(buf[start + 4 : start + 4 + size])
            start += 4 + size
        if start:
            del buf[:start]
        return frames

    def pending_bytes(self) -> int:
        return len(self._buf)


def frame(body: bytes | bytearray) -> bytes:
    """Prefix a body with its size."""
    return _SIZE.pack(len(body)) + body
