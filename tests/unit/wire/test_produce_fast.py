"""The Produce fast codec against the generic one: the same requests read, the same answers written,
byte for byte, over every version it takes (v3-v13); whatever it does not take, the generic codec
either reads the same way or refuses."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from odradek.handlers.frames import encode_response_frame
from odradek.wire.api import RequestHeader, decode_request_header, encode_request_header
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.messages.produce import ProduceRequest, ProduceResponse, ProduceResponseValue
from odradek.wire.primitives import DecodeError, Reader, Writer
from odradek.wire.produce_fast import (
    FIRST_VERSION,
    LAST_VERSION,
    PartitionAnswer,
    ProduceRequestView,
    TopicAnswer,
    decode_produce,
    encode_produce_answer,
)

VERSIONS = range(FIRST_VERSION, LAST_VERSION + 1)
_Topic = ProduceRequest.TopicProduceData
_Partition = _Topic.PartitionProduceData
_TopicResponse = ProduceResponse.TopicProduceResponse
_PartitionResponse = _TopicResponse.PartitionProduceResponse

int16s = st.integers(-(2**15), 2**15 - 1)
int32s = st.integers(-(2**31), 2**31 - 1)
int64s = st.integers(-(2**63), 2**63 - 1)
names = st.text(max_size=12)
# Sizes around the one-byte varint limit (127) exercise multi-byte compact lengths.
record_sets = st.none() | st.binary(max_size=4) | st.binary(min_size=126, max_size=130)


@st.composite
def produce_frames(draw: st.DrawFn, version: int) -> bytes:
    """A valid Produce request frame (header and body, no size prefix) at ``version``."""
    topics = [
        _Topic(
            name=draw(names) if version < 13 else "",
            topic_id=draw(st.binary(min_size=16, max_size=16)) if version >= 13 else b"\x00" * 16,
            partition_data=[
                _Partition(index=draw(int32s), records=draw(record_sets)) for _ in range(draw(st.integers(0, 3)))
            ],
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    request = ProduceRequest(
        transactional_id=draw(st.none() | names),
        acks=draw(st.sampled_from([-1, 0, 1]) | int16s),
        timeout_ms=draw(int32s),
        topic_data=topics,
    )
    writer = Writer()
    header = RequestHeader(0, version, draw(int32s), draw(st.none() | names))
    encode_request_header(writer, header, ProduceRequest.is_flexible(version))
    encode_into(ProduceRequest, version, request, writer)
    return writer.getvalue()


def generic_view(frame: bytes) -> ProduceRequestView:
    """What the generic codec reads from ``frame``, in the fast codec's shape."""
    reader = Reader(frame)
    header = decode_request_header(reader, lambda key, version: ProduceRequest.is_flexible(version))
    request = decode_from(ProduceRequest, header.api_version, reader)
    if reader.pos != len(frame):
        raise DecodeError("trailing bytes")
    if header.unknown_tags or request.unknown_tags:
        raise DecodeError("tagged fields")
    topics = []
    for topic in request.topic_data:
        if topic.unknown_tags or any(p.unknown_tags for p in topic.partition_data):
            raise DecodeError("tagged fields")
        partitions = [(p.index, None if p.records is None else bytes(p.records)) for p in topic.partition_data]  # type: ignore[arg-type]
        topics.append((topic.topic_id if header.api_version >= 13 else topic.name, partitions))
    count = sum(len(t.partition_data) for t in request.topic_data)
    return ProduceRequestView(
        header.api_version,
        header.correlation_id,
        header.client_id,
        request.transactional_id,
        request.acks,
        request.timeout_ms,
        topics,  # type: ignore[arg-type]
        count,
    )


def comparable(view: ProduceRequestView) -> ProduceRequestView:
    """``view`` with its record sets as bytes and without the topics' encoded keys."""
    topics = [
        (name, [(index, None if records is None else bytes(records)) for index, records in partitions])
        for name, _, partitions in view.topics
    ]
    return view._replace(topics=topics)  # type: ignore[arg-type]


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_both_decoders_read_the_same_request(version: int, data: st.DataObject) -> None:
    frame = data.draw(produce_frames(version))
    fast = decode_produce(bytearray(frame), len(frame))
    assert fast is not None
    assert comparable(fast) == generic_view(frame)
    for _, key, _ in fast.topics:  # the key is the name or id exactly as the frame encodes it
        assert bytes(key) in frame


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_frame_is_read_the_same_or_handed_back(version: int, data: st.DataObject) -> None:
    """Truncated, extended or overwritten frames: whatever the fast decoder accepts, the generic one
    reads identically; what the generic one refuses, the fast one hands back (None)."""
    frame = bytearray(data.draw(produce_frames(version)))
    action = data.draw(st.sampled_from(["truncate", "extend", "overwrite"]))
    if action == "truncate":
        del frame[data.draw(st.integers(0, len(frame) - 1)) :]
    elif action == "extend":
        frame += data.draw(st.binary(min_size=1, max_size=3))
    else:
        at = data.draw(st.integers(0, len(frame) - 1))
        frame[at] = data.draw(st.integers(0, 255))
    fast = decode_produce(bytearray(frame), len(frame))
    if fast is None:
        return
    assert comparable(fast) == generic_view(bytes(frame))


