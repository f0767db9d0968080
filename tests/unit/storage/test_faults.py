"""Appends under injected faults (short writes, failed truncation, failed fsync) and crashes.

The guarantee: an append either lands whole or leaves no trace (the file is cut back), an
acknowledged append under ``flush.messages=1`` survives a crash, and whatever a crash leaves
is a prefix of the attempted batches, each whole, that the log reopens cleanly.
"""

from __future__ import annotations

import errno
import random
import uuid
from collections.abc import Callable

import pytest

from odradek.clock import ManualClock
from odradek.storage.errors import StorageError
from odradek.storage.filesystem import Buffer, FileHandle, MemoryFileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import PartitionLog
from tests.unit.storage.handles import DelegatingHandle

MakeBatch = Callable[..., bytearray]
TOPIC_ID = uuid.UUID(int=0xFA17)
DIRECTORY = "/data/t-0"


class _FaultyHandle(DelegatingHandle):
    """Delegates to a memory file, failing ``.log`` writes and fsyncs when the fs says so."""

    def __init__(self, fs: FaultyFileSystem, inner: FileHandle) -> None:
        super().__init__(inner)
        self._fs = fs

    def _faulty(self) -> bool:
        return self.path.endswith(".log")

    def write(self, data: Buffer) -> int:
        keep = self._fs.short_write
        if keep is not None and self._faulty():
            self._fs.short_write = None
            super().write(memoryview(data)[: min(keep, len(data))])
            raise OSError(errno.ENOSPC, "No space left on device", self.path)
        return super().write(data)

    def truncate(self, size: int) -> None:
        if self._fs.fail_truncate and self._faulty():
            raise OSError(errno.EIO, "Input/output error", self.path)
        super().truncate(size)

    def fsync(self) -> None:
        if self._fs.fail_fsync and self._faulty():
            raise OSError(errno.EIO, "Input/output error", self.path)
        super().fsync()


class FaultyFileSystem(MemoryFileSystem):
    """A memory filesystem whose segment files fail on demand."""

    def __init__(self) -> None:
        super().__init__()
        self.short_write: int | None = None
        self.fail_truncate = False
        self.fail_fsync = False

    def open_append(self, path: str) -> FileHandle:
        return _FaultyHandle(self, super().open_append(path))

    def heal(self) -> None:
        self.short_write = None
        self.fail_truncate = self.fail_fsync = False


def _create(fs: FaultyFileSystem) -> PartitionLog:
    return PartitionLog.create(fs, DIRECTORY, "t", 0, TOPIC_ID, LogConfig(flush_messages=1), ManualClock(0))


def _reopen(fs: FaultyFileSystem) -> PartitionLog:
    return PartitionLog.open(fs, DIRECTORY, "t", 0, LogConfig(flush_messages=1), ManualClock(0), clean_shutdown=False)


def _batch(make_batch: MakeBatch, tag: int) -> bytearray:
    return make_batch(1, value_size=8 + tag % 5, base_timestamp=tag)


def test_a_short_write_is_cut_back_and_the_log_goes_on(make_batch: MakeBatch) -> None:
    fs = FaultyFileSystem()
    log = _create(fs)
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    size = log.segments[-1].size
    fs.short_write = 20
    with pytest.raises(StorageError, match="undone"):
        log.append(make_batch(3), leader_epoch=0, now_ms=0)
    assert fs.size(log.segments[-1].path) == size
    assert log.log_end_offset == 2
    assert log.append(make_batch(1), leader_epoch=0, now_ms=0).base_offset == 2
    fs.crash()
    reopened = _reopen(fs)
    assert (reopened.log_end_offset, reopened.recovered_bytes) == (3, 0)


def test_a_short_write_that_cannot_be_undone_is_cut_by_recovery(make_batch: MakeBatch) -> None:
    fs = FaultyFileSystem()
    log = _create(fs)
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    fs.short_write, fs.fail_truncate = 30, True
    with pytest.raises(StorageError, match="could not be undone"):
        log.append(make_batch(3), leader_epoch=0, now_ms=0)
    fs.heal()
    assert log.offline
    with pytest.raises(StorageError, match="offline"):
        log.append(make_batch(1), leader_epoch=0, now_ms=0)
    log.close()
    reopened = _reopen(fs)
    assert reopened.log_end_offset == 2
    assert reopened.recovered_bytes == 30
    assert reopened.append(make_batch(1), leader_epoch=0, now_ms=0).base_offset == 2


def test_a_failed_fsync_takes_the_log_offline_and_a_crash_keeps_only_what_was_durable(
    make_batch: MakeBatch,
) -> None:
    fs = FaultyFileSystem()
    log = _create(fs)
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    fs.fail_fsync = True
    with pytest.raises(StorageError, match="offline"):
        log.append(make_batch(3), leader_epoch=0, now_ms=0)
    assert log.offline
    fs.heal()
    with pytest.raises(StorageError, match="offline"):
        log.append(make_batch(1), leader_epoch=0, now_ms=0)
    log.close()
    fs.crash()
    reopened = _reopen(fs)
    assert reopened.log_end_offset == 2
    assert not reopened.offline
    assert reopened.append(make_batch(1), leader_epoch=0, now_ms=0).base_offset == 2


@pytest.mark.parametrize("seed", range(40))
def test_random_faults_and_crashes_never_lose_an_acknowledged_append(make_batch: MakeBatch, seed: int) -> None:
    rng = random.Random(seed)
    fs = FaultyFileSystem()
    log = _create(fs)
    acked: list[int] = []
    attempted: list[int] = []
    for tag in range(60):
        fault = rng.random()
        if fault < 0.1:
            fs.short_write = rng.randrange(0, 80)
        elif fault < 0.13:
            fs.short_write, fs.fail_truncate = rng.randrange(1, 80), True
        elif fault < 0.16:
            fs.fail_fsync = True
        attempted.append(tag)
        try:
            log.append(_batch(make_batch, tag), leader_epoch=0, now_ms=tag)
            acked.append(tag)
        except StorageError:
            pass
        fs.heal()
        if log.offline or rng.random() < 0.1:
            log.discard()
            fs.crash()
            log = _reopen(fs)
        held = _tags(log, attempted)
        assert held == sorted(set(held)), "each append at most once, in order"
        assert set(acked) <= set(held), (acked, held)
    fs.crash()
    final = _tags(_reopen(fs), attempted)
    assert final == sorted(set(final)), "each append at most once, in order"
    assert set(acked) <= set(final)


def _tags(log: PartitionLog, attempted: list[int]) -> list[int]:
    """Which attempted appends the log holds, identified by their base timestamps."""
    return [header.base_timestamp for header in log.batch_headers() if header.base_timestamp in set(attempted)]
