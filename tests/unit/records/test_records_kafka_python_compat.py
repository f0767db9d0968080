"""Byte compatibility with an independent implementation: kafka-python's v2 record batches.

kafka-python builds batches that we decode, and decodes batches that we build, for every
codec.  kafka-python's snappy support needs the ``python-snappy`` module, which is not
installed; for snappy we hand kafka-python a two-function stand-in backed by cramjam's raw
snappy block codec, so kafka-python's own xerial framing code (not ours) frames the blocks.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterator
from typing import Any

import cramjam
import pytest

from odradek.wire.records.batch import set_base_offset, set_log_append_time, verify_batch
from odradek.wire.records.builder import build_batch, build_control_batch, decode_batch
from odradek.wire.records.compression import CompressionType
from odradek.wire.records.record import Record

with warnings.catch_warnings():
    # kafka-python 3.0 reads its bundled schemas with a deprecated importlib API.
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka.codec  # type: ignore[import-untyped]
    from kafka.record.default_records import (  # type: ignore[import-untyped]
        DefaultRecordBatch,
        DefaultRecordBatchBuilder,
    )

BASE_TIMESTAMP = 1_700_000_000_000
HEADERS = [("trace", b"abc"), ("empty", b""), ("none", None), ("ünï", b"\x00\xff")]

_SNAPPY_STAND_IN = types.SimpleNamespace(
    compress=lambda data: bytes(cramjam.snappy.compress_raw(data)),
    decompress=lambda data: bytes(cramjam.snappy.decompress_raw(data)),
)


@pytest.fixture(autouse=True)
def _kafka_python_snappy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if not kafka.codec.has_snappy():
        monkeypatch.setattr(kafka.codec, "snappy", _SNAPPY_STAND_IN)
    yield


def _values(count: int) -> list[bytes]:
    # compressible, so kafka-python does not fall back to an uncompressed batch
    return [(b"value-%03d-" % i) * (20 + i) for i in range(count)]


@pytest.mark.parametrize("codec", list(CompressionType))
def test_we_decode_kafka_python_batches(codec: CompressionType) -> None:
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=int(codec),
        is_transactional=True,
        producer_id=123456789,
        producer_epoch=12,
        base_sequence=1000,
        batch_size=1 << 20,
    )
    values = _values(10)
    for i, value in enumerate(values):
        key = None if i % 3 == 0 else b"key-%d" % i
        value_or_none: bytes | None = None if i == 4 else value
        meta = builder.append(i, BASE_TIMESTAMP + 7 * i, key, value_or_none, HEADERS if i % 2 else [])
        assert meta is not None
    data = bytearray(builder.build())
    set_base_offset(data, 0, 5000)

    header, records = decode_batch(bytes(data))
    assert header.compression == codec
    assert header.base_offset == 5000
    assert header.last_offset_delta == 9
    assert header.records_count == 10
    assert header.base_timestamp == BASE_TIMESTAMP
    assert header.max_timestamp == BASE_TIMESTAMP + 63
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (123456789, 12, 1000)
    assert header.is_transactional and not header.is_control
    for i, record in enumerate(records):
        assert record.offset_delta == i
        assert record.timestamp_delta == 7 * i
        assert record.key == (None if i % 3 == 0 else b"key-%d" % i)
        assert record.value == (None if i == 4 else values[i])
        assert record.headers == (tuple(HEADERS) if i % 2 else ())


def _their_records(data: bytes) -> tuple[Any, list[Any]]:
    batch = DefaultRecordBatch(bytes(data))
    assert batch.validate_crc()
    return batch, list(batch)


@pytest.mark.parametrize("codec", list(CompressionType))
def test_kafka_python_decodes_our_batches(codec: CompressionType) -> None:
    values = [*_values(8), b"", bytes(range(256)) * 600]
    records = [
        Record(
            offset_delta=2 * i,
            timestamp_delta=-3 if i == 1 else 11 * i,
            key=None if i % 4 == 0 else b"k%d" % i,
            value=None if i == 3 else value,
            headers=tuple(HEADERS[: i % 5]),
        )
        for i, value in enumerate(values)
    ]
    data = build_batch(
        records,
        base_offset=77,
        compression=codec,
        producer_id=99,
        producer_epoch=2,
        base_sequence=40,
        is_transactional=True,
        partition_leader_epoch=9,
        base_timestamp=BASE_TIMESTAMP,
    )
    batch, theirs = _their_records(data)
    assert batch.compression_type == codec
    assert batch.base_offset == 77
    assert batch.leader_epoch == 9
    assert batch.last_offset_delta == 18
    assert batch.records_count == len(records)
    assert batch.first_timestamp == BASE_TIMESTAMP
    assert batch.max_timestamp == BASE_TIMESTAMP + 99
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence) == (99, 2, 40)
    assert batch.is_transactional and not batch.is_control_batch
    assert batch.timestamp_type == 0
    assert len(theirs) == len(records)
    for ours, their in zip(records, theirs, strict=True):
        assert their.offset == 77 + ours.offset_delta
        assert their.timestamp == BASE_TIMESTAMP + ours.timestamp_delta
        assert their.key == ours.key
        assert their.value == ours.value
        assert [tuple(h) for h in their.headers] == list(ours.headers)


@pytest.mark.parametrize("codec", [CompressionType.NONE, CompressionType.ZSTD])
def test_kafka_python_sees_log_append_time(codec: CompressionType) -> None:
    data = bytearray(
        build_batch(
            [Record(0, 0, None, b"a" * 100), Record(1, 5, None, b"b" * 100)],
            compression=codec,
            base_timestamp=1000,
        )
    )
    set_log_append_time(data, 0, 987_654_321)
    verify_batch(data)
    batch, theirs = _their_records(bytes(data))
    assert batch.timestamp_type == 1
    assert [r.timestamp for r in theirs] == [987_654_321, 987_654_321]


@pytest.mark.parametrize(("commit", "their_type"), [(True, 1), (False, 0)])
def test_kafka_python_reads_our_control_batches(commit: bool, their_type: int) -> None:
    data = build_control_batch(commit, 31337, 4, 22, 500, BASE_TIMESTAMP)
    batch, theirs = _their_records(data)
    assert batch.is_control_batch and batch.is_transactional
    (marker,) = theirs
    assert marker.offset == 500
    assert marker.timestamp == BASE_TIMESTAMP
    assert (marker.version, marker.type) == (0, their_type)
    assert marker.commit is commit
    assert marker.value == b"\x00\x00\x00\x00\x00\x16"