def test_tagged_fields_and_other_apis_are_handed_back() -> None:
    writer = Writer()
    encode_request_header(writer, RequestHeader(0, 9, 1, "c", {3: b"x"}), True)
    encode_into(ProduceRequest, 9, ProduceRequest(acks=1, timeout_ms=1, topic_data=[]), writer)
    assert decode_produce(bytearray(writer.getvalue()), 100) is None
    writer = Writer()
    encode_request_header(writer, RequestHeader(1, 9, 1, "c"), True)
    assert decode_produce(bytearray(writer.getvalue()), 100) is None
    for version in (0, 2, 14):
        writer = Writer()
        encode_request_header(writer, RequestHeader(0, version, 1, "c"), version >= 9)
        assert decode_produce(bytearray(writer.getvalue() + b"\x00" * 12), 100) is None


def test_more_partitions_than_allowed_are_handed_back() -> None:
    topic = _Topic(name="t", partition_data=[_Partition(index=i, records=b"r") for i in range(5)])
    writer = Writer()
    encode_request_header(writer, RequestHeader(0, 9, 1, "c"), True)
    encode_into(ProduceRequest, 9, ProduceRequest(acks=1, timeout_ms=1, topic_data=[topic]), writer)
    frame = bytearray(writer.getvalue())
    assert decode_produce(frame, 4) is None
    view = decode_produce(frame, 5)
    assert view is not None and view.partition_count == 5


@dataclass(frozen=True)
class Outcome:
    error: int
    base_offset: int
    log_append_time_ms: int
    log_start_offset: int
    message: str | None
    record_errors: tuple[tuple[int, str], ...]


outcomes = st.builds(
    Outcome,
    error=int16s,
    base_offset=int64s,
    log_append_time_ms=int64s,
    log_start_offset=int64s,
    message=st.none() | names,
    record_errors=st.lists(st.tuples(int32s, names), max_size=2).map(tuple),
)
plain_outcomes = st.builds(
    Outcome,
    error=st.just(0),
    base_offset=int64s,
    log_append_time_ms=st.just(-1),
    log_start_offset=int64s,
    message=st.none(),
    record_errors=st.just(()),
)
leaders = st.none() | st.tuples(int32s, int32s) | st.just((-1, -1))


def generic_answer(version: int, topics: list[tuple[str | bytes, list[PartitionAnswer]]], throttle: int) -> bytes:
    """The answer built as `odradek.handlers.produce` builds it, encoded by the generic codec."""
    responses = []
    for key, partitions in topics:
        answers = []
        for index, outcome, leader in partitions:
            answer = _PartitionResponse(
                index=index,
                error_code=outcome.error,
                base_offset=outcome.base_offset,
                log_append_time_ms=outcome.log_append_time_ms,
                log_start_offset=outcome.log_start_offset,
                error_message=outcome.message,
                record_errors=[
                    _PartitionResponse.BatchIndexAndErrorMessage(batch_index=i, batch_index_error_message=text)
                    for i, text in outcome.record_errors
                ],
            )
            if leader is not None:
                answer.current_leader = _PartitionResponse.LeaderIdAndEpoch(leader_id=leader[0], leader_epoch=leader[1])
            answers.append(answer)
        if isinstance(key, bytes):
            responses.append(_TopicResponse(topic_id=key, partition_responses=answers))
        else:
            responses.append(_TopicResponse(name=key, partition_responses=answers))
    value: ProduceResponseValue = ProduceResponse(responses=responses, throttle_time_ms=throttle)
    parts = encode_response_frame(0, version, 42, ProduceResponse, value)
    assert all(isinstance(part, bytes | bytearray | memoryview) for part in parts)
    return b"".join(part for part in parts if isinstance(part, bytes | bytearray | memoryview))


def request_key(version: int, key: str | bytes) -> bytes:
    """The topic key as a request of ``version`` encodes it (what the fast encoder is given)."""
    if isinstance(key, bytes):
        return key
    writer = Writer()
    if version >= 9:
        writer.compact_string(key)
    else:
        writer.string(key)
    return writer.getvalue()


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_both_encoders_write_the_same_answer(version: int, data: st.DataObject) -> None:
    key_strategy: st.SearchStrategy[str | bytes] = st.binary(min_size=16, max_size=16) if version >= 13 else names
    # Versions before 8 carry no messages or record errors, before 10 no leader: the handler sets neither.
    partition_outcomes = outcomes if version >= 8 else plain_outcomes
    leader_strategy = leaders if version >= 10 else st.none()
    topics: list[tuple[str | bytes, list[PartitionAnswer]]] = [
        (
            data.draw(key_strategy),
            [
                (data.draw(int32s), data.draw(partition_outcomes | plain_outcomes), data.draw(leader_strategy))
                for _ in range(data.draw(st.integers(0, 3)))
            ],
        )
        for _ in range(data.draw(st.integers(0, 3)))
    ]
    throttle = data.draw(st.sampled_from([0]) | int32s)
    fast_topics: list[TopicAnswer] = [(request_key(version, key), partitions) for key, partitions in topics]
    fast = encode_produce_answer(version, 42, fast_topics, throttle)
    assert bytes(fast) == generic_answer(version, topics, throttle)
