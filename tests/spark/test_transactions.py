"""read_committed reads of transactional topics, through Spark's connector and the odradek source.

A transactional producer writes a committed, an aborted and a committed transaction, then leaves a
fourth open. Kafka's rules: every transaction ends with a marker that takes an offset and is never
returned; a read_committed reader sees no aborted record and stops at the last stable offset (the
first offset of the open transaction); a read_uncommitted reader sees the aborted and open records
too. So the offsets read show the gaps the markers and aborted records leave.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from pyspark.sql import SparkSession

from odradek.pipeline.datasource import register
from tests.spark.helpers import LOG, Kafka, unique_topic

#: offset -> value: 0-2 committed, 3 commit marker, 4-5 aborted, 6 abort marker, 7-8 committed,
#: 9 commit marker, 10 the open transaction's record.
COMMITTED = {0: b"c0", 1: b"c1", 2: b"c2", 7: b"c3", 8: b"c4"}
ABORTED = {4: b"a0", 5: b"a1"}
OPEN = {10: b"o0"}


def _transaction(producer: Producer, topic: str, values: list[bytes], end: str | None) -> None:
    producer.begin_transaction()
    for value in values:
        producer.produce(topic, value=value, partition=0)
    assert producer.flush(30) == 0
    if end == "commit":
        producer.commit_transaction(30)
    elif end == "abort":
        producer.abort_transaction(30)


@pytest.fixture
def transactional_topic(kafka: Kafka) -> Iterator[str]:
    topic = kafka.create_topic(unique_topic("txn"), partitions=1)
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "transactional.id": unique_topic("tx")}, logger=LOG)
    # Ten seconds: Kafka creates its transaction state topic on first use; a broker without
    # transactions never answers InitProducerId for a transactional id.
    producer.init_transactions(10)
    try:
        _transaction(producer, topic, [b"c0", b"c1", b"c2"], "commit")
        _transaction(producer, topic, [b"a0", b"a1"], "abort")
        _transaction(producer, topic, [b"c3", b"c4"], "commit")
        _transaction(producer, topic, [b"o0"], None)
        yield topic
    finally:
        producer.abort_transaction(30)


def test_read_committed_skips_aborted_records_and_stops_at_the_open_transaction(
    spark: SparkSession, kafka: Kafka, broker_kind: str, request: pytest.FixtureRequest
) -> None:
    if broker_kind == "odradek":
        request.applymarker(
            pytest.mark.xfail(
                strict=True, reason="odradek has no transactions yet (InitProducerId for a transactional id)"
            )
        )
    register(spark)
    topic = request.getfixturevalue("transactional_topic")
    # The end offset a reader sees: the high watermark, or the last stable offset under read_committed.
    for isolation, end in (("read_uncommitted", 11), ("read_committed", 10)):
        config = {"bootstrap.servers": kafka.bootstrap, "group.id": unique_topic("g"), "isolation.level": isolation}
        consumer = Consumer(config, logger=LOG)
        try:
            assert consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=30) == (0, end), isolation
        finally:
            consumer.close()
    for fmt in ("kafka", "odradek"):
        for isolation, expected in (
            ("read_committed", COMMITTED),
            ("read_uncommitted", {**COMMITTED, **ABORTED, **OPEN}),
        ):
            frame = (
                spark.read.format(fmt)
                .option("kafka.bootstrap.servers", kafka.bootstrap)
                .option("subscribe", topic)
                .option("kafka.isolation.level", isolation)
                .load()
            )
            got = {row.offset: bytes(row.value) for row in frame.collect()}
            assert got == dict(sorted(expected.items())), (fmt, isolation)
