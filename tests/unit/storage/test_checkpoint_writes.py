"""Checkpoint files are written by the sync worker, not on the event loop: the loop computes the
content, the worker writes it (newest content last); DeleteRecords' log start offset, `flush`
and `close` write before returning; a failed write is logged and the next one tries again."""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.checkpoint import (
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    encode_offset_checkpoint,
    read_offset_checkpoint,
)
from odradek.storage.checkpoint_writer import CheckpointWriter
from odradek.storage.filesystem import FileHandle, MemoryFileSystem, read_file
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import CLEAN_SHUTDOWN_FILE, LogManager
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

DATA = "/data"
RECOVERY = f"{DATA}/{RECOVERY_POINT_CHECKPOINT}"
T0 = 1_000_000
WORKER_WAIT_S = 30


class LoopFsyncs:
    """A `MemoryFileSystem` counting the fsyncs made on the test's own thread (the "loop")."""

    def __init__(self) -> None:
        self.memory = MemoryFileSystem()
        self.loop_thread = threading.get_ident()
        self.loop_fsyncs = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)

    def _count(self) -> None:
        if threading.get_ident() == self.loop_thread:
            self.loop_fsyncs += 1

    def fsync_dir(self, path: str) -> None:
        self._count()
        self.memory.fsync_dir(path)

    def open_append(self, path: str) -> FileHandle:
        handle = self.memory.open_append(path)
        owner = self

        class Counted:
            def __getattr__(self, name: str) -> Any:
                return getattr(handle, name)

            def fsync(self) -> None:
                owner._count()
                handle.fsync()

        return Counted()  # type: ignore[return-value]


def _manager(fs: Any, clock: ManualClock | None = None) -> tuple[LogManager, list[None]]:
    logs = LogManager.open(fs, [DATA], clock or ManualClock(T0))
    wakes: list[None] = []
    logs.sync_soon = lambda: wakes.append(None)
    return logs, wakes


def _append(logs: LogManager, topic: str, count: int) -> None:
    log = logs.get(topic, 0)
    assert log is not None
    for _ in range(count):
        log.append(bytearray(build_batch([Record(0, 0, b"k", b"v")], base_timestamp=T0)), leader_epoch=0, now_ms=T0)


def _on_worker(logs: LogManager) -> None:
    worker = threading.Thread(target=logs.sync_creations)
    worker.start()
    worker.join(WORKER_WAIT_S)
    assert not worker.is_alive()


def test_the_recovery_point_checkpoint_is_written_by_the_worker_not_the_loop() -> None:
    fs = LoopFsyncs()
    logs, wakes = _manager(fs)
    logs.create_partition("t", 0, uuid.uuid4(), LogConfig())
    _append(logs, "t", 3)
    logs.get("t", 0).flush()  # type: ignore[union-attr]
    fs.loop_fsyncs = 0
    logs.checkpoint_recovery_points()
    assert (fs.loop_fsyncs, fs.exists(RECOVERY)) == (0, False), "nothing written on the loop"
    assert wakes, "the worker was woken"
    _on_worker(logs)
    assert read_offset_checkpoint(fs.memory, RECOVERY) == {("t", 0): 3}
    assert fs.loop_fsyncs == 0


def test_a_retention_pass_leaves_its_log_start_checkpoint_to_the_worker() -> None:
    fs = LoopFsyncs()
    clock = ManualClock(T0)
    logs, _ = _manager(fs, clock)
    logs.create_partition("t", 0, uuid.uuid4(), LogConfig(segment_bytes=70, retention_ms=1))
    _append(logs, "t", 3)
    logs.increment_log_start_offset("t", 0, 1)
    path = f"{DATA}/{LOG_START_OFFSET_CHECKPOINT}"
    assert read_offset_checkpoint(fs.memory, path) == {("t", 0): 1}, "DeleteRecords writes before it returns"
    fs.loop_fsyncs = 0
    clock.advance(10)
    assert logs.delete_old_segments() > 0
    assert fs.loop_fsyncs == 0
    assert read_offset_checkpoint(fs.memory, path) == {("t", 0): 1}, "the old content until the worker runs"
    _on_worker(logs)
    assert read_offset_checkpoint(fs.memory, path) == {}, "the start is the first segment's again"


def test_close_writes_what_the_worker_has_not_before_the_clean_shutdown_marker() -> None:
    fs = MemoryFileSystem()
    logs, _ = _manager(fs)
    logs.create_partition("t", 0, uuid.uuid4(), LogConfig())
    _append(logs, "t", 2)
    logs.checkpoint_recovery_points()
    assert not fs.exists(RECOVERY)
    logs.close()
    assert read_offset_checkpoint(fs, RECOVERY) == {("t", 0): 2}
    assert fs.exists(f"{DATA}/{CLEAN_SHUTDOWN_FILE}")


def test_flush_returns_with_the_recovery_points_on_disk() -> None:
    fs = MemoryFileSystem()
    logs, _ = _manager(fs)
    logs.create_partition("t", 0, uuid.uuid4(), LogConfig())
    _append(logs, "t", 2)
    logs.flush()
    fs.crash()
    assert read_offset_checkpoint(fs, RECOVERY) == {("t", 0): 2}


class HeldWrites:
    """A `MemoryFileSystem` whose file fsyncs wait until `release`; `writing` is set by the first."""

    def __init__(self) -> None:
        self.memory = MemoryFileSystem()
        self.writing = threading.Event()
        self.released = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)

    def open_append(self, path: str) -> FileHandle:
        handle = self.memory.open_append(path)
        owner = self

        class Held:
            def __getattr__(self, name: str) -> Any:
                return getattr(handle, name)

            def fsync(self) -> None:
                owner.writing.set()
                assert owner.released.wait(WORKER_WAIT_S), "the test never released the write"
                handle.fsync()

        return Held()  # type: ignore[return-value]


def test_content_handed_over_during_a_write_is_written_after_it() -> None:
    fs = HeldWrites()
    fs.memory.makedirs(DATA)
    writer = CheckpointWriter(fs)  # type: ignore[arg-type]
    writer.put(RECOVERY, encode_offset_checkpoint({("t", 0): 1}))
    worker = threading.Thread(target=writer.write_pending)
    worker.start()
    try:
        assert fs.writing.wait(WORKER_WAIT_S)
        writer.put(RECOVERY, encode_offset_checkpoint({("t", 0): 2}))
        writer.put(RECOVERY, encode_offset_checkpoint({("t", 0): 3}))
    finally:
        fs.released.set()
        worker.join(WORKER_WAIT_S)
    assert not worker.is_alive()
    assert (read_offset_checkpoint(fs.memory, RECOVERY), writer.pending) == ({("t", 0): 3}, 0)


class FailingRename(MemoryFileSystem):
    failures = 1

    def rename(self, src: str, dst: str) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError(5, "injected")
        super().rename(src, dst)


def test_a_failed_write_is_logged_and_the_next_content_is_written(caplog: pytest.LogCaptureFixture) -> None:
    fs = FailingRename()
    fs.makedirs(DATA)
    writer = CheckpointWriter(fs)
    writer.put(RECOVERY, b"0\n0\n")
    with caplog.at_level(logging.ERROR, logger="odradek.storage.checkpoint_writer"):
        writer.write_pending()
    assert not fs.exists(RECOVERY)
    assert [r.getMessage() for r in caplog.records] == [f"writing the checkpoint {RECOVERY} failed"]
    writer.put(RECOVERY, encode_offset_checkpoint({("t", 0): 5}))
    writer.write_pending()
    assert read_file(fs, RECOVERY) == b"0\n1\nt 0 5\n"
