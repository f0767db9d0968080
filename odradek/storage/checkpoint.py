"""Kafka's offset checkpoint files at a data dir's root (``log-start-offset-checkpoint``,
``cleaner-offset-checkpoint``).

Text, one item per line, every line ending in ``\\n``::

    Checkpoint => version count entry{count}
      version  => "0"
      count    => decimal number of entries
      entry    => topic " " partition " " offset      (decimal numbers)

The file is replaced atomically (temporary file, fsync, rename, directory fsync), so a crash
leaves the old or the new content.  Reading a malformed file raises `StorageError`; the caller
decides whether to start from an empty checkpoint, as Kafka's log manager does.
"""

from __future__ import annotations

from collections.abc import Mapping

from odradek.storage.errors import StorageError
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = [
    "CLEANER_OFFSET_CHECKPOINT",
    "LOG_START_OFFSET_CHECKPOINT",
    "encode_offset_checkpoint",
    "read_offset_checkpoint",
    "write_offset_checkpoint",
]

LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint"
CLEANER_OFFSET_CHECKPOINT = "cleaner-offset-checkpoint"
RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint"
_VERSION = "0"


def encode_offset_checkpoint(offsets: Mapping[tuple[str, int], int]) -> bytes:
    """The file content for ``offsets`` (sorted, for stable files)."""
    lines = [_VERSION, str(len(offsets))]
    lines += [f"{topic} {partition} {offset}" for (topic, partition), offset in sorted(offsets.items())]
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_offset_checkpoint(fs: FileSystem, path: str, offsets: Mapping[tuple[str, int], int]) -> None:
    """Replace the checkpoint at ``path`` with ``offsets``."""
    write_file_atomic(fs, path, encode_offset_checkpoint(offsets))


def read_offset_checkpoint(fs: FileSystem, path: str) -> dict[tuple[str, int], int]:
    """The entries of the checkpoint at ``path``; empty when there is no file."""
    if not fs.exists(path):
        return {}
    lines = read_file(fs, path).decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2 or lines[0].strip() != _VERSION:
        raise StorageError(f"{path}: not a version {_VERSION} offset checkpoint")
    try:
        count = int(lines[1])
    except ValueError:
        raise StorageError(f"{path}: malformed entry count {lines[1]!r}") from None
    if count != len(lines) - 2:
        raise StorageError(f"{path}: expected {count} entries, found {len(lines) - 2}")
    offsets: dict[tuple[str, int], int] = {}
    for line in lines[2:]:
        fields = line.split(" ")
        if len(fields) != 3 or not fields[0]:
            raise StorageError(f"{path}: malformed line {line!r}")
        try:
            offsets[(fields[0], int(fields[1]))] = int(fields[2])
        except ValueError:
            raise StorageError(f"{path}: malformed line {line!r}") from None
    return offsets
