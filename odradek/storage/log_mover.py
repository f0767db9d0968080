"""Copying a partition log into another data directory (AlterReplicaLogDirs), in two steps.

Kafka grows the copy in ``<target>/<topic>-<partition>.<uuid>-future`` while the partition keeps
serving, then swaps.  Here:

1. `copy_early` (safe on a worker thread while the log is appended to) copies the segment files
   as they are: segment files (``.log``, ``.index``, ``.timeindex``, ``.txnindex``) only grow at
   their end while a log serves, so a prefix copied now is still right later;
2. `copy_rest` (with the log closed, on the thread that owns it) brings the copy up to the
   source exactly: appends what each segment file grew by, copies whole every other file (and
   any segment file that is new or became shorter), removes what the source no longer has,
   and fsyncs every file and the directory.

Files of removed segments waiting for their deletion (``.deleted``) and temporary files are
never copied.  A file that disappears under the first step (retention, compaction) is skipped;
the second step sees the source as it is.  Invariant: after `copy_rest` the future directory
holds byte for byte the files of the source directory (those two exceptions aside), durably.
"""

from __future__ import annotations

from odradek.storage.filesystem import FileSystem

__all__ = ["copy_early", "copy_rest"]

_CHUNK = 1 << 20
_APPEND_ONLY = (".log", ".index", ".timeindex", ".txnindex")
_NEVER_COPIED = (".deleted", ".tmp", ".cleaned", ".swap")


def _names(fs: FileSystem, directory: str) -> set[str]:
    return {name for name in fs.listdir(directory) if not name.endswith(_NEVER_COPIED)}


def _copy_range(fs: FileSystem, source: str, target: str, start: int, end: int) -> None:
    """Append bytes ``[start, end)`` of ``source`` to ``target`` (created if missing), fsynced."""
    reader = fs.open_read(source)
    writer = fs.open_append(target)
    try:
        position = start
        while position < end:
            chunk = reader.pread(min(_CHUNK, end - position), position)
            if not chunk:
                break
            writer.write(chunk)
            position += len(chunk)
        writer.fsync()
    finally:
        writer.close()
        reader.close()


def copy_early(fs: FileSystem, source: str, future: str) -> dict[str, int]:
    """Copy the segment files of ``source`` into ``future`` as they are now; return how many
    bytes of each were copied (the first step of a move)."""
    fs.makedirs(future)
    copied: dict[str, int] = {}
    for name in sorted(_names(fs, source)):
        if not name.endswith(_APPEND_ONLY):
            continue
        try:
            size = fs.size(f"{source}/{name}")
            _copy_range(fs, f"{source}/{name}", f"{future}/{name}", 0, size)
        except FileNotFoundError:
            continue
        copied[name] = size
    return copied


def copy_rest(fs: FileSystem, source: str, future: str, copied: dict[str, int]) -> None:
    """Make ``future`` hold exactly what ``source`` holds, durably (the second step of a move,
    with the log closed); ``copied`` is what `copy_early` returned."""
    wanted = _names(fs, source)
    for name in sorted(wanted):
        source_path, target_path = f"{source}/{name}", f"{future}/{name}"
        size = fs.size(source_path)
        done = copied.get(name)
        if name.endswith(_APPEND_ONLY) and done is not None and done <= size and fs.exists(target_path):
            if done < size:
                _copy_range(fs, source_path, target_path, done, size)
            continue
        if fs.exists(target_path):
            fs.remove(target_path)
        _copy_range(fs, source_path, target_path, 0, size)
    for name in _names(fs, future) - wanted:
        fs.remove(f"{future}/{name}")
    fs.fsync_dir(future)
