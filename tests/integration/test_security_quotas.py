"""Client quotas: Describe/AlterClientQuotas through a real client, and Kafka's throttling of a
produce over its byte rate on the broker's manual clock (the rate, the throttle time in the answer
and the muted connection are all functions of the clock, so the numbers are exact)."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from typing import Any

import pytest

from odradek.wire.api import ApiKey
from odradek.wire.messages.api_versions import ApiVersionsRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.messages.quotas import AlterClientQuotasRequest, DescribeClientQuotasRequest
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection


@pytest.fixture
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessBroker]:
    running = InProcessBroker(tmp_path_factory.mktemp("quotas"), manual_clock=True)
    running.start()
    yield running
    running.stop()


def _set_quota(connection: RawConnection, client_id: str, key: str, value: float) -> None:
    entry = AlterClientQuotasRequest.EntryData(
        entity=[AlterClientQuotasRequest.EntryData.EntityData(entity_type="client-id", entity_name=client_id)],
        ops=[AlterClientQuotasRequest.EntryData.OpData(key=key, value=value, remove=False)],
    )
    answer = connection.request(ApiKey.ALTER_CLIENT_QUOTAS, 1, AlterClientQuotasRequest(entries=[entry]))
    assert answer.entries[0].error_code == 0, answer


def test_quotas_are_stored_and_described(broker: InProcessBroker) -> None:
    connection = RawConnection(broker.bootstrap)
    try:
        _set_quota(connection, "reader", "consumer_byte_rate", 2048.0)
        component = DescribeClientQuotasRequest.ComponentData(entity_type="client-id", match_type=0, match="reader")
        answer = connection.request(
            ApiKey.DESCRIBE_CLIENT_QUOTAS, 1, DescribeClientQuotasRequest(components=[component], strict=True)
        )
        assert [(v.key, v.value) for e in answer.entries for v in e.values] == [("consumer_byte_rate", 2048.0)]
    finally:
        connection.close()


def _produce_request(topic: str, size: int) -> ProduceRequest:
    batch = build_batch([Record(offset_delta=0, timestamp_delta=0, key=None, value=b"v" * size)], base_timestamp=1)
    partition = ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=batch)
    topic_data = ProduceRequest.TopicProduceData(name=topic, partition_data=[partition])
    return ProduceRequest(acks=1, timeout_ms=5000, topic_data=[topic_data])


def test_a_producer_over_its_quota_is_throttled_and_muted(broker: InProcessBroker) -> None:
    answer: Any
    connection = RawConnection(broker.bootstrap)
    try:
        connection.create_topic("throttled")
        _set_quota(connection, "raw-test", "producer_byte_rate", 1000.0)
        request = _frame(ApiKey.PRODUCE, 9, _produce_request("throttled", 19_000))
        connection.send_raw(request)
        body = connection.recv_frame()
        assert body is not None
        answer = _decode_produce(body)
        request_bytes = len(request) - 4
        assert answer.responses[0].partition_responses[0].error_code == 0
        # One sample so far; Kafka's window then counts as 10 full seconds: rate = bytes / 10 s,
        # throttle = (rate - quota) / quota * 10 s.
        rate = request_bytes / 10
        assert answer.throttle_time_ms == int((rate - 1000) / 1000 * 10_000)
        connection.sock.settimeout(0.3)
        connection.send_raw(_frame(ApiKey.API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t")))
        with pytest.raises(socket.timeout):
            connection.recv_frame()
        broker.clock.advance(answer.throttle_time_ms)
        connection.sock.settimeout(10)
        assert connection.recv_frame() is not None
    finally:
        connection.close()


def _decode_produce(body: bytes) -> object:
    from odradek.wire.codec import decode_from
    from odradek.wire.messages.produce import ProduceResponse
    from odradek.wire.primitives import Reader

    reader = Reader(body)
    reader.int32()
    reader.uvarint()
    return decode_from(ProduceResponse, 9, reader)


def _frame(api_key: int, version: int, value: object) -> bytes:
    from odradek.wire.api import RequestHeader, encode_request_header
    from odradek.wire.codec import encode_into
    from odradek.wire.messages import ALL_MESSAGES
    from odradek.wire.primitives import Writer

    request_schema, _ = ALL_MESSAGES[api_key]
    writer = Writer()
    encode_request_header(writer, RequestHeader(api_key, version, 99, "raw-test"), request_schema.is_flexible(version))
    encode_into(request_schema, version, value, writer)
    return struct.pack(">i", len(writer.buf)) + bytes(writer.buf)


def _create(broker: InProcessBroker, version: int, topics: dict[str, int]) -> tuple[int, list[tuple[str, int]]]:
    """CreateTopics on a fresh connection (a throttled connection is muted): the throttle time and
    each topic's error code."""
    from odradek.wire.messages.topics import CreateTopicsRequest

    creatable = [
        CreateTopicsRequest.CreatableTopic(name=name, num_partitions=count, replication_factor=1)
        for name, count in topics.items()
    ]
    connection = RawConnection(broker.bootstrap)
    try:
        answer = connection.request(
            ApiKey.CREATE_TOPICS, version, CreateTopicsRequest(topics=creatable, timeout_ms=5000)
        )
    finally:
        connection.close()
    return answer.throttle_time_ms, [(t.name, t.error_code) for t in answer.topics]


