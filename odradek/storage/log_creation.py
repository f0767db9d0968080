"""The files of a new partition log: its directory ``<topic>-<partition>/``, its
``partition.metadata`` (``version: 0\\ntopic_id: <base64url id>``) and its first segment (``.log``,
``.index``, ``.timeindex``), as Kafka lays them out; and how a creation made without fsyncs
becomes durable later.

Creating a topic of thousands of partitions in one request cannot fsync each one on the event
loop, so a creation may skip the fsyncs (``durable=False``) and `sync_log_directory` makes it
durable afterwards, on a worker: the metadata file, the log directory's entries and (unless the
caller fsyncs it once for many logs) the data directory's entry for the log.
"""

from __future__ import annotations

import posixpath
import uuid

from odradek.storage.filesystem import FileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_metadata import PARTITION_METADATA_FILE, write_partition_metadata
from odradek.storage.segment import LogSegment

__all__ = ["create_log_directory", "sync_log_directory"]


def create_log_directory(
    fs: FileSystem, directory: str, topic_id: uuid.UUID, config: LogConfig, now_ms: int, *, durable: bool
) -> LogSegment:
    """Make ``directory`` with its partition.metadata and an empty first segment (fsynced with
    ``durable``); returns the segment."""
    fs.makedirs(directory)
    write_partition_metadata(fs, directory, topic_id, durable=durable)
    segment = LogSegment.create(
        fs,
        directory,
        0,
        index_interval_bytes=config.index_interval_bytes,
        max_index_bytes=config.segment_index_bytes,
        now_ms=now_ms,
    )
    if durable:
        fs.fsync_dir(directory)
    return segment


def sync_log_directory(fs: FileSystem, directory: str, *, parent: bool) -> None:
    """Make a creation made without fsyncs durable (safe on a worker thread, and to repeat)."""
    handle = fs.open_append(f"{directory}/{PARTITION_METADATA_FILE}")
    try:
        handle.fsync()
    finally:
        handle.close()
    fs.fsync_dir(directory)
    if parent:
        fs.fsync_dir(posixpath.dirname(directory))
