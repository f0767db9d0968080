"""Log compaction (``cleanup.policy`` with ``compact``): keep the last record of every key.

One pass over a log (`clean_steps`), as Kafka's cleaner does it:

1. Range.  The dirty part starts at the first dirty offset (the cleaner checkpoint, at least
   the log start offset) and ends at the first uncleanable offset: the active segment's base
   offset, the partition's first unstable offset (the oldest open transaction) if earlier, or
   earlier still the base of the first dirty segment whose largest timestamp is within
   ``min.compaction.lag.ms`` of now.
2. Worth it?  ``dirty bytes / (clean bytes + dirty bytes) >= min.cleanable.dirty.ratio``, or
   the first dirty batch is older than ``max.compaction.lag.ms``.
3. Offset map: the last offset of every key in the dirty part, bounded like Kafka's
   (``log.cleaner.dedupe.buffer.size`` at 24 bytes per entry, filled up to
   ``log.cleaner.io.buffer.load.factor``; see `odradek.storage.cleaner_config`).  When the
   dirty part holds more keys, the map stops at the first record whose key does not fit,
   and that record's offset ends this pass (the checkpoint): the next pass goes on from there.
4. Groups: the segments below the end are cut into runs of consecutive segments whose
   summed sizes fit ``segment.bytes``, whose summed index sizes fit ``segment.index.bytes``,
   and whose offsets stay within 2^31-1 of the run's base offset (Kafka's grouping); each
   run becomes one cleaned segment named after its first segment.
5. Each run is rewritten batch by batch.  A record stays when it has a key, no later record
   of its key is in the map, and, for a tombstone (null value), its batch's delete horizon
   has not passed.  A batch holding tombstones gets a delete horizon (now +
   ``delete.retention.ms``, in its base timestamp with the delete-horizon attribute, KIP-534)
   the first time it is cleaned.  A batch that keeps every record and needs no horizon is
   copied byte for byte; one that keeps some is rebuilt with the same base offset, last
   offset delta, max timestamp, producer fields, leader epoch and codec, so offsets and
   idempotence state are preserved (gaps are normal); one that keeps none disappears, unless
   it is the last batch of an idempotent producer (`CleaningHints`): like Kafka's cleaner, that
   one stays as an empty batch (no records, same offsets, sequence and producer fields) so
   the producer's state can still be rebuilt from the log.  Transactions
   (`odradek.storage.txn_cleaning`): the batches of aborted transactions are dropped (and never
   count in the offset map); a marker stays while its transaction's data is in the pass, then
   gets a delete horizon and goes once it passed, unless it holds the last epoch of its
   producer; the aborted transactions whose markers stay make the cleaned segment's
   ``.txnindex``.
6. Swap, crash-safe in Kafka's way: the run's ``.log``, ``.index``, ``.timeindex`` (and
   ``.txnindex`` when it has entries) are written as ``<base>.*.cleaned`` and fsynced;
   then, in a second job (each rename and directory fsync is a blocking call that can take
   seconds on a busy disk, so none runs on the caller's thread), the indexes and last the log
   are renamed ``.swap`` (the log's rename is the commit point), the directory is fsynced, the
   old segments' files are renamed ``.deleted`` (deleted after ``file.delete.delay.ms``) and
   fsynced, and the ``.swap`` files take their final names, fsynced.  Meanwhile the old
   segments are reserved (`PartitionLog.begin_replacement`): reads go on from them, retention
   leaves them alone; the cleaned segment replaces them on the caller's thread afterwards.
   `odradek.storage.log_loader` completes or discards what a crash left at any step.

Threads: the pass is a generator (`CleanSteps`).  Whatever it yields is a job, a callable
holding the expensive work (reading the dirty part into the offset map, reading, filtering
and writing a run): it only reads files opened before and writes files created before, and
touches no log state, so the caller may run it on a worker thread while the log keeps taking
appends and reads.  Everything else (choosing the range, opening files, putting the cleaned
segment in the log's list) runs on the caller's thread between jobs.  Before a run is
swapped in, `PartitionLog.holds` checks that retention, DeleteRecords-driven retention or a
topic deletion did not remove its segments meanwhile; if they did, the pass stops and removes
its output.  `run_inline` runs the jobs in place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar, cast

from odradek.storage.cleaner_config import CleanerConfig
from odradek.storage.errors import CorruptSegmentError
from odradek.storage.filesystem import FileHandle, FileSystem
from odradek.storage.index_file import INT32_MAX
from odradek.storage.offset_index import OffsetIndex
from odradek.storage.partition_log import PartitionLog
from odradek.storage.pending_deletions import retire_segments
from odradek.storage.retention import largest_timestamp
from odradek.storage.segment import LogSegment
from odradek.storage.segment_files import (
    CLEANED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    filename_prefix,
)
from odradek.storage.time_index import NO_TIMESTAMP, TimeIndex
from odradek.storage.txn_cleaning import CleanedTransactions, CleaningHints
from odradek.storage.txn_index import AbortedTxn, TransactionIndex
from odradek.wire.records.batch import BATCH_OVERHEAD, BatchHeader, iter_batches, read_header
from odradek.wire.records.builder import (
    ControlRecordType,
    build_batch_like,
    decode_batch,
    parse_control_record,
)
from odradek.wire.records.record import Record

__all__ = ["CleanResult", "CleanSteps", "Job", "clean", "clean_steps", "run_inline"]

_log = logging.getLogger(__name__)
_READ_CHUNK = 8 << 20
_FILE_SUFFIXES = (INDEX_SUFFIX, TIME_INDEX_SUFFIX, LOG_SUFFIX)
"""The files a job writes, in the order of the swap renames: the log last, as its rename commits."""
_SWAPPED_SUFFIXES = (INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, LOG_SUFFIX)
"""Every file a swap may rename (the transaction index exists only when it has entries)."""

T = TypeVar("T")
Job = Callable[[], object]
CleanSteps = Generator[Job, object, "CleanResult | None"]


@dataclass(frozen=True, slots=True)
class CleanResult:
    """What one pass did; ``end_offset`` is the next first dirty offset."""

    end_offset: int
    segments: int
    groups: int
    bytes_before: int
    bytes_after: int
    records_removed: int


@dataclass(frozen=True, slots=True)
class _Source:
    """A segment to read on a worker thread: a handle of its own and its (fixed) size."""

    segment: LogSegment
    handle: FileHandle
    size: int


@dataclass(frozen=True, slots=True)
class _Written:
    size: int
    removed: int


def run_inline(steps: Generator[Job, object, T]) -> T:
    """Drive a pass on the current thread, running each job in place (a job's exception is
    thrown into the pass, which cleans up and re-raises it; anything else closes the pass)."""
    value: object = None
    error: Exception | None = None
    while True:
        try:
            job = steps.send(value) if error is None else steps.throw(error)
        except StopIteration as stop:
            return cast(T, stop.value)
        try:
            value, error = job(), None
        except Exception as exc:
            value, error = None, exc
        except BaseException:
            steps.close()
            raise


def clean(
    fs: FileSystem,
    log: PartitionLog,
    first_dirty: int,
    now_ms: int,
    config: CleanerConfig | None = None,
    hints: CleaningHints | None = None,
) -> CleanResult | None:
    """`clean_steps` run inline."""
    return run_inline(clean_steps(fs, log, first_dirty, now_ms, config or CleanerConfig(), hints or CleaningHints()))


def clean_steps(
    fs: FileSystem,
    log: PartitionLog,
    first_dirty: int,
    now_ms: int,
    config: CleanerConfig,
    hints: CleaningHints | None = None,
) -> CleanSteps:
    """Compact ``log`` once if it is due (see the module docstring); None when it is not or
    when the pass stopped because its segments changed under it."""
    if not log.config.compact:
        return None
    hints = hints or CleaningHints()
    found = _dirty_range(log, first_dirty, now_ms, hints.first_unstable_offset)
    if found is None:
        return None
    first_dirty, uncleanable = found
    sources = [_Source(s, fs.open_read(s.path), s.size) for s in log.segments[:-1] if s.base_offset < uncleanable]
    try:
        mapped = yield partial(
            _offset_map,
            [s for s in sources if s.segment.next_offset > first_dirty],
            first_dirty,
            uncleanable,
            config.max_keys,
            log.aborted_txns(first_dirty, uncleanable),
        )
        latest, end = cast(tuple[dict[bytes, int], int], mapped)
        if not log.holds([source.segment for source in sources]):
            _log_stopped(log)
            return None
        groups = _groups(log, [s for s in sources if s.segment.base_offset < end])
        before = after = removed = 0
        for group in groups:
            written = yield from _clean_group(fs, log, group, latest, now_ms, hints)
            if written is None:
                _log_stopped(log)
                return None
            before += sum(source.size for source in group)
            after += written.size
            removed += written.removed
    finally:
        for source in sources:
            source.handle.close()
    count = sum(len(group) for group in groups)
    _log.info(
        "cleaned %s-%d up to offset %d: %d segment(s) into %d, %d -> %d bytes, %d record(s) removed",
        log.topic,
        log.partition,
        end,
        count,
        len(groups),
        before,
        after,
        removed,
    )
    return CleanResult(end, count, len(groups), before, after, removed)


def _log_stopped(log: PartitionLog) -> None:
    _log.info("cleaning %s-%d stopped: its segments changed during the pass", log.topic, log.partition)


def _dirty_range(
    log: PartitionLog, first_dirty: int, now_ms: int, first_unstable: int | None
) -> tuple[int, int] | None:
    """``(first dirty offset, first uncleanable offset)`` when compaction is due, else None."""
    config = log.config
    segments = log.segments
    first_dirty = max(first_dirty, log.log_start_offset)
    if first_dirty > log.log_end_offset:
        first_dirty = log.log_start_offset
    uncleanable = segments[-1].base_offset
    if first_unstable is not None:
        uncleanable = min(uncleanable, first_unstable)
    dirty_index = len(segments) - 1
    for index, segment in enumerate(segments[:-1]):
        if segments[index + 1].base_offset <= first_dirty:
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
        first_batch = next(dirty[0].batch_headers(), None)
        overdue = first_batch is not None and now_ms - first_batch.max_timestamp > config.max_compaction_lag_ms
    if ratio < config.min_cleanable_dirty_ratio and not overdue:
        return None
    return first_dirty, uncleanable


def _batches(source: _Source) -> Iterator[tuple[BatchHeader, bytes]]:
    """Every batch of a source with its bytes, reading about ``_READ_CHUNK`` at a time."""
    handle, size, position = source.handle, source.size, 0
    while position < size:
        data = handle.pread(min(_READ_CHUNK, size - position), position)
        consumed = 0
        for start, header in iter_batches(data):
            yield header, data[start : start + header.total_size]
            consumed = start + header.total_size
        if consumed == 0:
            header = read_header(handle.pread(BATCH_OVERHEAD, position))
            if header.total_size < BATCH_OVERHEAD or position + header.total_size > size:
                raise CorruptSegmentError(f"{handle.path} has no whole batch at position {position}")
            yield header, handle.pread(header.total_size, position)
            consumed = header.total_size
        position += consumed


def _marker_commits(data: bytes) -> bool | None:
    """Whether a control batch is a COMMIT marker (True), an ABORT marker (False), or neither."""
    records = decode_batch(data)[1]
    if not records:
        return None
    kind = parse_control_record(records[0]).type
    return kind is ControlRecordType.COMMIT if kind in (ControlRecordType.COMMIT, ControlRecordType.ABORT) else None


def _offset_map(
    sources: Sequence[_Source], first_dirty: int, end: int, max_keys: int, aborted: Sequence[AbortedTxn]
) -> tuple[dict[bytes, int], int]:
    """(A job.)  The last offset of every key among the records in ``[first_dirty, end)`` that
    no aborted transaction holds, and the offset the map reached: ``end``, or the first record
    whose key did not fit."""
    latest: dict[bytes, int] = {}
    txns = CleanedTransactions(aborted)
    for source in sources:
        for header, data in _batches(source):
            if header.base_offset >= end:
                return latest, end
            if header.is_control:
                commits = _marker_commits(data) if header.is_transactional else None
                if commits is not None:
                    txns.marker(header, commits)
                continue
            if txns.data_batch(header) or header.last_offset < first_dirty:
                continue
            for record in decode_batch(data)[1]:
                offset = header.base_offset + record.offset_delta
                if record.key is None or not first_dirty <= offset < end:
                    continue
                if record.key not in latest and len(latest) >= max_keys:
                    return latest, offset
                latest[record.key] = offset
    return latest, end


def _groups(log: PartitionLog, sources: list[_Source]) -> list[list[_Source]]:
    """Kafka's grouping of consecutive segments into cleaned segments (module docstring, 4)."""
    config = log.config
    segments = log.segments
    following = {segments[i].base_offset: segments[i + 1].base_offset for i in range(len(segments) - 1)}
    groups: list[list[_Source]] = []
    size = offset_bytes = time_bytes = 0
    for source in sources:
        extra_offset, extra_time = source.segment.index_sizes()
        if (
            groups
            and size + source.size <= config.segment_bytes
            and offset_bytes + extra_offset <= config.segment_index_bytes
            and time_bytes + extra_time <= config.segment_index_bytes
            and following[source.segment.base_offset] - 1 - groups[-1][0].segment.base_offset <= INT32_MAX
        ):
            groups[-1].append(source)
            size, offset_bytes, time_bytes = size + source.size, offset_bytes + extra_offset, time_bytes + extra_time
        else:
            groups.append([source])
            size, offset_bytes, time_bytes = source.size, extra_offset, extra_time
    return groups


