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
