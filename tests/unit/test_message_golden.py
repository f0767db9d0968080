"""Golden bytes, computed by hand from the protocol grammar, for a few messages clients send first.

Flexible versions: compact string = uvarint(len + 1) + UTF-8; compact array = uvarint(count + 1);
every struct ends with a tagged-field section (uvarint count, then tag, size, payload).
Classic versions: string = int16 length + UTF-8; array = int32 count.
The flexible-version strings here were also checked once against kafka-clients 4.4.0's own
serializers, byte for byte.
"""

from __future__ import annotations

from typing import Any

from odradek.wire.api import RequestHeader, decode_request_header, encode_request_header
from odradek.wire.codec import decode, decode_from, encode
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.messages.api_versions import ApiVersionsRequest, ApiVersionsResponse
from odradek.wire.messages.fetch import FetchResponse
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.produce import ProduceRequest, ProduceResponse
from odradek.wire.primitives import Reader, Writer
from odradek.wire.schema import Message

NO_TAGS = b"\x00"


def _assert_golden(message: Message, version: int, data: bytes, value: Any) -> None:
    assert decode(message, version, data) == value
    assert encode(message, version, value) == data


def _is_flexible(api_key: int, version: int) -> bool:
    return ALL_MESSAGES[api_key][0].is_flexible(version)


def test_api_versions_request_v3_body() -> None:
    data = b"\x02x" + b"\x021" + NO_TAGS
    value = ApiVersionsRequest(client_software_name="x", client_software_version="1")
    _assert_golden(ApiVersionsRequest, 3, data, value)


def test_api_versions_request_v3_with_its_v2_header() -> None:
    frame = (
        b"\x00\x12"  # api key 18
        b"\x00\x03"  # version 3
        b"\x00\x00\x00\x07"  # correlation id
        b"\x00\x01c" + NO_TAGS + b"\x02x\x021" + NO_TAGS  # client id "c": classic nullable string even in header v2
    )
    r = Reader(frame)
    header = decode_request_header(r, _is_flexible)
    assert (header.api_key, header.api_version, header.correlation_id, header.client_id) == (18, 3, 7, "c")
    body = decode_from(ApiVersionsRequest, header.api_version, r)
    assert r.remaining() == 0
    assert (body.client_software_name, body.client_software_version) == ("x", "1")
    w = Writer()
    encode_request_header(w, RequestHeader(18, 3, 7, "c"), flexible=True)
    assert bytes(w.buf) + encode(ApiVersionsRequest, 3, body) == frame


def test_api_versions_request_v0_is_empty() -> None:
    _assert_golden(ApiVersionsRequest, 0, b"", ApiVersionsRequest())


def test_api_versions_response_v3_with_a_tagged_epoch() -> None:
    data = (
        b"\x00\x00"  # error code
        b"\x02"  # one api key entry
        b"\x00\x12\x00\x00\x00\x04"
        + NO_TAGS  # key 18, min 0, max 4
        + b"\x00\x00\x00\x00"  # throttle time
        + b"\x01"  # one tagged field
        + b"\x01\x08"  # tag 1 (finalized_features_epoch), 8 bytes
        + (5).to_bytes(8, "big")
    )
    value = ApiVersionsResponse(
        api_keys=[ApiVersionsResponse.ApiVersion(api_key=18, min_version=0, max_version=4)],
        finalized_features_epoch=5,
    )
    _assert_golden(ApiVersionsResponse, 3, data, value)


def test_api_versions_response_v0_is_classic() -> None:
    data = b"\x00\x23" + b"\x00\x00\x00\x01" + b"\x00\x12\x00\x00\x00\x03"
    value = ApiVersionsResponse(
        error_code=35, api_keys=[ApiVersionsResponse.ApiVersion(api_key=18, min_version=0, max_version=3)]
    )
    _assert_golden(ApiVersionsResponse, 0, data, value)


