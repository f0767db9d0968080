"""Static checks of the message definitions in odradek.wire.messages.

They pin the API keys and version ranges we declare, the tags that clients depend on, and the
structural rules every definition must obey (ranges nest, tags only where flexible, nulls only on
types that can carry them, defaults of the right type).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from odradek.wire.messages import ALL_MESSAGES, FAMILIES, index_messages
from odradek.wire.messages.api_versions import ApiVersionsRequest, ApiVersionsResponse
from odradek.wire.messages.fetch import FetchRequest, FetchResponse
from odradek.wire.messages.produce import ProduceResponse
from odradek.wire.schema import (
    ArrayOf,
    Field,
    Kind,
    Message,
    Primitive,
    Struct,
    Versions,
)

# api key -> (lowest valid, highest valid, first flexible or None)
EXPECTED_RANGES: dict[int, tuple[int, int, int | None]] = {
    0: (0, 13, 9),
    1: (4, 18, 12),
    2: (1, 11, 6),
    3: (0, 13, 9),
    8: (2, 10, 8),
    9: (1, 10, 6),
    10: (0, 6, 3),
    11: (0, 9, 6),
    12: (0, 4, 4),
    13: (0, 5, 4),
    14: (0, 5, 4),
    15: (0, 6, 5),
    16: (0, 5, 3),
    17: (0, 1, None),
    18: (0, 5, 3),
    19: (2, 7, 5),
    20: (1, 6, 4),
    21: (0, 2, 2),
    22: (0, 6, 2),
    23: (2, 4, 4),
    24: (0, 5, 3),
    25: (0, 4, 3),
    26: (0, 5, 3),
    28: (0, 6, 3),
    29: (1, 3, 2),
    30: (1, 3, 2),
    31: (1, 3, 2),
    32: (1, 4, 4),
    33: (0, 2, 2),
    35: (1, 5, 2),
    36: (0, 2, 2),
    37: (0, 3, 2),
    42: (0, 3, 2),
    44: (0, 1, 1),
    47: (0, 0, None),
    48: (0, 1, 1),
    49: (0, 1, 1),
    50: (0, 0, 0),
    51: (0, 0, 0),
    60: (0, 2, 0),
    75: (0, 0, 0),
}

ALL: list[Message] = [message for pair in ALL_MESSAGES.values() for message in pair]
NULLABLE_KINDS = {Primitive.STRING, Primitive.BYTES, Primitive.RECORDS}
SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")


def _intersect(a: Versions, b: Versions) -> Versions:
    highs = [h for h in (a.high, b.high) if h is not None]
    return Versions(max(a.low, b.low), min(highs) if highs else None)


def _within(inner: Versions, outer: Versions) -> bool:
    if inner.is_empty():
        return True
    if inner.low < outer.low:
        return False
    if outer.high is None:
        return True
    return inner.high is not None and inner.high <= outer.high


def _walk(struct: Struct, scope: Versions, path: str) -> Iterator[tuple[str, Field, Versions]]:
    """Every field with the versions in which its enclosing structs exist."""
    for f in struct.fields:
        yield f"{path}.{f.name}", f, scope
        element = f.type.element if isinstance(f.type, ArrayOf) else f.type
        if isinstance(element, Struct):
            yield from _walk(element, _intersect(scope, f.versions), f"{path}.{f.name}")


def _structs(struct: Struct) -> Iterator[Struct]:
    yield struct
    for f in struct.fields:
        element = f.type.element if isinstance(f.type, ArrayOf) else f.type
        if isinstance(element, Struct):
            yield from _structs(element)


def _by_path(message: Message, path: str) -> Field:
    struct = message.struct
    found: Field | None = None
    for name in path.split("."):
        found = next(f for f in struct.fields if f.name == name)
        element = found.type.element if isinstance(found.type, ArrayOf) else found.type
        if isinstance(element, Struct):
            struct = element
    assert found is not None
    return found


def test_api_keys_and_version_ranges_are_the_declared_ones() -> None:
    got = {
        key: (
            request.valid.low,
            request.valid.high,
            None if request.flexible.is_empty() else request.flexible.low,
        )
        for key, (request, _) in ALL_MESSAGES.items()
    }
    assert got == EXPECTED_RANGES


def test_pairs_are_a_request_and_a_response_with_matching_names() -> None:
    for key, (request, response) in ALL_MESSAGES.items():
        assert (request.kind, response.kind) == (Kind.REQUEST, Kind.RESPONSE)
        assert request.api_key == response.api_key == key
        assert request.name.endswith("Request") and response.name.endswith("Response")
        assert request.name.removesuffix("Request") == response.name.removesuffix("Response")


def test_every_exported_message_is_indexed() -> None:
    exported = {getattr(module, name).name for module in FAMILIES for name in module.__all__}
    assert exported == {message.name for message in ALL}
    for module in FAMILIES:
        for name in module.__all__:
            assert getattr(module, name).name == name


@pytest.mark.parametrize("message", ALL, ids=lambda m: m.name)
def test_valid_and_flexible_ranges_are_well_formed(message: Message) -> None:
    assert not message.valid.is_empty()
    assert message.valid.low >= 0 and message.valid.high is not None
    # Once a message is flexible it stays flexible.
    assert message.flexible.is_empty() or message.flexible.high is None


@pytest.mark.parametrize("message", ALL, ids=lambda m: m.name)
def test_field_ranges_nest_inside_their_parents(message: Message) -> None:
    for path, f, scope in _walk(message.struct, message.valid, message.name):
        assert not f.versions.is_empty(), path
        assert not _intersect(f.versions, scope).is_empty(), f"{path} exists in no valid version"
        if not f.nullable.is_empty():
            assert not _intersect(f.nullable, f.versions).is_empty(), f"{path} nullable where absent"


@pytest.mark.parametrize("message", ALL, ids=lambda m: m.name)
def test_tagged_fields_only_in_flexible_versions(message: Message) -> None:
    for path, f, _ in _walk(message.struct, message.valid, message.name):
        if f.tag is None:
            assert f.tagged.is_empty(), path
            continue
        assert f.tag >= 0 and not f.tagged.is_empty(), path
        assert _within(f.tagged, f.versions), path
        assert not message.flexible.is_empty() and _within(f.tagged, message.flexible), path


@pytest.mark.parametrize("message", ALL, ids=lambda m: m.name)
def test_only_nullable_types_are_nullable(message: Message) -> None:
    for path, f, _ in _walk(message.struct, message.valid, message.name):
        if f.nullable.is_empty():
            assert f.default is not None, f"{path} defaults to null but is never nullable"
        else:
            assert isinstance(f.type, ArrayOf | Struct) or f.type in NULLABLE_KINDS, path


def _default_fits(f: Field, value: Any) -> bool:
    if value is None:
        return not f.nullable.is_empty() or f.type is Primitive.RECORDS
    if isinstance(f.type, ArrayOf):
        return isinstance(value, list)
    if isinstance(f.type, Struct):
        return isinstance(value, f.type.cls)
    expected: dict[Primitive, type] = {
        Primitive.BOOL: bool,
        Primitive.STRING: str,
        Primitive.BYTES: bytes,
        Primitive.UUID: bytes,
        Primitive.FLOAT64: float,
    }
    if f.type in expected:
        return isinstance(value, expected[f.type])
    bits = {Primitive.INT8: 8, Primitive.INT16: 16, Primitive.INT32: 32, Primitive.INT64: 64}
    if f.type is Primitive.UINT16:
        return isinstance(value, int) and 0 <= value < 1 << 16
    limit = 1 << (bits[f.type] - 1)
    return isinstance(value, int) and not isinstance(value, bool) and -limit <= value < limit


@pytest.mark.parametrize("message", ALL, ids=lambda m: m.name)
def test_default_instances_carry_every_default(message: Message) -> None:
    for struct in _structs(message.struct):
        value = struct.cls()
        assert value.unknown_tags == {}
        for f in struct.fields:
            got = getattr(value, f.name)
            assert got == f.default_value(), f"{struct.name}.{f.name}"
            assert f.is_default(got), f"{struct.name}.{f.name}"
            assert _default_fits(f, got), f"{struct.name}.{f.name} default {got!r}"
    assert message() == message.cls()


@pytest.mark.parametrize("message", ALL, ids=lambda m: m.name)
def test_names_follow_the_conventions(message: Message) -> None:
    for struct in _structs(message.struct):
        assert CAMEL.match(struct.name), struct.name
        for f in struct.fields:
            assert SNAKE.match(f.name), f"{struct.name}.{f.name}"
            element = f.type.element if isinstance(f.type, ArrayOf) else f.type
            if isinstance(element, Struct):
                assert getattr(struct.cls, element.name) is element.cls


def test_nested_struct_classes_are_reachable_from_the_message() -> None:
    topic = ProduceResponse.TopicProduceResponse(name="t")
    assert topic.partition_responses == []
    assert topic.name == "t"
    with pytest.raises(TypeError):
        ProduceResponse.TopicProduceResponse(no_such_field=1)


@pytest.mark.parametrize(
    ("message", "path", "tag", "versions"),
    [
        (ApiVersionsResponse, "supported_features", 0, "3+"),
        (ApiVersionsResponse, "finalized_features_epoch", 1, "3+"),
        (ApiVersionsResponse, "finalized_features", 2, "3+"),
        (ApiVersionsResponse, "zk_migration_ready", 3, "3+"),
        (FetchRequest, "cluster_id", 0, "12+"),
        (FetchRequest, "replica_state", 1, "15+"),
        (FetchRequest, "topics.partitions.replica_directory_id", 0, "17+"),
        (FetchRequest, "topics.partitions.high_watermark", 1, "18+"),
        (FetchResponse, "responses.partitions.diverging_epoch", 0, "12+"),
        (FetchResponse, "responses.partitions.current_leader", 1, "12+"),
        (FetchResponse, "responses.partitions.snapshot_id", 2, "12+"),
        (FetchResponse, "node_endpoints", 0, "16+"),
        (ProduceResponse, "responses.partition_responses.current_leader", 0, "10+"),
        (ProduceResponse, "node_endpoints", 0, "10+"),
    ],
)
def test_tags_clients_depend_on(message: Message, path: str, tag: int, versions: str) -> None:
    f = _by_path(message, path)
    assert f.tag == tag
    assert f.tagged == Versions.parse(versions)


def test_notable_defaults() -> None:
    assert _by_path(ApiVersionsResponse, "finalized_features_epoch").default_value() == -1
    assert _by_path(ApiVersionsRequest, "node_id").default_value() == -1
    assert _by_path(ApiVersionsRequest, "cluster_id").default_value() is None
    assert _by_path(FetchRequest, "max_bytes").default_value() == 0x7FFFFFFF
    assert _by_path(FetchRequest, "replica_id").default_value() == -1
    assert _by_path(FetchRequest, "topics.partitions.high_watermark").default_value() == (1 << 63) - 1
    partition_data = FetchResponse.FetchableTopicResponse.PartitionData
    assert partition_data().snapshot_id == partition_data.SnapshotId(end_offset=-1, epoch=-1)


def _module(name: str, *messages: Message) -> ModuleType:
    module = ModuleType(name)
    for message in messages:
        setattr(module, message.name, message)
    module.__dict__["__all__"] = [message.name for message in messages]
    return module


def _fake(name: str, api_key: int, kind: Kind, valid: str = "0-1") -> Message:
    return Message(name, api_key=api_key, kind=kind, valid=valid, flexible="none", fields=[])


def test_index_refuses_a_duplicate_api_key() -> None:
    first = _module("a", _fake("ARequest", 900, Kind.REQUEST), _fake("AResponse", 900, Kind.RESPONSE))
    second = _module("b", _fake("BRequest", 900, Kind.REQUEST), _fake("BResponse", 900, Kind.RESPONSE))
    assert list(index_messages([first])) == [900]
    with pytest.raises(ValueError, match="900"):
        index_messages([first, second])


def test_index_refuses_an_unpaired_or_mismatched_key() -> None:
    with pytest.raises(ValueError, match="901"):
        index_messages([_module("c", _fake("CRequest", 901, Kind.REQUEST))])
    mismatched = _module("d", _fake("DRequest", 902, Kind.REQUEST), _fake("DResponse", 902, Kind.RESPONSE, "0-2"))
    with pytest.raises(ValueError, match="disagree"):
        index_messages([mismatched])


def test_index_refuses_an_exported_non_message() -> None:
    module = _module("e")
    module.__all__.append("helper")
    module.__dict__["helper"] = object()
    with pytest.raises(ValueError, match="helper"):
        index_messages([module])
