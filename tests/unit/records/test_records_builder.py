"""Building and decoding whole batches, records and control records."""

from __future__ import annotations

import struct

import pytest
from crc32c import crc32c
from hypothesis import given, settings
from hypothesis import strategies as st

from odradek.wire.records.batch import (
    ATTRIBUTES_OFFSET,
    BATCH_OVERHEAD,
    CRC_OFFSET,
    CorruptBatchError,
    verify_batch,
)
from odradek.wire.records.builder import (
    ControlRecord,
    ControlRecordType,
    build_batch,
    build_control_batch,
    decode_batch,
    parse_control_record,
)
from odradek.wire.records.compression import CompressionType, compress
from odradek.wire.records.record import Record, decode_record, encode_record_into, record_size
from odradek.wire.records.varint import INT32_MAX, INT64_MAX, INT64_MIN

nullable_bytes = st.one_of(st.none(), st.binary(max_size=64))
headers = st.lists(st.tuples(st.text(max_size=12), nullable_bytes), max_size=4).map(tuple)


@st.composite
def record_lists(draw: st.DrawFn) -> list[Record]:
    deltas = draw(st.lists(st.integers(0, INT32_MAX), max_size=12, unique=True))
    records = []
    for offset_delta in sorted(deltas):
        records.append(
            Record(
                offset_delta=offset_delta,
                timestamp_delta=draw(st.integers(-(2**40), 2**40)),
                key=draw(nullable_bytes),
                value=draw(st.one_of(nullable_bytes, st.just(b""), st.binary(min_size=200, max_size=3000))),
                headers=draw(headers),
                attributes=draw(st.integers(-128, 127)),
            )
        )
    return records


@settings(deadline=None, max_examples=150)
@given(
    records=record_lists(),
    codec=st.sampled_from(list(CompressionType)),
    base_offset=st.integers(0, 2**62),
    base_timestamp=st.one_of(st.none(), st.integers(0, 2**41)),
    producer=st.tuples(st.integers(-1, 2**62), st.integers(-1, 32767), st.integers(-1, INT32_MAX)),
    flags=st.tuples(st.booleans(), st.booleans(), st.sampled_from([0, 1])),
    leader_epoch=st.integers(-1, INT32_MAX),
)
def test_build_decode_round_trip(
    records: list[Record],
    codec: CompressionType,
    base_offset: int,
    base_timestamp: int | None,
    producer: tuple[int, int, int],
    flags: tuple[bool, bool, int],
    leader_epoch: int,
) -> None:
    producer_id, producer_epoch, base_sequence = producer
    transactional, control, timestamp_type = flags
    data = build_batch(
        records,
        base_offset=base_offset,
        compression=codec,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
        is_transactional=transactional,
        is_control=control,
        partition_leader_epoch=leader_epoch,
        base_timestamp=base_timestamp,
        timestamp_type=timestamp_type,
    )
    header, decoded = decode_batch(b"\x01\x02" + data, 2)
    assert decoded == records
    assert header.total_size == len(data)
    assert header.base_offset == base_offset
    assert header.compression == codec
    assert header.records_count == len(records)
    assert header.last_offset_delta == (records[-1].offset_delta if records else 0)
    expected_base = -1 if base_timestamp is None else base_timestamp
    assert header.base_timestamp == expected_base
    assert header.max_timestamp == expected_base + max((r.timestamp_delta for r in records), default=0)
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == producer
    assert (header.is_transactional, header.is_control, header.timestamp_type) == flags
    assert header.partition_leader_epoch == leader_epoch
    assert not header.has_delete_horizon


@pytest.mark.parametrize("codec", list(CompressionType))
def test_large_values_round_trip(codec: CompressionType) -> None:
    big = bytes(range(256)) * 8192  # 2 MiB, spans many codec blocks
    records = [Record(0, 0, None, big), Record(1, 5, b"k", b""), Record(2, 9, b"", None, (("", b""),))]
    header, decoded = decode_batch(build_batch(records, compression=codec, base_timestamp=10))
    assert decoded == records
    assert header.max_timestamp == 19


