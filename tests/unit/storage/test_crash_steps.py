"""A crash at every step of a compaction pass and of a delayed segment deletion.

The in-memory filesystem counts every operation that changes something (a write, a
truncation, an fsync, a creation, a rename, a removal, a directory fsync); the test lets
the first N happen, then "crashes": every later change fails, un-fsynced bytes are lost and
the log is reopened as after a power cut.  N takes every value from 0 to the number of
operations the whole pass needs, so every step of the pass is interrupted once.

After each restart: offsets strictly increase (no record twice), every record is one of the
records written (nothing invented), and the latest record of every key is there (nothing
that should be there was lost); a second pass then yields exactly the compacted log.
"""

from __future__ import annotations

import contextlib
import itertools
import uuid
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.cleaner import clean
from odradek.storage.filesystem import Buffer, FileHandle, MemoryFileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import PartitionLog
from odradek.storage.retention import delete_old_segments
from odradek.storage.segment_files import DELETED_SUFFIX
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.unit.storage.handles import DelegatingHandle
from tests.unit.storage.log_rows import Row, keyed_rows

DIRECTORY = "/data/c-0"
TOPIC_ID = uuid.UUID(int=0xC7A5)


class Crash(BaseException):
    """The simulated power cut: nothing in the storage code may catch it."""


class _Handle(DelegatingHandle):
    """Every changing call is a step of the crashing filesystem."""

    def __init__(self, fs: CrashingFileSystem, inner: FileHandle) -> None:
        super().__init__(inner)
        self._fs = fs

    def write(self, data: Buffer) -> int:
        self._fs.step()
        return super().write(data)

    def truncate(self, size: int) -> None:
        self._fs.step()
        super().truncate(size)

    def fsync(self) -> None:
        self._fs.step()
        super().fsync()


