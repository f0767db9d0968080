"""The generated codec: every wire type, bounds, tags, zero-copy records, spills and caching.

A kitchen-sink message covers every primitive, array and nesting shape in a classic (v0) and a
flexible (v1) version; its expected bytes are written out by hand with `Writer`, independently of
the generated code.  Real messages check truncation at every byte offset and tagged-field edge cases.
"""

from __future__ import annotations

import ast
from typing import Any

import pytest

from odradek.wire import codegen
from odradek.wire.codec import DecodeError, UnsupportedFieldError, decode, decode_from, encode, encode_into
from odradek.wire.codec import generated_source as source_of
from odradek.wire.messages.fetch import FetchRequest, FetchResponse
from odradek.wire.messages.metadata import MetadataResponse
from odradek.wire.messages.produce import ProduceRequest, ProduceResponse
from odradek.wire.primitives import SPILL_BYTES, Reader, Writer
from odradek.wire.schema import (
    BOOL,
    BYTES,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    RECORDS,
    STRING,
    UINT16,
    UUID,
    ArrayOf,
    Field,
    Kind,
    Message,
    Struct,
)

INNER = Struct("Inner", [Field("a", INT16), Field("s", STRING, nullable="0+")])
KITCHEN = Message(
    "KitchenRequest",
    api_key=1001,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="1+",
    fields=[
        Field("flag", BOOL),
        Field("i8", INT8),
        Field("u16", UINT16),
        Field("f64", FLOAT64),
        Field("i64", INT64),
        Field("id", UUID),
        Field("blob", BYTES, nullable="0+"),
        Field("records", RECORDS, nullable="0+"),
        Field("inner", INNER, nullable="0+"),
        Field("strict_inner", INNER),
        Field("bools", ArrayOf(BOOL)),
        Field("i8s", ArrayOf(INT8)),
        Field("u16s", ArrayOf(UINT16)),
        Field("i64s", ArrayOf(INT64)),
        Field("f64s", ArrayOf(FLOAT64)),
        Field("ids", ArrayOf(UUID)),
        Field("names", ArrayOf(STRING)),
        Field("blobs", ArrayOf(BYTES)),
        Field("inners", ArrayOf(INNER), nullable="0+"),
        Field("tag_str", STRING, "1+", nullable="1+", tag=0, default=None),
        Field("tag_inner", INNER, "1+", tag=2),
        Field("tag_i32s", ArrayOf(INT32), "1+", tag=3),
    ],
)
ID = bytes(range(16))


def kitchen(version: int) -> Any:
    value = KITCHEN(
        flag=True,
        i8=-5,
        u16=65_000,
        f64=2.5,
        i64=-(1 << 40),
        id=ID,
        blob=b"\x00\x01",
        records=b"batch",
        inner=None,
        strict_inner=KITCHEN.Inner(a=7, s=None),
        bools=[True, False],
        i8s=[-1, 2],
        u16s=[1, 65_535],
        i64s=[1 << 50],
        f64s=[0.5, -1.0],
        ids=[ID, bytes(16)],
        names=["x", "é"],
        blobs=[b"", b"yz"],
        inners=[KITCHEN.Inner(a=1, s="s")],
    )
    if version >= 1:
        value.tag_str = "t"
        value.tag_inner = KITCHEN.Inner(a=3, s=None)
        value.tag_i32s = [9]
    return value


