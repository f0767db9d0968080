"""Zigzag varint/varlong encoding used inside v2 records."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from odradek.wire.records.batch import CorruptBatchError
from odradek.wire.records.varint import (
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    read_varint,
    read_varlong,
    size_of_varint,
    write_varint,
    write_varlong,
    zigzag_decode,
    zigzag_encode,
)

INT32_EDGES = [0, 1, -1, 63, 64, -64, -65, 127, 128, INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1]
INT64_EDGES = [*INT32_EDGES, INT32_MAX + 1, INT32_MIN - 1, INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1]


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (-1, b"\x01"),
        (1, b"\x02"),
        (-2, b"\x03"),
        (63, b"\x7e"),
        (-64, b"\x7f"),
        (64, b"\x80\x01"),
        (300, b"\xd8\x04"),
        (INT32_MAX, b"\xfe\xff\xff\xff\x0f"),
        (INT32_MIN, b"\xff\xff\xff\xff\x0f"),
    ],
)
def test_varint_known_encodings(value: int, encoded: bytes) -> None:
    buf = bytearray()
    write_varint(buf, value)
    assert bytes(buf) == encoded
    assert read_varint(encoded, 0) == (value, len(encoded))
    assert size_of_varint(value) == len(encoded)


def test_varlong_extremes_take_ten_bytes() -> None:
    for value, encoded in ((INT64_MAX, b"\xfe" + b"\xff" * 8 + b"\x01"), (INT64_MIN, b"\xff" * 9 + b"\x01")):
        buf = bytearray()
        write_varlong(buf, value)
        assert bytes(buf) == encoded
        assert read_varlong(encoded, 0) == (value, 10)


@pytest.mark.parametrize("value", INT32_EDGES)
def test_varint_edges_round_trip(value: int) -> None:
    buf = bytearray(b"\xaa")
    write_varint(buf, value)
    assert read_varint(bytes(buf), 1) == (value, len(buf))
    assert zigzag_decode(zigzag_encode(value)) == value


@pytest.mark.parametrize("value", INT64_EDGES)
def test_varlong_edges_round_trip(value: int) -> None:
    buf = bytearray()
    write_varlong(buf, value)
    assert read_varlong(bytes(buf), 0) == (value, len(buf))
    assert size_of_varint(value) == len(buf)
    assert zigzag_encode(value) >= 0


@given(st.integers(INT32_MIN, INT32_MAX))
def test_varint_round_trip(value: int) -> None:
    buf = bytearray()
    write_varint(buf, value)
    assert len(buf) == size_of_varint(value) <= 5
    assert read_varint(bytes(buf) + b"\x00", 0) == (value, len(buf))


@given(st.integers(INT64_MIN, INT64_MAX))
def test_varlong_round_trip(value: int) -> None:
    buf = bytearray()
    write_varlong(buf, value)
    assert len(buf) == size_of_varint(value) <= 10
    assert read_varlong(bytes(buf), 0) == (value, len(buf))


@pytest.mark.parametrize("value", [INT32_MAX + 1, INT32_MIN - 1])
def test_varint_rejects_values_outside_int32(value: int) -> None:
    with pytest.raises(ValueError, match="int32"):
        write_varint(bytearray(), value)


@pytest.mark.parametrize("value", [INT64_MAX + 1, INT64_MIN - 1])
def test_varlong_rejects_values_outside_int64(value: int) -> None:
    with pytest.raises(ValueError, match="int64"):
        write_varlong(bytearray(), value)


@pytest.mark.parametrize("data", [b"", b"\x80", b"\xff\xff\xff\xff"])
def test_truncated_varint_is_corrupt(data: bytes) -> None:
    with pytest.raises(CorruptBatchError, match="truncated"):
        read_varint(data, 0)


def test_varint_longer_than_five_bytes_is_corrupt() -> None:
    with pytest.raises(CorruptBatchError, match="longer than 5"):
        read_varint(b"\x80\x80\x80\x80\x80\x01", 0)


def test_varint_beyond_uint32_is_corrupt() -> None:
    with pytest.raises(CorruptBatchError, match="int32"):
        read_varint(b"\xff\xff\xff\xff\x1f", 0)


def test_varlong_longer_than_ten_bytes_is_corrupt() -> None:
    with pytest.raises(CorruptBatchError, match="longer than 10"):
        read_varlong(b"\x80" * 10 + b"\x01", 0)


def test_varlong_beyond_uint64_is_corrupt() -> None:
    with pytest.raises(CorruptBatchError, match="int64"):
        read_varlong(b"\xff" * 9 + b"\x7f", 0)
