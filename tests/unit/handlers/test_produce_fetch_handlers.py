"""The Produce and Fetch handlers with no socket and no disk: the real partitions service on a
`MemoryFileSystem`, a dictionary for the topic catalog, the handlers called directly."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.cluster.topics import TopicInfo
from odradek.config import load_config, log_config_for
from odradek.fetch_sessions import FetchSessionCache
from odradek.handlers.context import RequestContext, Services
from odradek.handlers.fetch import FetchAnswer, fetch
from odradek.handlers.frames import encode_response_frame
from odradek.handlers.produce import produce
from odradek.handlers.registry import PreparedAnswer
from odradek.partition.service import Partitions
from odradek.scheduler import Scheduler
from odradek.security.principal import ClientIdentity
from odradek.storage.filesystem import MemoryFileSystem
from odradek.storage.log_manager import LogManager
from odradek.wire.api import ApiKey, RequestHeader
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.fetch import FetchRequest, FetchRequestValue, FetchResponse, FetchResponseValue
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.primitives import Part
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

T0 = 1_700_000_000_000
_Topic = ProduceRequest.TopicProduceData
_FetchTopic = FetchRequest.FetchTopic


class Catalog:
    """The topic catalog as a dictionary (no file)."""

    def __init__(self) -> None:
        self.topics: dict[str, TopicInfo] = {}

    def __iter__(self) -> Iterator[TopicInfo]:
        return iter(list(self.topics.values()))

    def get(self, name: str) -> TopicInfo | None:
        return self.topics.get(name)

    def by_id(self, topic_id: bytes) -> TopicInfo | None:
        return next((t for t in self.topics.values() if t.topic_id == topic_id), None)

    def check_new(self, name: str, partitions: int) -> None:
        raise AssertionError("not used here")

    def create(self, name: str, partitions: int, configs: Mapping[str, str]) -> TopicInfo:
        raise AssertionError("not used here")

    def delete(self, name: str) -> TopicInfo:
        raise AssertionError("not used here")

    def set_configs(self, name: str, configs: Mapping[str, str]) -> TopicInfo:
        raise AssertionError("not used here")


class Node:
    def __init__(self) -> None:
        self.fs = MemoryFileSystem()
        self.clock = ManualClock(T0)
        self.catalog = Catalog()
        config = self.config = load_config(None, ["log.dirs=/data"])
        logs = LogManager.open(self.fs, "/data", self.clock)
        self.partitions = Partitions(self.fs, logs, self.catalog, config.node_id, Scheduler(self.clock))
        self.services = Services(
            partitions=self.partitions,
            topics=self.catalog,
            cluster=None,  # type: ignore[arg-type]
            groups=None,  # type: ignore[arg-type]
            fetch_sessions=FetchSessionCache(10),
            producer_ids=None,  # type: ignore[arg-type]
            clock=self.clock,
            log_dirs=None,  # type: ignore[arg-type]
            transactions=None,  # type: ignore[arg-type]
        )

    def add_topic(self, name: str, configs: dict[str, str] | None = None) -> TopicInfo:
        info = TopicInfo(name, uuid.uuid4().bytes, 1, configs or {})
        self.catalog.topics[name] = info
        self.partitions.create(name, 0, uuid.UUID(bytes=info.topic_id), log_config_for(self.config, info.configs))
        return info

    def context(self, api_key: ApiKey, version: int) -> RequestContext:
        return RequestContext(self.services, RequestHeader(api_key, version, 1, "test"), _Connection())


class _Connection:
    peer = "test"
    closed = False
    identity = ClientIdentity()


@pytest.fixture
def node() -> Node:
    return Node()


def _batch(sequence: int = -1, producer_id: int = -1) -> memoryview:
    records = [Record(offset_delta=i, timestamp_delta=i, key=b"k", value=b"value") for i in range(3)]
    return memoryview(
        bytearray(build_batch(records, producer_id=producer_id, base_sequence=sequence, base_timestamp=T0))
    )


async def _produce(node: Node, topic: str, records: memoryview, version: int = 9, topic_id: bytes = b"") -> Any:
    data = [_Topic.PartitionProduceData(index=0, records=records)]
    topic_data = (
        _Topic(name=topic, topic_id=topic_id, partition_data=data)
        if version >= 13
        else _Topic(name=topic, partition_data=data)
    )
    request = ProduceRequest(acks=-1, timeout_ms=1000, topic_data=[topic_data])
    response = await produce(node.context(ApiKey.PRODUCE, version), request)
    return response.responses[0].partition_responses[0]


def _fetch_request(topic: str, offset: int, max_wait_ms: int) -> Any:
    partition = _FetchTopic.FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)
    return FetchRequest(
        max_wait_ms=max_wait_ms,
        min_bytes=1,
        max_bytes=1 << 20,
        session_id=0,
        session_epoch=-1,
        topics=[_FetchTopic(topic=topic, partitions=[partition])],
        forgotten_topics_data=[],
    )


async def _fetch(ctx: RequestContext, request: FetchRequestValue) -> FetchResponseValue:
    """The fetch handler's answer as a message value."""
    answer = await fetch(ctx, request)
    if isinstance(answer, PreparedAnswer):
        return answer.value()
    assert answer is not None
    return answer


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 10))


