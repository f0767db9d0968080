"""A partition's leader epoch cache and its ``leader-epoch-checkpoint`` file, in Kafka's format.

The cache maps each leader epoch to the first offset written in it; it answers "where did epoch
E end" (OffsetForLeaderEpoch, a Fetch's diverging epoch), which is how clients detect a log that
was truncated under them (KIP-320).  The file is Kafka's checkpoint text, one item a line, every
line ending in ``\\n``::

    LeaderEpochCheckpoint => version count entry{count}
      version => "0"
      count   => decimal number of entries
      entry   => epoch " " start_offset        (decimal numbers)

Kafka's rules, kept here:
- `assign` adds (epoch, start offset) when the epoch is new or starts earlier than the latest
  entry, first removing every entry whose epoch or start offset is at least the new one's (an
  epoch in which nothing was written leaves no entry behind);
- `truncate_from_start` (the log start moved up) drops the entries wholly below it and moves
  the start of the one that contains it; `truncate_from_end` (recovery cut the log) drops the
  entries starting at or past the new end;
- `end_offset_for` answers Kafka's ``endOffsetFor``: the requested epoch's own end (or the one
  of the highest epoch below it), the log end offset for the latest epoch, and (-1, -1) for an
  undefined epoch or one above the latest.

Invariants: epochs and start offsets strictly increase along the entries; the file always holds
the entries as of the last change (written when they change).  A write is a replacement through
a temporary file; ``durable=False`` leaves the fsync to `sync` (a new partition, or every
partition at start-up, would otherwise cost one fsync each on the event loop).  A missing,
empty or malformed file loads as an empty cache (logged), the way a crash right after a
non-durable write can leave it; the owner then assigns its current epoch again.
"""

from __future__ import annotations

import bisect
import itertools
import logging

from odradek.storage.filesystem import FileSystem, read_file

__all__ = ["LEADER_EPOCH_CHECKPOINT_FILE", "UNDEFINED", "LeaderEpochCache"]

LEADER_EPOCH_CHECKPOINT_FILE = "leader-epoch-checkpoint"
UNDEFINED = -1
"""Kafka's undefined epoch and undefined epoch offset."""
_VERSION = "0"

log = logging.getLogger(__name__)


def _parse(text: str) -> list[tuple[int, int]]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2 or lines[0] != _VERSION or int(lines[1]) != len(lines) - 2:
        raise ValueError("not a version 0 checkpoint with its entry count")
    entries = []
    for line in lines[2:]:
        epoch, offset = line.split(" ")
        entries.append((int(epoch), int(offset)))
    if any(a[0] >= b[0] or a[1] > b[1] for a, b in itertools.pairwise(entries)):
        raise ValueError("entries out of order")
    return entries


