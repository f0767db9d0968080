"""A roll does not fsync on the event loop: the new segment's directory entry and the producer
snapshot taken at the roll are made durable by the log's deferred queue on a worker, in order;
a crash before or after the worker ran recovers the producer state; close drains the queue.
Retention's deletions (the renames, the leader epoch file) leave their fsyncs to the worker too."""

from __future__ import annotations

import threading
import uuid
from typing import Any

from odradek.clock import ManualClock
from odradek.partition.partition import Partition
from odradek.partition.producer_snapshot import list_snapshots
from odradek.storage.filesystem import FileHandle, MemoryFileSystem
from odradek.storage.leader_epochs import LeaderEpochCache
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.wire.errors import ErrorCode
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

DIRECTORY = "/data/t-0"
T0 = 1_000_000
PID = 7
WORKER_WAIT_S = 30


class HeldFsyncs:
    """A `MemoryFileSystem` whose fsyncs (of files and directories) on any thread but the test's
    own (the "event loop") wait until `release`; those on the loop are counted, never held."""

    def __init__(self) -> None:
        self.memory = MemoryFileSystem()
        self.loop_thread = threading.get_ident()
        self.loop_fsyncs = 0
        self.worker_waiting = threading.Event()
        self._released = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)

    def release(self) -> None:
        self._released.set()

    def fsync_gate(self) -> None:
        if threading.get_ident() == self.loop_thread:
            self.loop_fsyncs += 1
            return
        self.worker_waiting.set()
        assert self._released.wait(WORKER_WAIT_S), "the test never released the worker's fsync"

    def open_append(self, path: str) -> FileHandle:
        return _HeldHandle(self.memory.open_append(path), self)

    def fsync_dir(self, path: str) -> None:
        self.fsync_gate()
        self.memory.fsync_dir(path)


class _HeldHandle:
    def __init__(self, handle: FileHandle, fs: HeldFsyncs) -> None:
        self._handle = handle
        self._fs = fs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def fsync(self) -> None:
        self._fs.fsync_gate()
        self._handle.fsync()


def _batch(sequence: int) -> bytearray:
    records = [Record(offset_delta=i, timestamp_delta=i, key=b"k", value=b"v" * 20) for i in range(2)]
    return bytearray(build_batch(records, producer_id=PID, producer_epoch=0, base_sequence=sequence, base_timestamp=T0))


class Harness:
    """A partition whose log defers its jobs to a worker the test runs (`run_worker`)."""

    def __init__(self) -> None:
        self.fs = HeldFsyncs()
        self.memory = self.fs.memory
        self.memory.makedirs("/data")
        self.clock = ManualClock(T0)
        self.config = LogConfig(segment_bytes=1000)
        log = PartitionLog.create(self.fs, DIRECTORY, "t", 0, uuid.uuid4(), self.config, self.clock)
        self.queued = 0
        log.on_sync_deferred = self._queued
        self.partition = Partition.open(self.fs, log, leader_epoch=0)
        self.fs.loop_fsyncs = 0
        self.sequence = 0

    def _queued(self, log: PartitionLog) -> None:
        self.queued += 1

    def produce(self, batches: int) -> None:
        for _ in range(batches):
            result = self.partition.append(_batch(self.sequence), self.clock.time_ms())
            assert result.error == ErrorCode.NONE
            self.sequence += 2

    def rolls(self) -> list[int]:
        return [segment.base_offset for segment in self.partition.log.segments[1:]]

    def run_worker(self) -> threading.Thread:
        worker = threading.Thread(target=self.partition.log.run_deferred)
        worker.start()
        return worker

    def reopen_after_crash(self) -> Partition:
        self.memory.crash()
        log = PartitionLog.open(self.memory, DIRECTORY, "t", 0, self.config, self.clock, clean_shutdown=False)
        self.partition = Partition.open(self.memory, log, leader_epoch=0)
        return self.partition

    def assert_producer_continues(self) -> None:
        """The last batch is a duplicate (its offset answered, nothing written); the next is taken."""
        end = self.partition.log_end_offset
        duplicate = self.partition.append(_batch(self.sequence - 2), self.clock.time_ms())
        assert (duplicate.error, duplicate.base_offset) == (ErrorCode.NONE, end - 2)
        following = self.partition.append(_batch(self.sequence), self.clock.time_ms())
        assert (following.error, following.base_offset) == (ErrorCode.NONE, end)


def test_rolls_and_the_appends_after_them_complete_while_the_worker_fsync_is_held() -> None:
    h = Harness()
    h.produce(20)
    rolls = h.rolls()
    assert len(rolls) >= 2 and h.queued >= 2 * len(rolls), "each roll queued its directory sync and its snapshot"
    assert list_snapshots(h.memory, DIRECTORY) == [], "nothing written on the loop"
    worker = h.run_worker()
    try:
        assert h.fs.worker_waiting.wait(WORKER_WAIT_S)
        h.produce(20)
        assert len(h.rolls()) > len(rolls), "the loop rolled again while the worker's fsync was held"
        assert h.fs.loop_fsyncs == 0, "no fsync on the loop"
        assert worker.is_alive()
    finally:
        h.fs.release()
        worker.join(WORKER_WAIT_S)
    assert not worker.is_alive()
    h.partition.log.run_deferred()
    assert list_snapshots(h.memory, DIRECTORY) == h.rolls(), "a snapshot at each roll, written by the worker"
    assert h.fs.loop_fsyncs == 0


