"""Every partition log of one data directory.

Layout of the data directory (Kafka's)::

    <data dir>/<topic>-<partition>/                 one `PartitionLog` each
    <data dir>/<topic>-<partition>.<hex id>-delete/  a log being deleted (removed at start-up)
    <data dir>/.odradek_cleanshutdown               present only between a clean close and the next open
    <data dir>/log-start-offset-checkpoint           Kafka's; logs whose start is past their first segment
    <data dir>/cleaner-offset-checkpoint             Kafka's; first dirty offset of each compacted log

Directory names are parsed as Kafka does: the partition is the integer after the LAST ``-``,
so topic names may hold dots and dashes.  Topic metadata other than the topic id (partition
count, configs) is the handler layer's to persist; `LogManager.partitions` lists what is on
disk so the broker can rebuild its metadata at start-up.

Invariants:
- the clean-shutdown marker is removed (durably) before any log is opened for writing, and
  written (durably) only after every log has been flushed and closed;
- one `PartitionLog` per (topic, partition); all share one list of append listeners;
- the log start offset checkpoint is rewritten whenever a log start offset moves past its
  first segment (DeleteRecords) and after every retention pass that changed one, so what a
  client was told is gone stays gone after a crash.
- a compaction pass (`cleaning`) is a generator whose jobs may run on a worker thread; the
  first dirty offset is checkpointed only after a pass finished on a log still loaded;
- files of removed segments go when `delete_expired_segments` finds their
  ``file.delete.delay.ms`` passed on the clock; the deletion listener hears each new due time
  (the broker runs `delete_expired_segments` on a timer at it).
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable, Generator
from dataclasses import dataclass

from odradek.clock import Clock
from odradek.storage.checkpoint import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    read_offset_checkpoint,
    write_offset_checkpoint,
)
from odradek.storage.cleaner import CleanerConfig, Job, clean_steps, run_inline
from odradek.storage.errors import InconsistentTopicId, StorageError
from odradek.storage.filesystem import FileSystem, write_file_atomic
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import AppendListener, PartitionLog
from odradek.storage.retention import delete_old_segments

__all__ = [
    "CLEAN_SHUTDOWN_FILE",
    "LogManager",
    "StoredPartition",
    "delete_dir_name",
    "parse_partition_dir_name",
    "partition_dir_name",
]

CLEAN_SHUTDOWN_FILE = ".odradek_cleanshutdown"
_DELETE_SUFFIX = "-delete"
_IGNORED_SUFFIXES = ("-future", "-stray")
_MAX_NAME = 255

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StoredPartition:
    """A partition found on disk; ``topic_id`` is None when its partition.metadata is missing."""

    topic: str
    partition: int
    topic_id: uuid.UUID | None


def partition_dir_name(topic: str, partition: int) -> str:
    return f"{topic}-{partition}"


def parse_partition_dir_name(name: str) -> tuple[str, int] | None:
    """``(topic, partition)`` of a ``<topic>-<partition>`` name, or None."""
    topic, dash, partition = name.rpartition("-")
    if not dash or not topic or not partition.isdigit():
        return None
    return topic, int(partition)


def delete_dir_name(topic: str, partition: int) -> str:
    """Kafka's ``<topic>-<partition>.<uuid hex>-delete``, the topic cut to keep 255 characters."""
    suffix = f"-{partition}.{uuid.uuid4().hex}{_DELETE_SUFFIX}"
    return topic[: _MAX_NAME - len(suffix)] + suffix


def _default_config(_topic: str) -> LogConfig:
    return LogConfig()


