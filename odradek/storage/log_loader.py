"""Loading a partition log directory: settle what a crash left, open the segments, recover.

The steps, in order (`load_segments`):

1. Leftovers of deletions and of an interrupted compaction are settled by Kafka's rules:
   every ``*.deleted`` file (a segment whose delayed deletion had not run yet) and every
   ``*.cleaned`` file (unfinished cleaner output) is removed; a ``<base>.log.swap`` file is a
   finished cleaned segment: the segments it replaces (every ``.log`` whose base offset lies
   in ``[base, swap's next offset)``) are removed, its ``.index.swap``/``.timeindex.swap``/
   ``.txnindex.swap`` take their place (the offset and time indexes are rebuilt when missing)
   and it becomes ``<base>.log``.
2. Index files without a ``.log`` are removed (a crash while deleting a segment).
3. After a clean shutdown only the tail of the last segment is checked (see
   `LogSegment.check_tail`); otherwise every segment from the one holding the recovery point
   is recovered batch by batch (CRC included), and when recovery truncates a segment the
   segments after it are removed, as Kafka does.
4. When the checkpointed log start offset lies past the recovered log end (segment files
   lost), every segment is removed and the log restarts empty there.

A segment a compaction left with fewer records than it covered keeps its base offset, so
the swap rule above may leave an old segment that starts after the swap's last record: its
records then reappear once, at their own offsets (never duplicated), and the next cleaning
pass removes them again.  Kafka's loader has the same rule and the same outcome.
"""

from __future__ import annotations

import logging
import posixpath
import uuid
from bisect import bisect_right
from dataclasses import dataclass

from odradek.storage.filesystem import FileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_metadata import read_partition_metadata
from odradek.storage.segment import LogSegment
from odradek.storage.segment_files import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    INDEX_SUFFIXES,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    parse_segment_filename,
)
from odradek.wire.records.batch import BATCH_OVERHEAD, CorruptBatchError, read_header

__all__ = ["LoadedLog", "load_segments"]

_log = logging.getLogger(__name__)


@dataclass(slots=True)
class LoadedLog:
    """What `load_segments` found: the segments (sorted, never empty) and what recovery did."""

    topic_id: uuid.UUID | None
    segments: list[LogSegment]
    log_start_offset: int
    recovered_bytes: int
    recovered_segments: int


def load_segments(
    fs: FileSystem,
    directory: str,
    config: LogConfig,
    now_ms: int,
    *,
    clean_shutdown: bool,
    log_start_offset: int,
    recovery_point: int,
) -> LoadedLog:
    """Open the segments of ``directory`` after settling crash leftovers (module docstring)."""
    topic_id = read_partition_metadata(fs, directory)
    names = _settle_leftovers(fs, directory, fs.listdir(directory))
    _remove_orphan_indexes(fs, directory, names)
    base_offsets = sorted(base for base in map(parse_segment_filename, names) if base is not None)
    segments = [_segment(fs, directory, base, config, now_ms) for base in base_offsets]
    if not segments:
        segments.append(_new_segment(fs, directory, 0, config, now_ms))
    if clean_shutdown:
        recovered, scanned = segments[-1].check_tail(), 0
    else:
        recovered, scanned = _recover_from(segments, recovery_point)
    if log_start_offset > segments[-1].next_offset:
        _log.warning(
            "deleting every segment of %s: its end %d is below the log start offset %d",
            directory,
            segments[-1].next_offset,
            log_start_offset,
        )
        for segment in segments:
            segment.delete()
        segments = [_new_segment(fs, directory, log_start_offset, config, now_ms)]
        fs.fsync_dir(directory)
    return LoadedLog(topic_id, segments, max(log_start_offset, segments[0].base_offset), recovered, scanned)


def _segment(fs: FileSystem, directory: str, base: int, config: LogConfig, now_ms: int) -> LogSegment:
    return LogSegment(
        fs,
        directory,
        base,
        index_interval_bytes=config.index_interval_bytes,
        max_index_bytes=config.segment_index_bytes,
        created_ms=now_ms,
    )


def _new_segment(fs: FileSystem, directory: str, base: int, config: LogConfig, now_ms: int) -> LogSegment:
    return LogSegment.create(
        fs,
        directory,
        base,
        index_interval_bytes=config.index_interval_bytes,
        max_index_bytes=config.segment_index_bytes,
        now_ms=now_ms,
    )


