"""What the stubs make mypy check: one run over a module of handler-style code in which every line
that must be refused says so with ``# error``; mypy must report exactly those lines.

The accepted lines are the idioms handlers use: top-level and nested construction through the
`Message` object, annotations naming nested value classes, decoded values with their field types,
and a handler registered with its request, response and error responder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mypy import api

from odradek.wire.codec import decode, encode
from odradek.wire.messages.produce import ProduceRequest, ProduceResponse

Data = ProduceRequest.TopicProduceData.PartitionProduceData

SNIPPET = """
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import Registry
from odradek.wire.codec import decode, encode
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.produce import (
    ProduceRequest,
    ProduceRequestValue,
    ProduceResponse,
    ProduceResponseValue,
)
from odradek.wire.messages.txn import (
    InitProducerIdRequest,
    InitProducerIdRequestValue,
    InitProducerIdResponse,
    InitProducerIdResponseValue,
)
from odradek.wire.primitives import Part

registry = Registry()
another = Registry()
Partition = ProduceResponseValue.TopicProduceResponse.PartitionProduceResponse


def partition(index: int) -> ProduceResponseValue.TopicProduceResponse.PartitionProduceResponse:
    return ProduceResponse.TopicProduceResponse.PartitionProduceResponse(index=index, error_code=ErrorCode.NONE)


def answer(request: ProduceRequestValue) -> ProduceResponseValue:
    topics = [
        ProduceResponse.TopicProduceResponse(
            name=t.name, partition_responses=[partition(p.index) for p in t.partition_data]
        )
        for t in request.topic_data
    ]
    return ProduceResponse(responses=topics, throttle_time_ms=0)


def records(data: bytes) -> Part | None:
    return decode(ProduceRequest, 9, data).topic_data[0].partition_data[0].records


def txn_id(request: ProduceRequestValue) -> str | None:
    return request.transactional_id


def _error(request: InitProducerIdRequestValue, code: ErrorCode) -> InitProducerIdResponseValue:
    return InitProducerIdResponse(error_code=code)


@registry.api(InitProducerIdRequest, InitProducerIdResponse, "0-5", _error)
async def init(ctx: RequestContext, request: InitProducerIdRequestValue) -> InitProducerIdResponseValue | None:
    return InitProducerIdResponse(producer_id=1, producer_epoch=0)


@another.api(InitProducerIdRequest, ProduceResponse, "0-5", _error)  # error: responder answers another message
async def mismatched(ctx: RequestContext, request: InitProducerIdRequestValue) -> ProduceResponseValue:
    return ProduceResponse()


def misuse(request: ProduceRequestValue, value: ProduceResponseValue) -> None:
    request.acks = "all"  # error: an int16 is an int
    request.topic_data[0].name = None  # error: name is not nullable in any version
    request.transactional_id = None
    print(request.ackz)  # error: no such field
    ProduceResponse(responses=[], throttle=1)  # error: no such keyword
    ProduceResponse.TopicProduceResponse.PartitionProduceResponse(index="0")  # error: wrong type
    ProduceResponse.TopicProducerResponse()  # error: no such nested class
    Partition(current_leader=None)  # error: a tagged struct that is not nullable
    encode(ProduceResponse, 9, request)  # error: a request is not a response
    value.responses.append(partition(0))  # error: a partition is not a topic
"""


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> tuple[set[int], str]:
    directory = tmp_path_factory.mktemp("stub_typing")
    module = directory / "handler_snippet.py"
    module.write_text(SNIPPET, encoding="utf-8")
    out, err, _ = api.run(["--strict", "--cache-dir", str(directory / "cache"), "--no-error-summary", str(module)])
    lines = {int(m.group(1)) for m in re.finditer(r"handler_snippet\.py:(\d+): error:", out)}
    return lines, out + err


def _expected() -> set[int]:
    return {number for number, line in enumerate(SNIPPET.splitlines(), 1) if "# error" in line}


def test_mypy_refuses_exactly_the_marked_lines(reported: tuple[set[int], str]) -> None:
    lines, output = reported
    assert _expected(), "the snippet marks no errors"
    assert lines == _expected(), output


def test_the_snippet_runs(tmp_path: Path) -> None:
    # The accepted lines are real code: the names they import exist at run time, not only in stubs.
    ns: dict[str, Any] = {}
    exec(compile(SNIPPET, str(tmp_path / "handler_snippet.py"), "exec"), ns)
    request = ProduceRequest(
        acks=1,
        topic_data=[ProduceRequest.TopicProduceData(name="t", partition_data=[Data(index=3, records=b"batch")])],
    )
    data = encode(ProduceRequest, 9, request)
    assert bytes(ns["records"](data)) == b"batch"
    response = ns["answer"](decode(ProduceRequest, 9, data))
    assert [(t.name, [p.index for p in t.partition_responses]) for t in response.responses] == [("t", [3])]
    assert ns["Partition"] is ProduceResponse.TopicProduceResponse.PartitionProduceResponse