def _clean_group(
    fs: FileSystem,
    log: PartitionLog,
    group: list[_Source],
    latest: dict[bytes, int],
    now_ms: int,
    hints: CleaningHints,
) -> Generator[Job, object, _Written | None]:
    """Write one run's cleaned files (a job), then swap them in; None when the run changed."""
    stem = f"{log.directory}/{filename_prefix(group[0].segment.base_offset)}"
    outputs: list[FileHandle] = []
    swapped = False
    try:
        for suffix in _SWAPPED_SUFFIXES:
            if fs.exists(stem + suffix + CLEANED_SUFFIX):
                fs.remove(stem + suffix + CLEANED_SUFFIX)
        for suffix in _FILE_SUFFIXES:
            outputs.append(fs.open_append(stem + suffix + CLEANED_SUFFIX))
        config = log.config
        start, end = group[0].segment.base_offset, group[-1].segment.next_offset
        keep = _Filter(
            latest, now_ms, config.delete_retention_ms, hints, CleanedTransactions(log.aborted_txns(start, end))
        )
        txn_index = TransactionIndex(fs, stem + TXN_INDEX_SUFFIX + CLEANED_SUFFIX, start)
        job = partial(_write_group, group, outputs, keep, txn_index, config.index_interval_bytes, fs)
        written = cast(_Written, (yield job))
        for handle in outputs:
            handle.close()
        old = [source.segment for source in group]
        if not log.holds(old):
            return None
        log.begin_replacement(old)
        try:
            yield partial(_swap_files, fs, log, stem, old)
        except OSError as exc:
            swapped = True  # part way: the next open completes or discards the swap
            raise log.fail_replacement(exc) from exc
        except GeneratorExit:  # the broker is stopping: the log closes next, its next open finishes the swap
            swapped = True
            log.end_replacement()
            raise
        swapped = True
        if not log.holds(old):  # closed meanwhile: the files are a finished swap the next open loads
            log.end_replacement()
            return None
        log.finish_replacement(_open_cleaned(fs, log, stem, old[-1]), now_ms)
        return written
    finally:
        for handle in outputs:
            handle.close()
        if not swapped:
            for suffix in _SWAPPED_SUFFIXES:
                if fs.exists(stem + suffix + CLEANED_SUFFIX):
                    fs.remove(stem + suffix + CLEANED_SUFFIX)


