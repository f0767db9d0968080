"""How a segment lies on disk: the names of its files (renamed and removed together) and the
walk over the batches of its ``.log`` by their framing.

A segment is ``<base offset, 20 digits>.log`` with ``.index``, ``.timeindex`` and ``.txnindex``
beside it; the suffixes below mark a segment's files while the cleaner replaces it or while
they wait for deletion.  The ``.log`` holds record batches back to back, and the first 12
bytes of each are the framing the walk hops with::

    LogEntry => baseOffset int64, batchLength int32 (bytes after this field), rest of the batch

Every function here reads through a `FileHandle` and raises `CorruptSegmentError` (naming the
file) when the framing breaks: a batch shorter than its header, or a file ending inside one;
except `valid_batches`, recovery's scan, which stops at the first batch it cannot vouch for.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from odradek.storage.errors import CorruptSegmentError
from odradek.storage.filesystem import FileHandle, FileSystem
from odradek.storage.index_file import INT32_MAX
from odradek.wire.records.batch import (
    BATCH_OVERHEAD,
    LOG_OVERHEAD,
    BatchHeader,
    CorruptBatchError,
    read_header,
    verify_batch,
)

__all__ = [
    "CLEANED_SUFFIX",
    "DELETED_SUFFIX",
    "FRAMING",
    "INDEX_SUFFIX",
    "INDEX_SUFFIXES",
    "LOG_SUFFIX",
    "SWAP_SUFFIX",
    "TIME_INDEX_SUFFIX",
    "TXN_INDEX_SUFFIX",
    "filename_prefix",
    "header_at",
    "hop",
    "parse_segment_filename",
    "read_exact",
    "remove_segment_files",
    "rename_segment_files",
    "valid_batches",
    "walk",
]

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"
TXN_INDEX_SUFFIX = ".txnindex"
INDEX_SUFFIXES = (INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX)
"""Every file of a segment besides its ``.log``."""
CLEANED_SUFFIX = ".cleaned"
"""Appended to a segment's ``.log`` name while the cleaner writes its replacement."""
SWAP_SUFFIX = ".swap"
"""Appended to a segment's ``.log`` name once its replacement is complete and durable."""
DELETED_SUFFIX = ".deleted"
"""Appended to the names of a segment's files when it is removed from its log; the files go
after ``file.delete.delay.ms`` (see `LogSegment.rename_for_deletion`)."""

FRAMING = struct.Struct(">qi")
"""A batch's base offset and length."""
_WALK_CHUNK = 16 * 1024


def filename_prefix(base_offset: int) -> str:
    """Kafka's file name stem: the base offset zero-padded to 20 digits."""
    return f"{base_offset:020d}"


def parse_segment_filename(name: str) -> int | None:
    """The base offset of a ``.log`` file name, or None for any other file."""
    stem, dot, suffix = name.partition(".")
    if dot and "." + suffix == LOG_SUFFIX and len(stem) == 20 and stem.isdigit():
        return int(stem)
    return None


def rename_segment_files(fs: FileSystem, stem: str, suffix: str) -> None:
    """Add ``suffix`` to the names of the files of the segment ``stem`` (the log first)."""
    for kind in (LOG_SUFFIX, *INDEX_SUFFIXES):
        path = stem + kind
        if fs.exists(path):
            fs.rename(path, path + suffix)


def remove_segment_files(fs: FileSystem, stem: str, suffix: str = "") -> None:
    """Remove the files of the segment ``stem`` named with ``suffix`` (those already gone are skipped)."""
    for kind in (LOG_SUFFIX, *INDEX_SUFFIXES):
        path = stem + kind + suffix
        if fs.exists(path):
            fs.remove(path)


def read_exact(handle: FileHandle, path: str, size: int, position: int) -> bytes:
    """Exactly ``size`` bytes at ``position``."""
    data = handle.pread(size, position)
    if len(data) != size:
        raise CorruptSegmentError(f"{path} ends inside a batch at position {position}")
    return data


def header_at(handle: FileHandle, path: str, position: int) -> BatchHeader:
    """The header of the batch at ``position``."""
    header = read_header(read_exact(handle, path, BATCH_OVERHEAD, position))
    if header.total_size < BATCH_OVERHEAD:
        raise CorruptSegmentError(f"{path} has no batch at position {position}")
    return header


def hop(handle: FileHandle, path: str, end: int, position: int) -> Iterator[tuple[int, int, int, bytes, int]]:
    """``(position, base offset, size, buffer, header position in buffer)`` of each batch
    from ``position`` (a batch start) to ``end``; the buffer holds the whole header.

    Reads ahead ``_WALK_CHUNK`` bytes at a time, so hopping over small batches costs one
    read per chunk rather than one per batch, and parses only the framing.
    """
    buffer = b""
    buffer_start = position
    unpack = FRAMING.unpack_from
    while position < end:
        relative = position - buffer_start
        if len(buffer) - relative < BATCH_OVERHEAD:
            buffer, buffer_start, relative = handle.pread(_WALK_CHUNK, position), position, 0
            if len(buffer) < BATCH_OVERHEAD:
                raise CorruptSegmentError(f"{path} ends inside a batch at position {position}")
        base_offset, length = unpack(buffer, relative)
        size = length + LOG_OVERHEAD
        if size < BATCH_OVERHEAD:
            raise CorruptSegmentError(f"{path} has no batch at position {position}")
        yield position, base_offset, size, buffer, relative
        position += size


def walk(handle: FileHandle, path: str, end: int, position: int) -> Iterator[tuple[int, BatchHeader]]:
    """``(position, header)`` of each batch from ``position`` (a batch start) to ``end``."""
    for batch_position, _, _, buffer, relative in hop(handle, path, end, position):
        yield batch_position, read_header(buffer, relative)


_SCAN_CHUNK = 1 << 20


def valid_batches(handle: FileHandle, end: int, start: int, base_offset: int) -> Iterator[tuple[int, BatchHeader]]:
    """``(position, header)`` of each verified batch of the segment based at ``base_offset``, from
    ``start`` (a batch start) up to ``end`` or the first batch that is torn, fails `verify_batch`,
    or breaks the offset order or the segment's int32 offset range.  Reads a megabyte at a time."""
    position = buffer_start = start
    buffer = b""
    expected_offset = base_offset
    while end - position >= LOG_OVERHEAD:
        relative = position - buffer_start
        if len(buffer) - relative < LOG_OVERHEAD:
            buffer, buffer_start, relative = handle.pread(_SCAN_CHUNK, position), position, 0
        total = FRAMING.unpack_from(buffer, relative)[1] + LOG_OVERHEAD
        if total < BATCH_OVERHEAD or total > end - position:
            return
        if len(buffer) - relative < total:
            buffer, buffer_start, relative = handle.pread(max(_SCAN_CHUNK, total), position), position, 0
        try:
            header = verify_batch(buffer, relative)
        except CorruptBatchError:
            return
        if (
            header.base_offset < expected_offset
            or header.last_offset_delta < 0
            or header.last_offset - base_offset > INT32_MAX
        ):
            return
        yield position, header
        expected_offset = header.next_offset
        position += total
