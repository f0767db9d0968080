"""Start-up settles compaction leftovers: a ``.swap`` replaces every segment it covers, stray
swap and ``.deleted`` files go, and the segments come back in order."""

from __future__ import annotations

import uuid
from typing import Any

from odradek.clock import ManualClock
from odradek.storage.filesystem import write_file_atomic
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import PartitionLog
from odradek.storage.segment_files import filename_prefix
from odradek.wire.records.batch import set_base_offset
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

TOPIC_ID = uuid.UUID(int=0x10AD)


def _batch(offset: int, value: bytes) -> bytes:
    data = bytearray(build_batch([Record(0, 0, b"k", value)], base_timestamp=1_000))
    set_base_offset(data, 0, offset)
    return bytes(data)


def _open(backend: Any) -> PartitionLog:
    directory = f"{backend.root}/t-0"
    return PartitionLog.open(backend.fs, directory, "t", 0, LogConfig(), ManualClock(0), clean_shutdown=False)


def test_a_swap_replaces_every_segment_it_covers_and_strays_are_removed(backend: Any) -> None:
    directory = f"{backend.root}/t-0"
    log = PartitionLog.create(backend.fs, directory, "t", 0, TOPIC_ID, LogConfig(), ManualClock(0))
    for i in range(6):
        log.append(bytearray(_batch(0, b"old%d" % i)), leader_epoch=0, now_ms=1_000)
        if i % 2:
            log.roll(1_000)
    assert [s.base_offset for s in log.segments] == [0, 2, 4, 6]
    log.close()
    write_file_atomic(backend.fs, f"{directory}/{filename_prefix(0)}.log.swap", _batch(3, b"new3"))
    write_file_atomic(backend.fs, f"{directory}/{filename_prefix(0)}.index.deleted", b"")
    write_file_atomic(backend.fs, f"{directory}/{filename_prefix(4)}.timeindex.swap", b"")
    write_file_atomic(backend.fs, f"{directory}/garbage.log.swap", b"junk")
    reopened = _open(backend)
    assert [s.base_offset for s in reopened.segments] == [0, 4, 6], "the swap covered offsets 0 to 3"
    assert [(h.base_offset, h.last_offset) for h in reopened.batch_headers()] == [(3, 3), (4, 4), (5, 5)]
    names = backend.fs.listdir(directory)
    assert not [n for n in names if n.endswith((".swap", ".deleted"))]
    assert f"{filename_prefix(2)}.log" not in names
    reopened.close()