def _swap_files(fs: FileSystem, log: PartitionLog, stem: str, old: list[LogSegment]) -> None:
    """(A job.)  The swap's renames, each step durable before the next (module docstring, 6):
    the cleaned files become ``.swap`` (the log last: the commit point), the old segments'
    files ``.deleted``, and the ``.swap`` files take their final names.  Under the log's
    ``swap_lock``, which its `close` waits for; touches no log state."""
    with log.swap_lock:
        for suffix in _SWAPPED_SUFFIXES:
            if fs.exists(stem + suffix + CLEANED_SUFFIX):
                fs.rename(stem + suffix + CLEANED_SUFFIX, stem + suffix + SWAP_SUFFIX)
        fs.fsync_dir(log.directory)
        retire_segments(fs, log.directory, old)
        for suffix in _SWAPPED_SUFFIXES:
            if fs.exists(stem + suffix + SWAP_SUFFIX):
                fs.rename(stem + suffix + SWAP_SUFFIX, stem + suffix)
        fs.fsync_dir(log.directory)


def _open_cleaned(fs: FileSystem, log: PartitionLog, stem: str, last: LogSegment) -> LogSegment:
    """The cleaned segment, on the files `_swap_files` gave their final names."""
    config = log.config
    return LogSegment(
        fs,
        log.directory,
        int(stem.rsplit("/", 1)[1]),
        index_interval_bytes=config.index_interval_bytes,
        max_index_bytes=config.segment_index_bytes,
        created_ms=last.created_ms,
    )


