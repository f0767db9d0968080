"""Reading a keyed partition log back as rows, for the compaction tests."""

from __future__ import annotations

from odradek.storage.partition_log import PartitionLog
from odradek.wire.records.batch import iter_batches
from odradek.wire.records.builder import decode_batch

Row = tuple[int, str, str | None]
"""(offset, key, value) of one record; every record in these tests has a key."""


def keyed_rows(log: PartitionLog) -> list[Row]:
    """Every record from the log start, in offset order."""
    out: list[Row] = []
    offset = log.log_start_offset
    while (region := log.read(offset, 1 << 20)) is not None:
        data = region.read()
        for position, _ in iter_batches(data):
            header, records = decode_batch(data, position)
            for r in records:
                assert r.key is not None
                out.append(
                    (header.base_offset + r.offset_delta, r.key.decode(), None if r.value is None else r.value.decode())
                )
            offset = header.next_offset
    return out
