"""Every partition log of the broker's data directories (``log.dirs``), laid out as Kafka does
(see `odradek.storage.data_dir_names`).

The checkpoints at each directory's root are kept by `odradek.storage.data_dir_checkpoints`.
A new partition goes to the directory with the fewest partitions, ties to the one listed first,
counting (as Kafka does) a log being moved in.  A move (`LogManager.moving`, AlterReplicaLogDirs)
copies the log into the target's ``-future`` directory off the event loop
(`odradek.storage.log_mover`), then closes it, copies the rest, renames the copy into place
(durably) before renaming the source ``-delete``; a crash between the two renames leaves two
identical copies, and loading keeps the one in the directory listed first.

Topic metadata other than the topic id (partition count, configs) is the handler layer's to
persist; `LogManager.partitions` lists what is on disk so the broker can rebuild its metadata at
start-up.

Invariants:
- in every data directory, the clean-shutdown marker is removed (durably) before any log is
  opened for writing, and written (durably) only after every log has been flushed and closed;
- one `PartitionLog` per (topic, partition); all share one list of append listeners;
- the log start offset checkpoint is rewritten by DeleteRecords before it returns and after
  every retention pass that changed one; with `sync_soon` set, other checkpoints are written by
  the worker, and `flush` and `close` write them before returning;
- a compaction pass (`cleaning`) is a generator whose jobs may run on a worker thread; the
  first dirty offset is checkpointed only after a pass finished on a log still loaded;
- files of removed segments go when `delete_expired_segments` finds their
  ``file.delete.delay.ms`` passed on the clock; the deletion listener hears each new due time
  (the broker runs `delete_expired_segments` on a timer at it).
"""

from __future__ import annotations

import logging
import posixpath
import uuid
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from odradek.clock import Clock
from odradek.storage.cleaner_config import CleanerConfig
from odradek.storage.data_dir_checkpoints import DataDirCheckpoints
from odradek.storage.data_dir_names import (
    CLEAN_SHUTDOWN_FILE,
    DELETE_SUFFIX,
    FUTURE_SUFFIX,
    IGNORED_SUFFIXES,
    DataDirs,
    data_dir_list,
    delete_dir_name,
    parse_partition_dir_name,
    partition_dir_name,
)
from odradek.storage.errors import InconsistentTopicId, StorageError
from odradek.storage.filesystem import FileSystem, write_file_atomic
from odradek.storage.log_config import LogConfig
from odradek.storage.log_mover import copy_early, copy_rest
from odradek.storage.partition_log import AppendListener, PartitionLog
from odradek.storage.retention import delete_old_segments
from odradek.storage.txn_cleaning import CleaningHints

if TYPE_CHECKING:
    from odradek.storage.cleaner import Job

__all__ = [
    "CLEAN_SHUTDOWN_FILE",
    "LogManager",
    "StoredPartition",
    "delete_dir_name",
    "parse_partition_dir_name",
    "partition_dir_name",
]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StoredPartition:
    """A partition found on disk; ``topic_id`` is None when its partition.metadata is missing."""

    topic: str
    partition: int
    topic_id: uuid.UUID | None


def _default_config(_topic: str) -> LogConfig:
    return LogConfig()


