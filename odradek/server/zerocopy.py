"""Writing one batch of response parts to a socket, file parts with ``os.sendfile`` when it can.

A response is a list of `Part`: bytes, and `FilePart` (record batches left in their segment
file).  `write_parts` sends the parts in order, along one of two paths:

- direct: when the batch holds a file part in an OS file, the transport has nothing queued
  and its socket is a plain one (no TLS), the bytes go out with ``os.writev`` and each file
  part with ``os.sendfile``, non-blocking: record batches go from the page cache to the socket
  without passing through Python.  At the first short write (the socket buffer is full) the
  rest is either left to the caller, with each file part's rest holding a duplicate of its
  descriptor (`HeldFile`), for a `Drain` to send as the socket drains (``drain=True``, what
  Kafka does: its network thread keeps calling ``transferTo`` as the socket becomes
  writable); or it goes to the transport: the remaining bytes, and the remaining file parts
  read with ``pread``.  The transport had nothing queued, so it sends that after what went
  directly.
- buffered: otherwise (bytes already queued in the transport, TLS, in-memory files, or no
  file part at all) every file part is read and all parts go to ``transport.writelines``.

A `Drain` owns the socket's writing until it ends: woken when the socket has room again
(`odradek.server.writable`), it writes its parts, and the parts added after them, in order,
through the connection's duplicate of the socket's descriptor (the transport may close its own
first); nothing may be given to the transport meanwhile (its buffer was empty when the drain
began, so the bytes stay in order).

Invariant, the caller's: nothing is awaited between reading the file parts from storage and
`write_parts` (or `Drain.add`).  A file part's descriptor is valid only while its segment is
open, and segments are closed (retention, topic deletion) only by code running on the event
loop; so a descriptor is fetched right before its ``sendfile``, and a part that must outlive
the call holds a duplicate of it (`HeldFile`: the file stays readable however the segment is
closed or deleted meanwhile) until it is sent or the drain is cancelled.  A closed file here is
a bug, and surfaces as `ValueError`.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from odradek.server.writable import WritableWatch
from odradek.wire.primitives import Part

__all__ = [
    "BUFFER_TYPES",
    "Buffer",
    "Drain",
    "HeldFile",
    "SocketLike",
    "Unsent",
    "buffer_pieces",
    "release_unsent",
    "write_parts",
]

Buffer = bytes | bytearray | memoryview
BUFFER_TYPES = (bytes, bytearray, memoryview)
"""A part of one of these types is bytes; any other part is a `FilePart`."""


def _iov_max() -> int:
    try:
        return max(16, os.sysconf("SC_IOV_MAX"))
    except (ValueError, OSError):
        return 16


_IOV_MAX = _iov_max()

_NO_SENDFILE = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOVERFLOW, errno.ESPIPE, errno.EOPNOTSUPP})
"""``sendfile`` errors that mean "not between these two files": the rest is read instead."""


class HeldFile:
    """The unsent rest of a file part: ``length`` bytes at ``position`` of the file behind ``fd``,
    a duplicate of the part's descriptor ``source`` that this object owns (`close` it once sent or
    dropped)."""

    __slots__ = ("fd", "length", "position")

    def __init__(self, source: int, position: int, length: int) -> None:
        self.fd = os.dup(source)
        self.position = position
        self.length = length

    def __len__(self) -> int:
        return self.length

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


Unsent = Buffer | HeldFile
"""What a `Drain` sends: bytes, and the rests of file parts."""


class SocketLike(Protocol):
    """What a transport's ``get_extra_info("socket")`` offers that is used here."""

    def fileno(self) -> int: ...


def buffer_pieces(parts: Sequence[Buffer], size: int) -> Iterator[list[Part]]:
    """``parts`` (bytes only) cut into runs of ``size`` bytes (the last one shorter), in order,
    as views of the parts: nothing is copied."""
    run: list[Part] = []
    held = 0
    for part in parts:
        view = memoryview(part).cast("B")
        start = 0
        while start < len(view):
            piece = view[start : start + size - held]
            run.append(piece)
            held += len(piece)
            start += len(piece)
            if held == size:
                yield run
                run, held = [], 0
    if run:
        yield run


