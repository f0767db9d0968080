"""``file.delete.delay.ms``: a removed segment's files are renamed ``.deleted``, stay readable
through regions handed out before, and go when the delay has passed on the injected clock;
leftovers are removed at start-up."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.cleaner import clean
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.storage.segment_files import DELETED_SUFFIX
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

TOPIC_ID = uuid.UUID(int=0xDE1A)
MakeBatch = Any


def _config(**overrides: Any) -> LogConfig:
    settings: dict[str, Any] = {"segment_bytes": 200, "retention_ms": 5_000}
    settings.update(overrides)
    return LogConfig(**settings)


def _names(backend: Any, name: str = "t-0") -> list[str]:
    return list(backend.fs.listdir(f"{backend.root}/{name}"))


def _deleted(backend: Any, name: str = "t-0") -> list[str]:
    return [n for n in _names(backend, name) if n.endswith(DELETED_SUFFIX)]


def _manager(backend: Any, clock: ManualClock, config: LogConfig) -> tuple[LogManager, PartitionLog]:
    manager = LogManager.open(backend.fs, backend.root, clock, config_for=lambda _topic: config)
    log = manager.get("t", 0) or manager.create_partition("t", 0, TOPIC_ID, config)
    return manager, log


def _fill(log: PartitionLog, make_batch: MakeBatch, count: int) -> None:
    for i in range(count):
        log.append(make_batch(2, value_size=30, base_timestamp=1_000 + i), leader_epoch=0, now_ms=1_000 + i)


def test_retention_renames_then_deletes_after_the_delay(backend: Any, make_batch: MakeBatch) -> None:
    clock = ManualClock(100_000)
    manager, log = _manager(backend, clock, _config())
    _fill(log, make_batch, 6)
    assert len(log.segments) >= 3
    first = log.segments[0]
    region = log.read(0, 1 << 20)
    assert region is not None
    content = region.read()
    removed = manager.delete_old_segments()
    assert removed >= 2
    assert log.log_start_offset == log.segments[0].base_offset > 0
    assert not backend.fs.exists(first.path)
    assert set(_deleted(backend)) >= {f"{first.path.rsplit('/', 1)[1]}{DELETED_SUFFIX}"}
    assert len(_deleted(backend)) == 3 * removed, "log, index and time index of each"
    assert region.read() == content, "a region handed out before stays readable until the delay passes"
    clock.advance(59_999)
    assert manager.delete_expired_segments() == 0
    assert len(_deleted(backend)) == 3 * removed
    clock.advance(1)
    assert manager.delete_expired_segments() == removed
    assert _deleted(backend) == []
    with pytest.raises(ValueError):
        region.read()
    manager.close()


def test_a_zero_delay_still_waits_for_the_scheduled_task(backend: Any, make_batch: MakeBatch) -> None:
    clock = ManualClock(100_000)
    manager, log = _manager(backend, clock, _config(file_delete_delay_ms=0))
    _fill(log, make_batch, 4)
    removed = manager.delete_old_segments()
    assert removed >= 1
    assert len(_deleted(backend)) == 3 * removed
    assert manager.delete_expired_segments() == removed
    assert _deleted(backend) == []
    manager.close()


def test_delete_records_driven_retention_uses_the_delay_too(backend: Any, make_batch: MakeBatch) -> None:
    clock = ManualClock(1_000)
    manager, log = _manager(backend, clock, _config(retention_ms=-1, file_delete_delay_ms=10))
    _fill(log, make_batch, 6)
    second = log.segments[1].base_offset
    assert manager.increment_log_start_offset("t", 0, second) == second
    assert manager.delete_old_segments() == 1
    assert len(_deleted(backend)) == 3
    clock.advance(10)
    assert manager.delete_expired_segments() == 1
    assert _deleted(backend) == []
    manager.close()


def test_leftover_deleted_files_are_removed_at_start_up(backend: Any, make_batch: MakeBatch) -> None:
    clock = ManualClock(100_000)
    manager, log = _manager(backend, clock, _config())
    _fill(log, make_batch, 6)
    assert manager.delete_old_segments() >= 2
    survivors = [(s.base_offset, s.size) for s in log.segments]
    end = log.log_end_offset
    manager.close()
    assert _deleted(backend)
    reopened, log = _manager(backend, clock, _config())
    assert _deleted(backend) == []
    assert [(s.base_offset, s.size) for s in log.segments] == survivors
    assert log.log_end_offset == end
    reopened.close()


def test_deleting_a_topic_with_pending_deletions_drops_them(backend: Any, make_batch: MakeBatch) -> None:
    clock = ManualClock(100_000)
    manager, log = _manager(backend, clock, _config())
    _fill(log, make_batch, 6)
    assert manager.delete_old_segments() >= 2
    assert manager.delete_topic("t") == 1
    clock.advance(60_000)
    assert manager.delete_expired_segments() == 0
    assert not backend.fs.exists(f"{backend.root}/t-0")
    manager.close()


def test_a_compaction_swap_deletes_the_replaced_segments_after_the_delay(backend: Any, make_batch: MakeBatch) -> None:
    config = _config(
        cleanup_policy=frozenset({"compact"}),
        min_cleanable_dirty_ratio=0.0,
        segment_bytes=10_000,
        file_delete_delay_ms=500,
    )
    log = PartitionLog.create(backend.fs, f"{backend.root}/t-0", "t", 0, TOPIC_ID, config, ManualClock(0))
    for i in range(6):
        batch = build_batch([Record(0, 0, b"k", b"v%d" % i)], base_timestamp=1_000)
        log.append(bytearray(batch), leader_epoch=0, now_ms=1_000)
        log.roll(1_000)
    result = clean(backend.fs, log, 0, 2_000)
    assert result is not None and (result.segments, result.groups) == (6, 1)
    assert len(_deleted(backend)) == 3 * 6
    assert log.deletions.delete_expired(2_499) == 0
    assert log.deletions.delete_expired(2_500) == 6
    assert _deleted(backend) == []
    assert sorted(n for n in _names(backend) if n.endswith(".log")) == [
        f"{0:020d}.log",
        f"{6:020d}.log",
    ]
    log.close()


def test_the_files_are_removed_by_the_worker_not_on_the_callers_thread(
    backend: Any, make_batch: MakeBatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: on a busy disk an unlink (or a close) waits for the journal, up to seconds; on the
    event loop that paused every client.  With a worker (`sync_soon`) the removal waits for it."""
    clock = ManualClock(100_000)
    manager, log = _manager(backend, clock, _config(file_delete_delay_ms=0))
    worker_calls: list[int] = []
    manager.sync_soon = lambda: worker_calls.append(1)
    _fill(log, make_batch, 4)
    region = log.read(0, 1 << 20)
    assert region is not None
    content = region.read()
    removed = manager.delete_old_segments()
    assert removed >= 1
    caller = threading.get_ident()
    removers: set[int] = set()
    remove = backend.fs.remove

    def noting_remove(path: str) -> None:
        removers.add(threading.get_ident())
        remove(path)

    monkeypatch.setattr(backend.fs, "remove", noting_remove)
    assert manager.delete_expired_segments() == removed
    assert len(_deleted(backend)) == 3 * removed, "nothing removed on the caller's thread"
    assert region.read() == content, "nor closed: a close can wait for the journal too"
    assert worker_calls, "the worker was asked to run the removal"
    worker = threading.Thread(target=manager.sync_creations)
    worker.start()
    worker.join(10)
    assert _deleted(backend) == []
    assert removers and caller not in removers
    with pytest.raises(ValueError):
        region.read()
    manager.close()


def test_a_discarded_log_closes_the_segments_whose_removal_never_ran(backend: Any, make_batch: MakeBatch) -> None:
    clock = ManualClock(100_000)
    manager, log = _manager(backend, clock, _config(file_delete_delay_ms=0))
    manager.sync_soon = lambda: None  # a worker that never comes: the topic is deleted first
    _fill(log, make_batch, 4)
    region = log.read(0, 1 << 20)
    assert region is not None
    assert manager.delete_old_segments() >= 1
    assert manager.delete_expired_segments() >= 1
    log.discard()
    with pytest.raises(ValueError):
        region.read()
