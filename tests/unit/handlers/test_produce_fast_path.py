"""The Produce fast path against the generic handler: two brokers with the same history, one
answered by `ProduceFastPath`, the other by `produce.produce` and the generic codec; every answer
byte for byte the same, every version v3-v13, and the shapes the fast path does not take handed
back untouched (nothing appended)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import struct
import uuid
from collections.abc import Awaitable, Callable, Sequence

import pytest

from odradek.clock import SystemClock
from odradek.handlers import load_handlers
from odradek.handlers.context import RequestContext
from odradek.handlers.dispatch import Dispatcher
from odradek.handlers.frames import encode_response_frame
from odradek.handlers.interception import Call
from odradek.handlers.produce import produce
from odradek.handlers.produce_fast import NOT_FAST, NotFast, ProduceFastPath
from odradek.partition.service import Partitions
from odradek.security.acl import AclBinding, AclOperation, PatternType, Permission, ResourceType
from odradek.security.principal import ClientIdentity
from odradek.security.services import SecurityServices
from odradek.storage.filesystem import MemoryFileSystem
from odradek.wire.api import ApiKey, RequestHeader, decode_request_header, encode_request_header
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.produce import ProduceRequest, ProduceResponse
from odradek.wire.primitives import Part, Reader, Writer
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from odradek.wire.schema import StructValue
from tests.unit.handlers.test_produce_fetch_handlers import T0, Node

VERSIONS = range(3, 14)
_Topic = ProduceRequest.TopicProduceData
_Partition = _Topic.PartitionProduceData


class _Connection:
    peer = "test"
    closed = False
    identity = ClientIdentity()

    def mute(self, delay: Awaitable[None]) -> None:
        raise AssertionError("no quotas here")

    def close(self) -> None:
        raise AssertionError("nothing closes here")


def _joined(parts: Sequence[Part]) -> bytes:
    """A frame's parts as one bytes (a produce answer has no file parts)."""
    assert all(isinstance(p, bytes | bytearray | memoryview) for p in parts)
    return b"".join(p for p in parts if isinstance(p, bytes | bytearray | memoryview))


class Pair:
    """Two brokers fed the same requests: ``fast`` through the fast path, ``generic`` through the handler."""

    def __init__(self, security: dict[str, str] | None = None) -> None:
        self.fast, self.generic = Node(), Node()
        for node in (self.fast, self.generic):
            if security is not None:
                fs = MemoryFileSystem()
                fs.makedirs("/security")
                services = SecurityServices.open(fs, "/security", security, SystemClock())
                services.authorizer.add(
                    [
                        AclBinding.of(
                            ResourceType.TOPIC,
                            "secret",
                            PatternType.LITERAL,
                            "User:*",
                            "*",
                            AclOperation.WRITE,
                            Permission.DENY,
                        )
                    ]
                )
                node.services = dataclasses.replace(node.services, security=services)
            for name, configs in (("t", {}), ("u", {}), ("small", {"max.message.bytes": "50"})):
                node.add_topic(name, configs)
            node.add_topic("secret")
        self.ids = {name: self.fast.catalog.topics[name].topic_id for name in self.fast.catalog.topics}
        for name, info in self.generic.catalog.topics.items():  # the same ids on both sides
            self.generic.catalog.topics[name] = dataclasses.replace(info, topic_id=self.ids[name])
        self.path = ProduceFastPath(self.fast.services)

    def frame(self, version: int, topics: dict[str, list[tuple[int, bytes | None]]], acks: int = -1) -> bytes:
        data = []
        for name, partitions in topics.items():
            parts = [_Partition(index=i, records=r) for i, r in partitions]
            if version >= 13:
                topic_id = self.ids.get(name, uuid.UUID(int=7).bytes)
                data.append(_Topic(topic_id=topic_id, partition_data=parts))
            else:
                data.append(_Topic(name=name, partition_data=parts))
        writer = Writer()
        encode_request_header(writer, RequestHeader(0, version, 77, "client"), version >= 9)
        encode_into(ProduceRequest, version, ProduceRequest(acks=acks, timeout_ms=1000, topic_data=data), writer)
        return writer.getvalue()

    def both(self, frame: bytes) -> bytes | None:
        """The fast path's answer, checked against the generic one's."""
        fast = self.path.answer(bytearray(frame), _Connection())
        generic = _generic(self.generic, frame)
        assert fast is not NOT_FAST
        assert not isinstance(fast, NotFast)
        fast_bytes = None if fast is None else _joined(fast)
        assert fast_bytes == generic
        return fast_bytes

    def handed_back(self, frame: bytes) -> None:
        """The fast path refuses the frame and appends nothing; the generic handler answers both."""
        ends = _ends(self.fast)
        assert self.path.answer(bytearray(frame), _Connection()) is NOT_FAST
        assert _ends(self.fast) == ends
        assert _generic(self.fast, frame) == _generic(self.generic, frame)


