"""The leader epoch cache: Kafka's assign/truncate rules, its end-offset answers and its file
(the same cases Kafka 4.4.0 answered in compat-tests/probes, sequences epochs.*)."""

from __future__ import annotations

import pytest

from odradek.storage.filesystem import MemoryFileSystem, read_file, write_file_atomic
from odradek.storage.leader_epochs import LEADER_EPOCH_CHECKPOINT_FILE, UNDEFINED, LeaderEpochCache

DIR = "/data/t-0"
PATH = f"{DIR}/{LEADER_EPOCH_CHECKPOINT_FILE}"


@pytest.fixture
def fs() -> MemoryFileSystem:
    fs = MemoryFileSystem()
    fs.makedirs(DIR)
    return fs


def _file(fs: MemoryFileSystem) -> str:
    return read_file(fs, PATH).decode()


def test_a_new_partition_writes_kafkas_file(fs: MemoryFileSystem) -> None:
    cache = LeaderEpochCache.load(fs, DIR)
    assert cache.entries == [] and cache.latest_epoch == UNDEFINED
    cache.lead(0, 0, 0)
    assert _file(fs) == "0\n1\n0 0\n"
    assert LeaderEpochCache.load(fs, DIR).entries == [(0, 0)]


def test_restarts_add_epochs_and_drop_the_ones_nothing_was_written_in(fs: MemoryFileSystem) -> None:
    written = LeaderEpochCache.load(fs, DIR)
    written.lead(0, 0, 0)
    written.lead(2, 0, 3)
    written.lead(4, 0, 5)
    assert _file(fs) == "0\n3\n0 0\n2 3\n4 5\n"
    fs.makedirs("/data/t-1")
    empty = LeaderEpochCache.load(fs, "/data/t-1")
    empty.lead(0, 0, 0)
    empty.lead(2, 0, 0)
    assert empty.entries == [(2, 0)]


def test_assign_is_a_no_op_for_the_latest_epoch_at_a_later_offset(fs: MemoryFileSystem) -> None:
    cache = LeaderEpochCache.load(fs, DIR)
    assert cache.assign(3, 10)
    assert not cache.assign(3, 12)
    assert cache.assign(3, 8)
    assert cache.entries == [(3, 8)]
    assert cache.assign(1, 2)
    assert cache.entries == [(1, 2)]


def test_end_offsets_answer_as_kafkas_leader(fs: MemoryFileSystem) -> None:
    cache = LeaderEpochCache(fs, DIR, [(0, 0), (2, 3), (4, 5)])
    end = 7
    assert cache.end_offset_for(UNDEFINED, end) == (UNDEFINED, UNDEFINED)
    assert cache.end_offset_for(0, end) == (0, 3)
    assert cache.end_offset_for(1, end) == (0, 3)
    assert cache.end_offset_for(2, end) == (2, 5)
    assert cache.end_offset_for(3, end) == (2, 5)
    assert cache.end_offset_for(4, end) == (4, 7)
    assert cache.end_offset_for(5, end) == (UNDEFINED, UNDEFINED)
    later = LeaderEpochCache(fs, DIR, [(2, 0)])
    assert later.end_offset_for(0, 0) == (0, 0)
    assert later.end_offset_for(1, 0) == (1, 0)
    assert LeaderEpochCache(fs, DIR, []).end_offset_for(0, 4) == (UNDEFINED, UNDEFINED)


def test_epoch_for_offset(fs: MemoryFileSystem) -> None:
    cache = LeaderEpochCache(fs, DIR, [(0, 2), (2, 3), (4, 5)])
    assert [cache.epoch_for_offset(o) for o in (1, 2, 3, 4, 5, 9)] == [UNDEFINED, 0, 2, 2, 4, 4]


def test_truncation_from_the_start_moves_the_first_kept_entry(fs: MemoryFileSystem) -> None:
    cache = LeaderEpochCache(fs, DIR, [(0, 0), (2, 3), (4, 5)])
    cache.truncate_from_start(2)
    assert cache.entries == [(0, 2), (2, 3), (4, 5)]
    cache.truncate_from_start(4)
    assert cache.entries == [(2, 4), (4, 5)]
    assert _file(fs) == "0\n2\n2 4\n4 5\n"
    cache.truncate_from_start(5)
    assert cache.entries == [(4, 5)]


def test_truncation_from_the_end_drops_epochs_starting_at_or_past_it(fs: MemoryFileSystem) -> None:
    cache = LeaderEpochCache(fs, DIR, [(0, 0), (2, 3), (4, 5)])
    cache.truncate_from_end(6)
    assert cache.entries == [(0, 0), (2, 3), (4, 5)]
    cache.truncate_from_end(5)
    assert cache.entries == [(0, 0), (2, 3)]
    assert _file(fs) == "0\n2\n0 0\n2 3\n"


@pytest.mark.parametrize(
    "content",
    [b"", b"1\n1\n0 0\n", b"0\n2\n0 0\n", b"0\n1\nzero 0\n", b"0\n2\n2 0\n0 0\n", b"\xff"],
    ids=["empty", "version 1", "count", "not a number", "out of order", "not text"],
)
def test_a_damaged_file_loads_empty_and_the_epoch_is_assigned_again(fs: MemoryFileSystem, content: bytes) -> None:
    write_file_atomic(fs, PATH, content)
    cache = LeaderEpochCache.load(fs, DIR)
    assert cache.entries == []
    cache.lead(2, 0, 4)
    assert _file(fs) == "0\n1\n2 4\n"


def test_a_non_durable_write_is_lost_in_a_crash_until_synced(fs: MemoryFileSystem) -> None:
    cache = LeaderEpochCache.load(fs, DIR)
    cache.lead(0, 0, 0)
    fs.crash()
    assert LeaderEpochCache.load(fs, DIR).entries == []
    cache.lead(2, 0, 0)
    cache.sync()
    fs.crash()
    assert LeaderEpochCache.load(fs, DIR).entries == [(2, 0)]


def test_truncation_from_the_start_is_durable_only_once_synced(fs: MemoryFileSystem) -> None:
    cache = LeaderEpochCache(fs, DIR, [(0, 0), (2, 3)])
    cache.sync()
    cache.truncate_from_start(4)
    fs.crash()
    assert LeaderEpochCache.load(fs, DIR).entries in ([], [(0, 0), (2, 3)]), "the older content or none"
    cache.truncate_from_start(5)
    cache.sync()
    fs.crash()
    assert LeaderEpochCache.load(fs, DIR).entries == [(2, 5)]