class LogManager:
    """Creates, loads, finds, deletes and closes the partition logs of one data directory."""

    def __init__(
        self,
        fs: FileSystem,
        data_dir: str,
        clock: Clock,
        *,
        clean_shutdown: bool,
        cleaner_config: CleanerConfig | None = None,
    ) -> None:
        self._fs = fs
        self._cleaner_config = cleaner_config or CleanerConfig()
        self._retained_batches: Callable[[PartitionLog], frozenset[int]] = lambda _log: frozenset()
        self.data_dir = data_dir
        self._clock = clock
        self.clean_shutdown = clean_shutdown
        """Whether the previous run ended with a clean close."""
        self._logs: dict[tuple[str, int], PartitionLog] = {}
        self._listeners: list[AppendListener] = []
        self._unsynced_creations: list[PartitionLog] = []
        self._checkpointed: dict[tuple[str, int], int] = {}
        self._first_dirty: dict[tuple[str, int], int] = {}
        self._deletion_listener: Callable[[int], None] | None = None

    def set_retained_batches(self, provider: Callable[[PartitionLog], frozenset[int]]) -> None:
        """Who names the batches compaction must keep even when empty (the partitions service:
        each idempotent producer's last batch, from the partition's producer state)."""
        self._retained_batches = provider

    def set_deletion_listener(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(due_ms)`` whenever any log, present or future, starts the
        ``file.delete.delay.ms`` of removed segments that are due at ``due_ms`` (clock ms)."""
        self._deletion_listener = listener
        for log in self._logs.values():
            log.on_deletion_scheduled = listener

    def next_deletion_due(self) -> int | None:
        """The earliest due time (clock ms) of any removed segment's files; None: none wait."""
        return min((due for log in self._logs.values() if (due := log.next_deletion_due) is not None), default=None)

    def set_cleaner_config(self, config: CleanerConfig) -> None:
        """New cleaner settings (a dynamic broker config changed); the next pass uses them."""
        self._cleaner_config = config

    @classmethod
    def open(
        cls,
        fs: FileSystem,
        data_dir: str | os.PathLike[str],
        clock: Clock,
        *,
        config_for: Callable[[str], LogConfig] = _default_config,
        cleaner_config: CleanerConfig | None = None,
    ) -> LogManager:
        """Load every partition directory; ``config_for(topic)`` gives each topic's settings."""
        path = os.fspath(data_dir)
        fs.makedirs(path)
        marker = f"{path}/{CLEAN_SHUTDOWN_FILE}"
        clean = fs.exists(marker)
        if clean:
            fs.remove(marker)
            fs.fsync_dir(path)
        manager = cls(fs, path, clock, clean_shutdown=clean, cleaner_config=cleaner_config)
        try:
            start_offsets = read_offset_checkpoint(fs, manager._checkpoint_path)
        except StorageError as exc:
            _log.warning("ignoring the log start offset checkpoint: %s", exc)
            start_offsets = {}
        manager._checkpointed = dict(start_offsets)
        recovery_points: dict[tuple[str, int], int] = {}
        if not clean:
            try:
                recovery_points = read_offset_checkpoint(fs, f"{path}/{RECOVERY_POINT_CHECKPOINT}")
            except StorageError as exc:
                _log.warning("ignoring the recovery point checkpoint (recovering every segment): %s", exc)
        try:
            manager._first_dirty = read_offset_checkpoint(fs, f"{path}/{CLEANER_OFFSET_CHECKPOINT}")
        except StorageError as exc:
            _log.warning("ignoring the cleaner offset checkpoint: %s", exc)
        for name in fs.listdir(path):
            child = f"{path}/{name}"
            if not fs.is_dir(child) or name.endswith(_IGNORED_SUFFIXES):
                continue
            if name.endswith(_DELETE_SUFFIX):
                fs.rmtree(child)
                continue
            parsed = parse_partition_dir_name(name)
            if parsed is None:
                _log.warning("ignoring %s: not a <topic>-<partition> directory", child)
                continue
            topic, partition = parsed
            log = PartitionLog.open(
                fs,
                child,
                topic,
                partition,
                config_for(topic),
                clock,
                clean_shutdown=clean,
                log_start_offset=start_offsets.get(parsed, 0),
                recovery_point=recovery_points.get(parsed, 0),
                listeners=manager._listeners,
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
            manager._logs[(topic, partition)] = log
        manager._checkpoint()
        return manager

    @property
    def _checkpoint_path(self) -> str:
        return f"{self.data_dir}/{LOG_START_OFFSET_CHECKPOINT}"

    def _checkpoint(self) -> None:
        """Rewrite the log start offset checkpoint when it no longer matches the logs."""
        offsets = {
            key: log.log_start_offset
            for key, log in self._logs.items()
            if log.log_start_offset > log.segments[0].base_offset
        }
        if offsets != self._checkpointed:
            write_offset_checkpoint(self._fs, self._checkpoint_path, offsets)
            self._checkpointed = offsets

    def increment_log_start_offset(self, topic: str, partition: int, offset: int) -> int:
        """Move a log's start up to ``offset`` durably; return the log start offset.

        Raises `KeyError` for an unknown partition and `OffsetOutOfRange` above the high watermark.
        """
        log = self._logs[(topic, partition)]
        if log.increment_log_start_offset(offset):
            self._checkpoint()
        return log.log_start_offset

    def compacted_logs(self) -> list[tuple[str, int]]:
        """The (topic, partition) of every log whose ``cleanup.policy`` has ``compact``."""
        return [key for key, log in self._logs.items() if log.config.compact]

    def cleaning(self, topic: str, partition: int) -> Generator[Job, object, bool]:
        """One compaction pass over one log at the clock's time, as the steps of
        `odradek.storage.cleaner.clean_steps` (its jobs may run on a worker thread); True when
        the log was cleaned.  The first dirty offset is checkpointed afterwards."""
        key = (topic, partition)
        log = self._logs.get(key)
        if log is None or not log.config.compact:
            return False
        try:
            result = yield from clean_steps(
                self._fs,
                log,
                self._first_dirty.get(key, 0),
                self._clock.time_ms(),
                self._cleaner_config,
                self._retained_batches(log),
            )
        except (OSError, StorageError):
            _log.exception("compaction failed for %s", log.directory)
            return False
        if result is None or self._logs.get(key) is not log:
            return False
        self._first_dirty[key] = result.end_offset
        live = {k: v for k, v in self._first_dirty.items() if k in self._logs}
        write_offset_checkpoint(self._fs, f"{self.data_dir}/{CLEANER_OFFSET_CHECKPOINT}", live)
        return True

    def clean_logs(self) -> int:
        """One compaction pass over every compacted log, every step on this thread; return
        how many logs were cleaned."""
        return sum(run_inline(self.cleaning(topic, partition)) for topic, partition in self.compacted_logs())

    def delete_expired_segments(self) -> int:
        """Delete the files of removed segments whose ``file.delete.delay.ms`` has passed."""
        now_ms = self._clock.time_ms()
        deleted = 0
        for log in list(self._logs.values()):
            try:
                deleted += log.delete_expired_segments(now_ms)
            except OSError:
                _log.exception("deleting removed segments failed for %s", log.directory)
        return deleted

    def delete_old_segments(self) -> int:
        """One retention pass over every log at the clock's time; return segments deleted."""
        now_ms = self._clock.time_ms()
        deleted = 0
        for log in list(self._logs.values()):
            try:
                deleted += delete_old_segments(log, now_ms)
            except (OSError, StorageError):
                _log.exception("retention failed for %s", log.directory)
        self._checkpoint()
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
        """Every partition in the data directory, sorted by topic then partition."""
        return [
            StoredPartition(log.topic, log.partition, log.topic_id)
            for _, log in sorted(self._logs.items(), key=lambda item: item[0])
        ]

    def create_partition(
        self, topic: str, partition: int, topic_id: uuid.UUID, config: LogConfig, *, durable: bool = True
    ) -> PartitionLog:
        """A new empty log; an existing log with the same topic id is returned as it is.

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
        directory = f"{self.data_dir}/{partition_dir_name(topic, partition)}"
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
        log.on_deletion_scheduled = self._deletion_listener
        if durable:
            self._fs.fsync_dir(self.data_dir)
        else:
            self._unsynced_creations.append(log)
        self._logs[(topic, partition)] = log
        return log

    def sync_creations(self) -> None:
        """Make every non-durable creation so far durable (safe on a worker thread: fsyncs only)."""
        pending, self._unsynced_creations = self._unsynced_creations, []
        for log in pending:
            log.sync_creation(parent=False)
        if pending:
            self._fs.fsync_dir(self.data_dir)

    def set_topic_config(self, topic: str, config: LogConfig) -> None:
        for (name, _), log in self._logs.items():
            if name == topic:
                log.update_config(config)

    def delete_partition(self, topic: str, partition: int) -> bool:
        """Rename the log's directory to ``...-delete`` (durably), then remove it."""
        log = self._logs.pop((topic, partition), None)
        if log is None:
            return False
        if self._first_dirty.pop((topic, partition), None) is not None:
            write_offset_checkpoint(self._fs, f"{self.data_dir}/{CLEANER_OFFSET_CHECKPOINT}", self._first_dirty)
        log.discard()
        doomed = f"{self.data_dir}/{delete_dir_name(topic, partition)}"
        self._fs.rename(log.directory, doomed)
        self._fs.fsync_dir(self.data_dir)
        self._fs.rmtree(doomed)
        self._checkpoint()
        return True

    def delete_topic(self, topic: str) -> int:
        """Delete every partition of ``topic``; return how many there were."""
        partitions = [partition for name, partition in self._logs if name == topic]
        for partition in partitions:
            self.delete_partition(topic, partition)
        return len(partitions)

    def flush(self) -> None:
        for log in self._logs.values():
            log.flush()
        self.checkpoint_recovery_points()

    def checkpoint_recovery_points(self) -> None:
        """Write Kafka's ``recovery-point-offset-checkpoint``: per partition, the offset below
        which everything was flushed, so that a restart after a crash scans only past it."""
        points = {key: log.recovery_point for key, log in self._logs.items()}
        write_offset_checkpoint(self._fs, f"{self.data_dir}/{RECOVERY_POINT_CHECKPOINT}", points)

    def discard(self) -> None:
        """Close every log without flushing or writing anything: the caller throws the whole
        data directory away (a test double's reset)."""
        for log in self._logs.values():
            log.discard()
        self._logs.clear()

    def close(self) -> None:
        """Flush and close every log, then leave the clean-shutdown marker (not when a log is
        offline: its tail needs recovery at the next start)."""
        self._checkpoint()
        offline = [log.directory for log in self._logs.values() if log.offline]
        for log in self._logs.values():
            log.close()
        if not offline:
            self.checkpoint_recovery_points()
        self._logs.clear()
        if offline:
            _log.warning("no clean-shutdown marker: %s went offline", ", ".join(offline))
            return
        write_file_atomic(self._fs, f"{self.data_dir}/{CLEAN_SHUTDOWN_FILE}", b"")
