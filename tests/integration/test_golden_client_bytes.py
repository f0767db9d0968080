"""Bytes captured from real clients decode to the fields they meant, and re-encode identically.

A recording proxy sits between a real client and the broker and keeps every request frame the
client sends.  Each frame must decode with odradek's schemas (header and body), re-encode to
the very same bytes, and carry what the client was asked to send.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Producer

from odradek.wire.api import ApiKey, decode_request_header, encode_request_header
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.primitives import Reader, Writer
from odradek.wire.records.builder import decode_batch
from tests.integration.conftest import BrokerProcess
from tests.integration.recording_proxy import RecordingProxy


@pytest.fixture
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RecordingProxy]:
    """A broker that advertises the proxy, so every connection of the client goes through it."""
    recorder = RecordingProxy()
    broker = BrokerProcess(
        tmp_path_factory.mktemp("golden"), overrides=[f"advertised.listeners=PLAINTEXT://127.0.0.1:{recorder.port}"]
    )
    broker.start()
    recorder.upstream_port = broker.port
    yield recorder
    recorder.close()
    broker.stop()


def _decode_and_reencode(frame: bytes) -> tuple[int, int, Any, Any]:
    """(api key, version, header, body); asserts the frame re-encodes byte for byte."""
    request_schema_of = {key: pair[0] for key, pair in ALL_MESSAGES.items()}

    def flexible(key: int, version: int) -> bool:
        return key in request_schema_of and request_schema_of[key].is_flexible(version)

    reader = Reader(frame)
    header = decode_request_header(reader, flexible)
    schema = request_schema_of[header.api_key]
    body = decode_from(schema, header.api_version, reader)
    assert reader.remaining() == 0
    writer = Writer()
    encode_request_header(writer, header, flexible(header.api_key, header.api_version))
    encode_into(schema, header.api_version, body, writer)
    assert bytes(writer.buf) == frame, f"{schema.name} v{header.api_version} does not re-encode identically"
    return header.api_key, header.api_version, header, body


def test_confluent_kafka_bytes(proxy: RecordingProxy, topic_name: str) -> None:
    producer = Producer(
        {"bootstrap.servers": f"127.0.0.1:{proxy.port}", "compression.type": "lz4", "linger.ms": 1, "acks": "all"}
    )
    # Repetitive enough that librdkafka keeps the compressed form (it sends small batches raw).
    value = b"golden-value" * 100
    producer.produce(topic_name, key=b"golden-key", value=value, headers=[("h", b"v")], partition=0)
    assert producer.flush(30) == 0
    decoded = [_decode_and_reencode(frame) for frame in proxy.frames]
    keys = {key for key, *_ in decoded}
    assert {ApiKey.API_VERSIONS, ApiKey.METADATA, ApiKey.PRODUCE} <= keys
    api_versions = next(body for key, _, _, body in decoded if key == ApiKey.API_VERSIONS)
    assert api_versions.client_software_name == "confluent-kafka-python"
    produce = [body for key, _, _, body in decoded if key == ApiKey.PRODUCE]
    records = produce[-1].topic_data[0].partition_data[0].records
    header, batch = decode_batch(bytes(records))
    assert header.compression == 3
    assert [(r.key, r.value, r.headers) for r in batch] == [(b"golden-key", value, (("h", b"v"),))]


def test_kafka_python_bytes(proxy: RecordingProxy, topic_name: str) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=f"127.0.0.1:{proxy.port}", compression_type="gzip", acks=1)
    value = b"compressible " * 100
    producer.send(topic_name, key=b"k", value=value, partition=0).get(timeout=30)
    producer.close()
    decoded = [_decode_and_reencode(frame) for frame in proxy.frames]
    produce = [body for key, _, _, body in decoded if key == ApiKey.PRODUCE]
    assert produce, "kafka-python sent no Produce request"
    topic_data = produce[-1].topic_data[0]
    assert topic_data.name == topic_name
    header, batch = decode_batch(bytes(topic_data.partition_data[0].records))
    assert header.compression == 1
    assert [(r.key, r.value) for r in batch] == [(b"k", value)]
