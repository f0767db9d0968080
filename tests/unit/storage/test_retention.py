"""Retention by time, size and log start offset; the log start offset checkpoint; flush policy."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.checkpoint import LOG_START_OFFSET_CHECKPOINT, read_offset_checkpoint, write_offset_checkpoint
from odradek.storage.errors import OffsetOutOfRange, StorageError
from odradek.storage.filesystem import MemoryFileSystem, read_file, write_file_atomic
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.storage.retention import delete_old_segments

MakeBatch = Callable[..., bytearray]
TOPIC_ID = uuid.UUID(int=0x5EED)


def _one_batch_per_segment(make_batch: MakeBatch, **config: Any) -> LogConfig:
    """Segments so small that every append of one batch rolls."""
    return LogConfig(segment_bytes=len(make_batch(1)), index_interval_bytes=1, **config)


def _log_with_batches(backend: Any, make_batch: MakeBatch, config: LogConfig, timestamps: list[int]) -> PartitionLog:
    log = PartitionLog.create(backend.fs, f"{backend.root}/t-0", "t", 0, TOPIC_ID, config, ManualClock(0))
    for timestamp in timestamps:
        log.append(make_batch(1, base_timestamp=timestamp), leader_epoch=0, now_ms=timestamp)
    return log


def test_time_retention_deletes_segments_strictly_older_than_retention_ms(backend: Any, make_batch: MakeBatch) -> None:
    config = _one_batch_per_segment(make_batch, retention_ms=500)
    log = _log_with_batches(backend, make_batch, config, [1000, 2000, 3000])
    assert [s.base_offset for s in log.segments] == [0, 1, 2]
    first_path = log.segments[0].path
    assert delete_old_segments(log, 1500) == 0
    assert delete_old_segments(log, 1501) == 1
    assert not backend.fs.exists(first_path)
    assert [s.base_offset for s in log.segments] == [1, 2]
    assert log.log_start_offset == 1
    with pytest.raises(OffsetOutOfRange):
        log.read(0, 1000)
    assert log.read(1, 1000) is not None
    assert delete_old_segments(log, 2500) == 0
    assert delete_old_segments(log, 2501) == 1
    log.close()


def test_when_every_segment_expires_the_log_rolls_and_keeps_its_offsets(backend: Any, make_batch: MakeBatch) -> None:
    config = LogConfig(retention_ms=100)
    log = _log_with_batches(backend, make_batch, config, [1000, 1001])
    assert len(log.segments) == 1
    assert delete_old_segments(log, 10_000) == 1
    assert [(s.base_offset, s.size) for s in log.segments] == [(2, 0)]
    assert (log.log_start_offset, log.log_end_offset) == (2, 2)
    assert log.read(2, 1000) is None
    assert delete_old_segments(log, 20_000) == 0
    assert log.append(make_batch(1), leader_epoch=0, now_ms=20_000).base_offset == 2
    log.close()


def test_unlimited_retention_and_compact_policy_keep_everything(backend: Any, make_batch: MakeBatch) -> None:
    log = _log_with_batches(backend, make_batch, _one_batch_per_segment(make_batch, retention_ms=-1), [1, 2, 3])
    assert delete_old_segments(log, 10**12) == 0
    log.update_config(_one_batch_per_segment(make_batch, retention_ms=0, cleanup_policy=frozenset({"compact"})))
    assert delete_old_segments(log, 10**12) == 0
    log.update_config(_one_batch_per_segment(make_batch, retention_ms=0, cleanup_policy=frozenset()))
    assert delete_old_segments(log, 10**12) == 0
    assert len(log.segments) == 3
    log.close()


def test_size_retention_deletes_while_the_excess_covers_a_whole_segment(backend: Any, make_batch: MakeBatch) -> None:
    size = len(make_batch(1))
    config = _one_batch_per_segment(make_batch, retention_ms=-1, retention_bytes=2 * size + 1)
    log = _log_with_batches(backend, make_batch, config, [1, 2, 3, 4])
    assert log.size_bytes == 4 * size
    assert delete_old_segments(log, 0) == 1
    assert log.log_start_offset == 1
    log.update_config(_one_batch_per_segment(make_batch, retention_ms=-1, retention_bytes=3 * size))
    assert delete_old_segments(log, 0) == 0
    log.update_config(_one_batch_per_segment(make_batch, retention_ms=-1, retention_bytes=size))
    assert delete_old_segments(log, 0) == 2
    assert [s.base_offset for s in log.segments] == [3]
    assert log.size_bytes == size
    log.close()


def test_log_start_offset_breach_deletes_segments_below_it_under_any_policy(
    backend: Any, make_batch: MakeBatch
) -> None:
    config = _one_batch_per_segment(make_batch, retention_ms=-1, cleanup_policy=frozenset({"compact"}))
    log = _log_with_batches(backend, make_batch, config, [1, 2, 3, 4])
    assert log.increment_log_start_offset(2)
    assert not log.increment_log_start_offset(1)
    assert log.log_start_offset == 2
    assert len(log.segments) == 4
    assert delete_old_segments(log, 0) == 2
    assert [s.base_offset for s in log.segments] == [2, 3]
    with pytest.raises(OffsetOutOfRange):
        log.increment_log_start_offset(5)
    assert log.increment_log_start_offset(4)
    assert delete_old_segments(log, 0) == 1
    assert [s.base_offset for s in log.segments] == [3], "the active segment is never deleted for this reason"
    assert log.log_start_offset == 4
    log.close()


def test_checkpoint_file_is_kafkas_format(backend: Any) -> None:
    path = f"{backend.root}/{LOG_START_OFFSET_CHECKPOINT}"
    write_offset_checkpoint(backend.fs, path, {("b.topic-x", 3): 42, ("a", 0): 7})
    assert read_file(backend.fs, path) == b"0\n2\na 0 7\nb.topic-x 3 42\n"
    assert read_offset_checkpoint(backend.fs, path) == {("a", 0): 7, ("b.topic-x", 3): 42}
    for bad in (b"1\n0\n", b"0\n2\na 0 7\n", b"0\n1\na 0\n", b"0\n1\na x 7\n", b""):
        write_file_atomic(backend.fs, path, bad)
        with pytest.raises(StorageError):
            read_offset_checkpoint(backend.fs, path)
    assert read_offset_checkpoint(backend.fs, path + ".none") == {}


@pytest.mark.parametrize("clean", [True, False])
def test_log_start_offset_survives_a_restart(backend: Any, make_batch: MakeBatch, clean: bool) -> None:
    clock = ManualClock(0)
    manager = LogManager.open(backend.fs, backend.root, clock)
    log = manager.create_partition("t", 0, TOPIC_ID, _one_batch_per_segment(make_batch))
    for _ in range(3):
        log.append(make_batch(1), leader_epoch=0, now_ms=0)
    assert manager.increment_log_start_offset("t", 0, 1) == 1
    path = f"{backend.root}/{LOG_START_OFFSET_CHECKPOINT}"
    assert read_file(backend.fs, path) == b"0\n1\nt 0 1\n"
    if clean:
        manager.close()
    else:
        log.flush()
    reopened = LogManager.open(
        backend.fs, backend.root, clock, config_for=lambda _t: _one_batch_per_segment(make_batch)
    )
    restored = reopened.get("t", 0)
    assert restored is not None
    assert restored.log_start_offset == 1
    with pytest.raises(OffsetOutOfRange):
        restored.read(0, 1000)
    assert reopened.delete_old_segments() == 1
    assert restored.log_start_offset == 1
    assert read_file(backend.fs, path) == b"0\n0\n"
    reopened.close()


def test_a_malformed_checkpoint_is_ignored_with_a_warning(
    backend: Any, make_batch: MakeBatch, caplog: pytest.LogCaptureFixture
) -> None:
    manager = LogManager.open(backend.fs, backend.root, ManualClock(0))
    manager.create_partition("t", 0, TOPIC_ID, LogConfig()).append(make_batch(2), leader_epoch=0, now_ms=0)
    manager.close()
    write_file_atomic(backend.fs, f"{backend.root}/{LOG_START_OFFSET_CHECKPOINT}", b"garbage")
    with caplog.at_level(logging.WARNING):
        reopened = LogManager.open(backend.fs, backend.root, ManualClock(0))
    assert "log start offset checkpoint" in caplog.text
    log = reopened.get("t", 0)
    assert log is not None and log.log_start_offset == 0
    reopened.close()


def test_a_log_start_offset_past_the_recovered_end_restarts_the_log_there(make_batch: MakeBatch) -> None:
    fs = MemoryFileSystem()
    manager = LogManager.open(fs, "/data", ManualClock(0))
    log = manager.create_partition("t", 0, TOPIC_ID, LogConfig())
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    log.flush()
    log.append(make_batch(3), leader_epoch=0, now_ms=0)
    manager.increment_log_start_offset("t", 0, 5)
    fs.crash()
    reopened = LogManager.open(fs, "/data", ManualClock(0))
    restored = reopened.get("t", 0)
    assert restored is not None
    assert (restored.log_start_offset, restored.log_end_offset) == (5, 5)
    assert [s.base_offset for s in restored.segments] == [5]
    assert restored.append(make_batch(1), leader_epoch=0, now_ms=0).base_offset == 5
    reopened.close()


def test_orphaned_index_files_are_removed_at_open(backend: Any, make_batch: MakeBatch) -> None:
    config = _one_batch_per_segment(make_batch)
    log = _log_with_batches(backend, make_batch, config, [1, 2])
    log.close()
    directory = f"{backend.root}/t-0"
    backend.fs.remove(f"{directory}/{0:020d}.log")
    assert backend.fs.exists(f"{directory}/{0:020d}.index")
    reopened = PartitionLog.open(backend.fs, directory, "t", 0, config, ManualClock(0), clean_shutdown=False)
    assert sorted(backend.fs.listdir(directory)) == [
        f"{1:020d}.index",
        f"{1:020d}.log",
        f"{1:020d}.timeindex",
        "partition.metadata",
    ]
    assert reopened.log_start_offset == 1
    reopened.close()


@pytest.mark.parametrize(("flush_messages", "survivors"), [(1, 3), (2, 2), (4, 0)])
def test_flush_messages_bounds_what_a_crash_can_lose(
    make_batch: MakeBatch, flush_messages: int, survivors: int
) -> None:
    fs = MemoryFileSystem()
    config = LogConfig(flush_messages=flush_messages)
    log = PartitionLog.create(fs, "/data/t-0", "t", 0, TOPIC_ID, config, ManualClock(0))
    for _ in range(3):
        log.append(make_batch(1), leader_epoch=0, now_ms=0)
    fs.crash()
    reopened = PartitionLog.open(fs, "/data/t-0", "t", 0, config, ManualClock(0), clean_shutdown=False)
    assert reopened.log_end_offset == survivors
    reopened.close()


def test_flush_ms_flushes_at_the_first_append_after_the_interval(make_batch: MakeBatch) -> None:
    fs = MemoryFileSystem()
    config = LogConfig(flush_ms=1000)
    log = PartitionLog.create(fs, "/data/t-0", "t", 0, TOPIC_ID, config, ManualClock(0))
    log.append(make_batch(1), leader_epoch=0, now_ms=0)
    log.append(make_batch(1), leader_epoch=0, now_ms=999)
    log.append(make_batch(1), leader_epoch=0, now_ms=1000)
    log.append(make_batch(1), leader_epoch=0, now_ms=1001)
    fs.crash()
    reopened = PartitionLog.open(fs, "/data/t-0", "t", 0, config, ManualClock(0), clean_shutdown=False)
    assert reopened.log_end_offset == 3
    reopened.close()
