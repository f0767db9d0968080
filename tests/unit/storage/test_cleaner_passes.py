"""Kafka's cleaner shape: small segments merged into one cleaned segment within segment.bytes,
the index size and the 32-bit relative offsets; a bounded offset map cleaning up to the last
key that fit; a pass whose expensive jobs run apart while the log keeps serving, and that
stops cleanly when retention or a topic deletion changes its segments meanwhile."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.checkpoint import CLEANER_OFFSET_CHECKPOINT, read_offset_checkpoint
from odradek.storage.cleaner import Job, clean, clean_steps, run_inline
from odradek.storage.cleaner_config import BYTES_PER_ENTRY, CleanerConfig
from odradek.storage.filesystem import write_file_atomic
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.storage.segment_files import filename_prefix
from odradek.storage.txn_cleaning import CleaningHints
from odradek.wire.records.batch import set_base_offset
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.unit.storage.log_rows import keyed_rows

TOPIC_ID = uuid.UUID(int=0xC1EA)


def _config(**overrides: Any) -> LogConfig:
    settings: dict[str, Any] = {
        "segment_bytes": 10_000,
        "cleanup_policy": frozenset({"compact"}),
        "min_cleanable_dirty_ratio": 0.0,
        "index_interval_bytes": 1,
    }
    settings.update(overrides)
    return LogConfig(**settings)


def _batch(key: str, value: str | None) -> bytearray:
    record = Record(0, 0, key.encode(), None if value is None else value.encode())
    return bytearray(build_batch([record], base_timestamp=1_000))


def _log(backend: Any, config: LogConfig, name: str = "c") -> PartitionLog:
    return PartitionLog.create(backend.fs, f"{backend.root}/{name}-0", name, 0, TOPIC_ID, config, ManualClock(0))


def _fill(log: PartitionLog, pairs: list[tuple[str, str | None]], per_segment: int) -> None:
    """Append one record per batch, rolling after every ``per_segment`` records."""
    for i, (key, value) in enumerate(pairs, 1):
        log.append(_batch(key, value), leader_epoch=0, now_ms=1_000)
        if i % per_segment == 0:
            log.roll(1_000)


def _pairs(count: int, keys: int) -> list[tuple[str, str | None]]:
    return [(f"k{i % keys}", f"v{i:02d}") for i in range(count)]


def test_small_segments_are_merged_while_the_group_fits_segment_bytes(backend: Any) -> None:
    log = _log(backend, _config())
    _fill(log, _pairs(40, 4), per_segment=2)
    segment_size = log.segments[0].size
    log.update_config(_config(segment_bytes=segment_size * 5))
    before = [s.base_offset for s in log.segments]
    result = clean(backend.fs, log, 0, 10_000)
    assert result is not None
    assert (result.segments, result.groups) == (20, 4), "five segments of equal size per group"
    assert [s.base_offset for s in log.segments] == [0, 10, 20, 30, 40] == before[::5]
    assert keyed_rows(log) == [(36, "k0", "v36"), (37, "k1", "v37"), (38, "k2", "v38"), (39, "k3", "v39")]
    merged = [f for f in backend.fs.listdir(f"{backend.root}/c-0") if f.endswith(".log")]
    assert len(merged) == 5
    log.close()
    reopened = PartitionLog.open(
        backend.fs, f"{backend.root}/c-0", "c", 0, _config(), ManualClock(0), clean_shutdown=True
    )
    assert keyed_rows(reopened)[-1] == (39, "k3", "v39")
    assert reopened.read(10, 1 << 20) is not None, "the merged segment's index finds an offset inside it"
    reopened.close()


def test_groups_respect_the_index_size(backend: Any) -> None:
    log = _log(backend, _config())
    _fill(log, _pairs(12, 12), per_segment=3)
    offset_index_bytes, _ = log.segments[0].index_sizes()
    assert offset_index_bytes == 16, "entries for the 2nd and 3rd batch of each segment"
    log.update_config(_config(segment_index_bytes=2 * offset_index_bytes + 4 + 24))
    result = clean(backend.fs, log, 0, 10_000)
    assert result is not None
    assert (result.segments, result.groups) == (4, 2)
    assert len(keyed_rows(log)) == 12
    log.close()


def test_groups_keep_offsets_within_32_bits_of_their_base(backend: Any) -> None:
    directory = f"{backend.root}/c-0"
    log = _log(backend, _config())
    log.append(_batch("a", "1"), leader_epoch=0, now_ms=1_000)
    log.close()
    far = 2**31 + 5
    for base, key in ((far, "b"), (far + 1, "c")):
        data = _batch(key, "1")
        set_base_offset(data, 0, base)
        write_file_atomic(backend.fs, f"{directory}/{filename_prefix(base)}.log", bytes(data))
    log = PartitionLog.open(backend.fs, directory, "c", 0, _config(), ManualClock(0), clean_shutdown=False)
    assert [s.base_offset for s in log.segments] == [0, far, far + 1]
    result = clean(backend.fs, log, 0, 10_000)
    assert result is not None
    assert (result.segments, result.groups) == (2, 2), "offset 2^31+4 is too far from base 0"
    assert [row[0] for row in keyed_rows(log)] == [0, far, far + 1]
    log.close()


def test_a_full_offset_map_cleans_up_to_the_last_key_that_fit_and_the_next_pass_goes_on(backend: Any) -> None:
    three_keys = CleanerConfig(dedupe_buffer_size=BYTES_PER_ENTRY * 4, load_factor=0.75)
    assert three_keys.max_keys == 3
    assert CleanerConfig().max_keys == 5_033_164, "Kafka's 128 MiB at 24 bytes per entry, 90% full"
    log = _log(backend, _config())
    pairs: list[tuple[str, str | None]] = [("a", "1"), ("b", "1"), ("a", "2"), ("c", "1"), ("d", "1")]
    pairs += [("a", "3"), ("d", "2"), ("e", "1"), ("b", "2"), ("f", "1")]
    _fill(log, pairs, per_segment=2)
    first = clean(backend.fs, log, 0, 10_000, three_keys)
    assert first is not None
    assert first.end_offset == 4, "key d (offset 4) is the fourth key: the map stops before it"
    assert keyed_rows(log)[:4] == [(1, "b", "1"), (2, "a", "2"), (3, "c", "1"), (4, "d", "1")]
    second = clean(backend.fs, log, first.end_offset, 10_000, three_keys)
    assert second is not None
    assert second.end_offset == 8, "d, a, e fill the map; b (offset 8) does not fit"
    third = clean(backend.fs, log, second.end_offset, 10_000, three_keys)
    assert third is not None and third.end_offset == log.segments[-1].base_offset == 10
    assert keyed_rows(log) == [(3, "c", "1"), (5, "a", "3"), (6, "d", "2"), (7, "e", "1"), (8, "b", "2"), (9, "f", "1")]
    log.close()


def _start(backend: Any, log: PartitionLog) -> tuple[Any, Job]:
    steps = clean_steps(backend.fs, log, 0, 10_000, CleanerConfig())
    return steps, next(steps)


def test_the_log_serves_appends_and_reads_between_the_jobs_of_a_pass(backend: Any) -> None:
    log = _log(backend, _config())
    _fill(log, _pairs(20, 3), per_segment=2)
    region = log.read(0, 1 << 20)
    assert region is not None
    content = region.read()
    steps, job = _start(backend, log)
    value = job()
    log.append(_batch("k0", "late"), leader_epoch=0, now_ms=1_000)
    assert keyed_rows(log)[0] == (0, "k0", "v00"), "reads still see the old segments"
    job = steps.send(value)
    log.roll(1_000)
    log.append(_batch("k1", "later"), leader_epoch=0, now_ms=1_000)
    try:
        while True:
            job = steps.send(job())
    except StopIteration as stop:
        result = stop.value
    assert result is not None and result.end_offset == 20
    rows = keyed_rows(log)
    assert rows[-2:] == [(20, "k0", "late"), (21, "k1", "later")]
    assert {key for _, key, _ in rows[:-2]} == {"k0", "k1", "k2"}
    assert len(log.deletions) == 10
    assert region.read() == content, "a region read before the swap stays readable"
    log.close()


@pytest.mark.parametrize("during", ["offset map", "write"])
def test_retention_during_a_pass_makes_it_stop_and_remove_its_output(backend: Any, during: str) -> None:
    log = _log(backend, _config(cleanup_policy=frozenset({"compact", "delete"})))
    _fill(log, _pairs(20, 3), per_segment=2)
    steps, job = _start(backend, log)
    value = job()
    if during == "write":
        value = steps.send(value)()
    assert log.delete_oldest_segments(2, 10_000) == 2
    rows = keyed_rows(log)
    try:
        steps.send(value)
    except StopIteration as stop:
        assert stop.value is None
    else:
        raise AssertionError("the pass went on with segments retention removed")
    assert keyed_rows(log) == rows
    names = backend.fs.listdir(f"{backend.root}/c-0")
    assert not [n for n in names if n.endswith((".cleaned", ".swap"))]
    log.close()


def test_a_topic_deleted_during_a_pass_stops_it_without_error(backend: Any) -> None:
    clock = ManualClock(10_000)
    manager = LogManager.open(backend.fs, backend.root, clock)
    log = manager.create_partition("c", 0, TOPIC_ID, _config())
    _fill(log, _pairs(20, 3), per_segment=2)
    steps = manager.cleaning("c", 0)
    job = next(steps)
    value = job()
    write_job = steps.send(value)
    written = write_job()
    assert manager.delete_topic("c") == 1
    try:
        steps.send(written)
    except StopIteration as stop:
        assert stop.value is False
    assert not backend.fs.exists(f"{backend.root}/c-0")
    assert read_offset_checkpoint(backend.fs, f"{backend.root}/{CLEANER_OFFSET_CHECKPOINT}") == {}
    assert manager.clean_logs() == 0
    manager.close()


def test_a_failing_job_is_thrown_into_the_pass_which_removes_its_output(backend: Any) -> None:
    log = _log(backend, _config())
    _fill(log, _pairs(10, 3), per_segment=2)
    steps = clean_steps(backend.fs, log, 0, 10_000, CleanerConfig())
    calls = 0

    def failing() -> object:
        raise OSError("disk on fire")

    def run() -> object:
        nonlocal calls
        value: object = None
        job = next(steps)
        while True:
            calls += 1
            try:
                value = job() if calls < 2 else failing()
            except OSError as exc:
                job = steps.throw(exc)
                continue
            job = steps.send(value)

    with contextlib.suppress(OSError):
        run()
    assert not [n for n in backend.fs.listdir(f"{backend.root}/c-0") if n.endswith(".cleaned")]
    assert len(keyed_rows(log)) == 10
    assert run_inline(clean_steps(backend.fs, log, 0, 10_000, CleanerConfig())) is not None
    log.close()


def test_the_last_batch_of_an_idempotent_producer_stays_as_an_empty_batch(backend: Any) -> None:
    """Kafka's rule: compaction keeps each producer's last batch, emptied if need be, so its
    sequence numbers can be rebuilt from the log; its earlier superseded batches go."""
    log = _log(backend, _config())

    def idempotent(key: str, value: str, sequence: int) -> bytearray:
        records = [Record(0, 0, key.encode(), value.encode()), Record(1, 0, key.encode(), value.encode())]
        return bytearray(
            build_batch(records, producer_id=7, producer_epoch=2, base_sequence=sequence, base_timestamp=1_000)
        )

    log.append(idempotent("a", "old", 0), leader_epoch=0, now_ms=1_000)  # offsets 0-1, superseded
    log.append(idempotent("a", "mid", 2), leader_epoch=0, now_ms=1_000)  # offsets 2-3, producer 7's last
    _fill(log, [("a", "new"), ("b", "x")], per_segment=2)  # offsets 4-5, then the active segment
    log.roll(1_000)
    assert clean(backend.fs, log, 0, 1_000, hints=CleaningHints(retained_batches=frozenset({2}))) is not None

    headers = {h.base_offset: h for h in log.batch_headers()}
    assert 0 not in headers, "an earlier superseded batch of the producer is removed"
    last = headers[2]
    assert (last.records_count, last.last_offset, last.base_sequence) == (0, 3, 2)
    assert (last.producer_id, last.producer_epoch) == (7, 2)
    assert keyed_rows(log) == [(4, "a", "new"), (5, "b", "x")]
