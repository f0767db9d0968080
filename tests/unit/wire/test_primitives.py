"""Primitive encodings: round trips at the edges and Kafka's exact byte forms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from odradek.wire.primitives import DecodeError, Reader, Writer

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)


@given(INT32)
def test_varint_round_trip(value: int) -> None:
    w = Writer()
    w.varint(value)
    r = Reader(bytes(w.buf))
    assert r.varint() == value
    assert r.remaining() == 0


@given(INT64)
def test_varlong_round_trip(value: int) -> None:
    w = Writer()
    w.varlong(value)
    assert Reader(bytes(w.buf)).varlong() == value


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(0, b"\x00"), (-1, b"\x01"), (1, b"\x02"), (63, b"\x7e"), (-64, b"\x7f"), (64, b"\x80\x01")],
)
def test_zigzag_bytes_match_kafka(value: int, encoded: bytes) -> None:
    w = Writer()
    w.varint(value)
    assert bytes(w.buf) == encoded


@given(st.one_of(st.none(), st.text(max_size=300)))
def test_strings_round_trip_in_both_forms(value: str | None) -> None:
    w = Writer()
    w.string(value)
    w.compact_string(value)
    r = Reader(bytes(w.buf))
    assert r.string() == value
    assert r.compact_string() == value
    assert r.remaining() == 0


@given(st.one_of(st.none(), st.binary(max_size=300)))
def test_bytes_round_trip_in_both_forms(value: bytes | None) -> None:
    w = Writer()
    w.bytes_(value)
    w.compact_bytes(value)
    r = Reader(bytes(w.buf))
    first, second = r.bytes_(), r.compact_bytes()
    assert (None if first is None else bytes(first)) == value
    assert (None if second is None else bytes(second)) == value


def test_null_string_is_minus_one_and_compact_zero() -> None:
    w = Writer()
    w.string(None)
    w.compact_string(None)
    assert bytes(w.buf) == b"\xff\xff\x00"


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00", b"\x00\x05ab", b"\xff\xfe", b"\x00\x00\xff\xff\xff\xff\xff\x01", b"\x00\x02\xff\xfe"],
)
def test_truncated_or_invalid_input_raises_decode_error(data: bytes) -> None:
    r = Reader(data)
    with pytest.raises(DecodeError):
        r.string()
        r.uvarint()


def test_forged_array_length_is_refused_before_allocation() -> None:
    with pytest.raises(DecodeError):
        Reader(b"\x7f\xff\xff\xff").array_length()


def test_large_payloads_become_separate_parts_with_the_same_bytes() -> None:
    from odradek.wire.primitives import SPILL_BYTES

    big = bytes(range(256)) * (SPILL_BYTES // 256 + 1)
    w = Writer()
    w.int8(1)
    w.bytes_(big)
    w.compact_bytes(b"small")
    parts = w.parts()
    assert any(part is big for part in parts), "the large payload is referenced, not copied"
    assert w.getvalue() == b"\x01" + len(big).to_bytes(4, "big") + big + b"\x06small"
    assert w.size() == len(w.getvalue())
