"""Every message definition round-trips through the codec in every valid version.

Values are built from the schema itself: every field present in the version gets a non-default
value (so a field the codec dropped, or a tag it skipped, shows up as a difference), and a second
variant sets every field that is nullable in that version to null.  A property test then draws
arbitrary values, and a prefix test checks that truncated input is refused cleanly.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from odradek.wire.codec import DecodeError, decode, encode
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.schema import ArrayOf, Message, Primitive, Struct, StructValue
from tests.wire_samples import sample_value

ALL: list[Message] = [message for pair in ALL_MESSAGES.values() for message in pair]


def _versions(message: Message) -> range:
    assert message.valid.high is not None
    return range(message.valid.low, message.valid.high + 1)


CASES = [(m, v) for m in ALL for v in _versions(m)]
CASE_IDS = [f"{m.name}-v{v}" for m, v in CASES]


def _assert_round_trip(message: Message, version: int, value: StructValue) -> bytes:
    data = encode(message, version, value)
    decoded = decode(message, version, data)
    assert decoded == value
    assert encode(message, version, decoded) == data
    return data


@pytest.mark.parametrize(("message", "version"), CASES, ids=CASE_IDS)
def test_non_default_values_round_trip(message: Message, version: int) -> None:
    value = sample_value(message.struct, version, 1, nulls=False)
    data = _assert_round_trip(message, version, value)
    if any(version in f.versions for f in message.struct.fields):
        assert data != encode(message, version, message())


@pytest.mark.parametrize(("message", "version"), CASES, ids=CASE_IDS)
def test_nulls_round_trip_where_nullable(message: Message, version: int) -> None:
    _assert_round_trip(message, version, sample_value(message.struct, version, 2, nulls=True))


@pytest.mark.parametrize(("message", "version"), CASES, ids=CASE_IDS)
def test_default_value_round_trips(message: Message, version: int) -> None:
    _assert_round_trip(message, version, message())


@pytest.mark.parametrize("message", ALL, ids=lambda m: m.name)
def test_every_truncation_is_a_decode_error(message: Message) -> None:
    assert message.valid.high is not None
    version = message.valid.high
    data = encode(message, version, sample_value(message.struct, version, 3, nulls=False))
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            decode(message, version, data[:cut])


_INT_BITS = {Primitive.INT8: 8, Primitive.INT16: 16, Primitive.INT32: 32, Primitive.INT64: 64}


def _primitive_strategy(kind: Primitive) -> st.SearchStrategy[Any]:
    if kind in _INT_BITS:
        limit = 1 << (_INT_BITS[kind] - 1)
        return st.integers(-limit, limit - 1)
    strategies: dict[Primitive, st.SearchStrategy[Any]] = {
        Primitive.BOOL: st.booleans(),
        Primitive.UINT16: st.integers(0, 0xFFFF),
        Primitive.FLOAT64: st.floats(allow_nan=False),
        Primitive.STRING: st.text(max_size=12),
        Primitive.BYTES: st.binary(max_size=12),
        Primitive.UUID: st.binary(min_size=16, max_size=16),
        Primitive.RECORDS: st.binary(max_size=24),
    }
    return strategies[kind]


def _struct_strategy(struct: Struct, version: int) -> st.SearchStrategy[StructValue]:
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for f in struct.fields:
        if version not in f.versions:
            continue
        strategy: st.SearchStrategy[Any]
        if isinstance(f.type, Struct):
            strategy = _struct_strategy(f.type, version)
        elif isinstance(f.type, ArrayOf):
            element = f.type.element
            inner = _struct_strategy(element, version) if isinstance(element, Struct) else _primitive_strategy(element)
            strategy = st.lists(inner, max_size=3)
        else:
            strategy = _primitive_strategy(f.type)
        if version in f.nullable:
            strategy = st.none() | strategy
        parts[f.name] = strategy
    return st.fixed_dictionaries(parts).map(lambda values: struct.cls(**values))


@pytest.mark.parametrize("message", ALL, ids=lambda m: m.name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_arbitrary_values_round_trip(message: Message, data: st.DataObject) -> None:
    version = data.draw(st.sampled_from(_versions(message)), label="version")
    value = data.draw(_struct_strategy(message.struct, version), label="value")
    _assert_round_trip(message, version, value)
