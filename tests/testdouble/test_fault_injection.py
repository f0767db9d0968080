"""Injected faults as real clients see them: errors where Kafka puts them, delays on the broker
clock, lost connections; the client's own recovery (refresh metadata, retry) does the rest."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import confluent_kafka
import pytest

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.list_offsets import ListOffsetsRequest
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.integration.rawclient import RawConnection
from tests.testdouble.clients import consume


def test_not_leader_makes_the_producer_refresh_metadata_and_retry(
    kafka_clean: Any, kafka_topic: Callable[..., str], producer_factory: Callable[..., confluent_kafka.Producer]
) -> None:
    topic = kafka_topic()
    kafka_clean.journal.start()
    fault = kafka_clean.faults.inject("Produce", error="NOT_LEADER_OR_FOLLOWER", count=2, topic=topic)
    producer = producer_factory(kafka_clean.bootstrap_servers)
    delivered: list[Any] = []
    producer.produce(topic, b"order-1", on_delivery=lambda err, msg: delivered.append(err))
    assert producer.flush(15) == 0
    assert delivered == [None]
    produces = kafka_clean.journal.requests(api="Produce", topic=topic)
    assert [e.errors for e in produces] == [["NOT_LEADER_OR_FOLLOWER"], ["NOT_LEADER_OR_FOLLOWER"], []]
    assert [e.fault for e in produces] == [fault.id, fault.id, None]
    first_retry = produces[1].received_ms
    refreshes = [m for m in kafka_clean.journal.requests(api="Metadata") if m.received_ms <= first_retry]
    assert refreshes, "the client asked for metadata again before retrying"
    assert kafka_clean.faults.list() == []


def test_a_partition_fault_refuses_only_that_partition_and_the_broker_writes_nothing_for_it(kafka_clean: Any) -> None:
    kafka_clean.create_topic("two", partitions=2)
    kafka_clean.faults.inject("Produce", error="NOT_LEADER_OR_FOLLOWER", topic="two", partition=1)
    conn = RawConnection(kafka_clean.bootstrap_servers)
    try:
        batch = build_batch([Record(0, 0, None, b"v")])
        Topic = ProduceRequest.TopicProduceData
        Partition = Topic.PartitionProduceData
        request = ProduceRequest(
            acks=1,
            timeout_ms=5000,
            topic_data=[
                Topic(name="two", partition_data=[Partition(index=0, records=batch), Partition(index=1, records=batch)])
            ],
        )
        answer = conn.request(ApiKey.PRODUCE, 9, request)
        by_index = {p.index: p for p in answer.responses[0].partition_responses}
        assert by_index[0].error_code == ErrorCode.NONE and by_index[0].base_offset == 0
        assert by_index[1].error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER and by_index[1].base_offset == -1
        ListTopic = ListOffsetsRequest.ListOffsetsTopic
        latest = ListOffsetsRequest(
            replica_id=-1,
            topics=[
                ListTopic(name="two", partitions=[ListTopic.ListOffsetsPartition(partition_index=1, timestamp=-1)])
            ],
        )
        ends = conn.request(ApiKey.LIST_OFFSETS, 5, latest)
        assert ends.topics[0].partitions[0].offset == 0  # nothing was written to partition 1
    finally:
        conn.close()


def test_a_fetch_fault_puts_the_error_on_the_partition_and_the_consumer_carries_on(
    kafka_clean: Any,
    kafka_topic: Callable[..., str],
    group_id: str,
    producer_factory: Callable[..., confluent_kafka.Producer],
    consumer_factory: Callable[..., confluent_kafka.Consumer],
) -> None:
    topic = kafka_topic()
    producer = producer_factory(kafka_clean.bootstrap_servers)
    producer.produce(topic, b"payload")
    assert producer.flush(10) == 0
    kafka_clean.journal.start()
    kafka_clean.faults.inject("Fetch", error="NOT_LEADER_OR_FOLLOWER", count=1, topic=topic)
    consumer = consumer_factory(kafka_clean.bootstrap_servers, **{"group.id": group_id})
    consumer.subscribe([topic])
    assert consume(consumer, 1) == [b"payload"]
    fetches = kafka_clean.journal.requests(api="Fetch", error="NOT_LEADER_OR_FOLLOWER")
    assert len(fetches) == 1
    partitions = fetches[0].response["responses"][0]["partitions"]
    assert partitions[0]["error_code"] == ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert partitions[0]["high_watermark"] == -1 and fetches[0].response["error_code"] == 0


def test_a_lost_connection_after_the_broker_acted_is_retried_and_deduplicated_by_idempotence(
    kafka_clean: Any,
    kafka_topic: Callable[..., str],
    group_id: str,
    producer_factory: Callable[..., confluent_kafka.Producer],
    consumer_factory: Callable[..., confluent_kafka.Consumer],
) -> None:
    topic = kafka_topic()
    kafka_clean.journal.start()
    kafka_clean.faults.inject("Produce", disconnect="after", topic=topic)
    producer = producer_factory(kafka_clean.bootstrap_servers, **{"enable.idempotence": True})
    producer.produce(topic, b"exactly-once")
    assert producer.flush(20) == 0
    outcomes = [e.outcome for e in kafka_clean.journal.requests(api="Produce", topic=topic)]
    assert outcomes[0] == "disconnected" and outcomes[-1] == "answered" and len(outcomes) >= 2
    consumer = consumer_factory(kafka_clean.bootstrap_servers, **{"group.id": group_id})
    consumer.subscribe([topic])
    assert consume(consumer, 1) == [b"exactly-once"]
    assert consume(consumer, 1, timeout_s=2) == []  # no duplicate behind it


def test_a_delay_waits_for_the_broker_clock(
    kafka_clean: Any, kafka_topic: Callable[..., str], producer_factory: Callable[..., confluent_kafka.Producer]
) -> None:
    topic = kafka_topic()
    kafka_clean.clock.freeze()
    kafka_clean.faults.inject("Produce", delay=30, topic=topic)
    producer = producer_factory(kafka_clean.bootstrap_servers, **{"request.timeout.ms": 120_000})
    delivered = threading.Event()
    producer.produce(topic, b"late", on_delivery=lambda err, msg: delivered.set())
    assert producer.flush(1) == 1  # parked on the frozen clock
    assert kafka_clean.faults.list() == []  # the fault took the request
    kafka_clean.clock.advance(30)
    assert producer.flush(15) == 0 and delivered.is_set()


def test_a_bad_fault_names_the_value_and_what_is_allowed(kafka_broker: Any) -> None:
    with pytest.raises(ValueError, match=r"unknown API 'Produse' in a fault; allowed: .*Produce"):
        kafka_broker.faults.inject("Produse", error="NOT_LEADER_OR_FOLLOWER")
    with pytest.raises(ValueError, match=r"unknown Kafka error 'NOT_A_LEADER'"):
        kafka_broker.faults.inject("Produce", error="NOT_A_LEADER")
    with pytest.raises(ValueError, match="needs an error, a delay_ms or disconnect"):
        kafka_broker.faults.inject("Produce")


def test_a_metadata_fault_for_every_topic_marks_the_targeted_topic_in_the_answer(kafka_clean: Any) -> None:
    kafka_clean.create_topic("visible")
    kafka_clean.create_topic("hidden")
    kafka_clean.faults.inject("Metadata", error="UNKNOWN_TOPIC_OR_PARTITION", topic="hidden")
    conn = RawConnection(kafka_clean.bootstrap_servers)
    try:
        answer = conn.request(ApiKey.METADATA, 12, MetadataRequest(topics=None, allow_auto_topic_creation=False))
    finally:
        conn.close()
    by_name = {t.name: t for t in answer.topics}
    assert by_name["hidden"].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and by_name["hidden"].partitions == []
    assert by_name["visible"].error_code == ErrorCode.NONE and len(by_name["visible"].partitions) == 1
    assert answer.brokers  # the rest of the answer is the broker's own