def test_uncompressed_record_bytes_match_the_spec() -> None:
    record = Record(1, -1, None, b"v", (("k", None),), 0)
    buf = bytearray()
    encode_record_into(buf, record)
    #          len=10 attr ts=-1 off=1 key=null vlen=1 v hcnt=1 hklen=1 k hvlen=null
    assert bytes(buf) == b"\x14\x00\x01\x02\x01\x02v\x02\x02k\x01"
    assert record_size(record) == len(buf)
    assert decode_record(bytes(buf), 0) == (record, len(buf))


def test_record_header_keys_are_utf8() -> None:
    record = Record(0, 0, b"k", b"v", (("clé", b"\x00"), ("日本", None)))
    buf = bytearray()
    encode_record_into(buf, record)
    assert "clé".encode() in buf
    assert decode_record(bytes(buf), 0)[0] == record


def test_timestamp_delta_extremes_round_trip() -> None:
    records = [Record(0, INT64_MIN, None, None), Record(1, INT64_MAX, None, None)]
    _, decoded = decode_batch(build_batch(records, base_timestamp=0, max_timestamp=0))
    assert decoded == records


def test_builder_rejects_out_of_range_fields() -> None:
    with pytest.raises(ValueError, match="int32"):
        build_batch([Record(INT32_MAX + 1, 0, None, None)])
    with pytest.raises(ValueError, match="int8"):
        build_batch([Record(0, 0, None, None, (), 128)])
    with pytest.raises(ValueError, match="increase"):
        build_batch([Record(1, 0, None, None), Record(1, 0, None, None)])
    with pytest.raises(ValueError, match="codec"):
        build_batch([], compression=5)


def test_delete_horizon_flag_and_overrides() -> None:
    data = build_batch(
        [Record(3, -5, b"k", None)],
        base_timestamp=1000,
        has_delete_horizon=True,
        last_offset_delta=9,
        max_timestamp=2000,
    )
    header, records = decode_batch(data)
    assert header.has_delete_horizon
    assert header.last_offset_delta == 9
    assert header.max_timestamp == 2000
    assert records == [Record(3, -5, b"k", None)]


def _with_records_section(records_section: bytes, count: int, codec: int = 0) -> bytes:
    """A batch whose records section is given raw, with a correct CRC and length."""
    buf = bytearray(build_batch([], compression=0))
    buf += compress(codec, records_section) if codec else records_section
    struct.pack_into(">i", buf, 8, len(buf) - 12)
    struct.pack_into(">h", buf, ATTRIBUTES_OFFSET, codec)
    struct.pack_into(">i", buf, 57, count)
    struct.pack_into(">I", buf, CRC_OFFSET, crc32c(buf[ATTRIBUTES_OFFSET:]))
    verify_batch(buf)
    return bytes(buf)


def _encoded(*records: Record) -> bytes:
    buf = bytearray()
    for record in records:
        encode_record_into(buf, record)
    return bytes(buf)


@pytest.mark.parametrize("codec", [0, 1, 4])
def test_decode_rejects_fewer_records_than_declared(codec: int) -> None:
    data = _with_records_section(_encoded(Record(0, 0, b"a", b"b")), 2, codec)
    with pytest.raises(CorruptBatchError, match="declares 2 records"):
        decode_batch(data)


@pytest.mark.parametrize("codec", [0, 3])
def test_decode_rejects_bytes_after_the_records(codec: int) -> None:
    section = _encoded(Record(0, 0, b"a", b"b"), Record(1, 0, b"c", b"d"))
    with pytest.raises(CorruptBatchError, match="follow"):
        decode_batch(_with_records_section(section, 1, codec))


@pytest.mark.parametrize(
    ("section", "reason"),
    [
        (b"\x10\x00\x00", "overruns the batch"),
        (b"\x00", "empty record"),
        (b"\x0e\x00\x00\x00\x01\x01\x00\x00", "fields take 6 bytes, its length says 7"),
        (b"\x0c\x00\x00\x00\x08ab\x01\x00", "key of 4 bytes overruns"),
        (b"\x0a\x00\x00\x00\x03\x01", "invalid key length -2"),
        (b"\x10\x00\x00\x00\x01\x01\x02\x01\x01", "null header key"),
        (b"\x12\x00\x00\x00\x01\x01\x02\x02\xff\x01", "UTF-8"),
        (b"\x0c\x00\x00\x00\x01\x01\x7f", "invalid header count -64"),
        (b"\x0c\x00\x00\x00\x01\x01\x02", "invalid header count 1"),
        (b"\x0c\x00\x00\x00\x01\x01\x80", "truncated varint"),
    ],
)
def test_decode_rejects_malformed_records(section: bytes, reason: str) -> None:
    with pytest.raises(CorruptBatchError, match=reason):
        decode_batch(_with_records_section(section, 1))


