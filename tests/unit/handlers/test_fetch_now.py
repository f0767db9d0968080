"""Fetch answered at once (`odradek.handlers.fetch_now`) against the Fetch handler: the same frame
for a fetch that finds its data, a long poll begun once and answered when data arrives, the generic
path when an interceptor or a quota needs it, and the error policy."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from odradek.clock import SystemClock
from odradek.handlers import load_handlers
from odradek.handlers.dispatch import Dispatcher
from odradek.handlers.fetch_now import WaitingFetch
from odradek.handlers.interception import Call
from odradek.security.services import SecurityServices
from odradek.storage.filesystem import MemoryFileSystem
from odradek.wire.api import ApiKey, RequestHeader, encode_request_header
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.fetch import FetchRequest, FetchResponse, FetchResponseValue
from odradek.wire.primitives import Part, Reader, Writer
from odradek.wire.schema import StructValue
from tests.unit.handlers.test_produce_fetch_handlers import Node, _batch, _Connection, _produce, run

_FetchTopic = FetchRequest.FetchTopic


def _frame(node: Node, version: int, *, max_wait_ms: int = 0, session_epoch: int = -1) -> bytearray:
    partition = _FetchTopic.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)
    topic = (
        _FetchTopic(topic_id=node.catalog.topics["t"].topic_id, partitions=[partition])
        if version >= 13
        else _FetchTopic(topic="t", partitions=[partition])
    )
    request = FetchRequest(
        max_wait_ms=max_wait_ms,
        min_bytes=1,
        max_bytes=1 << 20,
        session_id=0,
        session_epoch=session_epoch,
        topics=[topic],
        forgotten_topics_data=[],
    )
    writer = Writer()
    encode_request_header(writer, RequestHeader(ApiKey.FETCH, version, 9, "client"), version >= 12)
    encode_into(FetchRequest, version, request, writer)
    return bytearray(writer.getvalue())


def _joined(parts: list[Part]) -> bytes:
    return b"".join(p if isinstance(p, bytes | bytearray | memoryview) else p.read() for p in parts)


def _decoded(parts: list[Part], version: int) -> FetchResponseValue:
    reader = Reader(_joined(parts)[4:])
    assert reader.int32() == 9, "the request's correlation id"
    if version >= 12:
        reader.uvarint()  # the response header's tags
    return decode_from(FetchResponse, version, reader)


def _generic(dispatcher: Dispatcher, frame: bytearray) -> list[Part] | None:
    """The frame through the dispatch coroutine, as when the at-once path declines it."""
    return run(dispatcher(frame, _Connection()))


@pytest.mark.parametrize("version", [4, 7, 11, 12, 13, 16, 18])
def test_a_fetch_that_finds_its_data_is_answered_at_once_as_the_handler_answers(version: int) -> None:
    node = Node()
    node.add_topic("t")
    run(_produce(node, "t", _batch()))
    dispatcher = Dispatcher(node.services, load_handlers())
    frame = _frame(node, version, max_wait_ms=500)
    answer = dispatcher.answer_now(frame, _Connection())
    assert isinstance(answer, list), "answered, not left waiting"
    dispatcher.interceptor = _passing  # the same request through the handler coroutine
    assert dispatcher.answer_now(frame, _Connection()) is None
    generic = _generic(dispatcher, frame)
    assert generic is not None and _joined(answer) == _joined(generic)
    data = _decoded(answer, version).responses[0].partitions[0]
    assert (data.error_code, data.high_watermark, bytes(data.records)[:8]) == (0, 3, (0).to_bytes(8, "big"))


def test_a_long_poll_is_begun_once_and_answered_when_data_arrives() -> None:
    """The first read finds nothing: the session is created once, and the `WaitingFetch` answers
    with the records an append brings, in that session."""
    node = Node()
    node.add_topic("t")
    dispatcher = Dispatcher(node.services, load_handlers())
    begun = dispatcher.answer_now(_frame(node, 12, max_wait_ms=600_000, session_epoch=0), _Connection())
    assert isinstance(begun, WaitingFetch)
    assert len(node.services.fetch_sessions) == 1

    async def scenario() -> list[Part] | None:
        waiting = asyncio.ensure_future(begun.answer())
        for _ in range(3):
            await asyncio.sleep(0)
        assert not waiting.done(), "nothing to read yet: the fetch waits"
        await _produce(node, "t", _batch())
        return await waiting

    answer = run(scenario())
    assert answer is not None
    value = _decoded(answer, 12)
    assert len(node.services.fetch_sessions) == 1, "the waiting fetch did not begin again"
    assert node.services.fetch_sessions.get(value.session_id) is not None
    data = value.responses[0].partitions[0]
    assert (data.error_code, data.high_watermark) == (ErrorCode.NONE, 3)


async def _passing(call: Call, answer: Callable[[StructValue], Awaitable[StructValue | None]]) -> StructValue | None:
    return await answer(call.request)


def test_quotas_take_the_generic_path() -> None:
    node = Node()
    node.add_topic("t")
    fs = MemoryFileSystem()
    fs.makedirs("/security")
    node.services = dataclasses.replace(
        node.services, security=SecurityServices.open(fs, "/security", {}, SystemClock())
    )
    dispatcher = Dispatcher(node.services, load_handlers())
    frame = _frame(node, 12)
    assert isinstance(dispatcher.answer_now(frame, _Connection()), list)
    quotas = node.services.security.quotas
    quotas.apply({(("client-id", "client"),): {"consumer_byte_rate": 1e9}})
    assert dispatcher.answer_now(frame, _Connection()) is None
    quotas.apply({(("client-id", "client"),): {"consumer_byte_rate": None}})
    assert isinstance(dispatcher.answer_now(frame, _Connection()), list)


def test_a_frame_that_does_not_decode_is_left_to_the_generic_path() -> None:
    node = Node()
    node.add_topic("t")
    dispatcher = Dispatcher(node.services, load_handlers())
    assert dispatcher.answer_now(_frame(node, 12)[:-3], _Connection()) is None


class _BrokenReads:
    """The node's partitions, but every read fails (a bug below the handler)."""

    def __init__(self, partitions: object) -> None:
        self._partitions = partitions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._partitions, name)

    def read(self, *args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")


def test_a_failing_read_is_answered_with_unknown_server_error(caplog: pytest.LogCaptureFixture) -> None:
    node = Node()
    node.add_topic("t")
    node.services = dataclasses.replace(node.services, partitions=_BrokenReads(node.partitions))  # type: ignore[arg-type]
    dispatcher = Dispatcher(node.services, load_handlers())
    answer = dispatcher.answer_now(_frame(node, 12), _Connection())
    assert isinstance(answer, list)
    assert _decoded(answer, 12).error_code == ErrorCode.UNKNOWN_SERVER_ERROR
    assert "FetchRequest v12 from test failed" in caplog.text
