"""PartitionLog: append, read, roll, timestamps, restart and recovery, on every backend."""

from __future__ import annotations

import logging
import struct
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.errors import OffsetOutOfRange, RecordBatchTooLarge
from odradek.storage.filesystem import FileHandle, FileSystem, MemoryFileSystem, read_file
from odradek.storage.log_config import LogConfig, TimestampType
from odradek.storage.log_observer import AppendInfo
from odradek.storage.partition_log import PartitionLog
from odradek.storage.partition_metadata import decode_topic_id, encode_topic_id
from odradek.storage.segment import TimestampOffset
from odradek.wire.records.batch import (
    TIMESTAMP_TYPE_LOG_APPEND_TIME,
    CorruptBatchError,
    iter_batches,
    verify_batch,
)

MakeBatch = Callable[..., bytearray]
TOPIC_ID = uuid.UUID("8f6a1b2c-3d4e-4f50-8a9b-0c1d2e3f4a5b")


def _dir(backend: Any) -> str:
    return f"{backend.root}/my.topic-with-dash-3"


def _create(backend: Any, config: LogConfig | None = None, clock: ManualClock | None = None) -> PartitionLog:
    return PartitionLog.create(
        backend.fs, _dir(backend), "my.topic-with-dash", 3, TOPIC_ID, config or LogConfig(), clock or ManualClock(0)
    )


def _open(backend: Any, *, clean: bool, config: LogConfig | None = None) -> PartitionLog:
    return PartitionLog.open(
        backend.fs,
        _dir(backend),
        "my.topic-with-dash",
        3,
        config or LogConfig(),
        ManualClock(0),
        clean_shutdown=clean,
    )


def _read_all(log: PartitionLog, start: int = 0, max_bytes: int = 1 << 30) -> bytes:
    chunks = []
    offset = start
    while (region := log.read(offset, max_bytes)) is not None:
        data = region.read()
        chunks.append(data)
        *_, (_, last) = iter_batches(data)
        offset = last.next_offset
    return b"".join(chunks)


def test_append_assigns_offsets_and_read_returns_the_stored_bytes(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    first, second = make_batch(3), make_batch(2)
    info = log.append(first, leader_epoch=7, now_ms=5)
    assert info == AppendInfo(base_offset=0, last_offset=2, log_append_time_ms=-1, log_start_offset=0)
    assert log.append(second, leader_epoch=7, now_ms=5).base_offset == 3
    assert (log.log_start_offset, log.log_end_offset, log.high_watermark) == (0, 5, 5)
    data = _read_all(log)
    assert data == bytes(first) + bytes(second)
    headers = [header for _, header in iter_batches(data)]
    assert [(h.base_offset, h.last_offset, h.partition_leader_epoch) for h in headers] == [(0, 2, 7), (3, 4, 7)]
    for position, _ in iter_batches(data):
        verify_batch(data, position)
    log.close()


def test_append_of_several_batches_is_one_write(backend: Any, make_batch: MakeBatch) -> None:
    writes: list[int] = []

    class CountingHandle:
        def __init__(self, inner: FileHandle) -> None:
            self._inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self._inner, name)

        def write(self, data: Any) -> int:
            writes.append(len(data))
            return self._inner.write(data)

    class CountingFs:
        def __init__(self, inner: FileSystem) -> None:
            self._inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self._inner, name)

        def open_append(self, path: str) -> Any:
            handle = self._inner.open_append(path)
            return CountingHandle(handle) if path.endswith(".log") else handle

    log = PartitionLog.create(
        CountingFs(backend.fs),  # type: ignore[arg-type]
        _dir(backend),
        "t",
        0,
        TOPIC_ID,
        LogConfig(index_interval_bytes=1),
        ManualClock(0),
    )
    records = make_batch(2) + make_batch(3) + make_batch(4)
    info = log.append(records, leader_epoch=0, now_ms=0)
    assert (info.base_offset, info.last_offset) == (0, 8)
    assert writes == [len(records)]
    assert [h.base_offset for _, h in iter_batches(_read_all(log))] == [0, 2, 5]
    log.close()