def _settle_leftovers(fs: FileSystem, directory: str, names: list[str]) -> list[str]:
    """Step 1 of the module docstring; returns the directory's names afterwards."""
    changed = False
    swaps: list[str] = []
    for name in names:
        path = f"{directory}/{name}"
        if name.endswith(CLEANED_SUFFIX):
            _log.warning("deleting unfinished cleaner output %s", path)
            fs.remove(path)
            changed = True
        elif name.endswith(DELETED_SUFFIX):
            _log.info("deleting %s, left by a deletion that had not run yet", path)
            fs.remove(path)
            changed = True
        elif parse_segment_filename(name.removesuffix(SWAP_SUFFIX)) is not None and name.endswith(SWAP_SUFFIX):
            swaps.append(path)
    present = set(fs.listdir(directory)) if changed else set(names)
    for swap in swaps:
        _complete_swap(fs, directory, swap, present)
        changed = True
    for name in sorted(present):
        if name.endswith(SWAP_SUFFIX):
            _log.warning("deleting the index swap file %s/%s of no swapped segment", directory, name)
            fs.remove(f"{directory}/{name}")
            changed = True
    if not changed:
        return names
    fs.fsync_dir(directory)
    return fs.listdir(directory)


def _complete_swap(fs: FileSystem, directory: str, swap: str, present: set[str]) -> None:
    """Replace the segments a finished cleaned segment covers by it (``present`` is updated)."""
    stem = swap[: -len(LOG_SUFFIX + SWAP_SUFFIX)]
    base = int(posixpath.basename(stem))
    end = _next_offset(fs, swap, base)
    _log.warning("completing the swap of cleaned segment %s (offsets %d to %d)", swap, base, end - 1)
    for name in sorted(present):
        old = parse_segment_filename(name)
        if old is not None and (old == base or base <= old < end):
            old_stem = f"{directory}/{name[: -len(LOG_SUFFIX)]}"
            for suffix in (LOG_SUFFIX, *INDEX_SUFFIXES):
                if fs.exists(old_stem + suffix):
                    fs.remove(old_stem + suffix)
    for suffix in INDEX_SUFFIXES:
        if fs.exists(stem + suffix + SWAP_SUFFIX):
            fs.rename(stem + suffix + SWAP_SUFFIX, stem + suffix)
        elif fs.exists(stem + suffix):
            fs.remove(stem + suffix)
    fs.rename(swap, stem + LOG_SUFFIX)
    present.clear()
    present.update(fs.listdir(directory))


def _next_offset(fs: FileSystem, path: str, base: int) -> int:
    """One past the last offset of the whole batches of a (fsynced, complete) cleaned file."""
    handle = fs.open_read(path)
    try:
        size, position, next_offset = handle.size(), 0, base
        while size - position >= BATCH_OVERHEAD:
            try:
                header = read_header(handle.pread(BATCH_OVERHEAD, position))
            except CorruptBatchError:
                break
            if header.total_size < BATCH_OVERHEAD or position + header.total_size > size:
                break
            next_offset = header.next_offset
            position += header.total_size
        return next_offset
    finally:
        handle.close()


def _remove_orphan_indexes(fs: FileSystem, directory: str, names: list[str]) -> None:
    """Delete index files whose segment log is gone (a crash while deleting a segment)."""
    present = set(names)
    for name in names:
        stem, dot, suffix = name.partition(".")
        if dot and "." + suffix in INDEX_SUFFIXES and stem + LOG_SUFFIX not in present:
            _log.warning("deleting orphaned index file %s/%s", directory, name)
            fs.remove(f"{directory}/{name}")


def _recover_from(segments: list[LogSegment], recovery_point: int) -> tuple[int, int]:
    """Recover the segments from the one holding ``recovery_point`` on; after the first that
    loses bytes, delete the following ones.  Returns (bytes truncated, segments scanned)."""
    first = max(0, bisect_right([segment.base_offset for segment in segments], recovery_point) - 1)
    for index in range(first, len(segments)):
        segment = segments[index]
        truncated = segment.recover()
        if truncated:
            for later in segments[index + 1 :]:
                later.delete()
            del segments[index + 1 :]
            _log.warning("truncated %d invalid bytes from %s", truncated, segment.path)
            return truncated, index - first + 1
    return 0, len(segments) - first
