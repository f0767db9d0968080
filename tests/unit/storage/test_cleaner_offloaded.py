"""The broker's driver of a compaction pass (`odradek.broker._run_offloaded`): the jobs run on
a worker thread while the event loop keeps appending and reading; cancelling the pass
mid-job waits for the job, then removes the pass's output."""

from __future__ import annotations

import asyncio
import threading
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
