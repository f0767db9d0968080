"""The log of one topic-partition: the directory ``<topic>-<partition>/`` and its segments.

Directory content, as Kafka lays it out: segments (``<base offset>.log``, ``.index``,
``.timeindex``) and ``partition.metadata`` (``version: 0\\ntopic_id: <base64url id>``).

Append (the produce hot path) is all-or-nothing and costs one write: every batch of the
buffer is verified (header and CRC32C, records never decoded), then the base offsets and
leader epochs are patched in place (and the log append time, when the topic uses it), then
the whole buffer goes to the active segment in a single write.  The segment rolls first
when the buffer would push it past ``segment.bytes``, when it is older than ``segment.ms``,
when an index is full, or when an offset would leave the int32 range of its base offset.

Opening: after a clean shutdown only the tail of the last segment is checked (see
`LogSegment.check_tail`); otherwise every segment is recovered from its first byte, and
when recovery truncates a segment, the segments after it are deleted, as Kafka does.

Invariants:
- segments are sorted by base offset, the last one is active (the only one appended to);
- log start offset <= high watermark == log end offset (a single replica: no follower lags);
- append listeners run after the data is written; an exception in one is logged and does
  not undo the append.

Not thread-safe: one thread (the event loop) uses a log; `flush` may be slow (fsync).
"""

from __future__ import annotations

import base64
import binascii
import logging
import uuid
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from odradek.clock import Clock
from odradek.storage.errors import OffsetOutOfRange, RecordBatchTooLarge, StorageError
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic
from odradek.storage.index_file import INT32_MAX
from odradek.storage.log_config import LogConfig
from odradek.storage.region import FileRegion
from odradek.storage.segment import AppendedBatch, LogSegment, TimestampOffset, parse_segment_filename
from odradek.storage.time_index import NO_TIMESTAMP
from odradek.wire.records.batch import (
    BatchHeader,
    CorruptBatchError,
    set_base_offset,
    set_log_append_time,
    set_partition_leader_epoch,
    verify_batch,
)

__all__ = [
    "PARTITION_METADATA_FILE",
    "AppendInfo",
    "AppendListener",
    "PartitionLog",
    "decode_topic_id",
    "encode_topic_id",
]

PARTITION_METADATA_FILE = "partition.metadata"

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AppendInfo:
    """The outcome of an append; ``log_append_time_ms`` is -1 unless log append time was used."""

    base_offset: int
    last_offset: int
    log_append_time_ms: int
    log_start_offset: int


AppendListener = Callable[["PartitionLog", AppendInfo], None]


def encode_topic_id(topic_id: uuid.UUID) -> str:
    """Kafka's text form of a topic id: URL-safe base64 of the 16 bytes, without padding."""
    return base64.urlsafe_b64encode(topic_id.bytes).rstrip(b"=").decode("ascii")


def decode_topic_id(text: str) -> uuid.UUID:
    """The inverse of `encode_topic_id`; raises `ValueError` on anything else."""
    try:
        raw = base64.urlsafe_b64decode(text + "==")
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"invalid topic id {text!r}") from exc
    if len(raw) != 16 or len(text) != 22:
        raise ValueError(f"invalid topic id {text!r}")
    return uuid.UUID(bytes=raw)


def _write_partition_metadata(fs: FileSystem, directory: str, topic_id: uuid.UUID) -> None:
    content = f"version: 0\ntopic_id: {encode_topic_id(topic_id)}"
    write_file_atomic(fs, f"{directory}/{PARTITION_METADATA_FILE}", content.encode("utf-8"))


def _read_partition_metadata(fs: FileSystem, directory: str) -> uuid.UUID | None:
    path = f"{directory}/{PARTITION_METADATA_FILE}"
    if not fs.exists(path):
        return None
    fields = {}
    for line in read_file(fs, path).decode("utf-8", "replace").splitlines():
        name, colon, value = line.partition(":")
        if colon:
            fields[name.strip()] = value.strip()
    if fields.get("version") != "0" or "topic_id" not in fields:
        raise StorageError(f"{path} is not a version 0 partition metadata file")
    try:
        return decode_topic_id(fields["topic_id"])
    except ValueError as exc:
        raise StorageError(f"{path}: {exc}") from exc