def kitchen_bytes(version: int) -> bytes:
    """The expected encoding of `kitchen`, written field by field with `Writer`."""
    flexible = version >= 1
    w = Writer()

    def string(s: str | None, into: Writer) -> None:
        (into.compact_string if flexible else into.string)(s)

    def blob(b: bytes | None, into: Writer) -> None:
        (into.compact_bytes if flexible else into.bytes_)(b)

    def count(n: int, into: Writer) -> None:
        (into.uvarint(n + 1) if flexible else into.int32(n))

    def inner(a: int, s: str | None, into: Writer) -> None:
        into.int16(a)
        string(s, into)
        if flexible:
            into.uvarint(0)

    w.boolean(True)
    w.int8(-5)
    w.uint16(65_000)
    w.float64(2.5)
    w.int64(-(1 << 40))
    w.uuid(ID)
    blob(b"\x00\x01", w)
    blob(b"batch", w)
    w.int8(-1)  # inner: null
    inner(7, None, w)
    count(2, w)
    w.boolean(True)
    w.boolean(False)
    count(2, w)
    w.int8(-1)
    w.int8(2)
    count(2, w)
    w.uint16(1)
    w.uint16(65_535)
    count(1, w)
    w.int64(1 << 50)
    count(2, w)
    w.float64(0.5)
    w.float64(-1.0)
    count(2, w)
    w.uuid(ID)
    w.uuid(bytes(16))
    count(2, w)
    string("x", w)
    string("é", w)
    count(2, w)
    blob(b"", w)
    blob(b"yz", w)
    count(1, w)
    inner(1, "s", w)
    if flexible:
        tag_str, tag_inner, tag_i32s = Writer(), Writer(), Writer()
        string("t", tag_str)
        inner(3, None, tag_inner)
        count(1, tag_i32s)
        tag_i32s.int32(9)
        tags = [(0, tag_str.getvalue()), (2, tag_inner.getvalue()), (3, tag_i32s.getvalue())]
        w.uvarint(len(tags))
        for tag, data in tags:
            w.uvarint(tag)
            w.uvarint(len(data))
            w.raw(data)
    return w.getvalue()


@pytest.mark.parametrize("version", [0, 1])
def test_every_wire_type_matches_hand_written_bytes(version: int) -> None:
    data = encode(KITCHEN, version, kitchen(version))
    assert data == kitchen_bytes(version)
    decoded = decode(KITCHEN, version, data)
    assert decoded == kitchen(version)
    assert decoded.bools == [True, False] and decoded.ids[0] == ID


@pytest.mark.parametrize("version", [0, 1])
def test_nullable_struct_and_array_round_trip_both_ways(version: int) -> None:
    value = kitchen(version)
    value.inner = KITCHEN.Inner(a=4, s="in")
    value.inners = None
    value.blob = None
    value.records = None
    decoded = decode(KITCHEN, version, encode(KITCHEN, version, value))
    assert decoded.inner == KITCHEN.Inner(a=4, s="in")
    assert decoded.inners is None and decoded.blob is None and decoded.records is None


@pytest.mark.parametrize(
    ("field", "bad"),
    [("strict_inner", None), ("names", ["a", None]), ("bools", None), ("id", b"short")],
)
def test_null_or_malformed_value_is_refused_on_encode(field: str, bad: Any) -> None:
    value = kitchen(1)
    setattr(value, field, bad)
    with pytest.raises(ValueError):
        encode(KITCHEN, 1, value)


def test_non_default_field_absent_from_version_is_refused_before_writing() -> None:
    w = Writer(bytearray(b"head"))
    with pytest.raises(UnsupportedFieldError):
        encode_into(KITCHEN, 0, kitchen(1), w)
    assert w.getvalue() == b"head"


def test_absent_and_unsent_tagged_fields_get_fresh_defaults() -> None:
    first = decode(KITCHEN, 0, kitchen_bytes(0))
    second = decode(KITCHEN, 0, kitchen_bytes(0))
    assert first.tag_str is None and first.tag_i32s == [] and first.tag_inner == KITCHEN.Inner()
    assert first.tag_i32s is not second.tag_i32s and first.tag_inner is not second.tag_inner
    flexible = decode(KITCHEN, 1, encode(KITCHEN, 1, kitchen(0)))
    assert flexible.tag_inner == KITCHEN.Inner() and flexible.tag_i32s == []


def produce_request() -> Any:
    partition = ProduceRequest.TopicProduceData.PartitionProduceData(index=3, records=b"r" * 300)
    topic = ProduceRequest.TopicProduceData(name="topic", partition_data=[partition])
    return ProduceRequest(transactional_id="tx", acks=-1, timeout_ms=1000, topic_data=[topic])


def fetch_response(leader_epoch: int = 9) -> Any:
    partition = FetchResponse.FetchableTopicResponse.PartitionData
    leader = partition.LeaderIdAndEpoch(leader_id=2 if leader_epoch >= 0 else -1, leader_epoch=leader_epoch)
    partitions = [
        partition(partition_index=i, high_watermark=10, current_leader=leader, records=b"x" * 20) for i in range(2)
    ]
    topic = FetchResponse.FetchableTopicResponse(topic="t", partitions=partitions)
    return FetchResponse(session_id=1, responses=[topic])