def test_produce_answers_with_the_offsets(node: Node) -> None:
    node.add_topic("t")

    async def scenario() -> tuple[Any, Any]:
        return await _produce(node, "t", _batch()), await _produce(node, "t", _batch())

    first, second = run(scenario())
    assert (first.error_code, first.base_offset, first.log_start_offset, first.log_append_time_ms) == (0, 0, 0, -1)
    assert (second.error_code, second.base_offset) == (0, 3)


def test_a_refused_batch_writes_nothing(node: Node) -> None:
    node.add_topic("small", {"max.message.bytes": "50"})
    refused = run(_produce(node, "small", _batch()))
    assert (refused.error_code, refused.base_offset, refused.error_message) == (ErrorCode.MESSAGE_TOO_LARGE, -1, None)
    two = memoryview(bytearray(bytes(_batch()) * 2))
    node.add_topic("t")
    complaint = run(_produce(node, "t", two))
    assert complaint.error_code == ErrorCode.INVALID_RECORD
    assert "exactly one record batch" in complaint.error_message
    assert node.partitions.get("t", 0).log_end_offset == 0  # type: ignore[union-attr]


def test_a_duplicate_gets_the_original_offsets(node: Node) -> None:
    node.add_topic("t")

    async def scenario() -> list[Any]:
        return [await _produce(node, "t", _batch(sequence=s, producer_id=5)) for s in (0, 3, 3, 0, 9)]

    answers = [(a.error_code, a.base_offset) for a in run(scenario())]
    assert answers == [(0, 0), (0, 3), (0, 3), (0, 0), (ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, -1)]
    assert node.partitions.get("t", 0).log_end_offset == 6  # type: ignore[union-attr]


def test_unknown_topics(node: Node) -> None:
    assert run(_produce(node, "nope", _batch())).error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    by_id = run(_produce(node, "", _batch(), version=13, topic_id=uuid.uuid4().bytes))
    assert by_id.error_code == ErrorCode.UNKNOWN_TOPIC_ID
    answer = run(_fetch(node.context(ApiKey.FETCH, 12), _fetch_request("nope", 0, 0)))
    assert answer.responses[0].partitions[0].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def test_a_waiting_fetch_is_woken_by_an_append(node: Node) -> None:
    """The fetch would wait ten minutes; the append answers it (the test's timeout is 10 s)."""
    node.add_topic("t")

    async def scenario() -> Any:
        waiting = asyncio.ensure_future(_fetch(node.context(ApiKey.FETCH, 12), _fetch_request("t", 0, 600_000)))
        for _ in range(3):
            await asyncio.sleep(0)
        assert not waiting.done(), "nothing to read yet: the fetch waits"
        appended = await _produce(node, "t", _batch())
        assert appended.error_code == ErrorCode.NONE
        return await waiting

    answer = run(scenario())
    data = answer.responses[0].partitions[0]
    assert (data.error_code, data.high_watermark) == (ErrorCode.NONE, 3)
    assert bytes(data.records)[:8] == (0).to_bytes(8, "big"), "the batch at offset 0"


