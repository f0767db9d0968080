"""The schema codec: versions, nullability, tagged fields and unknown-tag preservation."""

from __future__ import annotations

import pytest

from odradek.wire.codec import DecodeError, UnsupportedFieldError, decode, encode
from odradek.wire.schema import INT32, STRING, UUID, ArrayOf, Field, Kind, Message, Struct

ITEM = Struct("Item", [Field("id", INT32), Field("label", STRING, "1+", nullable="1+")])
SAMPLE = Message(
    "SampleRequest",
    api_key=1000,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="2+",
    fields=[
        Field("name", STRING),
        Field("items", ArrayOf(ITEM)),
        Field("numbers", ArrayOf(INT32), "1+"),
        Field("topic_id", UUID, "2+", tag=0, tagged="2+"),
        Field("hint", STRING, "2+", nullable="2+", tag=5, tagged="2+", default=None),
    ],
)


def sample(version: int) -> object:
    items = [SAMPLE.Item(id=7, label=None if version >= 1 else "")]
    return SAMPLE(
        name="n",
        items=items,
        numbers=[1, 2] if version >= 1 else [],
        topic_id=b"\x01" * 16 if version >= 2 else b"\x00" * 16,
        hint="h" if version >= 2 else None,
    )


@pytest.mark.parametrize("version", [0, 1, 2])
def test_round_trip_every_version(version: int) -> None:
    value = sample(version)
    data = encode(SAMPLE, version, value)
    assert decode(SAMPLE, version, data) == value
    assert encode(SAMPLE, version, decode(SAMPLE, version, data)) == data


def test_flexible_version_uses_compact_forms_and_tags() -> None:
    data = encode(SAMPLE, 2, SAMPLE(name="n"))
    # compact string "n", empty compact array, empty compact array, no tags
    assert data == b"\x02n\x01\x01\x00"


def test_unknown_tags_survive_round_trip() -> None:
    data = b"\x02n\x01\x01" + b"\x01" + b"\x09\x02hi"
    value = decode(SAMPLE, 2, data)
    assert value.unknown_tags == {9: b"hi"}
    assert encode(SAMPLE, 2, value) == data


def test_non_default_value_in_version_without_field_raises() -> None:
    with pytest.raises(UnsupportedFieldError):
        encode(SAMPLE, 0, SAMPLE(name="n", numbers=[1]))


def test_null_where_not_nullable_is_refused_both_ways() -> None:
    with pytest.raises(ValueError):
        encode(SAMPLE, 0, SAMPLE(name=None))
    with pytest.raises(DecodeError):
        decode(SAMPLE, 0, b"\xff\xff\x00\x00\x00\x00")


def test_trailing_bytes_are_an_error() -> None:
    with pytest.raises(DecodeError):
        decode(SAMPLE, 0, encode(SAMPLE, 0, SAMPLE(name="x")) + b"\x00")


def test_feeding_every_prefix_never_crashes() -> None:
    data = encode(SAMPLE, 2, sample(2))
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            decode(SAMPLE, 2, data[:cut])
