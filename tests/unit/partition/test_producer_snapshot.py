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
from odradek.txn.producer_state import BatchMetadata, ProducerSnapshotRow, ProducerStateTable

Row = tuple[int, int, int, int, int, int, int, int]


def _kafka_layout(entries: list[Row]) -> bytes:
    """What Kafka's writer produces for ``(pid, epoch, last seq, last offset, delta, timestamp,
    coordinator epoch, current transaction first offset)``."""
    body = struct.pack(">i", len(entries)) + b"".join(struct.pack(">qhiqiqiq", *entry) for entry in entries)
    return struct.pack(">hI", 1, crc32c.crc32c(body)) + body


def test_the_file_is_kafkas_layout() -> None:
    batch = BatchMetadata(first_sequence=3, last_sequence=5, first_offset=10, last_offset=12, timestamp=777)
    rows = [
        ProducerSnapshotRow(42, 7, batch, last_timestamp=777),
        ProducerSnapshotRow(43, 2, None, coordinator_epoch=3, txn_first_offset=8, last_timestamp=900),
    ]
    assert encode_snapshot(rows) == _kafka_layout([(42, 7, 5, 12, 2, 777, -1, -1), (43, 2, -1, -1, 0, 900, 3, 8)])


def test_a_kafka_written_snapshot_decodes_to_the_same_batches() -> None:
    data = _kafka_layout([(42, 7, 5, 12, 2, 777, -1, -1), (9, 0, 1, 100, 3, 5, 2, 97)])
    assert list(decode_snapshot(data)) == [
        ProducerSnapshotRow(42, 7, BatchMetadata(3, 5, 10, 12, 777), -1, -1, 777),
        ProducerSnapshotRow(9, 0, BatchMetadata(2**31 - 2, 1, 97, 100, 5), 2, 97, 5),
    ], "a sequence range may wrap past 2**31 - 1"


def test_every_cached_batch_survives_a_round_trip_oldest_first() -> None:
    table = ProducerStateTable()
    for i in range(7):
        batch = BatchMetadata(2 * i, 2 * i + 1, 10 * i, 10 * i + 1, 1000 + i)
        table.restore(ProducerSnapshotRow(1, 0, batch, last_timestamp=1000 + i))
    table.restore(ProducerSnapshotRow(2, 3, None, coordinator_epoch=4, txn_first_offset=70, last_timestamp=5))
    restored = ProducerStateTable()
    for row in decode_snapshot(encode_snapshot(table.entries())):
        restored.restore(row)
    assert list(restored.entries()) == list(table.entries())
    assert [r.batch.first_sequence for r in restored.entries() if r.batch is not None] == [4, 6, 8, 10, 12]
    assert restored.first_unstable_offset == 70, "an open transaction survives the round trip"


@pytest.mark.parametrize("damage", ["crc", "version", "short", "length"])
def test_a_damaged_snapshot_is_refused(damage: str) -> None:
    data = bytearray(encode_snapshot([ProducerSnapshotRow(1, 0, BatchMetadata(0, 0, 0, 0, 1))]))
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