def test_a_crash_before_the_worker_ran_replays_from_the_log_start() -> None:
    h = Harness()
    h.produce(20)
    h.partition.log.flush()
    end = h.partition.log_end_offset
    h.reopen_after_crash()
    assert list_snapshots(h.memory, DIRECTORY) == [], "the roll snapshots were never written"
    assert (h.partition.log_end_offset, h.partition.loaded_batches) == (end, 20)
    h.assert_producer_continues()


def test_a_crash_between_two_rolls_replays_from_the_snapshot_the_worker_wrote() -> None:
    h = Harness()
    h.fs.release()
    h.produce(12)
    h.partition.log.run_deferred()
    written = h.rolls()[-1]
    h.produce(12)
    assert h.rolls()[-1] > written, "a later roll whose snapshot the worker has not written"
    h.partition.log.flush()
    end = h.partition.log_end_offset
    h.reopen_after_crash()
    assert list_snapshots(h.memory, DIRECTORY)[-1] == written
    assert (h.partition.log_end_offset, h.partition.loaded_batches) == (end, (end - written) // 2)
    h.assert_producer_continues()


def test_a_crash_after_the_worker_ran_replays_only_the_tail() -> None:
    h = Harness()
    h.fs.release()
    h.produce(20)
    h.partition.log.flush()
    h.partition.log.run_deferred()
    last_roll, end = h.rolls()[-1], h.partition.log_end_offset
    h.reopen_after_crash()
    assert list_snapshots(h.memory, DIRECTORY) == h.rolls()
    assert h.partition.loaded_batches == (end - last_roll) // 2
    h.assert_producer_continues()


def test_close_runs_the_queued_jobs_before_closing() -> None:
    h = Harness()
    h.fs.release()
    h.produce(20)
    rolls, end = h.rolls(), h.partition.log_end_offset
    h.partition.log.close()
    assert list_snapshots(h.memory, DIRECTORY) == [*rolls, end]
    log = PartitionLog.open(h.memory, DIRECTORY, "t", 0, h.config, h.clock, clean_shutdown=True)
    assert Partition.open(h.memory, log, leader_epoch=0).loaded_batches == 0


def test_the_log_manager_runs_deferred_jobs_on_the_sync_worker_in_order() -> None:
    fs = MemoryFileSystem()
    logs = LogManager.open(fs, ["/data"], ManualClock(T0))
    wakes: list[None] = []
    logs.sync_soon = lambda: wakes.append(None)
    log = logs.create_partition("t", 0, uuid.uuid4(), LogConfig())
    ran: list[int] = []
    log.defer_sync(lambda: ran.append(1))
    log.defer_sync(lambda: ran.append(2))
    assert (ran, len(wakes)) == ([], 2), "queued, the worker woken for each"
    logs.sync_creations()
    assert ran == [1, 2]
    log.defer_sync(lambda: ran.append(3))
    logs.delete_partition("t", 0)
    logs.sync_creations()
    assert ran == [1, 2], "a deleted log drops what it had queued"


def test_closing_writes_the_close_snapshot_itself_and_wakes_no_worker() -> None:
    fs = MemoryFileSystem()
    logs = LogManager.open(fs, ["/data"], ManualClock(T0))
    wakes: list[None] = []
    logs.sync_soon = lambda: wakes.append(None)
    log = logs.create_partition("t", 0, uuid.uuid4(), LogConfig(segment_bytes=1000))
    partition = Partition.open(fs, log, leader_epoch=0)
    for sequence in range(0, 24, 2):
        assert partition.append(_batch(sequence), T0).error == ErrorCode.NONE
    woken = len(wakes)
    assert woken > 0 and list_snapshots(fs, log.directory) == [], "the roll snapshots wait for the worker"
    logs.close()
    assert len(wakes) == woken, "a worker woken while closing could run after the broker stopped"
    rolls = [segment.base_offset for segment in log.segments[1:]]
    assert list_snapshots(fs, log.directory) == [*rolls, 24]


def test_deleting_old_segments_leaves_every_fsync_to_the_worker() -> None:
    h = Harness()
    h.fs.release()
    h.produce(20)
    h.partition.log.run_deferred()
    h.fs.loop_fsyncs, queued = 0, h.queued
    assert h.partition.log.delete_oldest_segments(2, h.clock.time_ms()) == 2
    start = h.partition.log.log_start_offset
    assert start > 0 and h.partition.epochs.entries == [(0, start)]
    assert h.fs.loop_fsyncs == 0, "the renames and the leader epoch file wait for the worker"
    assert h.queued > queued
    h.partition.log.run_deferred()
    h.memory.crash()
    assert LeaderEpochCache.load(h.memory, DIRECTORY).entries == [(0, start)]
