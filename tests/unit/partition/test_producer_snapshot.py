"""The producer snapshot file: Kafka's layout byte for byte, names, and damage detection."""

from __future__ import annotations

import struct

import crc32c
import pytest

from odradek.partition.producer_snapshot import (
    CorruptSnapshot,
    decode_snapshot,
    encode_snapshot,
    parse_snapshot_name,
    snapshot_name,
)
from odradek.txn.producer_state import BatchMetadata, ProducerStateTable


def _kafka_layout(entries: list[tuple[int, int, int, int, int, int]]) -> bytes:
    """What Kafka's writer produces for ``(pid, epoch, last seq, last offset, delta, timestamp)``."""
    body = struct.pack(">i", len(entries)) + b"".join(
        struct.pack(">qhiqiqiq", pid, epoch, seq, offset, delta, ts, -1, -1)
        for pid, epoch, seq, offset, delta, ts in entries
    )
    return struct.pack(">hI", 1, crc32c.crc32c(body)) + body


def test_the_file_is_kafkas_layout() -> None:
    batch = BatchMetadata(first_sequence=3, last_sequence=5, first_offset=10, last_offset=12, timestamp=777)
    assert encode_snapshot([(42, 7, batch), (43, 2, None)]) == _kafka_layout(
        [(42, 7, 5, 12, 2, 777), (43, 2, -1, -1, 0, -1)]
    )


def test_a_kafka_written_snapshot_decodes_to_the_same_batches() -> None:
    data = _kafka_layout([(42, 7, 5, 12, 2, 777), (9, 0, 1, 100, 3, 5)])
    assert list(decode_snapshot(data)) == [
        (42, 7, BatchMetadata(3, 5, 10, 12, 777)),
        (9, 0, BatchMetadata(2**31 - 2, 1, 97, 100, 5)),
    ], "a sequence range may wrap past 2**31 - 1"


def test_every_cached_batch_survives_a_round_trip_oldest_first() -> None:
    table = ProducerStateTable()
    for i in range(7):
        table.restore(1, 0, BatchMetadata(2 * i, 2 * i + 1, 10 * i, 10 * i + 1, 1000 + i))
    table.restore(2, 3, None)
    restored = ProducerStateTable()
    for producer_id, epoch, batch in decode_snapshot(encode_snapshot(table.entries())):
        restored.restore(producer_id, epoch, batch)
    assert list(restored.entries()) == list(table.entries())
    assert [b.first_sequence for _, _, b in restored.entries() if b is not None] == [4, 6, 8, 10, 12]


@pytest.mark.parametrize("damage", ["crc", "version", "short", "length"])
def test_a_damaged_snapshot_is_refused(damage: str) -> None:
    data = bytearray(encode_snapshot([(1, 0, BatchMetadata(0, 0, 0, 0, 1))]))
    if damage == "crc":
        data[-1] ^= 1
    elif damage == "version":
        data[1] = 2
    elif damage == "short":
        del data[3:]
    else:
        del data[-1]
    with pytest.raises(CorruptSnapshot):
        decode_snapshot(bytes(data))


def test_names_are_twenty_digits() -> None:
    assert snapshot_name(1234) == "00000000000000001234.snapshot"
    assert parse_snapshot_name("00000000000000001234.snapshot") == 1234
    assert parse_snapshot_name("00000000000000001234.log") is None
    assert parse_snapshot_name("1234.snapshot") is None
    assert parse_snapshot_name("00000000000000001234.snapshot.tmp") is None