class CrashingFileSystem(MemoryFileSystem):
    """Counts changing operations; the one numbered ``crash_at`` and every later one raise `Crash`."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0
        self.crash_at: int | None = None

    def step(self) -> None:
        if self.crash_at is not None and self.steps >= self.crash_at:
            raise Crash
        self.steps += 1

    def power_cut(self) -> None:
        """Lose what was not fsynced and let the next run change things again."""
        self.crash()
        self.crash_at = None

    def open_append(self, path: str) -> FileHandle:
        self.step()
        return _Handle(self, super().open_append(path))

    def remove(self, path: str) -> None:
        self.step()
        super().remove(path)

    def rename(self, src: str, dst: str) -> None:
        self.step()
        super().rename(src, dst)

    def rmtree(self, path: str) -> None:
        self.step()
        super().rmtree(path)

    def fsync_dir(self, path: str) -> None:
        self.step()
        super().fsync_dir(path)


def _config(**overrides: Any) -> LogConfig:
    settings: dict[str, Any] = {
        "segment_bytes": 600,
        "cleanup_policy": frozenset({"compact", "delete"}),
        "min_cleanable_dirty_ratio": 0.0,
        "index_interval_bytes": 1,
        "retention_ms": -1,
        "file_delete_delay_ms": 1_000,
    }
    settings.update(overrides)
    return LogConfig(**settings)


def _fill(fs: CrashingFileSystem) -> list[Row]:
    """A flushed log of small segments (two records each, so that the cleaner merges them
    four by four) with keys overwritten many times; the records written."""
    log = PartitionLog.create(fs, DIRECTORY, "c", 0, TOPIC_ID, _config(), ManualClock(0))
    written: list[Row] = []
    for i in range(30):
        key, value = f"k{i % 7}", f"v{i}"
        batch = build_batch([Record(0, 0, key.encode(), value.encode())], base_timestamp=1_000 + i)
        offset = log.append(bytearray(batch), leader_epoch=0, now_ms=1_000 + i).base_offset
        written.append((offset, key, value))
        if i % 2:
            log.roll(1_000 + i)
    log.close()
    return written


def _open(fs: CrashingFileSystem) -> PartitionLog:
    return PartitionLog.open(fs, DIRECTORY, "c", 0, _config(), ManualClock(10_000), clean_shutdown=False)


def _latest(rows: list[Row]) -> list[Row]:
    last: dict[str, Row] = {}
    for row in rows:
        last[row[1]] = row
    return sorted(last.values())


def _check(log: PartitionLog, written: list[Row]) -> None:
    batches = [(header.base_offset, header.last_offset) for header in log.batch_headers()]
    assert all(a[1] < b[0] for a, b in itertools.pairwise(batches)), "segments overlap"
    rows = keyed_rows(log)
    offsets = [row[0] for row in rows]
    assert offsets == sorted(set(offsets)), "a record appears twice or out of order"
    assert set(rows) <= set(written), "a record nobody wrote"
    assert set(_latest(written)) <= set(rows), "the latest record of a key is lost"


def _steps_of(action: Any) -> int:
    fs = CrashingFileSystem()
    fs.makedirs("/data")
    _fill(fs)
    log = _open(fs)
    before = fs.steps
    action(fs, log)
    return fs.steps - before


def _clean(fs: CrashingFileSystem, log: PartitionLog) -> None:
    result = clean(fs, log, 0, 10_000)
    assert result is not None and 1 < result.groups < result.segments


def _reference() -> list[Row]:
    """The log after one uninterrupted pass."""
    fs = CrashingFileSystem()
    fs.makedirs("/data")
    _fill(fs)
    log = _open(fs)
    _clean(fs, log)
    return keyed_rows(log)


def test_a_crash_at_every_step_of_a_compaction_pass_loses_and_duplicates_nothing() -> None:
    total = _steps_of(_clean)
    reference = _reference()
    assert total > 20, "the pass writes, fsyncs and renames several files"
    for crash_at in range(total + 1):
        fs = CrashingFileSystem()
        fs.makedirs("/data")
        written = _fill(fs)
        log = _open(fs)
        fs.crash_at = fs.steps + crash_at
        try:
            _clean(fs, log)
        except Crash:
            pass
        else:
            assert crash_at == total
        fs.power_cut()
        reopened = _open(fs)
        _check(reopened, written)
        assert not [name for name in fs.listdir(DIRECTORY) if name.endswith((".cleaned", ".swap", DELETED_SUFFIX))]
        clean(fs, reopened, 0, 10_000)
        assert keyed_rows(reopened) == reference, crash_at
        reopened.close()


def _retention(fs: CrashingFileSystem, log: PartitionLog) -> None:
    log.update_config(_config(retention_bytes=200))
    assert delete_old_segments(log, 10_000) >= 2
    assert log.deletions.delete_expired(11_000) >= 2


def test_a_crash_at_every_step_of_a_delayed_deletion_keeps_a_suffix_of_the_log() -> None:
    total = _steps_of(_retention)
    assert total >= 8, "renames of three files per segment, a directory fsync, removals"
    for crash_at in range(total + 1):
        fs = CrashingFileSystem()
        fs.makedirs("/data")
        written = _fill(fs)
        log = _open(fs)
        fs.crash_at = fs.steps + crash_at
        with contextlib.suppress(Crash):
            _retention(fs, log)
        fs.power_cut()
        reopened = _open(fs)
        rows = keyed_rows(reopened)
        assert rows == written[len(written) - len(rows) :], "what is left is the end of the log, whole"
        assert rows[-1] == written[-1]
        assert reopened.log_start_offset == rows[0][0]
        assert not [name for name in fs.listdir(DIRECTORY) if name.endswith(DELETED_SUFFIX)]
        reopened.close()


@pytest.mark.parametrize("stage", ["before-swap", "after-swap"])
def test_a_crash_between_swap_and_delayed_deletion_keeps_the_cleaned_log(stage: str) -> None:
    fs = CrashingFileSystem()
    fs.makedirs("/data")
    written = _fill(fs)
    log = _open(fs)
    if stage == "after-swap":
        assert clean(fs, log, 0, 10_000) is not None
        assert len(log.deletions) >= 2
        assert any(name.endswith(DELETED_SUFFIX) for name in fs.listdir(DIRECTORY))
    expected = keyed_rows(log)
    fs.crash_at = fs.steps
    fs.power_cut()
    reopened = _open(fs)
    assert keyed_rows(reopened) == expected
    _check(reopened, written)
    assert not any(name.endswith(DELETED_SUFFIX) for name in fs.listdir(DIRECTORY))
    reopened.close()
