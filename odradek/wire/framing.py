"""Splitting a byte stream into Kafka frames: int32 size, then that many bytes.

The decoder hands out the memory the next read should land in (`get_buffer`) and is told how
many bytes arrived (`buffer_updated`), the shape of asyncio's BufferedProtocol.  `feed` offers
the same for callers that already hold bytes (tests, proxies).

Where bytes live.  Reads land in a read buffer, which every connection of a listener may share:
the event loop runs one read at a time, and the decoder moves what it keeps out of the read
buffer before `buffer_updated` returns.  A frame complete in the read buffer is copied out (one
copy).  A frame whose remaining bytes would not fit in the read buffer gets a buffer of its own
that the socket reads straight into: of exactly its size up to ``chunk_bytes`` (so a 1 MiB
produce request is never copied on the way in), and for a larger frame that buffer grows by
``chunk_bytes`` as its bytes arrive (a realloc, which the allocator does without copying for such
sizes; joining chunks once the frame was complete copied a multi-MB frame in one go, milliseconds
of the event loop).  A buffer that cannot grow because a view of it is still held (a caller of
`feed` or `get_buffer` keeping one) is followed by a chunk of its own, and the chunks are joined
when the frame is complete.  So a peer holds memory in
proportion to what it sent, not to the size it announced: one that announces 100 MiB and
trickles bytes holds what it trickled plus at most one chunk.

Budget.  Before any buffer for a frame's bytes is allocated, ``reserve(n)`` is asked (a frame's
reservations add up to its size).  When it refuses, the decoder stops at that point: it keeps
the bytes of the current read it has not placed (at most one read) aside, `blocked` turns true,
and `resume` retries the reservation and carries on.  The caller releases a frame's size once it
is done with the frame, and `reserved_in_progress` when it drops the decoder.

Invariants:
- the size prefix is checked against ``max_frame_bytes`` before anything is reserved;
- frames come out whole and in order, each its own mutable bytearray of exactly its size (the
  produce path patches batch headers in place);
- the bytes held outside the reservations are at most one read plus a partial size prefix.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

__all__ = ["DEFAULT_CHUNK_BYTES", "DEFAULT_READ_BYTES", "FrameDecoder", "FrameError", "Reserve", "frame"]

_SIZE = struct.Struct(">i")
DEFAULT_READ_BYTES = 64 * 1024
DEFAULT_CHUNK_BYTES = 1024 * 1024

Reserve = Callable[[int], bool]
"""Asked before ``n`` bytes of a frame are allocated; False holds the frame back (see `resume`)."""


class FrameError(ValueError):
    """The peer sent a size prefix we refuse (negative or over the limit)."""


def _grant_all(size: int) -> bool:
    return True


class FrameDecoder:
    """Assembles frames from reads; see the module docstring for where bytes live."""

    __slots__ = (
        "_carry",
        "_chunk_bytes",
        "_chunks",
        "_direct",
        "_filled",
        "_read",
        "_reserve",
        "_size",
        "_wanted",
        "max_frame_bytes",
    )

    def __init__(
        self,
        max_frame_bytes: int,
        read_buffer: bytearray | None = None,
        reserve: Reserve | None = None,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    ) -> None:
        self.max_frame_bytes = max_frame_bytes
        self._read = bytearray(DEFAULT_READ_BYTES) if read_buffer is None else read_buffer
        self._reserve = _grant_all if reserve is None else reserve
        self._chunk_bytes = chunk_bytes
        self._carry = bytearray()  # bytes received but not placed: a partial prefix, or held back
        self._size = -1  # size of the frame being received, -1 between frames
        self._chunks: list[bytearray] = []  # its buffers: one of its exact size, or chunks
        self._filled = 0  # its bytes received so far
        self._wanted = 0  # bytes whose reservation was refused; 0 when not blocked
        self._direct = False  # whether the last `get_buffer` was a view into the frame's own buffer

    @property
    def blocked(self) -> bool:
        """A reservation was refused; no frame is cut until `resume` gets it."""
        return self._wanted > 0

    def reserved_in_progress(self) -> int:
        """Bytes reserved for the frame being received (released by whoever drops the decoder)."""
        return sum(len(chunk) for chunk in self._chunks)

    def pending_bytes(self) -> int:
        """Bytes received that do not yet form a whole frame."""
        return len(self._carry) + self._filled + (4 if self._size >= 0 else 0)

    # ---- reads -----------------------------------------------------------------------------

    def get_buffer(self) -> memoryview:
        """Where the next received bytes must be written (never empty)."""
        self._direct = False
        if self._size >= 0 and not self._carry and not self._wanted:
            remaining = self._size - self._filled
            if remaining >= len(self._read):
                chunk = self._chunk_with_room()
                if chunk is not None:
                    self._direct = True
                    used = self._filled - sum(len(c) for c in self._chunks[:-1])
                    return memoryview(chunk)[used:]
        return memoryview(self._read)

    def buffer_updated(self, nbytes: int) -> list[bytearray]:
        """``nbytes`` were written into the last buffer; returns the frames now complete."""
        if self._direct:
            self._direct = False
            self._filled += nbytes
            return self._finish() if self._filled == self._size else []
        return self._place(memoryview(self._read)[:nbytes])

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytearray]:
        """Push already-received bytes through the same path as socket reads."""
        frames: list[bytearray] = []
        view = memoryview(data)
        while view:
            target = self.get_buffer()
            count = min(len(target), len(view))
            target[:count] = view[:count]
            target.release()  # as a socket read does: the frame's buffer may grow
            view = view[count:]
            frames.extend(self.buffer_updated(count))
        return frames

    def resume(self) -> list[bytearray]:
        """Retry the refused reservation; the frames the held-back bytes complete (the decoder
        may block again, on a later frame or chunk)."""
        if not self._wanted or not self._reserve(self._wanted):
            return []
        self._allocate(self._wanted)
        self._wanted = 0
        held, self._carry = self._carry, bytearray()
        return self._place(memoryview(held))

    # ---- placing bytes ---------------------------------------------------------------------

    def _place(self, data: memoryview) -> list[bytearray]:
        frames: list[bytearray] = []
        position, end = 0, len(data)
        while position < end:
            if self._wanted:
                self._carry += data[position:]
                break
            if self._size < 0:
                position = self._start_frame(data, position, frames)
                continue
            chunk = self._chunk_with_room()
            if chunk is None:
                continue  # refused: the next turn keeps the rest aside
            used = self._filled - sum(len(c) for c in self._chunks[:-1])
            count = min(len(chunk) - used, end - position)
            chunk[used : used + count] = data[position : position + count]
            self._filled += count
            position += count
            if self._filled == self._size:
                frames.extend(self._finish())
        return frames

    def _start_frame(self, data: memoryview, position: int, frames: list[bytearray]) -> int:
        """Read the size prefix at ``position`` (with any partial prefix kept from before); return
        the position after it, or the end of ``data`` when the prefix is still incomplete."""
        carry = self._carry
        needed = 4 - len(carry)
        if len(data) - position < needed:
            self._carry += data[position:]
            return len(data)
        if carry:
            size = int(_SIZE.unpack(bytes(carry) + bytes(data[position : position + needed]))[0])
            self._carry = bytearray()
        else:  # the common case: the whole prefix in this read, read in place
            size = int(_SIZE.unpack_from(data, position)[0])
        position += needed
        if size < 0 or size > self.max_frame_bytes:
            raise FrameError(f"frame size {size} outside 0..{self.max_frame_bytes}")
        self._size, self._filled = size, 0
        if size == 0:
            frames.extend(self._finish())
            return position
        first = min(size, self._chunk_bytes)
        if not self._reserve(first):
            self._wanted = first
            return position
        if first == size and len(data) - position >= size:
            frames.append(bytearray(data[position : position + size]))  # whole in this read: one copy
            self._size = -1
            return position + size
        self._allocate(first)
        return position

    def _chunk_with_room(self) -> bytearray | None:
        """The buffer the frame's next bytes go to, allocating (after reserving) a new chunk
        when the last one is full; None when the reservation is refused."""
        allocated = self.reserved_in_progress()
        if self._filled < allocated:
            return self._chunks[-1]
        wanted = min(self._size - allocated, self._chunk_bytes)
        if not self._reserve(wanted):
            self._wanted = wanted
            return None
        self._allocate(wanted)
        return self._chunks[-1]

    def _allocate(self, size: int) -> None:
        if self._chunks:
            try:
                self._chunks[-1] += bytes(size)
                return
            except BufferError:  # a view of it is alive: it cannot be resized
                pass
        self._chunks.append(bytearray(size))

    def _finish(self) -> list[bytearray]:
        chunks, self._chunks = self._chunks, []
        self._size, self._filled = -1, 0
        if not chunks:
            return [bytearray()]
        if len(chunks) == 1:
            return chunks
        whole = bytearray().join(chunks)
        return [whole]


def frame(body: bytes | bytearray) -> bytes:
    """Prefix a body with its size."""
    return _SIZE.pack(len(body)) + body
