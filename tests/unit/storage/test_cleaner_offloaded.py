"""The broker's driver of a compaction pass (`odradek.broker._run_offloaded`): the jobs run on
a worker thread while the event loop keeps appending and reading; cancelling the pass
mid-job waits for the job, then removes the pass's output."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid

import pytest

from odradek.broker import _run_offloaded
from odradek.clock import ManualClock
from odradek.storage.filesystem import FileHandle, MemoryFileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.unit.storage.handles import DelegatingHandle

TOPIC_ID = uuid.UUID(int=0x0FF1)
CONFIG = LogConfig(cleanup_policy=frozenset({"compact"}), min_cleanable_dirty_ratio=0.0, segment_bytes=100_000)


class _GatedHandle(DelegatingHandle):
    """A handle whose reads, off the event loop's thread, wait for the gate to open."""

    def __init__(self, fs: GatedFileSystem, inner: FileHandle) -> None:
        super().__init__(inner)
        self._fs = fs

    def pread(self, size: int, position: int) -> bytes:
        if threading.get_ident() != self._fs.loop_thread:
            self._fs.reached.set()
            if not self._fs.gate.wait(timeout=10):
                raise TimeoutError("the loop never opened the gate: the job is blocking it")
        return super().pread(size, position)


class GatedFileSystem(MemoryFileSystem):
    def __init__(self) -> None:
        super().__init__()
        self.loop_thread = threading.get_ident()
        self.gate = threading.Event()
        self.reached = threading.Event()

    def open_read(self, path: str) -> FileHandle:
        return _GatedHandle(self, super().open_read(path))


def _setup() -> tuple[GatedFileSystem, LogManager, PartitionLog]:
    fs = GatedFileSystem()
    manager = LogManager.open(fs, "/data", ManualClock(10_000), config_for=lambda _topic: CONFIG)
    log = manager.create_partition("c", 0, TOPIC_ID, CONFIG)
    for i in range(12):
        batch = build_batch([Record(0, 0, b"k%d" % (i % 3), b"v%d" % i)], base_timestamp=1_000)
        log.append(bytearray(batch), leader_epoch=0, now_ms=1_000)
        if i % 2:
            log.roll(1_000)
    return fs, manager, log


async def _job_started(fs: GatedFileSystem) -> None:
    for _ in range(5_000):
        if fs.reached.is_set():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("no job read a segment off the event loop's thread")


def _append(log: PartitionLog, value: bytes) -> int:
    batch = build_batch([Record(0, 0, b"new", value)], base_timestamp=2_000)
    return log.append(bytearray(batch), leader_epoch=0, now_ms=2_000).base_offset


def test_the_loop_appends_and_reads_while_the_job_runs_on_a_worker_thread() -> None:
    fs, manager, log = _setup()

    async def scenario() -> bool:
        task = asyncio.create_task(_run_offloaded(manager.cleaning("c", 0)))
        await _job_started(fs)
        offset = _append(log, b"during")
        region = log.read(offset, 1 << 20)
        assert region is not None and b"during" in region.read()
        fs.gate.set()
        return await asyncio.wait_for(task, timeout=10)

    assert asyncio.run(scenario()) is True
    assert len(log.segments) == 2, "six small segments merged into one, then the active one"
    assert log.read(12, 1 << 20) is not None
    manager.close()


def test_cancelling_mid_job_waits_for_the_job_then_removes_the_output() -> None:
    fs, manager, log = _setup()
    before = [(s.base_offset, s.size) for s in log.segments]

    async def scenario() -> None:
        task = asyncio.create_task(_run_offloaded(manager.cleaning("c", 0)))
        await _job_started(fs)
        task.cancel()
        await asyncio.sleep(0.01)
        assert not task.done(), "the driver waits for the job it cannot interrupt"
        fs.gate.set()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert [(s.base_offset, s.size) for s in log.segments] == before
    assert not [name for name in fs.listdir("/data/c-0") if name.endswith((".cleaned", ".swap", ".deleted"))]
    manager.close()