class LogManager:
    """Creates, loads, finds, moves, deletes and closes the partition logs of the data directories."""

    def __init__(
        self,
        fs: FileSystem,
        data_dirs: DataDirs,
        clock: Clock,
        *,
        clean_shutdown: bool,
        cleaner_config: CleanerConfig | None = None,
    ) -> None:
        self._fs = fs
        self._cleaner_config = cleaner_config or CleanerConfig()
        self._cleaning_hints: Callable[[PartitionLog], CleaningHints] = lambda _log: CleaningHints()
        self.data_dirs = data_dir_list(data_dirs)
        """The data directories, in ``log.dirs`` order."""
        self.data_dir = self.data_dirs[0]
        """The first data directory (where the broker keeps its own metadata)."""
        self._clock = clock
        self.clean_shutdown = clean_shutdown
        """Whether the previous run ended with a clean close (of every data directory)."""
        self._logs: dict[tuple[str, int], PartitionLog] = {}
        self._listeners: list[AppendListener] = []
        self._unsynced_creations: list[PartitionLog] = []
        self._deferred_syncs: list[PartitionLog] = []
        self.sync_soon: Callable[[], None] | None = None
        """Arranges a `sync_creations` on a worker thread (the broker's); without it the
        deferred jobs of logs (`PartitionLog.defer_sync`) run at once, on the caller's thread."""
        self._checkpoints = DataDirCheckpoints(fs, self.data_dirs, self._logs, self._arrange_sync)
        self._deletion_listener: Callable[[int], None] | None = None
        self._moving: dict[tuple[str, int], str] = {}
        self._doomed: list[tuple[int, str, str]] = []
        """Moved-away logs waiting for ``file.delete.delay.ms``: (due ms, data dir, path)."""

    def set_cleaning_hints(self, provider: Callable[[PartitionLog], CleaningHints]) -> None:
        """Who tells compaction what the producer state needs kept and where the first unstable
        offset is (the partitions service, from each partition's producer state)."""
        self._cleaning_hints = provider

    def set_deletion_listener(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(due_ms)`` whenever any log, present or future, starts the
        ``file.delete.delay.ms`` of removed segments (or of a moved-away log) due at ``due_ms``."""
        self._deletion_listener = listener
        for log in self._logs.values():
            log.deletions.on_scheduled = listener

    def next_deletion_due(self) -> int | None:
        """The earliest due time (clock ms) of any removed segment's files; None: none wait."""
        dues = [due for log in self._logs.values() if (due := log.deletions.next_due) is not None]
        dues += [due for due, _, _ in self._doomed]
        return min(dues, default=None)

    def set_cleaner_config(self, config: CleanerConfig) -> None:
        """New cleaner settings (a dynamic broker config changed); the next pass uses them."""
        self._cleaner_config = config

    @classmethod
    def open(
        cls,
        fs: FileSystem,
        data_dirs: DataDirs,
        clock: Clock,
        *,
        config_for: Callable[[str], LogConfig] = _default_config,
        cleaner_config: CleanerConfig | None = None,
    ) -> LogManager:
        """Load every partition directory; ``config_for(topic)`` gives each topic's settings."""
        paths = data_dir_list(data_dirs)
        clean_dirs = {path: cls._take_clean_marker(fs, path) for path in paths}
        manager = cls(fs, paths, clock, clean_shutdown=all(clean_dirs.values()), cleaner_config=cleaner_config)
        for path in paths:
            manager._load_dir(path, clean_dirs[path], config_for)
        for path in paths:
            manager._checkpoints.write_log_start_offsets(path)
        return manager

    @staticmethod
    def _take_clean_marker(fs: FileSystem, path: str) -> bool:
        """Whether ``path`` was closed cleanly; its marker is removed (durably) before any open."""
        fs.makedirs(path)
        marker = f"{path}/{CLEAN_SHUTDOWN_FILE}"
        clean = fs.exists(marker)
        if clean:
            fs.remove(marker)
            fs.fsync_dir(path)
        return clean

    def _load_dir(self, path: str, clean: bool, config_for: Callable[[str], LogConfig]) -> None:
        fs = self._fs
        start_offsets, recovery_points = self._checkpoints.load(path, clean)
        for name in fs.listdir(path):
            child = f"{path}/{name}"
            if not fs.is_dir(child) or name.endswith(IGNORED_SUFFIXES):
                continue
            if name.endswith((DELETE_SUFFIX, FUTURE_SUFFIX)):
                if name.endswith(FUTURE_SUFFIX):
                    _log.warning("dropping %s: a move to this directory did not finish before the restart", child)
                fs.rmtree(child)
                continue
            parsed = parse_partition_dir_name(name)
            if parsed is None:
                _log.warning("ignoring %s: not a <topic>-<partition> directory", child)
                continue
            if parsed in self._logs:
                _log.warning("dropping %s: %s holds the same partition", child, self._logs[parsed].directory)
                self._remove_dir(path, child, *parsed)
                continue
            topic, partition = parsed
            log = PartitionLog.open(
                fs,
                child,
                topic,
                partition,
                config_for(topic),
                self._clock,
                clean_shutdown=clean,
                log_start_offset=start_offsets.get(parsed, 0),
                recovery_point=recovery_points.get(parsed, 0),
                listeners=self._listeners,
            )
            if not clean:
                _log.info(
                    "recovered %s: scanned %d segment(s) from recovery point %d, truncated %d bytes, log end %d",
                    child,
                    log.recovered_segments,
                    recovery_points.get(parsed, 0),
                    log.recovered_bytes,
                    log.log_end_offset,
                )
            log.on_sync_deferred = self._sync_deferred
            self._logs[parsed] = log

    @staticmethod
    def dir_of(log: PartitionLog) -> str:
        """The data directory ``log`` lives in."""
        return posixpath.dirname(log.directory)

    def _arrange_sync(self) -> bool:
        """Have `sync_creations` (which writes the pending checkpoints) run on the worker soon;
        False when there is no worker."""
        if self.sync_soon is None:
            return False
        self.sync_soon()
        return True

    def increment_log_start_offset(self, topic: str, partition: int, offset: int) -> int:
        """Move a log's start up to ``offset`` durably; return the log start offset.

        Raises `KeyError` for an unknown partition and `OffsetOutOfRange` above the high watermark.
        """
        log = self._logs[(topic, partition)]
        if log.increment_log_start_offset(offset):
            self._checkpoints.write_log_start_offsets(self.dir_of(log), now=True)
        return log.log_start_offset

    def compacted_logs(self) -> list[tuple[str, int]]:
        """The (topic, partition) of every log whose ``cleanup.policy`` has ``compact`` (and
        that is not being moved)."""
        return [key for key, log in self._logs.items() if log.config.compact and key not in self._moving]

    def cleaning(self, topic: str, partition: int) -> Generator[Job, object, bool]:
        """One compaction pass over one log at the clock's time, as the steps of
        `odradek.storage.cleaner.clean_steps` (its jobs may run on a worker thread); True when
        the log was cleaned.  The first dirty offset is checkpointed afterwards."""
        from odradek.storage.cleaner import clean_steps  # imported by the first pass, not at start-up

        key = (topic, partition)
        log = self._logs.get(key)
        if log is None or not log.config.compact or key in self._moving:
            return False
        try:
            result = yield from clean_steps(
                self._fs,
                log,
                self._checkpoints.first_dirty_offset(key),
                self._clock.time_ms(),
                self._cleaner_config,
                self._cleaning_hints(log),
            )
        except (OSError, StorageError):
            _log.exception("compaction failed for %s", log.directory)
            return False
        if result is None or self._logs.get(key) is not log:
            return False
        self._checkpoints.record_cleaned(key, result.end_offset, self.dir_of(log))
        return True

    def clean_logs(self) -> int:
        """One compaction pass over every compacted log, every step on this thread; return
        how many logs were cleaned."""
        from odradek.storage.cleaner import run_inline

        return sum(run_inline(self.cleaning(topic, partition)) for topic, partition in self.compacted_logs())

    def delete_expired_segments(self) -> int:
        """Delete the files of removed segments (and moved-away logs) whose
        ``file.delete.delay.ms`` has passed."""
        now_ms = self._clock.time_ms()
        deleted = 0
        for log in list(self._logs.values()):
            try:
                deleted += log.deletions.delete_expired(now_ms)
            except OSError:
                _log.exception("deleting removed segments failed for %s", log.directory)
        for entry in [entry for entry in self._doomed if entry[0] <= now_ms]:
            self._doomed.remove(entry)
            try:
                self._fs.rmtree(entry[2])
            except OSError:
                _log.exception("deleting %s failed", entry[2])
        return deleted

    def delete_old_segments(self) -> int:
        """One retention pass over every log (but those being moved) at the clock's time;
        return segments deleted."""
        now_ms = self._clock.time_ms()
        deleted = 0
        for key, log in list(self._logs.items()):
            if key in self._moving:
                continue
            try:
                deleted += delete_old_segments(log, now_ms)
            except (OSError, StorageError):
                _log.exception("retention failed for %s", log.directory)
        self._checkpoints.write_all_log_start_offsets()
        return deleted

    def add_append_listener(self, listener: AppendListener) -> None:
        """Call ``listener(log, info)`` after every append to any log, present or future."""
        self._listeners.append(listener)

    def remove_append_listener(self, listener: AppendListener) -> None:
        self._listeners.remove(listener)

    def get(self, topic: str, partition: int) -> PartitionLog | None:
        return self._logs.get((topic, partition))

    def logs(self) -> list[PartitionLog]:
        return list(self._logs.values())

    def partitions(self) -> list[StoredPartition]:
        """Every partition in the data directories, sorted by topic then partition."""
        return [
            StoredPartition(log.topic, log.partition, log.topic_id)
            for _, log in sorted(self._logs.items(), key=lambda item: item[0])
        ]

    def next_data_dir(self) -> str:
        """Where a new partition goes: the data directory with the fewest partitions (a log
        moving in counts too), ties to the first listed.  With one data directory nothing is
        counted: creating a topic of thousands of partitions stays linear, not quadratic."""
        if len(self.data_dirs) == 1:
            return self.data_dirs[0]
        counts = dict.fromkeys(self.data_dirs, 0)
        for log in self._logs.values():
            data_dir = self.dir_of(log)
            counts[data_dir] = counts.get(data_dir, 0) + 1
        for target in self._moving.values():
            counts[target] += 1
        return min(self.data_dirs, key=lambda d: counts[d])

    def create_partition(
        self, topic: str, partition: int, topic_id: uuid.UUID, config: LogConfig, *, durable: bool = True
    ) -> PartitionLog:
        """A new empty log in `next_data_dir`; an existing log with the same topic id is
        returned as it is.

        ``durable=False`` defers the fsyncs to `sync_creations` (see `PartitionLog.create`).
        """
        existing = self._logs.get((topic, partition))
        if existing is not None:
            if existing.topic_id is None:
                existing.adopt_topic_id(topic_id)
            elif existing.topic_id != topic_id:
                raise InconsistentTopicId(
                    f"{topic}-{partition} exists with topic id {existing.topic_id}, not {topic_id}"
                )
            return existing
        data_dir = self.next_data_dir()
        directory = f"{data_dir}/{partition_dir_name(topic, partition)}"
        if self._fs.exists(directory):
            raise StorageError(f"{directory} exists but is not a loaded log")
        log = PartitionLog.create(
            self._fs,
            directory,
            topic,
            partition,
            topic_id,
            config,
            self._clock,
            listeners=self._listeners,
            durable=durable,
        )
        log.deletions.on_scheduled = self._deletion_listener
        log.on_sync_deferred = self._sync_deferred
        if durable:
            self._fs.fsync_dir(data_dir)
        else:
            self._unsynced_creations.append(log)
        self._logs[(topic, partition)] = log
        return log

    def sync_creations(self) -> None:
        """Make every non-durable creation so far durable and run the deferred jobs of logs
        (safe on a worker thread: file writes of their own and fsyncs only)."""
        pending, self._unsynced_creations = self._unsynced_creations, []
        for log in pending:
            log.sync_creation(parent=False)
        for data_dir in sorted({self.dir_of(log) for log in pending}):
            self._fs.fsync_dir(data_dir)
        deferred, self._deferred_syncs = self._deferred_syncs, []
        for log in deferred:
            log.run_deferred()
        self._checkpoints.write_pending()

    def _sync_deferred(self, log: PartitionLog) -> None:
        """``log`` queued a deferred job: run it on the worker `sync_soon` arranges."""
        if self.sync_soon is None:
            log.run_deferred()
            return
        self._deferred_syncs.append(log)
        self.sync_soon()

    def set_topic_config(self, topic: str, config: LogConfig) -> None:
        for (name, _), log in self._logs.items():
            if name == topic:
                log.update_config(config)

    def delete_partition(self, topic: str, partition: int) -> bool:
        """Rename the log's directory to ``...-delete`` (durably), then remove it."""
        log = self._logs.pop((topic, partition), None)
        if log is None:
            return False
        data_dir = self.dir_of(log)
        self._checkpoints.forget_cleaned((topic, partition), data_dir)
        log.discard()
        self._remove_dir(data_dir, log.directory, topic, partition)
        self._checkpoints.write_log_start_offsets(data_dir)
        return True

    def _remove_dir(self, data_dir: str, directory: str, topic: str, partition: int) -> None:
        doomed = f"{data_dir}/{delete_dir_name(topic, partition)}"
        self._fs.rename(directory, doomed)
        self._fs.fsync_dir(data_dir)
        self._fs.rmtree(doomed)

    def delete_topic(self, topic: str) -> int:
        """Delete every partition of ``topic``; return how many there were."""
        partitions = [partition for name, partition in self._logs if name == topic]
        for partition in partitions:
            self.delete_partition(topic, partition)
        return len(partitions)

    def moving(
        self, topic: str, partition: int, target_dir: str, reopen: Callable[[PartitionLog], None]
    ) -> Generator[Job, object, PartitionLog | None]:
        """Move a log into ``target_dir`` (one of the data directories), as steps whose one job
        (the early copy, `odradek.storage.log_mover.copy_early`) may run on a worker thread;
        the log keeps serving until the last step, which runs where the generator is driven:
        the log is closed, the copy finished, renamed into place and reopened, the source
        renamed ``-delete`` and deleted after ``file.delete.delay.ms``.  ``reopen(new_log)``
        is called with the moved log before anything else can use it.  Returns the moved log,
        or None when there was nothing to move (the log is gone or already in ``target_dir``)."""
        key = (topic, partition)
        log = self._logs.get(key)
        if log is None or self.dir_of(log) == target_dir or key in self._moving:
            return None
        source_dir = self.dir_of(log)
        future = f"{target_dir}/{delete_dir_name(topic, partition, FUTURE_SUFFIX)}"
        self._moving[key] = target_dir
        closed = False
        try:
            copied = yield lambda: copy_early(self._fs, log.directory, future)
            if self._logs.get(key) is not log or log.offline:
                self._fs.rmtree(future)
                return None
            start, recovery = log.log_start_offset, log.log_end_offset
            log.close()
            closed = True
            copy_rest(self._fs, log.directory, future, copied if isinstance(copied, dict) else {})
            final = f"{target_dir}/{partition_dir_name(topic, partition)}"
            self._fs.rename(future, final)
            self._fs.fsync_dir(target_dir)
        except BaseException:
            if self._fs.exists(future):
                self._fs.rmtree(future)
            if closed:
                self._reopen_in_place(log, reopen)
            raise
        finally:
            self._moving.pop(key, None)
        doomed = f"{source_dir}/{delete_dir_name(topic, partition)}"
        self._fs.rename(log.directory, doomed)
        self._fs.fsync_dir(source_dir)
        moved = PartitionLog.open(
            self._fs,
            final,
            topic,
            partition,
            log.config,
            self._clock,
            clean_shutdown=True,
            log_start_offset=start,
            recovery_point=recovery,
            listeners=self._listeners,
        )
        moved.deletions.on_scheduled = self._deletion_listener
        moved.on_sync_deferred = self._sync_deferred
        self._logs[key] = moved
        reopen(moved)
        due = self._clock.time_ms() + log.config.file_delete_delay_ms
        self._doomed.append((due, source_dir, doomed))
        if self._deletion_listener is not None:
            self._deletion_listener(due)
        for data_dir in (source_dir, target_dir):
            self._checkpoints.write_log_start_offsets(data_dir)
            self._checkpoints.write_cleaner_offsets(data_dir)
        self.checkpoint_recovery_points()
        return moved

    def _reopen_in_place(self, log: PartitionLog, reopen: Callable[[PartitionLog], None]) -> None:
        """A move failed after closing ``log``: open it again where it is."""
        again = PartitionLog.open(
            self._fs,
            log.directory,
            log.topic,
            log.partition,
            log.config,
            self._clock,
            clean_shutdown=True,
            log_start_offset=log.log_start_offset,
            recovery_point=log.log_end_offset,
            listeners=self._listeners,
        )
        again.deletions.on_scheduled = self._deletion_listener
        again.on_sync_deferred = self._sync_deferred
        self._logs[(log.topic, log.partition)] = again
        reopen(again)

    def flush(self) -> None:
        """Flush every log; every checkpoint is on disk when this returns."""
        for log in self._logs.values():
            log.flush()
        self.checkpoint_recovery_points(now=True)

    def checkpoint_recovery_points(self, *, now: bool = False) -> None:
        """Write Kafka's ``recovery-point-offset-checkpoint`` in each data directory: per
        partition, the offset below which everything was flushed, so that a restart after a crash
        scans only past it (on the worker unless ``now``)."""
        self._checkpoints.write_recovery_points(now=now)

    def discard(self) -> None:
        """Close every log without flushing or writing anything: the caller throws the whole
        data directory away (a test double's reset)."""
        for log in self._logs.values():
            log.discard()
        self._logs.clear()
        self._checkpoints.drop()

    def close(self) -> None:
        """Flush and close every log, then leave the clean-shutdown marker in each data directory
        (in none when a log is offline: its tail needs recovery at the next start)."""
        self._checkpoints.write_all_log_start_offsets(now=True)
        offline = [log.directory for log in self._logs.values() if log.offline]
        for log in self._logs.values():
            log.close()
        if not offline:
            self.checkpoint_recovery_points(now=True)
        self._checkpoints.write_pending()
        self._logs.clear()
        if offline:
            _log.warning("no clean-shutdown marker: %s went offline", ", ".join(offline))
            return
        for data_dir in self.data_dirs:
            write_file_atomic(self._fs, f"{data_dir}/{CLEAN_SHUTDOWN_FILE}", b"")