@dataclass(frozen=True, slots=True)
class _Filter:
    """What decides which records of a batch stay (module docstring, 5)."""

    latest: dict[bytes, int]
    now_ms: int
    delete_retention_ms: int
    hints: CleaningHints
    txns: CleanedTransactions
    """Fed every batch of the run in order (the job's, on its thread)."""


def _write_group(
    group: list[_Source],
    outputs: list[FileHandle],
    keep: _Filter,
    txn_index: TransactionIndex,
    index_interval: int,
    fs: FileSystem,
) -> _Written:
    """(A job.)  Filter the run's batches into the cleaned log, build its indexes with the
    segment's indexing rule (see `odradek.storage.segment`) and its transaction index (the
    aborted transactions whose markers stay), write and fsync them all."""
    index_out, time_out, log_out = outputs
    base = group[0].segment.base_offset
    max_bytes = 1 << 62
    offset_index = OffsetIndex(fs, index_out.path, base, max_bytes, None)
    time_index = TimeIndex(fs, time_out.path, base, max_bytes, None)
    pending = bytearray()
    position = last_indexed = removed = 0
    max_timestamp, offset_of_max = NO_TIMESTAMP, base
    for source in group:
        for header, data in _batches(source):
            kept, gone = _filter_batch(header, data, keep)
            removed += gone
            if kept is None:
                continue
            if header.max_timestamp > max_timestamp:
                max_timestamp, offset_of_max = header.max_timestamp, header.last_offset
            if position - last_indexed > index_interval:
                offset_index.append(header.last_offset, position)
                time_index.maybe_append(max_timestamp, offset_of_max)
                last_indexed = position
            pending += kept
            position += len(kept)
            if len(pending) >= _READ_CHUNK:
                log_out.write(pending)
                pending.clear()
    time_index.maybe_append(max_timestamp, offset_of_max)
    if pending:
        log_out.write(pending)
    index_out.write(offset_index.to_bytes())
    time_out.write(time_index.to_bytes())
    for txn in keep.txns.retained_aborted:
        txn_index.append(txn)
    txn_index.flush()
    for handle in outputs:
        handle.fsync()
    return _Written(position, removed)


