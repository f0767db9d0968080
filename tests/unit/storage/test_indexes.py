"""The sparse offset and time indexes: Kafka's entry formats, lookups, persistence."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from odradek.storage.filesystem import read_file
from odradek.storage.offset_index import OffsetIndex
from odradek.storage.time_index import NO_TIMESTAMP, TimeIndex


def _offset_index(backend: Any, data: bytes | None = None, base: int = 100, max_bytes: int = 1024) -> OffsetIndex:
    return OffsetIndex(backend.fs, f"{backend.root}/x.index", base, max_bytes, data)


def _time_index(backend: Any, data: bytes | None = None, base: int = 100, max_bytes: int = 1024) -> TimeIndex:
    return TimeIndex(backend.fs, f"{backend.root}/x.timeindex", base, max_bytes, data)


def test_offset_index_file_is_kafkas_format(backend: Any) -> None:
    index = _offset_index(backend)
    index.append(105, 4096)
    index.append(170, 9000)
    index.flush(fsync=True)
    assert read_file(backend.fs, index.path) == struct.pack(">iiii", 5, 4096, 70, 9000)


def test_offset_index_lookup(backend: Any) -> None:
    index = _offset_index(backend)
    assert index.lookup(500) == (100, 0)
    for offset, position in [(110, 1000), (120, 2000), (130, 3000)]:
        index.append(offset, position)
    assert index.lookup(99) == (100, 0)
    assert index.lookup(109) == (100, 0)
    assert index.lookup(110) == (110, 1000)
    assert index.lookup(125) == (120, 2000)
    assert index.lookup(10**12) == (130, 3000)
    assert index.lookup_position(2999) == (120, 2000)
    assert index.lookup_position(3000) == (130, 3000)
    assert index.lookup_position(10) == (100, 0)
    assert index.last_entry() == (130, 3000)


def test_offset_index_rejects_disorder_and_overflow(backend: Any) -> None:
    index = _offset_index(backend)
    index.append(110, 1000)
    with pytest.raises(ValueError):
        index.append(110, 2000)
    with pytest.raises(ValueError):
        index.append(120, 1000)
    with pytest.raises(ValueError):
        index.append(100 + 2**31, 5000)
    assert index.entries == 1


def test_offset_index_reload_drops_torn_entry_and_rewrites_file(backend: Any) -> None:
    first = _offset_index(backend)
    first.append(110, 1000)
    first.append(120, 2000)
    first.flush(fsync=False)
    torn = read_file(backend.fs, first.path)[:12]
    reloaded = _offset_index(backend, torn)
    assert reloaded.entries == 1
    assert reloaded.dirty
    reloaded.append(130, 3000)
    reloaded.flush(fsync=False)
    assert read_file(backend.fs, first.path) == struct.pack(">iiii", 10, 1000, 30, 3000)


def test_offset_index_reset_rewrites_from_scratch(backend: Any) -> None:
    index = _offset_index(backend)
    index.append(110, 1000)
    index.flush(fsync=False)
    index.reset()
    index.append(105, 500)
    index.flush(fsync=False)
    assert read_file(backend.fs, index.path) == struct.pack(">ii", 5, 500)
    index.truncate_entries(0)
    index.flush(fsync=False)
    assert read_file(backend.fs, index.path) == b""


def test_offset_index_consistency(backend: Any) -> None:
    good = struct.pack(">iiii", 1, 100, 5, 200)
    assert _offset_index(backend, good).is_consistent(201)
    assert not _offset_index(backend, good).is_consistent(200)
    assert not _offset_index(backend, struct.pack(">iiii", 5, 100, 5, 200)).is_consistent(1000)
    assert not _offset_index(backend, struct.pack(">iiii", 1, 100, 5, 100)).is_consistent(1000)
    assert not _offset_index(backend, struct.pack(">ii", -1, 100)).is_consistent(1000)
    assert _offset_index(backend, b"").is_consistent(0)


def test_offset_index_is_full_at_segment_index_bytes(backend: Any) -> None:
    index = _offset_index(backend, max_bytes=16)
    index.append(101, 10)
    assert not index.is_full
    index.append(102, 20)
    assert index.is_full


def test_time_index_file_is_kafkas_format(backend: Any) -> None:
    index = _time_index(backend)
    index.maybe_append(1_700_000_000_000, 107)
    index.flush(fsync=True)
    assert read_file(backend.fs, index.path) == struct.pack(">qi", 1_700_000_000_000, 7)


def test_time_index_appends_only_growing_timestamps(backend: Any) -> None:
    index = _time_index(backend)
    assert index.last_entry() == (NO_TIMESTAMP, 100)
    index.maybe_append(NO_TIMESTAMP, 100)
    assert index.entries == 0
    index.maybe_append(50, 105)
    index.maybe_append(50, 110)
    index.maybe_append(40, 120)
    index.maybe_append(60, 120)
    assert [index.entry(i) for i in range(index.entries)] == [(50, 105), (60, 120)]
    with pytest.raises(ValueError):
        index.maybe_append(70, 119)


def test_time_index_lookup(backend: Any) -> None:
    index = _time_index(backend)
    for timestamp, offset in [(10, 101), (20, 105), (30, 109)]:
        index.maybe_append(timestamp, offset)
    assert index.lookup(5) == (NO_TIMESTAMP, 100)
    assert index.lookup(10) == (10, 101)
    assert index.lookup(29) == (20, 105)
    assert index.lookup(10**15) == (30, 109)


def test_time_index_keeps_last_slot_for_roll(backend: Any) -> None:
    index = _time_index(backend, max_bytes=36)
    index.maybe_append(1, 101)
    assert not index.is_full
    index.maybe_append(2, 102)
    assert index.is_full


def test_time_index_consistency(backend: Any) -> None:
    good = struct.pack(">qiqi", 10, 1, 20, 5)
    assert _time_index(backend, good).is_consistent(None)
    assert _time_index(backend, good).is_consistent(106)
    assert not _time_index(backend, good).is_consistent(105)
    assert not _time_index(backend, struct.pack(">qiqi", 20, 1, 20, 5)).is_consistent(None)
    assert not _time_index(backend, struct.pack(">qiqi", 10, 5, 20, 1)).is_consistent(None)