def write_parts(
    transport: asyncio.WriteTransport, sock: SocketLike | None, parts: Sequence[Part], *, drain: bool = False
) -> list[Unsent]:
    """Send ``parts`` in order, directly when possible (see the module docstring); return the
    rest for a `Drain` (only with ``drain``, and only when what is left holds a file part in an OS
    file: otherwise everything is sent or handed to the transport, and the list is empty).

    ``sock`` is the transport's plain socket, or None when only the transport may write (TLS).
    Raises `OSError` when the peer is gone (EPIPE, ECONNRESET: close the connection), and
    `ValueError` when a file part's file is closed or shorter than the part (a bug).
    """
    buffers: list[Buffer] = []
    for part in parts:
        if not isinstance(part, BUFFER_TYPES):
            break
        buffers.append(part)
    else:
        transport.writelines(buffers)
        return []
    fd = -1
    if sock is not None and not transport.is_closing() and transport.get_write_buffer_size() == 0:
        fd = sock.fileno()
    if fd < 0:
        transport.writelines(_materialise(parts, 0))
        return []
    stopped, skip, source, full = _write_direct(fd, parts)
    if stopped == len(parts):
        return []
    # A drain waits for the edge of the socket's room (odradek.server.writable), which only a
    # write that found the socket full brings; any other stop leaves the rest to the transport.
    if drain and full and (source >= 0 or _holds_os_file(parts, stopped + 1)):
        return _hold(parts, stopped, skip, source)
    transport.writelines(_materialise(parts, stopped, skip))
    return []


def _holds_os_file(parts: Sequence[Part], start: int) -> bool:
    """Whether ``parts[start:]`` holds a file part in an OS file."""
    for index in range(start, len(parts)):
        part = parts[index]
        if not isinstance(part, BUFFER_TYPES) and part.fileno() is not None:
            return True
    return False


def _write_direct(fd: int, parts: Sequence[Part]) -> tuple[int, int, int, bool]:
    """Write ``parts`` to the socket ``fd`` until it would block (or a file part is not in an OS
    file, or sendfile refuses it); return where it stopped: the index of the first part not sent in
    full, how many of its bytes were sent, its descriptor when it is a file part in an OS file (else
    -1), and whether the socket was full (``len(parts), 0, -1, False`` when all were sent).  Each
    file part's descriptor is asked for once.  Raises `ValueError` when a file ends inside its part."""
    i, n = 0, len(parts)
    while i < n:
        part = parts[i]
        if isinstance(part, BUFFER_TYPES):
            run: list[Buffer] = [part]
            j = i + 1
            while j < n:
                following = parts[j]
                if not isinstance(following, BUFFER_TYPES):
                    break
                run.append(following)
                j += 1
            written = _write_vector(fd, run)
            for index in range(i, j):
                size = len(run[index - i])
                if written < size:
                    return index, written, -1, True
                written -= size
            i = j
            continue
        source = part.fileno()
        if source is None:
            return i, 0, -1, False
        sent, stop = _sendfile(fd, source, part.position, part.length)
        if stop == _EOF:
            raise ValueError(f"the file ends inside the part {part.position}+{part.length}")
        if stop:
            return i, sent, source, stop == _FULL
        i += 1
    return n, 0, -1, False


def _hold(parts: Sequence[Part], start: int, skip: int, source: int = -1) -> list[Unsent]:
    """``parts[start:]`` (the first without its first ``skip`` bytes) as a drain's parts: bytes as
    views, file parts in OS files held by a duplicate descriptor, others read.  ``source``, when not
    -1, is the first part's descriptor (already asked for)."""
    held: list[Unsent] = []
    try:
        for index in range(start, len(parts)):
            part = parts[index]
            offset = skip if index == start else 0
            if isinstance(part, BUFFER_TYPES):
                held.append(memoryview(part).cast("B")[offset:])
                continue
            fd = source if index == start and source >= 0 else part.fileno()
            if fd is None:
                held.append(part.read()[offset:])
            else:
                held.append(HeldFile(fd, part.position + offset, part.length - offset))
    except BaseException:
        release_unsent(held)
        raise
    return held


def release_unsent(parts: Sequence[Unsent]) -> None:
    """Close the file descriptors ``parts`` hold (what `write_parts` left, or what a drain holds)."""
    for part in parts:
        if isinstance(part, HeldFile):
            part.close()


def _write_vector(fd: int, buffers: Sequence[Buffer]) -> int:
    """How many bytes of ``buffers`` (in order) went to the socket ``fd`` before it would block."""
    if len(buffers) <= _IOV_MAX:
        try:
            return os.writev(fd, buffers)
        except BlockingIOError:
            return 0
    total = 0
    for start in range(0, len(buffers), _IOV_MAX):
        chunk = buffers[start : start + _IOV_MAX]
        try:
            written = os.writev(fd, chunk)
        except BlockingIOError:
            return total
        total += written
        if written < sum(map(len, chunk)):
            return total
    return total


def _writev(fd: int, buffers: Sequence[Buffer]) -> list[Buffer]:
    """Write ``buffers`` until the socket would block; return the unwritten tail."""
    written = _write_vector(fd, buffers)
    for k, buf in enumerate(buffers):
        size = len(buf)
        if written < size:
            return [memoryview(buf)[written:], *buffers[k + 1 :]]
        written -= size
    return []


