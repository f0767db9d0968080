"""The partition object: idempotence inside append, producer snapshots at roll and close, the
state after a clean or a crash restart, truncation by the log start, fetch waiters."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.partition.partition import Partition
from odradek.partition.producer_snapshot import list_snapshots, snapshot_name
from odradek.storage.filesystem import MemoryFileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import PartitionLog
from odradek.storage.segment import LogSegment
from odradek.wire.errors import ErrorCode
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

DIRECTORY = "/data/t-0"
T0 = 1_000_000
PID = 7


def _batch(sequence: int | None = None, *, producer_id: int = PID, epoch: int = 0, count: int = 2) -> bytearray:
    records = [Record(offset_delta=i, timestamp_delta=i, key=b"k", value=b"v" * 20) for i in range(count)]
    if sequence is None:
        return bytearray(build_batch(records, base_timestamp=T0))
    return bytearray(
        build_batch(records, producer_id=producer_id, producer_epoch=epoch, base_sequence=sequence, base_timestamp=T0)
    )


class Harness:
    def __init__(self, config: LogConfig | None = None) -> None:
        self.fs = MemoryFileSystem()
        self.fs.makedirs("/data")
        self.clock = ManualClock(T0)
        self.config = config or LogConfig()
        log = PartitionLog.create(self.fs, DIRECTORY, "t", 0, uuid.uuid4(), self.config, self.clock, listeners=None)
        self.partition = Partition.open(self.fs, log, leader_epoch=0)

    def append(self, records: bytearray) -> Any:
        return self.partition.append(records, self.clock.time_ms())

    def reopen(self, *, clean: bool) -> Partition:
        if clean:
            self.partition.log.close()
        else:
            self.fs.crash()
        log = PartitionLog.open(self.fs, DIRECTORY, "t", 0, self.config, self.clock, clean_shutdown=clean)
        self.partition = Partition.open(self.fs, log, leader_epoch=0)
        return self.partition


def _produce_sequence(h: Harness, batches: int) -> list[int]:
    """Append ``batches`` two-record batches of producer PID; their base offsets."""
    offsets = []
    for i in range(batches):
        result = h.append(_batch(2 * i))
        assert result.error == ErrorCode.NONE
        offsets.append(result.base_offset)
    return offsets


def _assert_continues(h: Harness, offsets: list[int], batches: int) -> None:
    """Duplicates of each of the last five batches answer with their offsets and write
    nothing; the next sequence number is accepted."""
    end = h.partition.log_end_offset
    for i in range(batches - 5, batches):
        duplicate = h.append(_batch(2 * i))
        assert (duplicate.error, duplicate.base_offset) == (ErrorCode.NONE, offsets[i]), f"batch {i}"
    assert h.partition.log_end_offset == end, "a duplicate writes nothing"
    older = h.append(_batch(2 * (batches - 6)))
    assert older.error == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, "only five batches are remembered"
    following = h.append(_batch(2 * batches))
    assert (following.error, following.base_offset) == (ErrorCode.NONE, end)


def test_append_checks_and_records_sequences() -> None:
    h = Harness()
    assert h.append(_batch(0)).base_offset == 0
    duplicate = h.append(_batch(0))
    assert (duplicate.error, duplicate.base_offset, duplicate.log_append_time_ms) == (ErrorCode.NONE, 0, T0 + 1)
    assert h.append(_batch(5)).error == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert h.append(_batch(2, epoch=1)).error == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert h.append(_batch(0, epoch=1)).base_offset == 2
    fenced = h.append(_batch(2, epoch=0))
    assert (fenced.error, fenced.base_offset, fenced.log_start_offset) == (ErrorCode.INVALID_PRODUCER_EPOCH, -1, 0)
    assert h.append(_batch()).base_offset == 4, "a batch without producer id is not checked"
    assert h.partition.log_end_offset == 6
    assert h.partition.cleaning_hints().retained_batches == frozenset({2})


def test_a_corrupt_duplicate_is_refused_as_corrupt() -> None:
    h = Harness()
    h.append(_batch(0))
    corrupt = _batch(0)
    corrupt[-1] ^= 0xFF
    assert h.append(corrupt).error == ErrorCode.CORRUPT_MESSAGE


def test_clean_restart_reads_the_close_snapshot_and_no_batch() -> None:
    h = Harness(LogConfig(segment_bytes=1000))
    offsets = _produce_sequence(h, 12)
    h.reopen(clean=True)
    assert h.partition.loaded_batches == 0
    assert list_snapshots(h.fs, DIRECTORY)[-1] == h.partition.log_end_offset
    _assert_continues(h, offsets, 12)


def test_crash_restart_replays_the_tail_after_the_roll_snapshot() -> None:
    h = Harness(LogConfig(segment_bytes=1000, flush_messages=1))
    offsets = _produce_sequence(h, 20)
    rolled_at = list_snapshots(h.fs, DIRECTORY)[-1]
    assert 0 < rolled_at < h.partition.log_end_offset, "the active segment has batches after the snapshot"
    h.reopen(clean=False)
    assert h.partition.log_end_offset == 40, "everything was flushed"
    assert h.partition.loaded_batches == (40 - rolled_at) // 2
    _assert_continues(h, offsets, 20)


def test_a_snapshot_past_the_recovered_log_end_is_deleted() -> None:
    """A snapshot describes the batches below its offset: when the log comes back shorter (its
    last segment lost), the newer snapshots are deleted and the state comes from an older one."""
    h = Harness(LogConfig(segment_bytes=1000))
    _produce_sequence(h, 20)
    last = h.partition.log.segments[-1].base_offset
    h.partition.log.close()
    assert list_snapshots(h.fs, DIRECTORY) == [16, last, 40]
    for suffix in (".log", ".index", ".timeindex"):
        h.fs.remove(f"{DIRECTORY}/{last:020d}{suffix}")
    log = PartitionLog.open(h.fs, DIRECTORY, "t", 0, h.config, h.clock, clean_shutdown=False)
    h.partition = Partition.open(h.fs, log, leader_epoch=0)
    assert h.partition.log_end_offset == last
    assert list_snapshots(h.fs, DIRECTORY) == [16, last]
    assert h.partition.loaded_batches == 0
    assert h.append(_batch(last)).base_offset == last, "the sequence continues from the batches kept"


def test_a_damaged_snapshot_falls_back_to_the_one_before() -> None:
    h = Harness(LogConfig(segment_bytes=1000, flush_messages=1))
    offsets = _produce_sequence(h, 20)
    newest = list_snapshots(h.fs, DIRECTORY)[-1]
    handle = h.fs.open_append(f"{DIRECTORY}/{snapshot_name(newest)}")
    handle.write(b"\x00")
    handle.fsync()
    handle.close()
    h.reopen(clean=False)
    assert newest not in list_snapshots(h.fs, DIRECTORY)
    _assert_continues(h, offsets, 20)


def test_opening_a_large_log_reads_only_the_snapshot_and_the_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    h = Harness(LogConfig(segment_bytes=1000, flush_messages=1))
    for i in range(1000):
        assert h.append(_batch(2 * (i // 2)) if i % 2 else _batch()).error == ErrorCode.NONE
    segments = len(h.partition.log.segments)
    assert segments > 100
    read = 0
    original = LogSegment.batch_headers

    def counting(segment: LogSegment, start_offset: int = 0) -> Iterator[Any]:
        nonlocal read
        for header in original(segment, start_offset):
            read += 1
            yield header

    monkeypatch.setattr(LogSegment, "batch_headers", counting)
    h.reopen(clean=False)
    active = h.partition.log.segments[-1]
    in_active = (h.partition.log_end_offset - active.base_offset) // 2
    assert read == h.partition.loaded_batches == in_active
    assert read < 1000 / segments * 2
    h.reopen(clean=True)
    assert read == in_active, "a clean restart reads no batch header at all"


def test_retention_and_delete_records_forget_producers_below_the_log_start() -> None:
    h = Harness(LogConfig(segment_bytes=1000))
    h.append(_batch(0, producer_id=1))
    h.append(_batch(0, producer_id=2))
    h.append(_batch(2, producer_id=2))
    assert h.partition.cleaning_hints().retained_batches == frozenset({0, 4})
    h.partition.log.increment_log_start_offset(3)
    assert h.partition.cleaning_hints().retained_batches == frozenset({4}), "producer 1's last batch is gone"
    assert h.append(_batch(9, producer_id=1)).error == ErrorCode.NONE, "an unknown producer may start anywhere"
    _produce_sequence(h, 12)
    before = len(h.partition.log.segments)
    assert h.partition.log.delete_oldest_segments(before - 1, h.clock.time_ms()) == before - 1
    survivors = {row.producer_id for row in h.partition.producers.entries()}
    assert survivors == {PID}
    assert min(list_snapshots(h.fs, DIRECTORY)) >= h.partition.log_start_offset


def test_an_append_wakes_each_waiter_once() -> None:
    h = Harness()
    woken: list[str] = []
    h.partition.watch(lambda: woken.append("a"))
    cancel = h.partition.watch(lambda: woken.append("b"))
    cancel()
    h.append(_batch())
    h.append(_batch())
    assert woken == ["a"]