class _RecordingFileSystem(MemoryFileSystem):
    """Notes the thread of every rename and directory fsync in the log's directory; while
    ``hold`` is set, a directory fsync off the loop's thread waits for ``gate``."""

    def __init__(self) -> None:
        super().__init__()
        self.loop_thread = threading.get_ident()
        self.on_loop: list[str] = []
        self.hold = False
        self.gate = threading.Event()
        self.reached = threading.Event()

    def _note(self, what: str, path: str) -> None:
        if path.startswith("/data/c-0") and threading.get_ident() == self.loop_thread:
            self.on_loop.append(f"{what} {path}")

    def rename(self, src: str, dst: str) -> None:
        self._note("rename", src)
        super().rename(src, dst)

    def fsync_dir(self, path: str) -> None:
        self._note("fsync_dir", path)
        if self.hold and threading.get_ident() != self.loop_thread:
            self.reached.set()
            if not self.gate.wait(timeout=10):
                raise TimeoutError("the loop never opened the gate")
        super().fsync_dir(path)


def _recording_setup() -> tuple[_RecordingFileSystem, LogManager, PartitionLog]:
    fs = _RecordingFileSystem()
    manager = LogManager.open(fs, "/data", ManualClock(10_000), config_for=lambda _topic: CONFIG)
    log = manager.create_partition("c", 0, TOPIC_ID, CONFIG)
    for i in range(12):
        batch = build_batch([Record(0, 0, b"k%d" % (i % 3), b"v%d" % i)], base_timestamp=1_000)
        log.append(bytearray(batch), leader_epoch=0, now_ms=1_000)
        if i % 2:
            log.roll(1_000)
    fs.on_loop.clear()
    return fs, manager, log


def test_the_swap_renames_and_fsyncs_nothing_on_the_loop_thread() -> None:
    """Issue 18: a directory fsync can take seconds on a busy disk; the swap's three ran on the loop."""
    fs, manager, log = _recording_setup()
    assert asyncio.run(_run_offloaded(manager.cleaning("c", 0))) is True
    assert fs.on_loop == []
    assert len(log.segments) == 2
    assert [name for name in fs.listdir("/data/c-0") if name.endswith(".deleted")], "old files wait for deletion"
    assert not [name for name in fs.listdir("/data/c-0") if name.endswith((".cleaned", ".swap"))]
    manager.close()


def test_reads_go_on_and_retention_waits_while_the_swap_renames_off_the_loop() -> None:
    fs, manager, log = _recording_setup()
    old_segments = log.segments[:-1]
    log.update_config(LogConfig(cleanup_policy=frozenset({"compact", "delete"}), retention_bytes=1))

    async def scenario() -> bool:
        fs.hold = True
        task = asyncio.create_task(_run_offloaded(manager.cleaning("c", 0)))
        for _ in range(5_000):
            if fs.reached.is_set():
                break
            await asyncio.sleep(0.001)
        assert fs.reached.is_set(), "the swap never fsynced off the loop's thread"
        assert log.delete_oldest_segments(3, 10_000) == 0, "retention leaves the segments being swapped"
        assert log.segments[:-1] == old_segments
        region = log.read(0, 1 << 20)
        assert region is not None and b"v0" in region.read(), "the old segments still serve reads"
        fs.gate.set()
        return await asyncio.wait_for(task, timeout=10)

    assert asyncio.run(scenario()) is True
    assert len(log.segments) == 2
    assert log.delete_oldest_segments(1, 10_000) == 1, "retention goes on once the swap is done"
    manager.close()


def test_closing_the_log_waits_for_the_swaps_renames() -> None:
    """A close (shutdown, a move to another data directory, a deletion) sees a finished swap on disk."""
    fs, manager, log = _recording_setup()

    async def scenario() -> None:
        fs.hold = True
        task = asyncio.create_task(_run_offloaded(manager.cleaning("c", 0)))
        for _ in range(5_000):
            if fs.reached.is_set():
                break
            await asyncio.sleep(0.001)
        assert fs.reached.is_set(), "the swap never fsynced off the loop's thread"
        opener = threading.Thread(target=lambda: (time.sleep(0.05), fs.gate.set()))
        opener.start()
        log.close()
        assert not [name for name in fs.listdir("/data/c-0") if name.endswith((".cleaned", ".swap"))]
        opener.join()
        await asyncio.wait_for(task, timeout=10)

    asyncio.run(scenario())
    reopened = PartitionLog.open(fs, "/data/c-0", "c", 0, CONFIG, ManualClock(10_000), clean_shutdown=False)
    assert len(reopened.segments) == 2, "the cleaned segment and the active one"
    reopened.close()