def fetch_request() -> Any:
    partition = FetchRequest.FetchTopic.FetchPartition(
        partition=0, fetch_offset=5, partition_max_bytes=100, replica_directory_id=ID, high_watermark=7
    )
    return FetchRequest(
        cluster_id="c",
        replica_state=FetchRequest.ReplicaState(replica_id=1, replica_epoch=2),
        max_wait_ms=1,
        min_bytes=1,
        topics=[FetchRequest.FetchTopic(topic_id=ID, partitions=[partition])],
        forgotten_topics_data=[FetchRequest.ForgottenTopic(topic_id=ID, partitions=[1, 2])],
    )


def metadata_response() -> Any:
    topic = MetadataResponse.MetadataResponseTopic
    partition = topic.MetadataResponsePartition(partition_index=0, leader_id=1, replica_nodes=[1, 2], isr_nodes=[1])
    broker = MetadataResponse.MetadataResponseBroker(node_id=1, host="h", port=9092)
    return MetadataResponse(brokers=[broker], topics=[topic(name="t", topic_id=ID, partitions=[partition])])


TRUNCATION_CASES = [
    (ProduceRequest, 9, produce_request()),
    (ProduceRequest, 3, produce_request()),
    (FetchRequest, 18, fetch_request()),
    (FetchResponse, 12, fetch_response()),
    (FetchResponse, 11, fetch_response(leader_epoch=-1)),
    (MetadataResponse, 12, metadata_response()),
    (KITCHEN, 0, kitchen(0)),
    (KITCHEN, 1, kitchen(1)),
]


@pytest.mark.parametrize(("message", "version", "value"), TRUNCATION_CASES, ids=lambda c: getattr(c, "name", c))
def test_truncated_input_at_every_offset_raises_decode_error(message: Message, version: int, value: Any) -> None:
    data = encode(message, version, value)
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            decode(message, version, data[:cut])
        # The same cut through a reader whose buffer goes on: the decoder must stop at reader.end.
        with pytest.raises(DecodeError):
            decode_from(message, version, Reader(data, 0, cut))


def test_decode_from_advances_the_reader_and_respects_its_window() -> None:
    one = encode(ProduceResponse, 9, ProduceResponse(throttle_time_ms=5))
    two = encode(ProduceResponse, 9, ProduceResponse(throttle_time_ms=6))
    reader = Reader(b"\xaa" + one + two + b"\xbb", 1, 1 + len(one) + len(two))
    assert decode_from(ProduceResponse, 9, reader).throttle_time_ms == 5
    assert reader.pos == 1 + len(one)
    assert decode_from(ProduceResponse, 9, reader).throttle_time_ms == 6
    assert reader.pos == reader.end


def test_decoded_records_are_a_view_of_the_request_buffer() -> None:
    frame = bytearray(encode(ProduceRequest, 9, produce_request()))
    records = decode(ProduceRequest, 9, frame).topic_data[0].partition_data[0].records
    assert isinstance(records, memoryview) and records.obj is frame
    records[0] = ord("R")
    assert b"Rrr" in frame


def test_large_records_are_referenced_not_copied_on_encode() -> None:
    big = bytes(SPILL_BYTES) + b"tail"
    value = fetch_response()
    value.responses[0].partitions[0].records = big
    w = Writer()
    encode_into(FetchResponse, 12, value, w)
    assert any(part is big for part in w.parts())
    decoded = decode(FetchResponse, 12, w.getvalue())
    assert decoded == decode(FetchResponse, 12, encode(FetchResponse, 12, decoded))
    assert bytes(decoded.responses[0].partitions[0].records) == big
    assert bytes(decoded.responses[0].partitions[1].records) == b"x" * 20


def test_unknown_tags_survive_next_to_known_ones_at_every_level() -> None:
    value = fetch_response()
    value.unknown_tags = {7: b"top"}
    value.responses[0].unknown_tags = {0: b"", 300: b"t" * 200}
    value.responses[0].partitions[0].unknown_tags = {1: b"clash", 3: b"between", 9: b"after"}
    data = encode(FetchResponse, 12, value)
    decoded = decode(FetchResponse, 12, data)
    partition = decoded.responses[0].partitions[0]
    # Tag 1 is a known tag (current_leader): the field wins and the raw clash is dropped.
    assert partition.unknown_tags == {3: b"between", 9: b"after"}
    assert partition.current_leader.leader_epoch == 9
    assert decoded.unknown_tags == {7: b"top"}
    assert decoded.responses[0].unknown_tags == {0: b"", 300: b"t" * 200}
    assert encode(FetchResponse, 12, decoded) == data