def test_decode_rejects_corrupt_compressed_section() -> None:
    buf = bytearray(_with_records_section(b"", 0))
    buf += b"definitely not gzip"
    struct.pack_into(">i", buf, 8, len(buf) - 12)
    struct.pack_into(">h", buf, ATTRIBUTES_OFFSET, 1)
    struct.pack_into(">I", buf, CRC_OFFSET, crc32c(buf[ATTRIBUTES_OFFSET:]))
    with pytest.raises(CorruptBatchError, match="decompress"):
        decode_batch(bytes(buf))


def test_decode_rejects_unknown_codec() -> None:
    buf = bytearray(build_batch([]))
    struct.pack_into(">h", buf, ATTRIBUTES_OFFSET, 6)
    struct.pack_into(">I", buf, CRC_OFFSET, crc32c(buf[ATTRIBUTES_OFFSET:]))
    with pytest.raises(CorruptBatchError, match="codec 6"):
        decode_batch(bytes(buf))


def test_decode_checks_the_crc() -> None:
    buf = bytearray(build_batch([Record(0, 0, b"k", b"v")]))
    buf[-1] ^= 1
    with pytest.raises(CorruptBatchError, match="CRC"):
        decode_batch(bytes(buf))


@pytest.mark.parametrize(("commit", "type_id"), [(True, 1), (False, 0)])
def test_control_batch_layout(commit: bool, type_id: int) -> None:
    data = build_control_batch(commit, 4242, 3, 17, 1000, 1_700_000_000_000, partition_leader_epoch=6)
    assert len(data) == 78  # Kafka's end-transaction-marker batch size
    header, records = decode_batch(data)
    assert header.is_control and header.is_transactional
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (4242, 3, -1)
    assert (header.base_offset, header.last_offset_delta, header.records_count) == (1000, 0, 1)
    assert header.base_timestamp == header.max_timestamp == 1_700_000_000_000
    assert header.partition_leader_epoch == 6
    assert header.compression == 0
    (record,) = records
    assert record.key == struct.pack(">hh", 0, type_id)
    assert record.value == struct.pack(">hi", 0, 17)
    assert record.headers == ()
    expected_type = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
    assert parse_control_record(record) == ControlRecord(expected_type, 0, 17)


def test_parse_control_record_of_other_and_unknown_types() -> None:
    leader_change = Record(0, 0, struct.pack(">hh", 0, 2), b"\x00\x00anything")
    assert parse_control_record(leader_change) == ControlRecord(ControlRecordType.LEADER_CHANGE, 0, None)
    unknown = Record(0, 0, struct.pack(">hh", 0, 99), None)
    assert parse_control_record(unknown).type == ControlRecordType.UNKNOWN
    newer = Record(0, 0, struct.pack(">hh", 1, 1) + b"extra", struct.pack(">hi", 3, 8) + b"more")
    assert parse_control_record(newer) == ControlRecord(ControlRecordType.COMMIT, 1, 8)


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        (None, None, "key"),
        (b"\x00\x00\x00", None, "key"),
        (struct.pack(">hh", -1, 1), struct.pack(">hi", 0, 1), "key version"),
        (struct.pack(">hh", 0, 0), b"\x00\x00\x00\x00\x01", "value"),
        (struct.pack(">hh", 0, 1), None, "value"),
        (struct.pack(">hh", 0, 1), struct.pack(">hi", -1, 1), "marker version"),
    ],
)
def test_parse_control_record_rejects_malformed(key: bytes | None, value: bytes | None, reason: str) -> None:
    with pytest.raises(CorruptBatchError, match=reason):
        parse_control_record(Record(0, 0, key, value))


def test_empty_batch_decodes_to_no_records() -> None:
    header, records = decode_batch(build_batch([], base_offset=5))
    assert records == []
    assert header.total_size == BATCH_OVERHEAD
    assert header.base_timestamp == header.max_timestamp == -1
