"""The v2 batch header view: reading, verification, in-place patches, iteration."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from crc32c import crc32c

from odradek.wire.records.batch import (
    ATTRIBUTES_OFFSET,
    BATCH_OVERHEAD,
    CRC_OFFSET,
    LOG_OVERHEAD,
    BatchHeader,
    CorruptBatchError,
    iter_batches,
    read_header,
    set_base_offset,
    set_log_append_time,
    set_partition_leader_epoch,
    verify_batch,
    write_header,
)
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record


def _batch(count: int = 3, **kwargs: Any) -> bytes:
    records = [Record(i, i * 10, b"key-%d" % i, b"value-%d" % i, (("h", b"v"),)) for i in range(count)]
    return build_batch(records, **kwargs)


def test_header_fields_and_properties() -> None:
    data = _batch(
        3,
        base_offset=100,
        producer_id=42,
        producer_epoch=7,
        base_sequence=9,
        is_transactional=True,
        partition_leader_epoch=5,
        base_timestamp=1_700_000_000_000,
        compression=1,
    )
    header = verify_batch(data)
    assert header == read_header(data)
    assert header.base_offset == 100
    assert header.total_size == len(data) == header.batch_length + LOG_OVERHEAD
    assert header.partition_leader_epoch == 5
    assert header.magic == 2
    assert header.last_offset_delta == 2
    assert header.last_offset == 102
    assert header.next_offset == 103
    assert header.base_timestamp == 1_700_000_000_000
    assert header.max_timestamp == 1_700_000_000_020
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (42, 7, 9)
    assert header.records_count == 3
    assert header.compression == 1
    assert header.timestamp_type == 0
    assert header.is_transactional
    assert not header.is_control
    assert not header.has_delete_horizon
    assert header.crc == crc32c(data[ATTRIBUTES_OFFSET:])


def test_attribute_bits() -> None:
    header = BatchHeader(0, 49, -1, 2, 0, 0b1111100, 0, 0, 0, -1, -1, -1, 0)
    assert header.compression == 4
    assert header.timestamp_type == 1
    assert header.is_transactional
    assert header.is_control
    assert header.has_delete_horizon


def test_header_layout_offsets_match_kafka() -> None:
    data = _batch(1, base_offset=0x0102030405060708, partition_leader_epoch=0x11223344)
    assert data[:8] == bytes.fromhex("0102030405060708")
    assert struct.unpack_from(">i", data, 8)[0] == len(data) - 12
    assert data[12:16] == bytes.fromhex("11223344")
    assert data[16] == 2
    assert struct.unpack_from(">I", data, CRC_OFFSET)[0] == crc32c(data[21:])
    assert struct.unpack_from(">i", data, 57)[0] == 1


def test_verify_detects_every_flipped_bit_after_the_crc_field() -> None:
    data = _batch(2)
    verify_batch(data)
    for index in range(CRC_OFFSET, len(data)):
        for bit in range(8):
            corrupted = bytearray(data)
            corrupted[index] ^= 1 << bit
            with pytest.raises(CorruptBatchError):
                verify_batch(corrupted)


def test_crc_mismatch_message_names_the_crc() -> None:
    corrupted = bytearray(_batch(1))
    corrupted[-1] ^= 0x10
    with pytest.raises(CorruptBatchError, match="CRC"):
        verify_batch(corrupted)


def test_set_base_offset_keeps_crc_valid() -> None:
    buf = bytearray(b"\x00" * 5 + _batch(2))
    set_base_offset(buf, 5, 123_456_789_012)
    header = verify_batch(buf, 5)
    assert header.base_offset == 123_456_789_012
    assert header.last_offset == 123_456_789_013


def test_set_partition_leader_epoch_keeps_crc_valid() -> None:
    buf = bytearray(_batch(2))
    set_partition_leader_epoch(memoryview(buf), 0, 77)
    assert verify_batch(buf).partition_leader_epoch == 77


def test_set_log_append_time_keeps_crc_valid() -> None:
    original = _batch(3, base_timestamp=1000, compression=3)
    buf = bytearray(b"\xff" * 7 + original + b"\xee" * 3)
    set_log_append_time(buf, 7, 5_000_000)
    header = verify_batch(buf, 7)
    assert header.timestamp_type == 1
    assert header.max_timestamp == 5_000_000
    assert header.base_timestamp == 1000
    assert header.compression == 3
    assert buf[:7] == b"\xff" * 7
    assert buf[-3:] == b"\xee" * 3
    assert buf[7 + BATCH_OVERHEAD : -3] == original[BATCH_OVERHEAD:]


def test_set_log_append_time_on_incomplete_batch_raises() -> None:
    buf = bytearray(_batch(2)[:-1])
    with pytest.raises(CorruptBatchError):
        set_log_append_time(buf, 0, 1)


def test_write_header_recomputes_the_crc() -> None:
    buf = bytearray(_batch(2))
    header = read_header(buf)
    patched = BatchHeader(
        header.base_offset,
        header.batch_length,
        header.partition_leader_epoch,
        header.magic,
        0,
        header.attributes,
        header.last_offset_delta,
        header.base_timestamp,
        header.max_timestamp,
        99,
        3,
        header.base_sequence,
        header.records_count,
    )
    crc = write_header(buf, 0, patched)
    verified = verify_batch(buf)
    assert verified.crc == crc
    assert (verified.producer_id, verified.producer_epoch) == (99, 3)


@pytest.mark.parametrize("cut", [0, 1, 11, 12, 60])
def test_read_header_on_short_buffer_raises(cut: int) -> None:
    with pytest.raises(CorruptBatchError, match="61 bytes"):
        read_header(_batch(1)[:cut])


def test_read_header_at_offset_counts_available_bytes_from_pos() -> None:
    data = b"\x00" * 10 + _batch(1)
    assert read_header(data, 10).records_count == 1
    with pytest.raises(CorruptBatchError):
        read_header(data, len(data) - 60)


def test_verify_truncated_batches_raise() -> None:
    data = _batch(2)
    for cut in range(len(data)):
        with pytest.raises(CorruptBatchError):
            verify_batch(data[:cut])


def test_verify_rejects_wrong_magic_short_length_and_negative_count() -> None:
    data = _batch(1)
    wrong_magic = bytearray(data)
    wrong_magic[16] = 1
    with pytest.raises(CorruptBatchError, match="magic"):
        verify_batch(wrong_magic)

    short = bytearray(data)
    struct.pack_into(">i", short, 8, 48)
    with pytest.raises(CorruptBatchError, match="length"):
        verify_batch(short)

    negative = bytearray(data)
    struct.pack_into(">i", negative, 57, -1)
    struct.pack_into(">I", negative, CRC_OFFSET, crc32c(negative[ATTRIBUTES_OFFSET:]))
    with pytest.raises(CorruptBatchError, match="negative"):
        verify_batch(negative)


def test_empty_batch_is_valid() -> None:
    header = verify_batch(build_batch([], last_offset_delta=4, max_timestamp=77))
    assert header.records_count == 0
    assert header.total_size == BATCH_OVERHEAD
    assert header.last_offset_delta == 4
    assert header.max_timestamp == 77


def test_iter_batches_walks_concatenated_batches() -> None:
    first = _batch(2, base_offset=0)
    second = _batch(5, base_offset=2, compression=4)
    third = _batch(1, base_offset=7)
    buf = first + second + third
    found = list(iter_batches(buf))
    assert [pos for pos, _ in found] == [0, len(first), len(first) + len(second)]
    assert [h.base_offset for _, h in found] == [0, 2, 7]
    assert [h.records_count for _, h in found] == [2, 5, 1]


def test_iter_batches_stops_at_a_torn_tail() -> None:
    first = _batch(2)
    second = _batch(3, base_offset=2)
    whole = first + second
    for cut in range(len(first), len(whole)):
        found = list(iter_batches(whole[:cut]))
        assert [pos for pos, _ in found] == [0]
    assert len(list(iter_batches(whole))) == 2


def test_iter_batches_from_a_position() -> None:
    first = _batch(2)
    second = _batch(3, base_offset=2)
    found = list(iter_batches(memoryview(first + second), len(first)))
    assert [(pos, h.base_offset) for pos, h in found] == [(len(first), 2)]


def test_iter_batches_raises_on_impossible_length() -> None:
    buf = bytearray(_batch(1) + _batch(1))
    struct.pack_into(">i", buf, len(buf) // 2 + 8, 10)
    batches = iter_batches(buf)
    assert next(batches)[0] == 0
    with pytest.raises(CorruptBatchError, match="length 10"):
        next(batches)
