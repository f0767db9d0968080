"""Writing one batch of response parts to a socket, file parts with ``os.sendfile`` when it can.

A response is a list of `Part`: bytes, and `FilePart` (record batches left in their segment
file).  `write_parts` sends the parts in order, along one of two paths:

- direct: when the batch holds a file part in an OS file, the transport has nothing queued
  and its socket is a plain one (no TLS), the bytes go out with ``os.writev`` and each file
  part with ``os.sendfile``, non-blocking: record batches go from the page cache to the socket
  without passing through Python.  At the first short write (the socket buffer is full) the
  rest goes to the transport: the remaining bytes, and the remaining file parts read with
  ``pread``.  The transport had nothing queued, so it sends that after what went directly.
- buffered: otherwise (bytes already queued in the transport, TLS, in-memory files, or no
  file part at all) every file part is read and all parts go to ``transport.writelines``.

Invariant, the caller's: nothing is awaited between reading the file parts from storage and
this call.  A file part's descriptor is valid only while its segment is open, and segments are
closed (retention, topic deletion) only by code running on the event loop; so a descriptor is
fetched right before its ``sendfile`` and no descriptor outlives the call.  A closed file here
is a bug, and surfaces as `ValueError`.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Iterator, Sequence
from typing import Protocol, cast

from odradek.wire.primitives import FilePart, Part

__all__ = ["BUFFER_TYPES", "Buffer", "SocketLike", "buffer_pieces", "write_parts"]

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


def write_parts(transport: asyncio.WriteTransport, sock: SocketLike | None, parts: Sequence[Part]) -> None:
    """Send ``parts`` in order, directly when possible (see the module docstring).

    ``sock`` is the transport's plain socket, or None when only the transport may write (TLS).
    Raises `OSError` when the peer is gone (EPIPE, ECONNRESET: close the connection), and
    `ValueError` when a file part's file is closed or shorter than the part (a bug).
    """
    if all(isinstance(part, BUFFER_TYPES) for part in parts):
        transport.writelines(cast(Sequence[Buffer], parts))
        return
    fd = -1
    if sock is not None and not transport.is_closing() and transport.get_write_buffer_size() == 0:
        fd = sock.fileno()
    rest = _write_direct(fd, parts) if fd >= 0 else _materialise(parts, 0)
    if rest:
        transport.writelines(rest)


def _write_direct(fd: int, parts: Sequence[Part]) -> list[Buffer]:
    """Write ``parts`` to the socket ``fd`` until it would block; return what is left, as bytes."""
    i, n = 0, len(parts)
    while i < n:
        part = parts[i]
        if isinstance(part, BUFFER_TYPES):
            j = i + 1
            while j < n and isinstance(parts[j], BUFFER_TYPES):
                j += 1
            left = _writev(fd, cast(Sequence[Buffer], parts[i:j]))
            if left:
                return left + _materialise(parts, j)
            i = j
            continue
        source = part.fileno()
        if source is None:
            return _materialise(parts, i)
        sent = _sendfile(fd, source, part.position, part.length)
        if sent < part.length:
            return [_pread(source, part, sent), *_materialise(parts, i + 1)]
        i += 1
    return []


def _writev(fd: int, buffers: Sequence[Buffer]) -> list[Buffer]:
    """Write ``buffers`` until the socket would block; return the unwritten tail."""
    pending = [b for b in buffers if len(b)]
    start = 0
    while start < len(pending):
        chunk = pending[start : start + _IOV_MAX]
        try:
            written = os.writev(fd, chunk)
        except BlockingIOError:
            written = 0
        for k, buf in enumerate(chunk, start):
            if written < len(buf):
                return [memoryview(buf)[written:], *pending[k + 1 :]]
            written -= len(buf)
        start += len(chunk)
    return []


def _sendfile(out_fd: int, in_fd: int, position: int, length: int) -> int:
    """Send up to ``length`` bytes of ``in_fd`` at ``position``; return how many were sent
    before the socket would block (or sendfile turned out not to work for this pair)."""
    sent = 0
    while sent < length:
        try:
            count = os.sendfile(out_fd, in_fd, position + sent, length - sent)
        except BlockingIOError:
            break
        except OSError as exc:
            if exc.errno in _NO_SENDFILE:
                break
            raise
        if count == 0:  # end of file: `_pread` reports the short file
            break
        sent += count
    return sent


def _pread(fd: int, part: FilePart, skip: int) -> bytes:
    """The bytes of ``part`` after its first ``skip``."""
    size = part.length - skip
    data = os.pread(fd, size, part.position + skip)
    if len(data) != size:
        raise ValueError(f"the file ends inside the part {part.position}+{part.length}")
    return data


def _materialise(parts: Sequence[Part], start: int) -> list[Buffer]:
    """``parts[start:]`` as bytes: file parts are read."""
    return [part if isinstance(part, BUFFER_TYPES) else part.read() for part in parts[start:]]
