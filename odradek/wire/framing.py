"""Splitting a byte stream into Kafka frames: int32 size, then that many bytes.

The decoder hands out the memory the next read should land in (`get_buffer`) and is told how
many bytes arrived (`buffer_updated`), the shape of asyncio's BufferedProtocol.  Small frames
are cut out of a reusable scratch buffer (one copy each); a frame larger than the scratch
buffer gets its own bytearray of exactly its size, and the socket reads straight into it, so a
1 MiB produce request is never copied on the way in.  `feed` offers the same for callers that
already hold bytes (tests, proxies).

Invariants:
- the size prefix is checked against ``max_frame_bytes`` before any room for the body is
  reserved, so a peer cannot make us allocate more than the limit;
- frames come out whole and in order, each as its own mutable bytearray (the produce path
  patches batch headers in place).
"""

from __future__ import annotations

import struct

__all__ = ["FrameDecoder", "FrameError", "frame"]

_SIZE = struct.Struct(">i")
DEFAULT_SCRATCH_BYTES = 64 * 1024


class FrameError(ValueError):
    """The peer sent a size prefix we refuse (negative or over the limit)."""


class FrameDecoder:
    """Assembles frames from reads; see the module docstring for the buffer discipline."""

    __slots__ = ("_end", "_large", "_large_filled", "_scratch", "_start", "max_frame_bytes")

    def __init__(self, max_frame_bytes: int, scratch_bytes: int = DEFAULT_SCRATCH_BYTES) -> None:
        self.max_frame_bytes = max_frame_bytes
        self._scratch = bytearray(scratch_bytes)
        self._start = 0  # first unconsumed byte in scratch
        self._end = 0  # end of received bytes in scratch
        self._large: bytearray | None = None  # a frame too big for scratch, being filled in place
        self._large_filled = 0

    def get_buffer(self) -> memoryview:
        """Where the next received bytes must be written (never empty)."""
        if self._large is not None:
            return memoryview(self._large)[self._large_filled :]
        if self._end == len(self._scratch):
            # Slide the unconsumed tail (less than one frame) to the front.
            pending = self._end - self._start
            self._scratch[:pending] = self._scratch[self._start : self._end]
            self._start, self._end = 0, pending
        return memoryview(self._scratch)[self._end :]

    def buffer_updated(self, nbytes: int) -> list[bytearray]:
        """``nbytes`` were written into the last buffer; returns the frames now complete."""
        if self._large is not None:
            self._large_filled += nbytes
            if self._large_filled < len(self._large):
                return []
            done = self._large
            self._large = None
            return [done]
        self._end += nbytes
        return self._cut_frames()

    def _cut_frames(self) -> list[bytearray]:
        frames: list[bytearray] = []
        scratch = self._scratch
        start, end = self._start, self._end
        while end - start >= 4:
            (size,) = _SIZE.unpack_from(scratch, start)
            if size < 0 or size > self.max_frame_bytes:
                raise FrameError(f"frame size {size} outside 0..{self.max_frame_bytes}")
            available = end - start - 4
            if available >= size:
                frames.append(scratch[start + 4 : start + 4 + size])
                start += 4 + size
                continue
            if size + 4 > len(scratch):
                large = bytearray(size)
                large[:available] = scratch[start + 4 : end]
                self._large, self._large_filled = large, available
                start = end
            break
        if start == end:
            start = end = 0
        self._start, self._end = start, end
        return frames

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytearray]:
        """Push already-received bytes through the same path as socket reads."""
        frames: list[bytearray] = []
        view = memoryview(data)
        while view:
            target = self.get_buffer()
            count = min(len(target), len(view))
            target[:count] = view[:count]
            view = view[count:]
            frames.extend(self.buffer_updated(count))
        return frames

    def pending_bytes(self) -> int:
        """Bytes received that do not yet form a whole frame."""
        if self._large is not None:
            return self._large_filled + 4
        return self._end - self._start


def frame(body: bytes | bytearray) -> bytes:
    """Prefix a body with its size."""
    return _SIZE.pack(len(body)) + body
