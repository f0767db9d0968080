"""LogSegment: reads by offset, the indexing rule, recovery, on every backend."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from odradek.storage.filesystem import FileSystem, read_file
from odradek.storage.offset_index import OffsetIndex
from odradek.storage.segment import AppendedBatch, LogSegment, TimestampOffset
from odradek.storage.segment_files import filename_prefix, parse_segment_filename
from odradek.storage.time_index import TimeIndex
from odradek.wire.records.batch import iter_batches, read_header, set_base_offset, verify_batch

MakeBatch = Callable[..., bytearray]


def _create(backend: Any, base: int = 0, interval: int = 4096) -> LogSegment:
    return LogSegment.create(
        backend.fs, backend.root, base, index_interval_bytes=interval, max_index_bytes=1 << 20, now_ms=0
    )


def _reopen(backend: Any, base: int = 0, interval: int = 4096) -> LogSegment:
    return LogSegment(
        backend.fs, backend.root, base, index_interval_bytes=interval, max_index_bytes=1 << 20, created_ms=0
    )


def _fill(segment: LogSegment, batches: list[bytearray]) -> list[bytes]:
    """Append each batch (offsets patched, as the partition log does); return the bytes written."""
    offset = segment.next_offset
    written = []
    for batch in batches:
        set_base_offset(batch, 0, offset)
        header = read_header(batch)
        segment.append(batch, [AppendedBatch(0, header.last_offset, header.max_timestamp)])
        written.append(bytes(batch))
        offset = header.next_offset
    return written


def _rewrite_byte(fs: FileSystem, path: str, position: int) -> None:
    data = bytearray(read_file(fs, path))
    data[position] ^= 0xFF
    handle = fs.open_append(path)
    handle.truncate(position)
    handle.write(data[position:])
    handle.close()


def test_file_names_are_kafkas() -> None:
    assert filename_prefix(0) == "00000000000000000000"
    assert filename_prefix(1234) == "00000000000000001234"
    assert parse_segment_filename("00000000000000001234.log") == 1234
    assert parse_segment_filename("00000000000000001234.index") is None
    assert parse_segment_filename("00000000000000001234.log.deleted") is None
    assert parse_segment_filename("1234.log") is None


def test_create_makes_three_empty_files(backend: Any) -> None:
    segment = _create(backend, 42)
    stem = f"{backend.root}/{filename_prefix(42)}"
    for suffix in (".log", ".index", ".timeindex"):
        assert backend.fs.size(stem + suffix) == 0
    assert segment.next_offset == 42
    assert segment.read(42, 1000) is None
    segment.close()


def test_read_in_the_middle_of_a_batch_returns_the_whole_batch(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend)
    written = _fill(segment, [make_batch(5), make_batch(5), make_batch(5)])
    region = segment.read(7, 1 << 20)
    assert region is not None
    assert region.position == len(written[0])
    assert region.read() == written[1] + written[2]
    segment.close()


def test_read_covers_whole_batches_within_max_bytes(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, interval=1)
    written = _fill(segment, [make_batch(3, value_size=50) for _ in range(6)])
    size = len(written[0])
    assert all(len(batch) == size for batch in written)
    region = segment.read(0, size * 2 + size // 2)
    assert region is not None and region.read() == written[0] + written[1]
    region = segment.read(3, size * 3)
    assert region is not None and region.read() == b"".join(written[1:4])
    region = segment.read(0, size - 1)
    assert region is not None and region.read() == written[0]
    region = segment.read(0, 0)
    assert region is not None and region.read() == written[0]
    region = segment.read(16, 10**9)
    assert region is not None and region.read() == b"".join(written[5:])
    assert segment.read(18, 10**9) is None
    segment.close()


def test_sequential_reads_walk_the_segment(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, interval=100)
    written = _fill(segment, [make_batch(2, value_size=30) for _ in range(20)])
    offset, chunks = 0, []
    while (region := segment.read(offset, 300)) is not None:
        data = region.read()
        chunks.append(data)
        *_, (_, last) = iter_batches(data)
        offset = last.next_offset
    assert b"".join(chunks) == b"".join(written)
    assert offset == 40
    segment.close()


def test_index_entries_point_at_batches_with_that_last_offset(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, interval=200)
    _fill(segment, [make_batch(4, value_size=40, base_timestamp=1000 + 10 * i) for i in range(30)])
    segment.close()
    log = read_file(backend.fs, segment.path)
    index = OffsetIndex(backend.fs, "", 0, 1 << 20, read_file(backend.fs, f"{backend.root}/{filename_prefix(0)}.index"))
    assert index.entries > 3
    last_position = 0
    for n in range(index.entries):
        offset, position = index.entry(n)
        assert read_header(log, position).last_offset == offset
        assert position - last_position > 200
        last_position = position
    times = TimeIndex(
        backend.fs, "", 0, 1 << 20, read_file(backend.fs, f"{backend.root}/{filename_prefix(0)}.timeindex")
    )
    assert times.last_entry() == (1000 + 290 + 3, 119)


def test_index_interval_is_exceeded_not_reached(backend: Any, make_batch: MakeBatch) -> None:
    size = len(make_batch(1))
    segment = _create(backend, interval=size)
    _fill(segment, [make_batch(1) for _ in range(7)])
    segment.close()
    index = read_file(backend.fs, f"{backend.root}/{filename_prefix(0)}.index")
    assert index == struct.pack(">iiii", 2, 2 * size, 4, 4 * size) + struct.pack(">ii", 6, 6 * size)


def test_recover_rebuilds_the_same_indexes(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, interval=150)
    _fill(segment, [make_batch(3, value_size=20 + i, base_timestamp=5000 - i) for i in range(25)])
    segment.close()
    stem = f"{backend.root}/{filename_prefix(0)}"
    before = (read_file(backend.fs, stem + ".index"), read_file(backend.fs, stem + ".timeindex"))
    reopened = _reopen(backend, interval=150)
    assert reopened.recover() == 0
    reopened.close()
    after = (read_file(backend.fs, stem + ".index"), read_file(backend.fs, stem + ".timeindex"))
    assert after == before
    assert len(before[0]) > 0


def test_recover_truncates_a_torn_tail(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend)
    written = _fill(segment, [make_batch(2), make_batch(3)])
    segment.close()
    torn = make_batch(4)
    handle = backend.fs.open_append(segment.path)
    handle.write(torn[: len(torn) // 2])
    handle.close()
    reopened = _reopen(backend)
    assert reopened.recover() == len(torn) // 2
    assert reopened.next_offset == 5
    assert read_file(backend.fs, segment.path) == b"".join(written)
    reopened.close()


def test_recover_truncates_a_batch_with_a_bad_crc(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend)
    written = _fill(segment, [make_batch(2), make_batch(3), make_batch(1)])
    segment.close()
    _rewrite_byte(backend.fs, segment.path, len(written[0]) + len(written[1]) - 3)
    reopened = _reopen(backend)
    assert reopened.recover() == len(written[1]) + len(written[2])
    assert reopened.next_offset == 2
    assert read_file(backend.fs, segment.path) == written[0]
    reopened.close()


def test_check_tail_keeps_a_sound_segment(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, interval=100)
    written = _fill(segment, [make_batch(3, value_size=30) for _ in range(10)])
    segment.close()
    reopened = _reopen(backend, interval=100)
    assert reopened.check_tail() == 0
    assert reopened.next_offset == 30
    assert read_file(backend.fs, segment.path) == b"".join(written)
    reopened.close()


def test_check_tail_recovers_a_torn_tail(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, interval=100)
    _fill(segment, [make_batch(3, value_size=30) for _ in range(10)])
    segment.close()
    handle = backend.fs.open_append(segment.path)
    handle.write(b"\x00" * 30)
    handle.close()
    reopened = _reopen(backend, interval=100)
    assert reopened.check_tail() == 30
    assert reopened.next_offset == 30
    reopened.close()


def test_inconsistent_index_is_rebuilt_on_first_use(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, interval=1)
    written = _fill(segment, [make_batch(2) for _ in range(5)])
    segment.close()
    index_path = f"{backend.root}/{filename_prefix(0)}.index"
    handle = backend.fs.open_append(index_path)
    handle.write(b"\x00\x00\x00\x00\x00\x00\x00\x00")
    handle.close()
    reopened = _reopen(backend, interval=1)
    region = reopened.read(6, 10**6)
    assert region is not None and region.read() == b"".join(written[3:])
    reopened.close()
    rebuilt = read_file(backend.fs, index_path)
    assert len(rebuilt) == 4 * 8


def test_reopened_segment_finds_its_next_offset(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, 1000, interval=64)
    _fill(segment, [make_batch(7) for _ in range(9)])
    segment.close()
    reopened = _reopen(backend, 1000, interval=64)
    assert reopened.next_offset == 1063
    assert reopened.read(1063, 100) is None
    region = reopened.read(1062, 100)
    assert region is not None
    assert verify_batch(region.read()).last_offset == 1062
    reopened.close()


def test_timestamp_search_names_a_record(backend: Any, make_batch: MakeBatch) -> None:
    segment = _create(backend, interval=1)
    _fill(
        segment,
        [
            make_batch(3, base_timestamp=100, timestamp_deltas=[0, 10, 20]),
            make_batch(3, base_timestamp=200, timestamp_deltas=[0, 50, 5]),
            make_batch(2, base_timestamp=300, timestamp_deltas=[0, 1]),
        ],
    )
    found = segment.find_offset_by_timestamp(215, 0)
    assert found is not None and (found.offset, found.timestamp) == (4, 250)
    found = segment.find_offset_by_timestamp(111, 0)
    assert found is not None and (found.offset, found.timestamp) == (2, 120)
    found = segment.find_offset_by_timestamp(50, 0)
    assert found is not None and (found.offset, found.timestamp) == (0, 100)
    found = segment.find_offset_by_timestamp(50, 4)
    assert found is not None and (found.offset, found.timestamp) == (4, 250)
    assert segment.find_offset_by_timestamp(302, 0) is None
    assert segment.find_max_timestamp() == TimestampOffset(301, 7, -1)
    segment.close()


def _append_at(segment: LogSegment, bases: list[int], make_batch: MakeBatch) -> None:
    """Batches of two records at the given base offsets (gaps between them, as compaction leaves),
    of growing sizes so that each read below returns exactly one batch."""
    for number, base in enumerate(bases):
        batch = make_batch(2, value_size=200 + 50 * number)
        set_base_offset(batch, 0, base)
        header = read_header(batch)
        segment.append(batch, [AppendedBatch(0, header.last_offset, header.max_timestamp)])


def _answers(segment: LogSegment, offsets: list[int]) -> list[bytes | None]:
    return [None if (region := segment.read(offset, 100)) is None else region.read() for offset in offsets]


def test_a_reader_going_on_after_a_whole_batch_gets_what_a_fresh_segment_returns(
    backend: Any, make_batch: MakeBatch
) -> None:
    """Each read remembers where the batch after the one it returned starts (keyed by the offset a
    consumer asks for next); those reads, in any order and across offset gaps, must answer as a
    reopened segment that has remembered nothing."""
    bases = [0, 10, 12, 30, 31, 33, 50]
    segment = _create(backend, interval=1 << 20)  # one index entry: every read walks or uses what it remembered
    _append_at(segment, bases, make_batch)
    segment.flush()
    offsets = list(range(0, 53))
    going_on, offset = [], 0
    while (region := segment.read(offset, 100)) is not None:
        going_on.append(region.read())
        offset = read_header(going_on[-1]).next_offset
    assert [read_header(data).base_offset for data in going_on] == bases
    served = _answers(segment, offsets[::-1]) + _answers(segment, offsets)
    fresh = _reopen(backend)
    expected = _answers(fresh, offsets)
    assert served == expected[::-1] + expected
    assert [None if data is None else read_header(data).base_offset for data in expected[:14]] == [
        0, 0, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 12, 12
    ]
    segment.close()
    fresh.close()