def _ends(node: Node) -> list[int]:
    partitions: Partitions = node.partitions
    return [partitions.get(name, 0).log_end_offset for name in node.catalog.topics]  # type: ignore[union-attr]


def _generic(node: Node, frame: bytes) -> bytes | None:
    reader = Reader(bytearray(frame))  # the append patches the batch in place, as in a real frame
    header = decode_request_header(reader, lambda key, version: version >= 9)
    request = decode_from(ProduceRequest, header.api_version, reader)
    context = RequestContext(node.services, header, _Connection())
    response = asyncio.run(asyncio.wait_for(produce(context, request), 10))
    if response is None:
        return None
    parts = encode_response_frame(ApiKey.PRODUCE, header.api_version, header.correlation_id, ProduceResponse, response)
    return _joined(parts)


def _errors(answer: bytes | None, version: int) -> list[int]:
    """The partition error codes of an answer frame, in order."""
    assert answer is not None
    reader = Reader(answer, 8 + (version >= 9))  # size, correlation id, header tags
    response = decode_from(ProduceResponse, version, reader)
    return [p.error_code for t in response.responses for p in t.partition_responses]


def _batch(sequence: int = -1, producer_id: int = -1, *, transactional: bool = False) -> bytes:
    records = [Record(offset_delta=i, timestamp_delta=i, key=b"k", value=b"value") for i in range(3)]
    return bytes(
        build_batch(
            records,
            producer_id=producer_id,
            base_sequence=sequence,
            base_timestamp=T0,
            is_transactional=transactional,
        )
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_appends_and_refusals_answer_the_same(version: int) -> None:
    pair = Pair()
    corrupt = bytearray(_batch())
    corrupt[-1] ^= 0xFF  # the CRC no longer matches
    assert _errors(pair.both(pair.frame(version, {"t": [(0, _batch())]})), version) == [0]
    answer = pair.both(pair.frame(version, {"t": [(0, _batch()), (1, _batch())], "u": [(0, _batch())]}))
    assert _errors(answer, version) == [0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0]
    answer = pair.both(pair.frame(version, {"t": [(0, bytes(corrupt))], "u": [(0, None)]}))
    assert ErrorCode.CORRUPT_MESSAGE in _errors(answer, version)
    answer = pair.both(pair.frame(version, {"small": [(0, _batch())], "t": [(0, _batch() * 2)]}))
    assert _errors(answer, version) == [ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.INVALID_RECORD]
    pair.both(pair.frame(version, {"u": [(0, b"short")], "t": [(0, b"")]}))
    pair.both(pair.frame(version, {}))
    if version < 13:  # an unknown name is the fast path's; an unknown id is not (below)
        pair.both(pair.frame(version, {"nope": [(0, _batch())], "t": [(0, _batch())]}))
    assert pair.both(pair.frame(version, {"t": [(0, _batch())]}, acks=0)) is None
    assert _ends(pair.fast) == _ends(pair.generic)


@pytest.mark.parametrize("version", VERSIONS)
def test_idempotent_producers_answer_the_same(version: int) -> None:
    pair = Pair()
    answers = [pair.both(pair.frame(version, {"t": [(0, _batch(s, producer_id=5))]})) for s in (0, 3, 3, 0, 9)]
    assert [_errors(a, version)[0] for a in answers] == [0, 0, 0, 0, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER]
    pair.both(pair.frame(version, {"t": [(0, _batch(0, producer_id=6))], "u": [(0, _batch(5, producer_id=6))]}))


@pytest.mark.parametrize("version", VERSIONS)
def test_a_fenced_broker_tells_the_leader_the_same_way(version: int) -> None:
    pair = Pair()
    pair.fast.partitions.fence()
    pair.generic.partitions.fence()
    answer = pair.both(pair.frame(version, {"t": [(0, _batch())]}))
    assert _errors(answer, version) == [ErrorCode.NOT_LEADER_OR_FOLLOWER]


@pytest.mark.parametrize("version", VERSIONS)
def test_authorization_failures_answer_the_same(version: int) -> None:
    pair = Pair(
        {
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "allow.everyone.if.no.acl.found": "true",
        }
    )
    answer = pair.both(pair.frame(version, {"secret": [(0, _batch()), (1, _batch())], "t": [(0, _batch())]}))
    refused = ErrorCode.TOPIC_AUTHORIZATION_FAILED
    assert _errors(answer, version) == [refused, refused, 0]
    assert _ends(pair.fast) == _ends(pair.generic)


@pytest.mark.parametrize("version", VERSIONS)
def test_other_shapes_are_handed_back(version: int) -> None:
    pair = Pair()
    pair.handed_back(pair.frame(version, {"t": [(0, _batch())]}, acks=2))
    transactional = _batch(0, producer_id=9, transactional=True)
    pair.handed_back(pair.frame(version, {"u": [(0, _batch())], "t": [(0, transactional)]}))
    if version >= 13:
        pair.handed_back(pair.frame(version, {"no-such-id": [(0, _batch())]}))


def test_an_append_that_raises_is_answered_with_unknown_server_error(caplog: pytest.LogCaptureFixture) -> None:
    pair = Pair()

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    pair.fast.partitions.append = broken  # type: ignore[method-assign, assignment]
    frame = pair.frame(9, {"t": [(0, _batch()), (1, _batch())]}, acks=0)
    with caplog.at_level(logging.ERROR, "odradek.handlers"):
        answer = pair.path.answer(bytearray(frame), _Connection())
    assert "ProduceRequest v9 from test failed" in caplog.text
    expected = ProduceResponse(
        responses=[
            ProduceResponse.TopicProduceResponse(
                name="t",
                partition_responses=[
                    ProduceResponse.TopicProduceResponse.PartitionProduceResponse(
                        index=i, error_code=ErrorCode.UNKNOWN_SERVER_ERROR, base_offset=-1, log_append_time_ms=-1
                    )
                    for i in (0, 1)
                ],
            )
        ]
    )
    parts = encode_response_frame(ApiKey.PRODUCE, 9, 77, ProduceResponse, expected)
    assert answer is not None and not isinstance(answer, NotFast)
    assert _joined(answer) == _joined(parts)


def test_the_dispatcher_takes_the_fast_path_only_without_interceptor_or_quotas() -> None:
    pair = Pair({})  # security stores on a file system, no authorizer
    dispatcher = Dispatcher(pair.fast.services, load_handlers())
    frame = pair.frame(9, {"t": [(0, _batch())]})
    answer = dispatcher.answer_now(bytearray(frame), _Connection())
    assert answer is not None and _errors(_joined(answer), 9) == [0]
    assert dispatcher.answer_now(bytearray(pair.frame(9, {"t": [(0, _batch())]}, acks=0)), _Connection()) == []
    metadata = struct.pack(">hhih", ApiKey.METADATA, 12, 1, -1) + b"\x00\x01\x01\x00"
    assert dispatcher.answer_now(bytearray(metadata), _Connection()) is None

    async def passing(call: Call, answer: Callable[[StructValue], Awaitable[StructValue | None]]) -> StructValue | None:
        return await answer(call.request)

    dispatcher.interceptor = passing
    assert dispatcher.answer_now(bytearray(frame), _Connection()) is None
    dispatcher.interceptor = None
    quotas = pair.fast.services.security.quotas
    quotas.apply({(("client-id", "client"),): {"producer_byte_rate": 1e9}})
    assert dispatcher.answer_now(bytearray(frame), _Connection()) is None
    quotas.apply({(("client-id", "client"),): {"producer_byte_rate": None}})
    assert dispatcher.answer_now(bytearray(frame), _Connection()) is not None
    assert _ends(pair.fast)[0] == 9  # the three produces it took (acks=0 included), three records each