_FULL, _EOF, _REFUSED = 1, 2, 3
"""Why `_sendfile` stopped short: the socket is full, the file ended, sendfile refused the pair."""


def _sendfile(out_fd: int, in_fd: int, position: int, length: int) -> tuple[int, int]:
    """Send up to ``length`` bytes of ``in_fd`` at ``position`` with one ``sendfile``; return how
    many were sent and 0 when that is all of them, else why it stopped (`_FULL`, `_EOF`,
    `_REFUSED`).  A short count means a full socket or the file's end; the file's size tells which
    (one ``fstat``, as Kafka checks its file's size at each ``transferTo``): `_FULL` is certain, and
    a drain waits for room only then (`odradek.server.writable`)."""
    if length <= 0:
        return 0, 0
    try:
        sent = os.sendfile(out_fd, in_fd, position, length)
    except BlockingIOError:
        return 0, _FULL
    except OSError as exc:
        if exc.errno in _NO_SENDFILE:
            return 0, _REFUSED
        raise
    if sent == length:
        return sent, 0
    if sent and os.fstat(in_fd).st_size > position + sent:  # it stopped before the file's end
        return sent, _FULL
    return sent, _EOF


def _pread(fd: int, position: int, size: int) -> bytes:
    """``size`` bytes of ``fd`` at ``position``."""
    data = os.pread(fd, size, position)
    if len(data) != size:
        raise ValueError(f"the file ends inside the part {position}+{size}")
    return data


def _materialise(parts: Sequence[Part], start: int, skip: int = 0) -> list[Buffer]:
    """``parts[start:]`` as bytes, the first without its first ``skip``: file parts are read."""
    out: list[Buffer] = []
    for index in range(start, len(parts)):
        part = parts[index]
        offset = skip if index == start else 0
        if isinstance(part, BUFFER_TYPES):
            out.append(memoryview(part).cast("B")[offset:] if offset else part)
            continue
        source = part.fileno()
        if source is None:
            out.append(part.read()[offset:])
        else:
            out.append(_pread(source, part.position + offset, part.length - offset))
    return out


class Drain:
    """Sends parts as the socket drains (module docstring); ``on_end(None)`` once everything is
    sent, ``on_end(exc)`` when the peer is gone (`OSError`) or a file is shorter than its part
    (`ValueError`).  `cancel` stops it; either way every held file descriptor is closed.

    It writes through ``fd``, the connection's duplicate of its socket that ``watch`` watches
    (`odradek.server.writable`), and waits for room only after a write stopped short: the edge
    that wakes it comes from that write.  The parts given to it were left by such a write."""

    __slots__ = ("_fd", "_on_end", "_parts", "_watch")

    def __init__(
        self,
        watch: WritableWatch,
        fd: int,
        parts: list[Unsent],
        on_end: Callable[[Exception | None], None],
    ) -> None:
        self._watch = watch
        self._fd = fd
        self._parts: deque[Unsent] = deque(parts)
        self._on_end = on_end
        watch.wait(fd, self._on_writable)

    def add(self, parts: Sequence[Part]) -> None:
        """Send ``parts`` after what the drain holds (file parts held at once: the caller's invariant)."""
        self._parts.extend(_hold(parts, 0, 0))

    def cancel(self) -> None:
        """Stop waiting for room and close every file descriptor the drain holds, dropping what is
        not sent yet (nothing, once it has ended)."""
        if self._fd < 0:
            return
        self._watch.stop(self._fd)
        self._fd = -1
        release_unsent(self._parts)
        self._parts.clear()

    def _on_writable(self) -> None:
        try:
            done = self._write()
        except (OSError, ValueError) as exc:
            self.cancel()
            self._on_end(exc)
            return
        if done:
            self.cancel()
            self._on_end(None)

    def _write(self) -> bool:
        """Write until the socket is full or nothing is left; whether everything went."""
        parts = self._parts
        while parts:
            part = parts[0]
            if isinstance(part, HeldFile):
                sent, stop = _sendfile(self._fd, part.fd, part.position, part.length)
                part.position += sent
                part.length -= sent
                if stop == _FULL:
                    return False
                if stop == _EOF:
                    raise ValueError(f"the file ends inside the part, {part.length} bytes short")
                if stop == _REFUSED:  # the rest goes as bytes
                    parts[0] = _pread(part.fd, part.position, part.length)
                else:
                    parts.popleft()
                part.close()
                continue
            run: list[Buffer] = []
            while parts:
                following = parts[0]
                if isinstance(following, HeldFile):
                    break
                run.append(following)
                parts.popleft()
            left = _writev(self._fd, run)
            if left:
                parts.extendleft(reversed(left))
                return False
        return True
