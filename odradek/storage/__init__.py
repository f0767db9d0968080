"""Partition logs in Apache Kafka's on-disk layout: segments, sparse indexes, recovery, log manager.

Imports only `odradek.wire.records` and `odradek.clock`; speaks offsets, batch bytes and file
regions, never request or response classes.
"""

from odradek.storage.errors import (
    CorruptSegmentError,
    InconsistentTopicId,
    OffsetOutOfRange,
    RecordBatchTooLarge,
    StorageError,
)
from odradek.storage.filesystem import FileHandle, FileSystem, MemoryFileSystem, OsFileSystem
from odradek.storage.log_config import LogConfig, TimestampType
from odradek.storage.log_manager import LogManager, StoredPartition
from odradek.storage.log_observer import AppendInfo, LogObserver
from odradek.storage.partition_log import AppendListener, PartitionLog
from odradek.storage.region import FileRegion
from odradek.storage.segment import TimestampOffset

__all__ = [
    "AppendInfo",
    "AppendListener",
    "CorruptSegmentError",
    "FileHandle",
    "FileRegion",
    "FileSystem",
    "InconsistentTopicId",
    "LogConfig",
    "LogManager",
    "LogObserver",
    "MemoryFileSystem",
    "OffsetOutOfRange",
    "OsFileSystem",
    "PartitionLog",
    "RecordBatchTooLarge",
    "StorageError",
    "StoredPartition",
    "TimestampOffset",
    "TimestampType",
]
