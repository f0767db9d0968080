"""The codec's generators for huge messages (`decode_in_slices`, `encode_in_slices`): the same
values and bytes as the ordinary codec, in steps of `SLICE_ELEMENTS` elements of a top-level
array of structs."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from odradek.wire.codec import (
    SET_ASIDE_BYTES,
    SLICE_ELEMENTS,
    DecodeError,
    decode_from,
    decode_in_slices,
    encode,
    encode_in_slices,
)
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.messages.api_versions import ApiVersionsRequest
from odradek.wire.messages.metadata import MetadataRequest, MetadataResponse
from odradek.wire.primitives import Reader, Writer
from odradek.wire.schema import Message
from tests.wire_samples import sample_value


def _drain(steps: Generator[None, None, Any]) -> tuple[Any, int]:
    count = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value, count
        count += 1


def _names(count: int) -> Any:
    return MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name=f"topic-{i}") for i in range(count)],
        allow_auto_topic_creation=False,
    )


@pytest.mark.parametrize("count", [0, 1, SLICE_ELEMENTS - 1, SLICE_ELEMENTS, 1000])
def test_a_request_decodes_to_the_same_value_a_slice_at_a_time(count: int) -> None:
    data = encode(MetadataRequest, 12, _names(count))
    reader = Reader(memoryview(data))
    value, steps = _drain(decode_in_slices(MetadataRequest, 12, reader))
    assert value == decode_from(MetadataRequest, 12, Reader(memoryview(data)))
    assert reader.pos == len(data)
    assert steps == count // SLICE_ELEMENTS


def test_an_answer_encodes_to_the_same_bytes_a_slice_at_a_time() -> None:
    topic = MetadataResponse.MetadataResponseTopic
    answer = MetadataResponse(
        topics=[topic(error_code=3, name=f"t{i}", topic_id=b"\x00" * 16, partitions=[]) for i in range(1000)],
        cluster_id="c",
    )
    writer = Writer()
    _, steps = _drain(encode_in_slices(MetadataResponse, 12, answer, writer))
    assert writer.getvalue() == encode(MetadataResponse, 12, answer)
    assert steps == 1000 // SLICE_ELEMENTS


@pytest.mark.parametrize("version", [0, 8, 12])
def test_a_long_answer_is_written_in_parts_of_about_the_set_aside_size(version: int) -> None:
    """Fields after the array (v8's cluster operations, v12's tags) land after it, in the last part."""
    topic = MetadataResponse.MetadataResponseTopic
    name = "n" * 200
    answer = MetadataResponse(
        topics=[topic(error_code=3, name=f"{name}{i}", partitions=[]) for i in range(12_000)],
        cluster_id="c",
        cluster_authorized_operations=8096 if version == 8 else -(2**31),
    )
    writer = Writer()
    _drain(encode_in_slices(MetadataResponse, version, answer, writer))
    assert writer.getvalue() == encode(MetadataResponse, version, answer)
    sizes = [len(part) for part in writer.parts()]
    assert len(sizes) > 8
    assert max(sizes) < SET_ASIDE_BYTES + SLICE_ELEMENTS * 220


def test_a_message_without_an_array_of_structs_is_one_step() -> None:
    hello = ApiVersionsRequest(client_software_name="c", client_software_version="1")
    data = encode(ApiVersionsRequest, 3, hello)
    assert _drain(decode_in_slices(ApiVersionsRequest, 3, Reader(memoryview(data)))) == (hello, 0)


def test_a_truncated_huge_request_is_refused_in_slices_as_at_once() -> None:
    data = encode(MetadataRequest, 12, _names(1000))
    for cut in (5, len(data) // 2, len(data) - 1):
        with pytest.raises(DecodeError):
            _drain(decode_in_slices(MetadataRequest, 12, Reader(memoryview(data[:cut]))))


def test_every_message_and_version_is_the_same_in_slices() -> None:
    for pair in ALL_MESSAGES.values():
        for message in pair:
            _check(message)


def _check(message: Message) -> None:
    assert message.valid.high is not None
    for version in range(message.valid.low, message.valid.high + 1):
        value = sample_value(message.struct, version, 1, False)
        data = encode(message, version, value)
        writer = Writer()
        _drain(encode_in_slices(message, version, value, writer))
        assert writer.getvalue() == data, f"{message.name} v{version}"
        decoded, _ = _drain(decode_in_slices(message, version, Reader(memoryview(data))))
        assert decoded == value, f"{message.name} v{version}"
