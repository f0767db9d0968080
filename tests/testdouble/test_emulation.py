"""Release emulation: ApiVersions says exactly what the release said, clients negotiate its
versions, and what it refused is refused the same way."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import confluent_kafka
import pytest

from odradek.emulation import load_release
from odradek.wire.api import ApiKey, RequestHeader, encode_request_header
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.errors import ErrorCode
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.messages.api_versions import ApiVersionsRequest, ApiVersionsResponse
from odradek.wire.messages.metadata import DescribeTopicPartitionsRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.primitives import Reader, Writer
from tests.integration.rawclient import RawConnection
from tests.testdouble.clients import consume

RELEASE = load_release("3.6")


def _closes_on(bootstrap: str, api_key: int, version: int) -> bool:
    """Whether the broker closes the connection on a bare request header of this API and version."""
    conn = RawConnection(bootstrap)
    try:
        writer = Writer()
        flexible = api_key in ALL_MESSAGES and ALL_MESSAGES[api_key][0].is_flexible(version)
        encode_request_header(writer, RequestHeader(api_key, version, 1, "raw"), flexible)
        conn.send_raw(struct.pack(">i", len(writer.buf)) + bytes(writer.buf))
        return conn.recv_frame() is None
    finally:
        conn.close()


@pytest.mark.kafka(emulate="3.6")
def test_api_versions_lists_exactly_the_release_ranges_and_features(kafka_clean: Any) -> None:
    conn = RawConnection(kafka_clean.bootstrap_servers)
    try:
        answer = conn.request(
            ApiKey.API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1")
        )
    finally:
        conn.close()
    assert answer.error_code == ErrorCode.NONE
    assert {a.api_key: (a.min_version, a.max_version) for a in answer.api_keys} == dict(RELEASE.apis)
    assert {f.name: (f.min_version, f.max_version) for f in answer.supported_features} == dict(
        RELEASE.supported_features
    )
    assert answer.finalized_features_epoch == RELEASE.finalized_features_epoch


@pytest.mark.kafka(emulate="3.6", journal=True)
def test_a_client_negotiates_the_release_versions(
    kafka_clean: Any,
    kafka_topic: Callable[..., str],
    group_id: str,
    producer_factory: Callable[..., confluent_kafka.Producer],
    consumer_factory: Callable[..., confluent_kafka.Consumer],
) -> None:
    topic = kafka_topic()
    producer = producer_factory(kafka_clean.bootstrap_servers)
    producer.produce(topic, b"3.6")
    assert producer.flush(10) == 0
    consumer = consumer_factory(kafka_clean.bootstrap_servers, **{"group.id": group_id})
    consumer.subscribe([topic])
    assert consume(consumer, 1) == [b"3.6"]
    consumer.close()
    entries = kafka_clean.journal.entries()
    assert {e.version for e in entries if e.api == "Produce"} == {RELEASE.apis[ApiKey.PRODUCE][1]}
    for entry in entries:
        low, high = RELEASE.apis[entry.api_key]
        assert low <= entry.version <= high, entry


@pytest.mark.kafka(emulate="3.6")
def test_what_odradek_lacks_closes_the_connection_naming_the_gap(
    kafka_clean: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # Kafka 3.6 still answers ListOffsets v0 (the old offsets-before form); odradek serves v1 and later.
    assert RELEASE.apis[ApiKey.LIST_OFFSETS][0] == 0
    with caplog.at_level("WARNING", logger="odradek.server"):
        assert _closes_on(kafka_clean.bootstrap_servers, ApiKey.LIST_OFFSETS, 0)
    assert "ListOffsets v0 is advertised by the emulated Kafka 3.6.2 but odradek does not implement it" in caplog.text


@pytest.mark.kafka(emulate="3.6")
def test_what_the_release_lacks_is_refused_as_it_refused_it(kafka_clean: Any) -> None:
    bootstrap = kafka_clean.bootstrap_servers
    assert ApiKey.DESCRIBE_TOPIC_PARTITIONS not in RELEASE.apis
    assert _closes_on(bootstrap, ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0)  # added in 3.7
    assert _closes_on(bootstrap, ApiKey.PRODUCE, RELEASE.apis[ApiKey.PRODUCE][1] + 1)
    conn = RawConnection(bootstrap)
    try:
        writer = Writer()
        encode_request_header(writer, RequestHeader(ApiKey.API_VERSIONS, 4, 7, "raw"), True)
        encode_into(ApiVersionsRequest, 4, ApiVersionsRequest(), writer)
        conn.send_raw(struct.pack(">i", len(writer.buf)) + bytes(writer.buf))
        body = conn.recv_frame()
    finally:
        conn.close()
    assert body is not None, "ApiVersions above the release's range is answered (in v0), not closed"
    reader = Reader(body)
    assert reader.int32() == 7
    answer = decode_from(ApiVersionsResponse, 0, reader)
    assert answer.error_code == RELEASE.refusals.api_versions_above_max_error
    assert {a.api_key: (a.min_version, a.max_version) for a in answer.api_keys} == dict(
        RELEASE.refusals.api_versions_above_max_apis
    )


def test_without_emulation_the_same_requests_are_served(kafka_clean: Any) -> None:
    conn = RawConnection(kafka_clean.bootstrap_servers)
    try:
        answer = conn.request(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0, DescribeTopicPartitionsRequest(topics=[]))
        produce_v10 = conn.request(ApiKey.PRODUCE, 10, ProduceRequest(acks=1, timeout_ms=1000, topic_data=[]))
    finally:
        conn.close()
    assert answer.topics == [] and produce_v10.responses == []