def test_the_controller_mutation_quota_refuses_strict_requests_and_throttles_older_ones(
    broker: InProcessBroker,
) -> None:
    """controller_mutation_rate 1/s: a bucket of (11 - 1) * 1 s * 1 = 10 partitions, refilled at
    1 per second of the broker's clock (Kafka's numbers, compat-tests/probes/quota_enforcement.py)."""
    connection = RawConnection(broker.bootstrap)
    try:
        _set_quota(connection, "raw-test", "controller_mutation_rate", 1.0)
    finally:
        connection.close()
    throttled = 89  # THROTTLING_QUOTA_EXCEEDED
    # The bucket is not empty before it, so twelve partitions go through and leave it at -2.
    assert _create(broker, 7, {"twelve": 12}) == (0, [("twelve", 0)])
    assert _create(broker, 7, {"one": 1}) == (2000, [("one", throttled)])
    broker.clock.advance(2000)
    # Back at 0 (not below): the first topic goes through, the second finds -1.
    assert _create(broker, 7, {"one": 1, "two": 1}) == (1000, [("one", 0), ("two", throttled)])
    # CreateTopics v5 predates the refusal: the topic is created and the answer throttled for -4.
    assert _create(broker, 5, {"three": 3}) == (4000, [("three", 0)])
    broker.clock.advance(4000)
    assert _create(broker, 7, {"four": 4}) == (0, [("four", 0)])


class _StepClock:
    """A handler-time timer that advances ``step_ns`` at each reading: every running step of a
    handler then costs exactly ``step_ns``, whatever the machine's speed."""

    def __init__(self, step_ns: int) -> None:
        self._step_ns = step_ns
        self._readings = 0

    def __call__(self) -> int:
        self._readings += 1
        return self._readings * self._step_ns


def test_a_client_over_its_request_percentage_is_throttled_and_muted(broker: InProcessBroker) -> None:
    """request_percentage 2: an ApiVersions handler runs in one step and its answer is encoded in
    one timed stretch, each charged 100 ms = 10 percent-seconds.  With one sample the window counts
    as 10 s: the first handler makes 1.0 % (not throttled), its encoding 2.0 % (recorded after the
    answer), the second handler 3.0 %, whose throttle (3 - 2) / 2 * 10 s is bounded by one window."""
    broker.broker.security.throttle.request_timer = _StepClock(100_000_000)
    connection = RawConnection(broker.bootstrap)
    try:
        _set_quota(connection, "raw-test", "request_percentage", 2.0)
        versions = ApiVersionsRequest(client_software_name="t")
        assert connection.request(ApiKey.API_VERSIONS, 3, versions).throttle_time_ms == 0
        assert connection.request(ApiKey.API_VERSIONS, 3, versions).throttle_time_ms == 1000
        connection.sock.settimeout(0.3)
        connection.send_raw(_frame(ApiKey.API_VERSIONS, 3, versions))
        with pytest.raises(socket.timeout):
            connection.recv_frame()
        broker.clock.advance(1000)
        connection.sock.settimeout(10)
        assert connection.recv_frame() is not None
    finally:
        connection.close()


def test_a_client_without_a_request_percentage_is_not_charged(broker: InProcessBroker) -> None:
    broker.broker.security.throttle.request_timer = _StepClock(100_000_000)
    connection = RawConnection(broker.bootstrap)
    try:
        _set_quota(connection, "another-client", "request_percentage", 1.0)
        versions = ApiVersionsRequest(client_software_name="t")
        for _ in range(3):
            assert connection.request(ApiKey.API_VERSIONS, 3, versions).throttle_time_ms == 0
    finally:
        connection.close()


def test_a_real_client_over_its_request_percentage_is_told_and_still_served(broker: InProcessBroker) -> None:
    """librdkafka reports the broker's throttle time through ``throttle_cb`` and its message is
    delivered once the broker's clock has moved past each muted connection's throttle."""
    from confluent_kafka import Producer, ThrottleEvent

    broker.broker.security.throttle.request_timer = _StepClock(100_000_000)
    connection = RawConnection(broker.bootstrap)
    try:
        connection.create_topic("request-quota")
        _set_quota(connection, "busy-producer", "request_percentage", 1.0)
    finally:
        connection.close()
    throttles: list[float] = []
    delivered: list[object] = []

    def on_throttle(event: ThrottleEvent) -> None:
        throttles.append(event.throttle_time)

    producer = Producer(
        {"bootstrap.servers": broker.bootstrap, "client.id": "busy-producer", "throttle_cb": on_throttle}
    )
    producer.produce("request-quota", b"value", on_delivery=lambda err, msg: delivered.append(err))
    for _ in range(200):
        if delivered:
            break
        producer.poll(0.05)
        broker.clock.advance(1000)
    producer.flush(10)
    assert delivered == [None]
    assert throttles and set(throttles) == {1.0}
