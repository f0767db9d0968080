"""Bad input gets Kafka's error or closes just that connection; the broker keeps serving."""

from __future__ import annotations

import random
import socket
import struct

import pytest
from confluent_kafka.admin import AdminClient

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.api_versions import ApiVersionsRequest
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.messages.topics import CreateTopicsRequest
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.integration.conftest import BrokerProcess
from tests.integration.rawclient import RawConnection


def _create(conn: RawConnection, topic: str, partitions: int) -> None:
    request = CreateTopicsRequest(
        topics=[CreateTopicsRequest.CreatableTopic(name=topic, num_partitions=partitions, replication_factor=1)],
        timeout_ms=5000,
    )
    response = conn.request(ApiKey.CREATE_TOPICS, 7, request)
    assert response.topics[0].error_code == ErrorCode.NONE


def _batch(count: int = 3) -> bytearray:
    records = [Record(offset_delta=i, timestamp_delta=i, key=b"k", value=b"v%d" % i) for i in range(count)]
    return bytearray(build_batch(records, base_timestamp=1_700_000_000_000))


def _produce(conn: RawConnection, topic: str, batches: dict[int, bytes]) -> dict[int, int]:
    request = ProduceRequest(
        acks=-1,
        timeout_ms=5000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[
                    ProduceRequest.TopicProduceData.PartitionProduceData(index=i, records=b) for i, b in batches.items()
                ],
            )
        ],
    )
    response = conn.request(ApiKey.PRODUCE, 9, request)
    return {p.index: p.error_code for p in response.responses[0].partition_responses}


def test_corrupt_crc_refuses_only_that_partition(broker: BrokerProcess, topic_name: str) -> None:
    conn = RawConnection(broker.bootstrap)
    _create(conn, topic_name, 2)
    bad = _batch()
    bad[-1] ^= 0xFF
    assert _produce(conn, topic_name, {0: bytes(bad), 1: bytes(_batch())}) == {
        0: ErrorCode.CORRUPT_MESSAGE,
        1: ErrorCode.NONE,
    }
    # Nothing of the corrupt batch was written: the next good batch lands at offset 0.
    request = ProduceRequest(
        acks=1,
        timeout_ms=5000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic_name,
                partition_data=[ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=bytes(_batch()))],
            )
        ],
    )
    response = conn.request(ApiKey.PRODUCE, 9, request)
    assert response.responses[0].partition_responses[0].base_offset == 0
    conn.close()


def test_two_batches_in_one_partition_is_invalid_record(broker: BrokerProcess, topic_name: str) -> None:
    conn = RawConnection(broker.bootstrap)
    _create(conn, topic_name, 1)
    assert _produce(conn, topic_name, {0: bytes(_batch() + _batch())}) == {0: ErrorCode.INVALID_RECORD}
    conn.close()


def test_unknown_topic_partition(broker: BrokerProcess, topic_name: str) -> None:
    conn = RawConnection(broker.bootstrap)
    _create(conn, topic_name, 1)
    assert _produce(conn, topic_name, {5: bytes(_batch())}) == {5: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}
    conn.close()


def test_unsupported_api_versions_version_gets_v0_answer(broker: BrokerProcess) -> None:
    conn = RawConnection(broker.bootstrap)
    # ApiVersions v99: header v2 (flexible from v3), empty body.
    body = struct.pack(">hhi", ApiKey.API_VERSIONS, 99, 7) + struct.pack(">h", 1) + b"x" + b"\x00"
    conn.send_raw(struct.pack(">i", len(body)) + body)
    frame = conn.recv_frame()
    assert frame is not None
    correlation, error, count = struct.unpack_from(">ihi", frame)
    assert (correlation, error) == (7, ErrorCode.UNSUPPORTED_VERSION)
    assert count > 5
    conn.close()


@pytest.mark.parametrize(
    "frame",
    [
        struct.pack(">i", 200 * 1024 * 1024),  # over socket.request.max.bytes
        struct.pack(">i", 8) + struct.pack(">hhi", 999, 0, 1),  # unknown API key
        struct.pack(">i", 8) + struct.pack(">hhi", ApiKey.METADATA, 77, 1),  # unsupported version
        struct.pack(">i", 3) + b"\x00\x03\x00",  # header cut short
    ],
    ids=["oversized", "unknown-api", "unsupported-version", "short-header"],
)
def test_protocol_violation_closes_only_that_connection(broker: BrokerProcess, frame: bytes) -> None:
    victim = RawConnection(broker.bootstrap)
    bystander = RawConnection(broker.bootstrap)
    victim.send_raw(frame)
    assert victim.recv_frame() is None
    response = bystander.request(
        ApiKey.API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1")
    )
    assert response.error_code == ErrorCode.NONE
    victim.close()
    bystander.close()