class PartitionLog:
    """The segments of one partition, appended to at the end and read anywhere."""

    def __init__(
        self,
        fs: FileSystem,
        directory: str,
        topic: str,
        partition: int,
        topic_id: uuid.UUID | None,
        config: LogConfig,
        segments: list[LogSegment],
        listeners: list[AppendListener] | None,
    ) -> None:
        self._fs = fs
        self.directory = directory
        self.topic = topic
        self.partition = partition
        self.topic_id = topic_id
        self._config = config
        self._segments = segments
        self._base_offsets = [segment.base_offset for segment in segments]
        self._log_start_offset = segments[0].base_offset
        self._log_end_offset = segments[-1].next_offset
        self.listeners: list[AppendListener] = listeners if listeners is not None else []
        """Called after every append; the list may be shared by every log of a broker."""
        self.recovered_bytes = 0
        """Bytes recovery truncated when the log was opened."""

    @classmethod
    def create(
        cls,
        fs: FileSystem,
        directory: str,
        topic: str,
        partition: int,
        topic_id: uuid.UUID,
        config: LogConfig,
        clock: Clock,
        *,
        listeners: list[AppendListener] | None = None,
    ) -> PartitionLog:
        """A new empty log in a new directory, with its partition.metadata."""
        fs.makedirs(directory)
        _write_partition_metadata(fs, directory, topic_id)
        segment = LogSegment.create(
            fs,
            directory,
            0,
            index_interval_bytes=config.index_interval_bytes,
            max_index_bytes=config.segment_index_bytes,
            now_ms=clock.time_ms(),
        )
        fs.fsync_dir(directory)
        return cls(fs, directory, topic, partition, topic_id, config, [segment], listeners)

    @classmethod
    def open(
        cls,
        fs: FileSystem,
        directory: str,
        topic: str,
        partition: int,
        config: LogConfig,
        clock: Clock,
        *,
        clean_shutdown: bool,
        listeners: list[AppendListener] | None = None,
    ) -> PartitionLog:
        """Load an existing log directory, recovering what a crash may have left behind."""
        topic_id = _read_partition_metadata(fs, directory)
        now_ms = clock.time_ms()
        base_offsets = sorted(base for base in map(parse_segment_filename, fs.listdir(directory)) if base is not None)
        segments = [
            LogSegment(
                fs,
                directory,
                base,
                index_interval_bytes=config.index_interval_bytes,
                max_index_bytes=config.segment_index_bytes,
                created_ms=now_ms,
            )
            for base in base_offsets
        ]
        if not segments:
            segments.append(
                LogSegment.create(
                    fs,
                    directory,
                    0,
                    index_interval_bytes=config.index_interval_bytes,
                    max_index_bytes=config.segment_index_bytes,
                    now_ms=now_ms,
                )
            )
        recovered = segments[-1].check_tail() if clean_shutdown else _recover_all(segments)
        log = cls(fs, directory, topic, partition, topic_id, config, segments, listeners)
        log.recovered_bytes = recovered
        return log

    @property
    def config(self) -> LogConfig:
        return self._config

    def update_config(self, config: LogConfig) -> None:
        """New settings; index settings apply to segments created from now on."""
        self._config = config

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self._log_end_offset

    @property
    def high_watermark(self) -> int:
        return self._log_end_offset

    @property
    def size_bytes(self) -> int:
        return sum(segment.size for segment in self._segments)

    @property
    def segments(self) -> tuple[LogSegment, ...]:
        return tuple(self._segments)

    def batch_headers(self) -> Iterator[BatchHeader]:
        """Every batch header from the log start to the end, without reading any records."""
        for segment in list(self._segments):
            yield from segment.batch_headers()

    def append(
        self,
        records: bytearray | memoryview,
        *,
        leader_epoch: int,
        now_ms: int,
        log_append_time: bool = False,
    ) -> AppendInfo:
        """Verify, assign offsets to and write the batches of ``records`` (patched in place).

        ``log_append_time`` forces log append time; the topic's ``message.timestamp.type``
        can also ask for it.  Raises `CorruptBatchError` (nothing written) when any batch is
        invalid or ``records`` is empty, `RecordBatchTooLarge` when ``records`` exceeds
        ``segment.bytes``.
        """
        size = len(records)
        headers: list[BatchHeader] = []
        position = 0
        while position < size:
            header = verify_batch(records, position)
            headers.append(header)
            position += header.total_size
        if not headers:
            raise CorruptBatchError("no record batch to append")
        if size > self._config.segment_bytes:
            raise RecordBatchTooLarge(f"{size} bytes of batches exceed the segment size {self._config.segment_bytes}")
        append_time = now_ms if log_append_time or self._config.log_append_time else NO_TIMESTAMP
        first_offset = offset = self._log_end_offset
        batches: list[AppendedBatch] = []
        max_timestamp = NO_TIMESTAMP
        position = 0
        for header in headers:
            set_base_offset(records, position, offset)
            set_partition_leader_epoch(records, position, leader_epoch)
            if append_time != NO_TIMESTAMP:
                set_log_append_time(records, position, append_time)
                batch_max_timestamp = append_time
            else:
                batch_max_timestamp = header.max_timestamp
            last_offset = offset + header.last_offset_delta
            batches.append(AppendedBatch(position, last_offset, batch_max_timestamp))
            max_timestamp = max(max_timestamp, batch_max_timestamp)
            offset = last_offset + 1
            position += header.total_size
        segment = self._maybe_roll(size, max_timestamp, offset - 1, now_ms)
        segment.append(records, batches)
        self._log_end_offset = offset
        info = AppendInfo(first_offset, offset - 1, append_time, self._log_start_offset)
        for listener in self.listeners:
            try:
                listener(self, info)
            except Exception:
                _log.exception("append listener failed for %s-%d", self.topic, self.partition)
        return info

    def _maybe_roll(self, size: int, max_timestamp: int, last_offset: int, now_ms: int) -> LogSegment:
        segment = self._segments[-1]
        config = self._config
        if segment.size > 0 and (
            segment.size > config.segment_bytes - size
            or segment.time_waited_for_roll(now_ms, max_timestamp) > config.segment_ms
            or segment.indexes_full
            or last_offset - segment.base_offset > INT32_MAX
        ):
            segment.on_roll()
            segment = LogSegment.create(
                self._fs,
                self.directory,
                self._log_end_offset,
                index_interval_bytes=config.index_interval_bytes,
                max_index_bytes=config.segment_index_bytes,
                now_ms=now_ms,
            )
            self._fs.fsync_dir(self.directory)
            self._segments.append(segment)
            self._base_offsets.append(segment.base_offset)
        return segment

    def read(self, offset: int, max_bytes: int, *, min_one_batch: bool = True) -> FileRegion | None:
        """Whole batches from the one holding ``offset``, within one segment.

        At most ``max_bytes``, except that the first batch is returned whole even when larger
        if ``min_one_batch`` (Kafka's rule for the first partition of a fetch); without it an
        oversized first batch gives None.  None at the log end offset.  Raises
        `OffsetOutOfRange` below the log start offset or above the log end offset.
        """
        if offset < self._log_start_offset or offset > self._log_end_offset:
            raise OffsetOutOfRange(offset, self._log_start_offset, self._log_end_offset)
        if offset == self._log_end_offset:
            return None
        segments = self._segments
        for index in range(max(bisect_right(self._base_offsets, offset) - 1, 0), len(segments)):
            region = segments[index].read(offset, max_bytes)
            if region is not None:
                return region if region.length <= max_bytes or min_one_batch else None
        return None

    def offset_for_timestamp(self, timestamp: int) -> TimestampOffset | None:
        """The first record (from the log start) whose timestamp is >= ``timestamp``, if any."""
        for segment in self._segments:
            if segment.max_timestamp()[0] >= timestamp:
                return segment.find_offset_by_timestamp(timestamp, self._log_start_offset)
        return None

    def max_timestamp(self) -> TimestampOffset | None:
        """The first record carrying the largest timestamp of the log (ListOffsets MAX_TIMESTAMP)."""
        if self._log_end_offset == self._log_start_offset:
            return None
        segment = max(self._segments, key=lambda s: s.max_timestamp()[0])
        return segment.find_max_timestamp()

    def flush(self) -> None:
        """Make every appended byte durable."""
        for segment in self._segments:
            segment.flush()

    def close(self) -> None:
        """Flush and close every segment; the log must not be used afterwards."""
        for segment in self._segments:
            segment.close()

    def discard(self) -> None:
        """Close every segment file without flushing: the caller is about to delete the log."""
        for segment in self._segments:
            segment.close_without_flush()


def _recover_all(segments: list[LogSegment]) -> int:
    """Recover every segment; after the first that loses bytes, delete the following ones."""
    for index, segment in enumerate(segments):
        truncated = segment.recover()
        if truncated:
            for later in segments[index + 1 :]:
                later.delete()
            del segments[index + 1 :]
            _log.warning("truncated %d invalid bytes from %s", truncated, segment.path)
            return truncated
    return 0
