"""Several data directories: placement (fewest partitions first), per-directory checkpoints and
markers, and moving a log between directories, on every backend."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Generator
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.checkpoint import RECOVERY_POINT_CHECKPOINT, read_offset_checkpoint
from odradek.storage.cleaner import Job
from odradek.storage.filesystem import MemoryFileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import CLEAN_SHUTDOWN_FILE, LogManager
from odradek.storage.partition_log import PartitionLog

MakeBatch = Callable[..., bytearray]
ID = uuid.UUID(int=0x77)


def _dirs(backend: Any) -> list[str]:
    dirs = [f"{backend.root}/d0", f"{backend.root}/d1"]
    for d in dirs:
        backend.fs.makedirs(d)
    return dirs


def _drive(steps: Generator[Job, object, PartitionLog | None], between: Callable[[], None] = lambda: None) -> Any:
    """Run a move's steps inline; ``between`` runs after its job (while the log still serves)."""
    value: object = None
    while True:
        try:
            job = steps.send(value)
        except StopIteration as stop:
            return stop.value
        value = job()
        between()


def test_new_partitions_go_to_the_directory_with_the_fewest(backend: Any) -> None:
    d0, d1 = _dirs(backend)
    manager = LogManager.open(backend.fs, [d0, d1], ManualClock(0))
    placed = [manager.dir_of(manager.create_partition("t", p, ID, LogConfig())) for p in range(3)]
    assert placed == [d0, d1, d0]
    assert manager.dir_of(manager.create_partition("u", 0, uuid.uuid4(), LogConfig())) == d1
    manager.close()
    for d in (d0, d1):
        assert backend.fs.exists(f"{d}/{CLEAN_SHUTDOWN_FILE}")
    again = LogManager.open(backend.fs, [d0, d1], ManualClock(0))
    assert again.clean_shutdown
    assert {(p.topic, p.partition) for p in again.partitions()} == {("t", 0), ("t", 1), ("t", 2), ("u", 0)}
    assert again.dir_of(again.get("t", 1)) == d1  # type: ignore[arg-type]
    again.close()


def test_each_directory_checkpoints_its_own_logs(backend: Any, make_batch: MakeBatch) -> None:
    d0, d1 = _dirs(backend)
    manager = LogManager.open(backend.fs, [d0, d1], ManualClock(0))
    for p in range(2):
        manager.create_partition("t", p, ID, LogConfig()).append(make_batch(3), leader_epoch=0, now_ms=0)
    manager.flush()
    assert read_offset_checkpoint(backend.fs, f"{d0}/{RECOVERY_POINT_CHECKPOINT}") == {("t", 0): 3}
    assert read_offset_checkpoint(backend.fs, f"{d1}/{RECOVERY_POINT_CHECKPOINT}") == {("t", 1): 3}
    manager.close()


def test_a_move_copies_everything_including_what_arrives_during_the_copy(backend: Any, make_batch: MakeBatch) -> None:
    d0, d1 = _dirs(backend)
    clock = ManualClock(0)
    manager = LogManager.open(backend.fs, [d0, d1], clock)
    log = manager.create_partition("t", 0, ID, LogConfig(segment_bytes=300))
    for _ in range(4):
        log.append(make_batch(2, value_size=50), leader_epoch=0, now_ms=0)
    assert len(log.segments) > 1, "the move copies rolled segments early"
    reopened: list[PartitionLog] = []
    moved = _drive(
        manager.moving("t", 0, d1, reopened.append),
        between=lambda: log.append(make_batch(1, value_size=50), leader_epoch=0, now_ms=0),
    )
    assert moved is not None and reopened == [moved] and manager.get("t", 0) is moved
    assert manager.dir_of(moved) == d1 and moved.log_end_offset == 9
    assert [h.base_offset for h in moved.batch_headers()] == [0, 2, 4, 6, 8]
    assert not backend.fs.exists(f"{d0}/t-0")
    moved.append(make_batch(1), leader_epoch=0, now_ms=0)
    assert moved.log_end_offset == 10
    assert manager.next_deletion_due() == LogConfig().file_delete_delay_ms
    assert manager.next_data_dir() == d0, "the moved-away copy does not count in d0"
    clock.advance(LogConfig().file_delete_delay_ms)
    manager.delete_expired_segments()
    assert [n for n in backend.fs.listdir(d0) if n.startswith("t-0")] == []
    manager.close()
    again = LogManager.open(backend.fs, [d0, d1], ManualClock(0))
    assert again.dir_of(again.get("t", 0)) == d1  # type: ignore[arg-type]
    assert again.get("t", 0).log_end_offset == 10  # type: ignore[union-attr]
    again.close()


def test_a_move_to_where_the_log_is_does_nothing(backend: Any) -> None:
    d0, d1 = _dirs(backend)
    manager = LogManager.open(backend.fs, [d0, d1], ManualClock(0))
    manager.create_partition("t", 0, ID, LogConfig())
    assert _drive(manager.moving("t", 0, d0, lambda _log: None)) is None
    assert _drive(manager.moving("missing", 0, d1, lambda _log: None)) is None
    manager.close()


def test_a_cancelled_move_leaves_the_log_serving_where_it_was(backend: Any, make_batch: MakeBatch) -> None:
    d0, d1 = _dirs(backend)
    manager = LogManager.open(backend.fs, [d0, d1], ManualClock(0))
    log = manager.create_partition("t", 0, ID, LogConfig())
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    steps = manager.moving("t", 0, d1, lambda _log: None)
    steps.send(None)()
    steps.close()
    assert manager.get("t", 0) is log and [n for n in backend.fs.listdir(d1) if n.startswith("t-0")] == []
    log.append(make_batch(1), leader_epoch=0, now_ms=0)
    assert log.log_end_offset == 3
    manager.close()


def test_a_crash_between_the_two_renames_keeps_one_copy() -> None:
    fs = MemoryFileSystem()
    manager = LogManager.open(fs, ["/d0", "/d1"], ManualClock(0))
    manager.create_partition("t", 0, ID, LogConfig())
    manager.close()
    fs.makedirs("/d1/t-0")  # the copy renamed into place, the source not yet renamed away
    for name in fs.listdir("/d0/t-0"):
        data = fs.open_read(f"/d0/t-0/{name}")
        copy = fs.open_append(f"/d1/t-0/{name}")
        copy.write(data.pread(data.size(), 0))
        copy.fsync()
        copy.close()
        data.close()
    again = LogManager.open(fs, ["/d0", "/d1"], ManualClock(0))
    assert [p.topic for p in again.partitions()] == ["t"]
    assert again.dir_of(again.get("t", 0)) == "/d0"  # type: ignore[arg-type]
    assert not fs.exists("/d1/t-0")
    again.close()


@pytest.mark.parametrize("dirs", [["/d0", "/d1"], ["/d0"]])
def test_a_move_interrupted_by_a_restart_is_dropped(dirs: list[str]) -> None:
    fs = MemoryFileSystem()
    manager = LogManager.open(fs, dirs, ManualClock(0))
    manager.create_partition("t", 0, ID, LogConfig())
    manager.close()
    fs.makedirs(f"{dirs[-1]}/t-0.0123456789abcdef0123456789abcdef-future")
    again = LogManager.open(fs, dirs, ManualClock(0))
    assert [n for n in fs.listdir(dirs[-1]) if n.endswith("-future")] == []
    assert [p.topic for p in again.partitions()] == ["t"]
    again.close()