def test_a_long_poll_answers_at_its_max_wait_on_the_manual_clock(node: Node) -> None:
    """max_wait_ms=500 with nothing to read: still waiting at 499 ms, answered at 500 ms, with no
    real time passing (the deadline is a timer on the broker's scheduler)."""
    node.add_topic("t")

    async def settle() -> None:
        for _ in range(5):
            await asyncio.sleep(0)

    async def scenario() -> Any:
        waiting = asyncio.ensure_future(_fetch(node.context(ApiKey.FETCH, 12), _fetch_request("t", 0, 500)))
        await settle()
        node.clock.advance(499)
        await settle()
        assert not waiting.done(), "1 ms before max_wait_ms the fetch still waits"
        node.clock.advance(1)
        await settle()
        assert waiting.done(), "at max_wait_ms the fetch answers"
        return await waiting

    answer = run(scenario())
    data = answer.responses[0].partitions[0]
    assert (data.error_code, data.high_watermark, bytes(data.records)) == (ErrorCode.NONE, 0, b"")


def _joined(parts: list[Part]) -> bytes:
    return b"".join(p if isinstance(p, bytes | bytearray | memoryview) else p.read() for p in parts)


@pytest.mark.parametrize("version", [4, 5, 6, 7, 10, 11, 12, 13, 16, 17, 18])
def test_a_fetch_answer_is_sent_as_the_codec_writes_its_value(node: Node, version: int) -> None:
    """The frame written from the handler's tuples is the generic encoding of the value built from
    them, for a full answer (records, an empty partition, an unknown topic) and, with sessions (v7+),
    for the incremental answer after it, which lists only the partition with news."""
    topics = [node.add_topic("t"), node.add_topic("u")]
    run(_produce(node, "t", _batch()))

    def request(session_id: int, epoch: int, wanted: list[tuple[str, bytes, int]]) -> FetchRequestValue:
        return FetchRequest(
            max_wait_ms=0,
            min_bytes=0,
            max_bytes=1 << 20,
            session_id=session_id,
            session_epoch=epoch,
            topics=[
                _FetchTopic(
                    topic=name,
                    topic_id=topic_id,
                    partitions=[
                        _FetchTopic.FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)
                    ],
                )
                for name, topic_id, offset in wanted
            ],
            forgotten_topics_data=[],
        )

    def answered(answer: object) -> tuple[int, list[str | bytes]]:
        """The answer's session and the topics it lists, once its two encodings are compared."""
        assert isinstance(answer, FetchAnswer)
        value = answer.value()
        assert _joined(answer.frame(9)) == _joined(encode_response_frame(1, version, 9, FetchResponse, value))
        return value.session_id, [t.topic_id if version >= 13 else t.topic for t in value.responses]

    t, u = [("" if version >= 13 else info.name, info.topic_id if version >= 13 else bytes(16)) for info in topics]
    unknown = ("" if version >= 13 else "nope", uuid.uuid4().bytes if version >= 13 else bytes(16))
    ctx = node.context(ApiKey.FETCH, version)
    full = request(0, 0 if version >= 7 else -1, [(*t, 0), (*u, 0), (*unknown, 0)])
    session_id, keys = answered(run(fetch(ctx, full)))
    assert keys == [name or topic_id for name, topic_id in (t, u, unknown)]
    if version < 7:
        return
    # t's records consumed, u given some, the unknown topic still refused: u and the refusal are news.
    run(_produce(node, "u", _batch()))
    _, keys = answered(run(fetch(ctx, request(session_id, 1, [(*t, 3)]))))
    assert keys == [name or topic_id for name, topic_id in (u, unknown)]