def test_append_is_all_or_nothing(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    log.append(make_batch(1), leader_epoch=0, now_ms=0)
    good, bad = make_batch(2), make_batch(2)
    bad[-1] ^= 0x01
    records = good + bad
    original = bytes(records)
    with pytest.raises(CorruptBatchError):
        log.append(records, leader_epoch=3, now_ms=0)
    assert bytes(records) == original
    assert log.log_end_offset == 1
    with pytest.raises(CorruptBatchError):
        log.append(good[:-5], leader_epoch=3, now_ms=0)
    with pytest.raises(CorruptBatchError):
        log.append(bytearray(), leader_epoch=3, now_ms=0)
    assert log.log_end_offset == 1
    assert log.size_bytes == len(make_batch(1))
    log.close()


def test_append_larger_than_a_segment_is_rejected(backend: Any, make_batch: MakeBatch) -> None:
    batch = make_batch(5, value_size=100)
    log = _create(backend, LogConfig(segment_bytes=len(batch) - 1))
    with pytest.raises(RecordBatchTooLarge):
        log.append(batch, leader_epoch=0, now_ms=0)
    assert log.log_end_offset == 0
    log.close()


def test_read_in_the_middle_of_a_batch_and_max_bytes(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    batches = [make_batch(4, value_size=40) for _ in range(5)]
    for batch in batches:
        log.append(batch, leader_epoch=0, now_ms=0)
    size = len(batches[0])
    region = log.read(6, size * 2)
    assert region is not None and region.read() == bytes(batches[1]) + bytes(batches[2])
    region = log.read(6, size - 1)
    assert region is not None and region.read() == bytes(batches[1])
    assert log.read(6, size - 1, min_one_batch=False) is None
    region = log.read(6, size, min_one_batch=False)
    assert region is not None and region.read() == bytes(batches[1])
    log.close()


def test_read_out_of_range(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    log.append(make_batch(3), leader_epoch=0, now_ms=0)
    assert log.read(3, 1000) is None
    with pytest.raises(OffsetOutOfRange) as raised:
        log.read(4, 1000)
    assert (raised.value.offset, raised.value.log_start_offset, raised.value.log_end_offset) == (4, 0, 3)
    with pytest.raises(OffsetOutOfRange):
        log.read(-1, 1000)
    log.close()


def test_segments_roll_on_segment_bytes(backend: Any, make_batch: MakeBatch) -> None:
    size = len(make_batch(2, value_size=50))
    log = _create(backend, LogConfig(segment_bytes=size * 3))
    batches = [make_batch(2, value_size=50, base_timestamp=1000 + 10 * i) for i in range(8)]
    for batch in batches:
        log.append(batch, leader_epoch=0, now_ms=0)
    assert [s.base_offset for s in log.segments] == [0, 6, 12]
    assert [s.size for s in log.segments] == [size * 3, size * 3, size * 2]
    names = backend.fs.listdir(_dir(backend))
    assert "00000000000000000006.log" in names and "00000000000000000012.timeindex" in names
    region = log.read(5, 10**6)
    assert region is not None and region.read() == b"".join(bytes(b) for b in batches[2:3])
    assert _read_all(log) == b"".join(bytes(b) for b in batches)
    rolled = read_file(backend.fs, f"{_dir(backend)}/00000000000000000000.timeindex")
    assert rolled == struct.pack(">qi", 1021, 5)
    log.close()


def test_segments_roll_on_segment_ms(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend, LogConfig(segment_ms=1000))
    log.append(make_batch(1, base_timestamp=10_000), leader_epoch=0, now_ms=10_000)
    log.append(make_batch(1, base_timestamp=11_000), leader_epoch=0, now_ms=11_000)
    assert len(log.segments) == 1
    log.append(make_batch(1, base_timestamp=11_001), leader_epoch=0, now_ms=11_001)
    assert [s.base_offset for s in log.segments] == [0, 2]
    log.close()


def test_clean_restart_serves_the_same_bytes(backend: Any, make_batch: MakeBatch) -> None:
    config = LogConfig(segment_bytes=2000, index_interval_bytes=100)
    log = _create(backend, config)
    for i in range(20):
        log.append(make_batch(3, value_size=30, base_timestamp=1000 + i), leader_epoch=1, now_ms=0)
    before = _read_all(log, max_bytes=500)
    segments = [s.base_offset for s in log.segments]
    log.close()
    reopened = _open(backend, clean=True, config=config)
    assert reopened.recovered_bytes == 0
    assert reopened.topic_id == TOPIC_ID
    assert [s.base_offset for s in reopened.segments] == segments
    assert (reopened.log_start_offset, reopened.log_end_offset) == (0, 60)
    assert _read_all(reopened, max_bytes=500) == before
    assert reopened.append(make_batch(1), leader_epoch=1, now_ms=0).base_offset == 60
    reopened.close()


def test_unclean_restart_truncates_a_torn_tail(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    expected = _read_all(log)
    log.close()
    torn = make_batch(3)
    handle = backend.fs.open_append(log.segments[-1].path)
    handle.write(torn[:40])
    handle.close()
    reopened = _open(backend, clean=False)
    assert reopened.recovered_bytes == 40
    assert reopened.log_end_offset == 4
    assert _read_all(reopened) == expected
    reopened.close()


def test_unclean_restart_truncates_a_corrupt_tail_batch(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    expected = _read_all(log)
    log.append(make_batch(5), leader_epoch=0, now_ms=0)
    log.close()
    path = log.segments[-1].path
    data = bytearray(read_file(backend.fs, path))
    data[-2] ^= 0x40
    handle = backend.fs.open_append(path)
    handle.truncate(0)
    handle.write(data)
    handle.close()
    reopened = _open(backend, clean=False)
    assert reopened.recovered_bytes == len(data) - len(expected)
    assert reopened.log_end_offset == 2
    assert _read_all(reopened) == expected
    reopened.close()


def test_truncation_in_an_old_segment_drops_the_later_ones(backend: Any, make_batch: MakeBatch) -> None:
    size = len(make_batch(1))
    config = LogConfig(segment_bytes=size * 2)
    log = _create(backend, config)
    for _ in range(6):
        log.append(make_batch(1), leader_epoch=0, now_ms=0)
    assert [s.base_offset for s in log.segments] == [0, 2, 4]
    log.close()
    path = log.segments[1].path
    handle = backend.fs.open_append(path)
    handle.truncate(size + 10)
    handle.close()
    reopened = _open(backend, clean=False, config=config)
    assert [s.base_offset for s in reopened.segments] == [0, 2]
    assert reopened.log_end_offset == 3
    assert reopened.recovered_bytes == 10
    assert not backend.fs.exists(log.segments[2].path)
    reopened.close()


def test_crash_loses_only_what_was_not_flushed(make_batch: MakeBatch) -> None:
    fs = MemoryFileSystem()
    config = LogConfig(index_interval_bytes=1)
    log = PartitionLog.create(fs, "/data/t-0", "t", 0, TOPIC_ID, config, ManualClock(0))
    for _ in range(3):
        log.append(make_batch(2), leader_epoch=0, now_ms=0)
    durable = _read_all(log)
    log.flush()
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    fs.crash()
    reopened = PartitionLog.open(fs, "/data/t-0", "t", 0, config, ManualClock(0), clean_shutdown=False)
    assert reopened.log_end_offset == 6
    assert reopened.recovered_bytes == 0
    assert _read_all(reopened) == durable
    assert reopened.append(make_batch(1), leader_epoch=0, now_ms=0).base_offset == 6
    reopened.close()


def test_offset_for_timestamp_finds_the_first_record_at_or_after(backend: Any, make_batch: MakeBatch) -> None:
    size = len(make_batch(3))
    log = _create(backend, LogConfig(segment_bytes=size * 2, index_interval_bytes=1))
    log.append(make_batch(3, base_timestamp=100, timestamp_deltas=[0, 30, 10]), leader_epoch=2, now_ms=0)
    log.append(make_batch(3, base_timestamp=200, timestamp_deltas=[0, 5, 9]), leader_epoch=2, now_ms=0)
    log.append(make_batch(3, base_timestamp=150, timestamp_deltas=[0, 100, 200]), leader_epoch=2, now_ms=0)
    assert len(log.segments) == 2
    assert log.offset_for_timestamp(0) == TimestampOffset(100, 0, 2)
    assert log.offset_for_timestamp(115) == TimestampOffset(130, 1, 2)
    assert log.offset_for_timestamp(131) == TimestampOffset(200, 3, 2)
    assert log.offset_for_timestamp(209) == TimestampOffset(209, 5, 2)
    assert log.offset_for_timestamp(210) == TimestampOffset(250, 7, 2)
    assert log.offset_for_timestamp(351) is None
    assert log.max_timestamp() == TimestampOffset(350, 8, 2)
    log.close()
    reopened = _open(backend, clean=True, config=LogConfig(segment_bytes=size * 2, index_interval_bytes=1))
    assert reopened.offset_for_timestamp(210) == TimestampOffset(250, 7, 2)
    assert reopened.max_timestamp() == TimestampOffset(350, 8, 2)
    reopened.close()


def test_max_timestamp_names_the_record_not_the_batch_end(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    assert log.max_timestamp() is None
    log.append(make_batch(4, base_timestamp=1000, timestamp_deltas=[0, 90, 5, 7]), leader_epoch=0, now_ms=0)
    log.append(make_batch(2, base_timestamp=1050), leader_epoch=0, now_ms=0)
    assert log.max_timestamp() == TimestampOffset(1090, 1, 0)
    log.close()


def test_log_append_time_from_the_topic_config(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend, LogConfig(message_timestamp_type=TimestampType.LOG_APPEND_TIME))
    info = log.append(make_batch(3, base_timestamp=5), leader_epoch=0, now_ms=123_456)
    assert info.log_append_time_ms == 123_456
    region = log.read(0, 1000)
    assert region is not None
    header = verify_batch(region.read())
    assert header.timestamp_type == TIMESTAMP_TYPE_LOG_APPEND_TIME
    assert header.max_timestamp == 123_456
    assert log.offset_for_timestamp(100_000) == TimestampOffset(123_456, 0, 0)
    assert log.max_timestamp() == TimestampOffset(123_456, 0, 0)
    log.close()


def test_log_append_time_forced_by_the_caller(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    assert log.append(make_batch(1), leader_epoch=0, now_ms=99).log_append_time_ms == -1
    info = log.append(make_batch(1), leader_epoch=0, now_ms=99, log_append_time=True)
    assert info.log_append_time_ms == 99
    region = log.read(1, 1000)
    assert region is not None and verify_batch(region.read()).timestamp_type == TIMESTAMP_TYPE_LOG_APPEND_TIME
    log.close()


def _closed_log(backend: Any, make_batch: MakeBatch, config: LogConfig, batches: int) -> tuple[bytes, str, bytes]:
    """A log of ``batches`` two-record batches, closed: its bytes, its first segment's file stem
    and that segment's offset index."""
    log = _create(backend, config)
    for _ in range(batches):
        log.append(make_batch(2, value_size=20), leader_epoch=0, now_ms=0)
    expected = _read_all(log)
    log.close()
    stem = f"{_dir(backend)}/00000000000000000000"
    return expected, stem, read_file(backend.fs, stem + ".index")


def test_clean_restart_without_index_files_rebuilds_them(backend: Any, make_batch: MakeBatch) -> None:
    config = LogConfig(index_interval_bytes=50)
    expected, stem, index = _closed_log(backend, make_batch, config, 6)
    backend.fs.remove(stem + ".index")
    handle = backend.fs.open_append(stem + ".log")
    handle.write(b"\x00" * 17)
    handle.close()
    reopened = _open(backend, clean=True, config=config)
    assert reopened.recovered_bytes == 17
    assert _read_all(reopened) == expected
    reopened.close()
    assert read_file(backend.fs, stem + ".index") == index


def test_partition_metadata_is_kafkas_format(backend: Any) -> None:
    log = _create(backend)
    content = read_file(backend.fs, f"{_dir(backend)}/partition.metadata")
    assert content == b"version: 0\ntopic_id: j2obLD1OT1CKmwwdLj9KWw"
    assert encode_topic_id(TOPIC_ID) == "j2obLD1OT1CKmwwdLj9KWw"
    assert decode_topic_id("j2obLD1OT1CKmwwdLj9KWw") == TOPIC_ID
    with pytest.raises(ValueError):
        decode_topic_id("not-an-id")
    log.close()


def test_listeners_run_after_each_append(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend)
    seen: list[tuple[int, int]] = []

    def failing(_: PartitionLog, __: AppendInfo) -> None:
        raise RuntimeError("listener bug")

    log.listeners.append(failing)
    log.listeners.append(lambda changed, info: seen.append((changed.log_end_offset, info.last_offset)))
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    log.append(make_batch(1), leader_epoch=0, now_ms=0)
    assert seen == [(2, 1), (3, 2)]
    log.close()


def test_garbage_index_of_an_old_segment_is_rebuilt_with_a_warning(
    backend: Any, make_batch: MakeBatch, caplog: pytest.LogCaptureFixture
) -> None:
    size = len(make_batch(2, value_size=20))
    config = LogConfig(index_interval_bytes=1, segment_bytes=size * 3)
    expected, stem, index = _closed_log(backend, make_batch, config, 7)
    handle = backend.fs.open_append(stem + ".index")
    handle.truncate(0)
    entries = [index[i : i + 8] for i in range(0, len(index), 8)]
    assert len(entries) >= 2
    handle.write(b"".join(reversed(entries)))
    handle.close()
    with caplog.at_level(logging.WARNING, logger="odradek.storage.segment"):
        reopened = _open(backend, clean=True, config=config)
        assert _read_all(reopened) == expected
    assert [r.getMessage() for r in caplog.records if "were corrupt" in r.getMessage()] == [
        f"index files of {stem}.log were corrupt: verified the segment, truncated 0 bytes, rebuilt the indexes"
    ]
    reopened.close()
    assert read_file(backend.fs, stem + ".index") == index


def test_index_files_agree_with_the_log_after_close(backend: Any, make_batch: MakeBatch) -> None:
    log = _create(backend, LogConfig(index_interval_bytes=64))
    log.append(make_batch(1) + make_batch(2) + make_batch(3), leader_epoch=0, now_ms=0)
    for _ in range(10):
        log.append(make_batch(2, value_size=40), leader_epoch=0, now_ms=0)
    log.close()
    stem = f"{_dir(backend)}/00000000000000000000"
    data = read_file(backend.fs, stem + ".log")
    index = read_file(backend.fs, stem + ".index")
    assert len(index) % 8 == 0 and len(index) >= 8 * 5
    headers = dict(iter_batches(data))
    for n in range(len(index) // 8):
        relative = int.from_bytes(index[n * 8 : n * 8 + 4], "big", signed=True)
        position = int.from_bytes(index[n * 8 + 4 : n * 8 + 8], "big", signed=True)
        assert headers[position].last_offset == relative