def _tagged_partition(tag_section: bytes) -> bytes:
    """A FetchResponse v12 with one partition whose tagged section is ``tag_section``."""
    value = fetch_response(leader_epoch=-1)
    value.responses[0].partitions = value.responses[0].partitions[:1]
    data = encode(FetchResponse, 12, value)
    # The partition's tagged section is the "\x00" right after its records.
    at = data.index(b"x" * 20) + 20
    assert data[at] == 0
    return data[:at] + tag_section + data[at + 1 :]


def test_tagged_field_sections_are_checked() -> None:
    leader = b"\x00\x00\x00\x02\x00\x00\x00\x09\x00"
    ok = decode(FetchResponse, 12, _tagged_partition(b"\x01\x01" + bytes([len(leader)]) + leader))
    assert ok.responses[0].partitions[0].current_leader.leader_id == 2
    with pytest.raises(DecodeError, match="trailing"):
        decode(FetchResponse, 12, _tagged_partition(b"\x01\x01" + bytes([len(leader) + 1]) + leader + b"\x00"))
    with pytest.raises(DecodeError, match="out of order"):
        decode(FetchResponse, 12, _tagged_partition(b"\x02\x05\x00\x05\x00"))
    with pytest.raises(DecodeError):  # the payload claims more bytes than its tag holds
        decode(FetchResponse, 12, _tagged_partition(b"\x01\x01\x04" + leader))


def test_forged_lengths_and_bad_bytes_are_decode_errors() -> None:
    with pytest.raises(DecodeError, match="cannot fit"):
        decode(ProduceResponse, 9, b"\xff\xff\xff\xff\x0f" + b"\x00" * 8)
    with pytest.raises(DecodeError, match="cannot fit"):
        decode(ProduceResponse, 3, b"\x7f\xff\xff\xff" + b"\x00" * 8)
    with pytest.raises(DecodeError, match="negative array length"):
        decode(ProduceResponse, 3, b"\xff\xff\xff\xfe" + b"\x00" * 8)
    with pytest.raises(DecodeError, match="too long"):
        decode(ProduceResponse, 9, b"\xff\xff\xff\xff\xff\x01")
    with pytest.raises(DecodeError, match="UTF-8"):
        decode(ProduceRequest, 9, b"\x02\xff" + b"\x00" * 7)
    with pytest.raises(DecodeError, match="negative string length"):
        decode(ProduceRequest, 3, b"\xff\xfe" + b"\x00" * 10)


def test_generated_functions_are_built_once_and_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    data = encode(MetadataResponse, 11, metadata_response())

    def refuse(self: codegen.Source) -> None:
        raise AssertionError(f"{self.title} generated again")

    monkeypatch.setattr(codegen.Source, "compile", refuse)
    assert encode(MetadataResponse, 11, decode(MetadataResponse, 11, data)) == data
    w = Writer()
    encode_into(MetadataResponse, 11, decode_from(MetadataResponse, 11, Reader(data)), w)
    assert w.getvalue() == data


def test_generated_source_is_readable_python() -> None:
    text = source_of(ProduceRequest, 9)
    tree = ast.parse(text)
    names = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert {"decode_ProduceRequest_v9", "encode_ProduceRequest_v9", "decode_PartitionProduceData_v9"} <= names
    assert "# acks int16, timeout_ms int32" in text
    assert source_of(ProduceRequest, 9) == text
    with pytest.raises(UnsupportedFieldError):
        source_of(ProduceRequest, 99)


def test_struct_names_that_are_not_identifiers_are_refused() -> None:
    odd = Message(
        "Odd-Request", api_key=1002, kind=Kind.REQUEST, valid="0", flexible="none", fields=[Field("a", INT32)]
    )
    with pytest.raises(ValueError, match="identifiers"):
        encode(odd, 0, odd())