def _valid_frames(topic: str) -> list[bytes]:
    from odradek.wire.api import RequestHeader, encode_request_header
    from odradek.wire.codec import encode_into
    from odradek.wire.primitives import Writer

    samples = [
        (
            ApiKey.API_VERSIONS,
            3,
            ApiVersionsRequest,
            ApiVersionsRequest(client_software_name="f", client_software_version="1"),
        ),
        (
            ApiKey.METADATA,
            12,
            MetadataRequest,
            MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)]),
        ),
        (ApiKey.METADATA, 1, MetadataRequest, MetadataRequest(topics=None)),
        (
            ApiKey.PRODUCE,
            9,
            ProduceRequest,
            ProduceRequest(
                acks=1,
                timeout_ms=1000,
                topic_data=[
                    ProduceRequest.TopicProduceData(
                        name=topic,
                        partition_data=[
                            ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=bytes(_batch()))
                        ],
                    )
                ],
            ),
        ),
    ]
    frames = []
    for key, version, schema, value in samples:
        writer = Writer()
        encode_request_header(writer, RequestHeader(key, version, 1, "fuzz"), schema.is_flexible(version))
        encode_into(schema, version, value, writer)
        frames.append(bytes(writer.buf))
    return frames


def _mutate(rng: random.Random, body: bytes) -> bytes:
    data = bytearray(body)
    choice = rng.randrange(5)
    if choice == 0 and data:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif choice == 1:
        data = data[: rng.randrange(len(data) + 1)]
    elif choice == 2:
        data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif choice == 3:
        data = bytearray(rng.randbytes(rng.randint(0, 64)))
    else:
        struct.pack_into(">h", data, 0, rng.choice([-1, 0, 1, 3, 18, 19, 1000, 32767]))
    return bytes(data)


def test_fuzzed_frames_do_not_hurt_the_broker(broker: BrokerProcess, topic_name: str) -> None:
    rng = random.Random(20261122)
    seeds = _valid_frames(topic_name)
    sentinel = _valid_frames(topic_name)[0]
    sent = 0
    while sent < 10_000:
        conn = socket.create_connection(("127.0.0.1", broker.port), timeout=10)
        group = [_mutate(rng, rng.choice(seeds)) for _ in range(50)]
        payload = b"".join(struct.pack(">i", len(body)) + body for body in [*group, sentinel])
        conn.sendall(payload)
        sent += len(group)
        # Read until the broker answers the sentinel or closes the connection; either is fine.
        conn.settimeout(10)
        try:
            while conn.recv(65536):
                pass
        except (TimeoutError, ConnectionResetError):
            pass
        conn.close()
    assert broker.process is not None and broker.process.poll() is None
    metadata = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=10)
    assert metadata.brokers


def test_a_record_set_that_ends_inside_its_batch_is_corrupt(broker: BrokerProcess, topic_name: str) -> None:
    conn = RawConnection(broker.bootstrap)
    _create(conn, topic_name, 1)
    assert _produce(conn, topic_name, {0: bytes(_batch())[:30]}) == {0: ErrorCode.CORRUPT_MESSAGE}
    conn.close()


def test_a_bad_crc_on_a_compacted_topic_is_corrupt_not_a_server_error(broker: BrokerProcess, topic_name: str) -> None:
    conn = RawConnection(broker.bootstrap)
    request = CreateTopicsRequest(
        topics=[
            CreateTopicsRequest.CreatableTopic(
                name=topic_name,
                num_partitions=1,
                replication_factor=1,
                configs=[
                    CreateTopicsRequest.CreatableTopic.CreatableTopicConfig(name="cleanup.policy", value="compact")
                ],
            )
        ],
        timeout_ms=5000,
    )
    assert conn.request(ApiKey.CREATE_TOPICS, 7, request).topics[0].error_code == ErrorCode.NONE
    bad = _batch()
    bad[-1] ^= 0xFF
    assert _produce(conn, topic_name, {0: bytes(bad)}) == {0: ErrorCode.CORRUPT_MESSAGE}
    conn.close()
