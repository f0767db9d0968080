"""Produce refuses what Kafka's log validator refuses, with the same error codes."""

from __future__ import annotations

import time

from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.conftest import BrokerProcess


def _deliver(bootstrap: str, topic: str, **kwargs: object) -> KafkaError | None:
    outcome: list[KafkaError | None] = []
    producer = Producer({"bootstrap.servers": bootstrap, "retries": 0, "acks": "all"})
    producer.produce(topic, value=b"v", on_delivery=lambda err, _msg: outcome.append(err), **kwargs)
    producer.flush(20)
    return outcome[0]


def test_far_future_timestamp_is_invalid_timestamp(broker: BrokerProcess, topic_name: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 1, 1)])[topic_name].result(10)
    two_hours_ahead = int(time.time() * 1000) + 2 * 3_600_000
    error = _deliver(broker.bootstrap, topic_name, key=b"k", timestamp=two_hours_ahead)
    assert error is not None and error.code() == KafkaError.INVALID_TIMESTAMP
    assert _deliver(broker.bootstrap, topic_name, key=b"k") is None


def test_keyless_record_on_compacted_topic_is_invalid_record(broker: BrokerProcess, topic_name: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 1, 1, config={"cleanup.policy": "compact"})])[topic_name].result(10)
    error = _deliver(broker.bootstrap, topic_name)
    assert error is not None and error.code() == KafkaError.INVALID_RECORD
    assert _deliver(broker.bootstrap, topic_name, key=b"k") is None


def test_topic_compression_type_recompresses_what_producers_send(broker: BrokerProcess, topic_name: str) -> None:
    from odradek.wire.api import ApiKey
    from odradek.wire.messages.fetch import FetchRequest
    from odradek.wire.records.builder import decode_batch
    from tests.integration.rawclient import RawConnection

    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 1, 1, config={"compression.type": "gzip"})])[topic_name].result(10)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "compression.type": "lz4", "linger.ms": 5})
    for i in range(50):
        producer.produce(topic_name, key=b"k%d" % i, value=b"value-%d" % i, partition=0)
    assert producer.flush(20) == 0
    conn = RawConnection(broker.bootstrap)
    response = conn.request(
        ApiKey.FETCH,
        11,
        FetchRequest(
            max_wait_ms=0,
            min_bytes=0,
            topics=[
                FetchRequest.FetchTopic(
                    topic=topic_name,
                    partitions=[
                        FetchRequest.FetchTopic.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)
                    ],
                )
            ],
        ),
    )
    conn.close()
    data = bytes(response.responses[0].partitions[0].records)
    header, records = decode_batch(data)
    assert header.compression == 1, "stored as gzip whatever the producer used"
    assert (records[0].key, records[0].value) == (b"k0", b"value-0")
