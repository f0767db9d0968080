"""The request journal: what a real client sent, decoded, queryable, dumpable, bounded."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import confluent_kafka

from tests.testdouble.clients import consume


def test_the_journal_is_off_until_started(
    kafka_clean: Any, kafka_topic: Callable[..., str], producer_factory: Callable[..., confluent_kafka.Producer]
) -> None:
    topic = kafka_topic()
    producer = producer_factory(kafka_clean.bootstrap_servers)
    producer.produce(topic, b"unrecorded")
    assert producer.flush(10) == 0
    assert kafka_clean.journal.entries() == []


def test_the_journal_records_what_a_consumer_committed(
    kafka_clean: Any,
    kafka_topic: Callable[..., str],
    group_id: str,
    producer_factory: Callable[..., confluent_kafka.Producer],
    consumer_factory: Callable[..., confluent_kafka.Consumer],
) -> None:
    topic = kafka_topic(partitions=2)
    kafka_clean.journal.start()
    producer = producer_factory(kafka_clean.bootstrap_servers)
    producer.produce(topic, b"x", partition=1)
    assert producer.flush(10) == 0
    consumer = consumer_factory(
        kafka_clean.bootstrap_servers, **{"group.id": group_id, "client.id": "billing", "enable.auto.commit": False}
    )
    consumer.subscribe([topic])
    assert consume(consumer, 1) == [b"x"]
    consumer.commit(offsets=[confluent_kafka.TopicPartition(topic, 1, 1)], asynchronous=False)
    (commit,) = kafka_clean.journal.requests(api="OffsetCommit", group=group_id)
    assert commit.client_id == "billing" and commit.partitions == [(topic, 1)] and commit.errors == []
    committed = commit.request["topics"][0]["partitions"][0]
    assert committed["partition_index"] == 1 and committed["committed_offset"] == 1
    assert commit.outcome == "answered" and commit.duration_ms >= 0
    produce = kafka_clean.journal.requests(api="Produce", topic=topic, partition=1)[0]
    assert produce.request["topic_data"][0]["partition_data"][0]["records"]["record_bytes"] > 0
    assert kafka_clean.journal.requests(api="Produce", topic=topic, partition=0) == []
    out = io.StringIO()
    written = kafka_clean.journal.dump(out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert written == len(lines) == len(kafka_clean.journal.entries())
    assert any(line["api"] == "OffsetCommit" and line["group"] == group_id for line in lines)
    consumer.close()


def test_the_journal_keeps_only_the_newest_entries(
    kafka_clean: Any, kafka_topic: Callable[..., str], producer_factory: Callable[..., confluent_kafka.Producer]
) -> None:
    topic = kafka_topic()
    kafka_clean.journal.start(capacity=3)
    producer = producer_factory(kafka_clean.bootstrap_servers)
    for i in range(8):
        producer.produce(topic, b"%d" % i)
        assert producer.flush(10) == 0
    entries = kafka_clean.journal.entries()
    assert len(entries) == 3 and entries[-1].api == "Produce"