def test_metadata_request_v12_one_topic() -> None:
    data = (
        b"\x02"  # one topic
        + b"\x00" * 16  # topic id: zero uuid
        + b"\x02t"  # name "t"
        + NO_TAGS
        + b"\x01"  # allow_auto_topic_creation (default true)
        + b"\x00"  # include_topic_authorized_operations
        + NO_TAGS
    )
    value = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="t")])
    _assert_golden(MetadataRequest, 12, data, value)


def test_metadata_request_v12_null_topics_means_all() -> None:
    _assert_golden(MetadataRequest, 12, b"\x00\x01\x00" + NO_TAGS, MetadataRequest(topics=None))


def test_metadata_request_v0_one_topic() -> None:
    data = b"\x00\x00\x00\x01" + b"\x00\x01t"
    _assert_golden(MetadataRequest, 0, data, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="t")]))


def test_fetch_response_v16_partition_with_tagged_current_leader() -> None:
    topic_id = b"\x11" * 16
    data = (
        b"\x00\x00\x00\x00"  # throttle time
        b"\x00\x00"  # error code
        b"\x00\x00\x00\x00"  # session id
        b"\x02"  # one topic
        + topic_id
        + b"\x02"  # one partition
        + b"\x00\x00\x00\x00"  # partition index
        + b"\x00\x06"  # NOT_LEADER_OR_FOLLOWER
        + b"\xff" * 8 * 3  # high watermark, last stable offset, log start offset: -1
        + b"\x00"  # aborted transactions: null
        + b"\xff\xff\xff\xff"  # preferred read replica -1
        + b"\x01"  # records: empty
        + b"\x01"  # one tagged field
        + b"\x01\x09"  # tag 1 (current_leader), 9 bytes
        + b"\x00\x00\x00\x02\x00\x00\x00\x07"
        + NO_TAGS  # leader 2, epoch 7, then the leader struct's own tags
        + NO_TAGS  # topic tags
        + NO_TAGS  # response tags (no node endpoints)
    )
    topic_cls = FetchResponse.FetchableTopicResponse
    partition = topic_cls.PartitionData(
        error_code=6,
        high_watermark=-1,
        aborted_transactions=None,
        records=b"",
        current_leader=topic_cls.PartitionData.LeaderIdAndEpoch(leader_id=2, leader_epoch=7),
    )
    value = FetchResponse(responses=[topic_cls(topic_id=topic_id, partitions=[partition])])
    _assert_golden(FetchResponse, 16, data, value)


def test_produce_request_v2_still_decodes() -> None:
    data = (
        b"\xff\xff"  # acks -1
        b"\x00\x00\x03\xe8"  # timeout 1000 ms
        b"\x00\x00\x00\x01"  # one topic
        b"\x00\x01t"
        b"\x00\x00\x00\x01"  # one partition
        b"\x00\x00\x00\x00"  # partition index
        b"\x00\x00\x00\x03abc"  # records: opaque bytes
    )
    topic = ProduceRequest.TopicProduceData(
        name="t",
        partition_data=[ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=b"abc")],
    )
    _assert_golden(ProduceRequest, 2, data, ProduceRequest(acks=-1, timeout_ms=1000, topic_data=[topic]))


def test_produce_response_v2_answers_unsupported_version() -> None:
    data = (
        b"\x00\x00\x00\x01"  # one topic
        b"\x00\x01t"
        b"\x00\x00\x00\x01"  # one partition
        b"\x00\x00\x00\x00"  # partition index
        b"\x00\x23"  # UNSUPPORTED_VERSION
        + b"\xff" * 8  # base offset -1
        + b"\xff" * 8  # log append time -1 (v2+)
        + b"\x00\x00\x00\x00"  # throttle time (v1+), after the topics
    )
    partition = ProduceResponse.TopicProduceResponse.PartitionProduceResponse(index=0, error_code=35, base_offset=-1)
    value = ProduceResponse(responses=[ProduceResponse.TopicProduceResponse(name="t", partition_responses=[partition])])
    _assert_golden(ProduceResponse, 2, data, value)
