"""Log compaction (``cleanup.policy`` with ``compact``): keep the last record of every key.

One pass over a log (`clean`), as Kafka's cleaner does it:

1. Range.  The dirty part starts at the first dirty offset (the cleaner checkpoint, at least
   the log start offset) and ends at the first uncleanable offset: the active segment's base
   offset, or earlier the base of the first dirty segment whose largest timestamp is within
   ``min.compaction.lag.ms`` of now.  Always whole segments.
2. Worth it?  ``dirty bytes / (clean bytes + dirty bytes) >= min.cleanable.dirty.ratio``, or
   the first dirty batch is older than ``max.compaction.lag.ms``.
3. Offset map: the last offset of every key in the dirty part.
4. Every segment below the first uncleanable offset is rewritten, batch by batch.  A record
   stays when it has a key, no later record of its key is in the map, and, for a tombstone
   (null value), its batch's delete horizon has not passed.  A batch holding tombstones gets
   a delete horizon (now + ``delete.retention.ms``, in its base timestamp with the
   delete-horizon attribute, KIP-534) the first time it is cleaned.  A batch that keeps every
   record and needs no horizon is copied byte for byte; one that keeps some is rebuilt with
   the same base offset, last offset delta, max timestamp, producer fields, leader epoch and
   codec, so offsets and idempotence state are preserved (gaps are normal); one that keeps
   none disappears.  Control batches (transaction markers) are always kept.
5. Swap, crash-safe in Kafka's way: the new content is written to ``<base>.log.cleaned`` and
   fsynced, renamed to ``<base>.log.swap`` (the commit point), then renamed over
   ``<base>.log``; `PartitionLog.open` deletes a leftover ``.cleaned`` and completes a
   leftover ``.swap``, so a crash at any step leaves the old or the new segment, never less.

Not done: Kafka merges small cleaned segments into groups and bounds the offset map by
``log.cleaner.dedupe.buffer.size``; aborted transactional records are not removed yet; the
pass runs synchronously.  The first dirty offset returned must be kept by the caller (the
log manager's ``cleaner-offset-checkpoint``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

from odradek.storage.filesystem import FileSystem
from odradek.storage.partition_log import PartitionLog
from odradek.storage.retention import largest_timestamp
from odradek.storage.segment import CLEANED_SUFFIX, INDEX_SUFFIX, LOG_SUFFIX, SWAP_SUFFIX, TIME_INDEX_SUFFIX, LogSegment
from odradek.wire.records.batch import BatchHeader, iter_batches
from odradek.wire.records.builder import build_batch, decode_batch
from odradek.wire.records.record import Record

__all__ = ["CleanResult", "clean"]

_log = logging.getLogger(__name__)
_READ_CHUNK = 8 << 20


@dataclass(frozen=True, slots=True)
class CleanResult:
    """What one pass did; ``end_offset`` is the next first dirty offset."""

    end_offset: int
    segments: int
    bytes_before: int
    bytes_after: int
    records_removed: int


def _batches(segment: LogSegment) -> Iterator[tuple[BatchHeader, bytes]]:
    """Every batch of a closed segment with its bytes, reading about ``_READ_CHUNK`` at a time."""
    region = segment.read(segment.base_offset, _READ_CHUNK) if segment.size else None
    while region is not None:
        data = region.read()
        last: BatchHeader | None = None
        for position, header in iter_batches(data):
            yield header, data[position : position + header.total_size]
            last = header
        if last is None:
            return
        region = segment.read(last.next_offset, _READ_CHUNK)


def _dirty_range(log: PartitionLog, first_dirty: int, now_ms: int) -> tuple[int, int, int] | None:
    """``(first dirty offset, first uncleanable offset, index of the first dirty segment)``
    when compaction is due, else None."""
    config = log.config
    segments = log.segments
    first_dirty = max(first_dirty, log.log_start_offset)
    if first_dirty > log.log_end_offset:
        first_dirty = log.log_start_offset
    uncleanable = segments[-1].base_offset
    dirty_index = len(segments) - 1
    for index, segment in enumerate(segments[:-1]):
        following = segments[index + 1].base_offset
        if following <= first_dirty:
            continue
        dirty_index = min(dirty_index, index)
        if config.min_compaction_lag_ms > 0 and largest_timestamp(segment) > now_ms - config.min_compaction_lag_ms:
            uncleanable = segment.base_offset
            break
    if first_dirty >= uncleanable or dirty_index == len(segments) - 1:
        return None
    clean_bytes = sum(s.size for s in segments[:dirty_index])
    dirty = [s for s in segments[dirty_index:] if s.base_offset < uncleanable]
    dirty_bytes = sum(s.size for s in dirty)
    if dirty_bytes == 0:
        return None
    ratio = dirty_bytes / (clean_bytes + dirty_bytes)
    overdue = False
    if config.max_compaction_lag_ms < 2**63 - 1:
        first_batch = next(_batches(dirty[0]), None)
        overdue = first_batch is not None and now_ms - first_batch[0].max_timestamp > config.max_compaction_lag_ms
    if ratio < config.min_cleanable_dirty_ratio and not overdue:
        return None
    return first_dirty, uncleanable, dirty_index


def _offset_map(log: PartitionLog, first_dirty: int, end: int, dirty_index: int) -> dict[bytes, int]:
    """The last offset of every key among the records in ``[first_dirty, end)``."""
    latest: dict[bytes, int] = {}
    for segment in log.segments[dirty_index:]:
        if segment.base_offset >= end:
            break
        for header, data in _batches(segment):
            if header.is_control or header.last_offset < first_dirty:
                continue
            _, records = decode_batch(data)
            for record in records:
                offset = header.base_offset + record.offset_delta
                if record.key is not None and first_dirty <= offset < end:
                    latest[record.key] = offset
    return latest


def _filter_batch(
    header: BatchHeader, data: bytes, latest: dict[bytes, int], now_ms: int, delete_retention_ms: int
) -> tuple[bytes | None, int]:
    """The batch as it should be after cleaning (None: dropped) and how many records went."""
    if header.is_control:
        return data, 0
    _, records = decode_batch(data)
    horizon = header.base_timestamp if header.has_delete_horizon else None
    kept: list[Record] = []
    for record in records:
        if record.key is None:
            continue
        if latest.get(record.key, -1) > header.base_offset + record.offset_delta:
            continue
        if record.value is None and horizon is not None and now_ms >= horizon:
            continue
        kept.append(record)
    removed = len(records) - len(kept)
    needs_horizon = horizon is None and any(record.value is None for record in kept)
    if not kept:
        return None, removed
    if removed == 0 and not needs_horizon:
        return data, 0
    base_timestamp = header.base_timestamp
    if needs_horizon:
        base_timestamp = now_ms + delete_retention_ms
    shift = header.base_timestamp - base_timestamp
    rebuilt = build_batch(
        [Record(r.offset_delta, r.timestamp_delta + shift, r.key, r.value, r.headers, r.attributes) for r in kept],
        base_offset=header.base_offset,
        compression=header.compression,
        producer_id=header.producer_id,
        producer_epoch=header.producer_epoch,
        base_sequence=header.base_sequence,
        is_transactional=header.is_transactional,
        partition_leader_epoch=header.partition_leader_epoch,
        base_timestamp=base_timestamp,
        timestamp_type=header.timestamp_type,
        has_delete_horizon=header.has_delete_horizon or needs_horizon,
        last_offset_delta=header.last_offset_delta,
        max_timestamp=header.max_timestamp,
    )
    return rebuilt, removed


def _write_cleaned(fs: FileSystem, segment: LogSegment, batches: Iterator[bytes]) -> int:
    """Write the cleaned content next to the segment and fsync it; return its size."""
    path = segment.path + CLEANED_SUFFIX
    if fs.exists(path):
        fs.remove(path)
    handle = fs.open_append(path)
    try:
        pending = bytearray()
        for data in batches:
            pending += data
            if len(pending) >= _READ_CHUNK:
                handle.write(pending)
                pending.clear()
        if pending:
            handle.write(pending)
        handle.fsync()
        return handle.size()
    finally:
        handle.close()


def _swap(fs: FileSystem, log: PartitionLog, segment: LogSegment) -> LogSegment:
    """Commit the cleaned file, replace the segment with it and rebuild its indexes."""
    stem = segment.path[: -len(LOG_SUFFIX)]
    swap = segment.path + SWAP_SUFFIX
    fs.rename(segment.path + CLEANED_SUFFIX, swap)
    fs.fsync_dir(log.directory)
    for suffix in (INDEX_SUFFIX, TIME_INDEX_SUFFIX):
        if fs.exists(stem + suffix):
            fs.remove(stem + suffix)
    fs.rename(swap, segment.path)
    fs.fsync_dir(log.directory)
    config = log.config
    cleaned = LogSegment(
        fs,
        log.directory,
        segment.base_offset,
        index_interval_bytes=config.index_interval_bytes,
        max_index_bytes=config.segment_index_bytes,
        created_ms=segment.created_ms,
    )
    cleaned.recover()
    cleaned.flush()
    log.replace_segment(cleaned)
    return cleaned


def clean(fs: FileSystem, log: PartitionLog, first_dirty: int, now_ms: int) -> CleanResult | None:
    """Compact ``log`` once if it is due (see the module docstring); None when it is not."""
    if not log.config.compact:
        return None
    found = _dirty_range(log, first_dirty, now_ms)
    if found is None:
        return None
    first_dirty, end, dirty_index = found
    latest = _offset_map(log, first_dirty, end, dirty_index)
    retention = log.config.delete_retention_ms
    segments = [s for s in log.segments[:-1] if s.base_offset < end]
    before = after = removed = 0
    for segment in segments:
        counts = [0]

        def cleaned(segment: LogSegment = segment, counts: list[int] = counts) -> Iterator[bytes]:
            for header, data in _batches(segment):
                kept, gone = _filter_batch(header, data, latest, now_ms, retention)
                counts[0] += gone
                if kept is not None:
                    yield kept

        before += segment.size
        _write_cleaned(fs, segment, cleaned())
        removed += counts[0]
        after += _swap(fs, log, segment).size
    _log.info(
        "cleaned %s-%d up to offset %d: %d segment(s), %d -> %d bytes, %d record(s) removed",
        log.topic,
        log.partition,
        end,
        len(segments),
        before,
        after,
        removed,
    )
    return CleanResult(end, len(segments), before, after, removed)
