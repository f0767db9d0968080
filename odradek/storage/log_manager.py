"""Every partition log of one data directory.

Layout of the data directory (Kafka's)::

    <data dir>/<topic>-<partition>/                 one `PartitionLog` each
    <data dir>/<topic>-<partition>.<hex id>-delete/  a log being deleted (removed at start-up)
    <data dir>/.odradek_cleanshutdown               present only between a clean close and the next open

Directory names are parsed as Kafka does: the partition is the integer after the LAST ``-``,
so topic names may hold dots and dashes.  Topic metadata other than the topic id (partition
count, configs) is the handler layer's to persist; `LogManager.partitions` lists what is on
disk so the broker can rebuild its metadata at start-up.

Invariants:
- the clean-shutdown marker is removed (durably) before any log is opened for writing, and
  written (durably) only after every log has been flushed and closed;
- one `PartitionLog` per (topic, partition); all share one list of append listeners.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from odradek.clock import Clock
from odradek.storage.errors import InconsistentTopicId, StorageError
from odradek.storage.filesystem import FileSystem, write_file_atomic
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import AppendListener, PartitionLog

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

    def __init__(self, fs: FileSystem, data_dir: str, clock: Clock, *, clean_shutdown: bool) -> None:
        self._fs = fs
        self.data_dir = data_dir
        self._clock = clock
        self.clean_shutdown = clean_shutdown
        """Whether the previous run ended with a clean close."""
        self._logs: dict[tuple[str, int], PartitionLog] = {}
        self._listeners: list[AppendListener] = []

    @classmethod
    def open(
        cls,
        fs: FileSystem,
        data_dir: str | os.PathLike[str],
        clock: Clock,
        *,
        config_for: Callable[[str], LogConfig] = _default_config,
    ) -> LogManager:
        """Load every partition directory; ``config_for(topic)`` gives each topic's settings."""
        path = os.fspath(data_dir)
        fs.makedirs(path)
        marker = f"{path}/{CLEAN_SHUTDOWN_FILE}"
        clean = fs.exists(marker)
        if clean:
            fs.remove(marker)
            fs.fsync_dir(path)
        manager = cls(fs, path, clock, clean_shutdown=clean)
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
                listeners=manager._listeners,
            )
            if log.recovered_bytes:
                _log.warning("recovery truncated %d bytes of %s", log.recovered_bytes, child)
            manager._logs[(topic, partition)] = log
        return manager

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

    def create_partition(self, topic: str, partition: int, topic_id: uuid.UUID, config: LogConfig) -> PartitionLog:
        """A new empty log; an existing log with the same topic id is returned as it is."""
        existing = self._logs.get((topic, partition))
        if existing is not None:
            if existing.topic_id != topic_id:
                raise InconsistentTopicId(
                    f"{topic}-{partition} exists with topic id {existing.topic_id}, not {topic_id}"
                )
            return existing
        directory = f"{self.data_dir}/{partition_dir_name(topic, partition)}"
        if self._fs.exists(directory):
            raise StorageError(f"{directory} exists but is not a loaded log")
        log = PartitionLog.create(
            self._fs, directory, topic, partition, topic_id, config, self._clock, listeners=self._listeners
        )
        self._fs.fsync_dir(self.data_dir)
        self._logs[(topic, partition)] = log
        return log

    def set_topic_config(self, topic: str, config: LogConfig) -> None:
        for (name, _), log in self._logs.items():
            if name == topic:
                log.update_config(config)

    def delete_partition(self, topic: str, partition: int) -> bool:
        """Rename the log's directory to ``...-delete`` (durably), then remove it."""
        log = self._logs.pop((topic, partition), None)
        if log is None:
            return False
        log.discard()
        doomed = f"{self.data_dir}/{delete_dir_name(topic, partition)}"
        self._fs.rename(log.directory, doomed)
        self._fs.fsync_dir(self.data_dir)
        self._fs.rmtree(doomed)
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

    def close(self) -> None:
        """Flush and close every log, then leave the clean-shutdown marker."""
        for log in self._logs.values():
            log.close()
        self._logs.clear()
        write_file_atomic(self._fs, f"{self.data_dir}/{CLEAN_SHUTDOWN_FILE}", b"")
