"""The checkpoints at the root of each data directory: what they say and when they are rewritten.

Three of Kafka's offset checkpoints (`odradek.storage.checkpoint`) are kept per data directory,
each naming only the logs of its own directory:
- ``log-start-offset-checkpoint``: the log start offset of every log whose start moved past its
  first segment (DeleteRecords, retention);
- ``cleaner-offset-checkpoint``: the first dirty offset of every compacted log cleaned so far;
- ``recovery-point-offset-checkpoint``: per log, the offset below which everything was flushed,
  so that a restart after a crash scans only past it.

`LogManager` owns the logs; this bookkeeping reads its ``logs`` mapping as it is at each call and
hands the content of each checkpoint to a `CheckpointWriter`.

Invariants:
- the log start offset checkpoint is rewritten only when its content changes, and whenever a log
  start offset moves past its first segment: DeleteRecords writes it durably before returning
  (``now``), so what a client was told is gone stays gone after a crash;
- with a worker (``arrange_sync`` returns True), every other checkpoint is written by the worker
  (`odradek.storage.checkpoint_writer`: a slow fsync must not pause the event loop), newest
  content last; without one, or with ``now``, it is on disk when the call returns;
- the cleaner offset checkpoint names only loaded logs, and a log's first dirty offset is
  forgotten with it;
- an unreadable checkpoint is logged and read as empty, as Kafka's log manager does.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Callable, Mapping, Sequence

from odradek.storage.checkpoint import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    encode_offset_checkpoint,
    read_offset_checkpoint,
)
from odradek.storage.checkpoint_writer import CheckpointWriter
from odradek.storage.errors import StorageError
from odradek.storage.filesystem import FileSystem
from odradek.storage.partition_log import PartitionLog

__all__ = ["DataDirCheckpoints"]

_log = logging.getLogger(__name__)

PartitionKey = tuple[str, int]


class DataDirCheckpoints:
    """The log start offset, cleaner offset and recovery point checkpoints of the data directories."""

    def __init__(
        self,
        fs: FileSystem,
        data_dirs: Sequence[str],
        logs: Mapping[PartitionKey, PartitionLog],
        arrange_sync: Callable[[], bool],
    ) -> None:
        """``logs``: the manager's logs, read live; ``arrange_sync()``: have `write_pending` run
        on the worker soon, False when there is no worker."""
        self._fs = fs
        self._data_dirs = data_dirs
        self._logs = logs
        self._arrange_sync = arrange_sync
        self._checkpointed: dict[str, dict[PartitionKey, int]] = {d: {} for d in data_dirs}
        self._writer = CheckpointWriter(fs)
        self._first_dirty: dict[PartitionKey, int] = {}

    def load(self, path: str, clean: bool) -> tuple[dict[PartitionKey, int], dict[PartitionKey, int]]:
        """Read the checkpoints of the data directory ``path``: its log start offsets and (when it
        was not closed cleanly) its recovery points; its first dirty offsets are kept here."""
        start_offsets = self._read(f"{path}/{LOG_START_OFFSET_CHECKPOINT}", "log start offset")
        self._checkpointed[path] = dict(start_offsets)
        recovery_points = {} if clean else self._read(f"{path}/{RECOVERY_POINT_CHECKPOINT}", "recovery point")
        self._first_dirty.update(self._read(f"{path}/{CLEANER_OFFSET_CHECKPOINT}", "cleaner offset"))
        return start_offsets, recovery_points

    def _read(self, path: str, what: str) -> dict[PartitionKey, int]:
        try:
            return read_offset_checkpoint(self._fs, path)
        except StorageError as exc:
            _log.warning("ignoring the %s checkpoint: %s", what, exc)
            return {}

    def _logs_in(self, data_dir: str) -> dict[PartitionKey, PartitionLog]:
        return {key: log for key, log in self._logs.items() if posixpath.dirname(log.directory) == data_dir}

    def _write(self, path: str, offsets: dict[PartitionKey, int], *, now: bool = False) -> None:
        """Have the checkpoint at ``path`` say ``offsets``: on the worker (``arrange_sync``), or
        before returning when ``now`` or when there is no worker."""
        self._writer.put(path, encode_offset_checkpoint(offsets))
        if now or not self._arrange_sync():
            self._writer.write_pending()

    def write_log_start_offsets(self, data_dir: str, *, now: bool = False) -> None:
        """Rewrite ``data_dir``'s log start offset checkpoint when it no longer matches its logs."""
        self._write_log_start_offsets(data_dir, self._moved_starts(), now=now)

    def write_all_log_start_offsets(self, *, now: bool = False) -> None:
        moved = self._moved_starts()
        for data_dir in self._data_dirs:
            self._write_log_start_offsets(data_dir, moved, now=now)

    def _moved_starts(self) -> list[tuple[PartitionKey, PartitionLog]]:
        """The logs whose start moved past their first segment: the only ones the checkpoint names
        (usually none, so a retention pass over many logs asks each for two numbers only)."""
        return [(key, log) for key, log in self._logs.items() if log.log_start_offset > log.oldest_base_offset]

    def _write_log_start_offsets(
        self, data_dir: str, moved: list[tuple[PartitionKey, PartitionLog]], *, now: bool
    ) -> None:
        offsets = {key: log.log_start_offset for key, log in moved if posixpath.dirname(log.directory) == data_dir}
        if offsets != self._checkpointed.get(data_dir):
            self._write(f"{data_dir}/{LOG_START_OFFSET_CHECKPOINT}", offsets, now=now)
            self._checkpointed[data_dir] = offsets

    def first_dirty_offset(self, key: PartitionKey) -> int:
        """Where the next compaction pass over the log ``key`` starts."""
        return self._first_dirty.get(key, 0)

    def record_cleaned(self, key: PartitionKey, end_offset: int, data_dir: str) -> None:
        """A compaction pass over the (still loaded) log ``key`` cleaned up to ``end_offset``."""
        self._first_dirty[key] = end_offset
        self.write_cleaner_offsets(data_dir)

    def forget_cleaned(self, key: PartitionKey, data_dir: str) -> None:
        """The log ``key`` was removed from ``data_dir``: drop its first dirty offset."""
        if self._first_dirty.pop(key, None) is not None:
            self.write_cleaner_offsets(data_dir)

    def write_cleaner_offsets(self, data_dir: str) -> None:
        live = {key: offset for key, offset in self._first_dirty.items() if key in self._logs_in(data_dir)}
        self._write(f"{data_dir}/{CLEANER_OFFSET_CHECKPOINT}", live)

    def write_recovery_points(self, *, now: bool = False) -> None:
        """Write each data directory's recovery points (on the worker unless ``now``)."""
        for data_dir in self._data_dirs:
            points = {key: log.recovery_point for key, log in self._logs_in(data_dir).items()}
            self._write(f"{data_dir}/{RECOVERY_POINT_CHECKPOINT}", points, now=now)

    def write_pending(self) -> None:
        """Write every checkpoint content handed over so far (see `CheckpointWriter.write_pending`)."""
        self._writer.write_pending()

    def drop(self) -> None:
        """Forget the contents not written yet (the data directories are being thrown away)."""
        self._writer.drop()