def _filter_batch(header: BatchHeader, data: bytes, keep: _Filter) -> tuple[bytes | None, int]:
    """The batch as it should be after cleaning (None: dropped) and how many records went."""
    if header.is_control:
        return _filter_marker(header, data, keep)
    _, records = decode_batch(data)
    horizon = header.base_timestamp if header.has_delete_horizon else None
    aborted = keep.txns.data_batch(header)
    kept: list[Record] = []
    for record in records:
        if aborted or record.key is None:
            continue
        if keep.latest.get(record.key, -1) > header.base_offset + record.offset_delta:
            continue
        if record.value is None and horizon is not None and keep.now_ms >= horizon:
            continue
        kept.append(record)
    removed = len(records) - len(kept)
    needs_horizon = horizon is None and any(record.value is None for record in kept)
    if not kept and header.base_offset not in keep.hints.retained_batches:
        return None, removed
    if removed == 0 and not needs_horizon:
        return data, 0
    return _rebuilt(header, kept, keep, needs_horizon), removed


def _filter_marker(header: BatchHeader, data: bytes, keep: _Filter) -> tuple[bytes | None, int]:
    """A control batch: a transaction marker stays while its transaction is being cleaned; once
    it may go it gets a delete horizon, and goes when that passed (emptied, not removed, when it
    holds its producer's last epoch)."""
    commits = _marker_commits(data) if header.is_transactional else None
    if commits is None or not keep.txns.marker(header, commits):
        return data, 0
    if not header.has_delete_horizon:
        return _rebuilt(header, decode_batch(data)[1], keep, needs_horizon=True), 0
    if keep.now_ms < header.base_timestamp:
        return data, 0
    if (header.producer_id, header.producer_epoch) in keep.hints.retained_markers:
        return _rebuilt(header, [], keep, needs_horizon=False), 1
    return None, 1


def _rebuilt(header: BatchHeader, kept: list[Record], keep: _Filter, needs_horizon: bool) -> bytes:
    """``header``'s batch holding ``kept`` only: same offsets, producer fields, leader epoch and
    codec, the record timestamps kept through a new base (a delete horizon when needed)."""
    base_timestamp = header.base_timestamp if kept else header.max_timestamp
    if needs_horizon:
        base_timestamp = keep.now_ms + keep.delete_retention_ms
    shift = header.base_timestamp - base_timestamp
    return build_batch_like(
        header,
        [Record(r.offset_delta, r.timestamp_delta + shift, r.key, r.value, r.headers, r.attributes) for r in kept],
        base_timestamp=base_timestamp,
        has_delete_horizon=header.has_delete_horizon or needs_horizon,
    )