class LeaderEpochCache:
    """The leader epochs of one partition directory (see the module docstring)."""

    def __init__(self, fs: FileSystem, directory: str, entries: list[tuple[int, int]]) -> None:
        self._fs = fs
        self._path = f"{directory}/{LEADER_EPOCH_CHECKPOINT_FILE}"
        self._epochs = [epoch for epoch, _ in entries]
        self._starts = [start for _, start in entries]
        self._unsynced = False

    @classmethod
    def load(cls, fs: FileSystem, directory: str) -> LeaderEpochCache:
        path = f"{directory}/{LEADER_EPOCH_CHECKPOINT_FILE}"
        entries: list[tuple[int, int]] = []
        if fs.exists(path):
            try:
                entries = _parse(read_file(fs, path).decode("ascii"))
            except (ValueError, UnicodeDecodeError) as exc:
                log.warning("ignoring %s: %s", path, exc)
        return cls(fs, directory, entries)

    @property
    def entries(self) -> list[tuple[int, int]]:
        """(epoch, start offset) pairs, oldest first."""
        return list(zip(self._epochs, self._starts, strict=True))

    @property
    def latest_epoch(self) -> int:
        return self._epochs[-1] if self._epochs else UNDEFINED

    def assign(self, epoch: int, start_offset: int, *, durable: bool = True) -> bool:
        """Record that ``epoch`` starts at ``start_offset``; True when the cache changed."""
        if epoch < 0 or start_offset < 0:
            raise ValueError(f"cannot assign epoch {epoch} at offset {start_offset}")
        if self._epochs and epoch == self._epochs[-1] and start_offset >= self._starts[-1]:
            return False
        while self._epochs and (self._epochs[-1] >= epoch or self._starts[-1] >= start_offset):
            self._epochs.pop()
            self._starts.pop()
        self._epochs.append(epoch)
        self._starts.append(start_offset)
        self._write(durable)
        return True

    def end_offset_for(self, epoch: int, log_end_offset: int) -> tuple[int, int]:
        """``(epoch, end offset)`` as Kafka's leader answers OffsetForLeaderEpoch for ``epoch``."""
        if epoch == UNDEFINED or not self._epochs:
            return UNDEFINED, UNDEFINED
        if epoch == self._epochs[-1]:
            return epoch, log_end_offset
        higher = bisect.bisect_right(self._epochs, epoch)
        if higher == len(self._epochs):
            return UNDEFINED, UNDEFINED
        if higher == 0:
            return epoch, self._starts[0]
        return self._epochs[higher - 1], self._starts[higher]

    def epoch_for_offset(self, offset: int) -> int:
        """The epoch ``offset`` was written in (Kafka's ``epochForOffset``); `UNDEFINED` when it
        lies before every entry."""
        index = bisect.bisect_right(self._starts, offset) - 1
        return self._epochs[index] if index >= 0 else UNDEFINED

    def lead(self, epoch: int, log_start_offset: int, log_end_offset: int) -> None:
        """This node leads the partition at ``epoch`` from ``log_end_offset`` on (opening a log
        at start-up or creation): the cache forgets what lies below the log start and assigns
        the epoch without an fsync (see `sync`)."""
        self.truncate_from_start(log_start_offset)
        self.assign(epoch, log_end_offset, durable=False)

    def truncate_from_start(self, log_start_offset: int) -> None:
        """The log now starts at ``log_start_offset``: forget what lies wholly below it.

        The write is not durable (the owner has `sync` run off the loop), as Kafka's
        ``truncateFromStartAsyncFlush``: a crash before the sync leaves the older entries, which
        the next `lead` truncates again, or an unreadable file, which loads empty."""
        first_kept = bisect.bisect_right(self._starts, log_start_offset) - 1
        if first_kept < 0 or (first_kept == 0 and self._starts[0] == log_start_offset):
            return
        del self._epochs[:first_kept]
        del self._starts[:first_kept]
        self._starts[0] = log_start_offset
        self._write(durable=False)

    def truncate_from_end(self, end_offset: int) -> None:
        """The log now ends at ``end_offset``: forget the epochs that start at or past it."""
        keep = bisect.bisect_left(self._starts, end_offset)
        if keep == len(self._starts):
            return
        del self._epochs[keep:]
        del self._starts[keep:]
        self._write(durable=True)

    def sync(self) -> None:
        """Make the last non-durable write durable (safe on a worker thread: fsyncs only)."""
        if not self._unsynced:
            return
        handle = self._fs.open_append(self._path)
        try:
            handle.fsync()
        finally:
            handle.close()
        self._fs.fsync_dir(self._path.rpartition("/")[0])
        self._unsynced = False

    def _write(self, durable: bool) -> None:
        lines = [_VERSION, str(len(self._epochs))]
        lines += [f"{epoch} {start}" for epoch, start in zip(self._epochs, self._starts, strict=True)]
        tmp = self._path + ".tmp"
        if self._fs.exists(tmp):
            self._fs.remove(tmp)
        handle = self._fs.open_append(tmp)
        try:
            handle.write(("\n".join(lines) + "\n").encode("ascii"))
            if durable:
                handle.fsync()
        finally:
            handle.close()
        self._fs.rename(tmp, self._path)
        if durable:
            self._fs.fsync_dir(self._path.rpartition("/")[0])
        self._unsynced = not durable
