"""Test data for the Spark tests, produced and inspected with confluent-kafka (never through Spark)."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

Header = tuple[str, bytes | None]

#: librdkafka's connection chatter goes through logging (captured by pytest), not straight to stderr.
LOG = logging.getLogger("tests.spark.kafka")


@dataclass(frozen=True)
class Record:
    """One record as Spark's Kafka source reports it (timestamps in ms since the epoch)."""

    partition: int
    key: bytes | None
    value: bytes | None
    timestamp_ms: int | None = None
    headers: tuple[Header, ...] = field(default_factory=tuple)


def unique_topic(prefix: str = "spark") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


class Kafka:
    """An admin client, a producer and a reader for one broker."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.admin = AdminClient({"bootstrap.servers": bootstrap}, logger=LOG)
        self.producer = Producer(
            {"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5}, logger=LOG
        )

    def create_topic(self, name: str, partitions: int = 2) -> str:
        futures = self.admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)])
        futures[name].result(timeout=30)
        return name

    def recreate_topic(self, name: str, partitions: int) -> None:
        """Delete the topic and create it again, empty (Kafka deletes in the background: creating is
        retried while the old topic is still being deleted, for up to 60 s)."""
        self.producer.flush(30)
        self.admin.delete_topics([name])[name].result(timeout=30)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.create_topic(name, partitions)
                break
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        # The idempotent producer's sequence numbers belong to the old partitions: start a new producer.
        self.producer = Producer(
            {"bootstrap.servers": self.bootstrap, "enable.idempotence": True, "linger.ms": 5}, logger=LOG
        )

    def produce(self, topic: str, records: Sequence[Record]) -> None:
        for record in records:
            self.producer.produce(
                topic,
                key=record.key,
                value=record.value,
                partition=record.partition,
                timestamp=record.timestamp_ms or 0,
                headers=list(record.headers) or None,
            )
        assert self.producer.flush(30) == 0

    def produce_values(self, topic: str, partitions: int, count: int, start: int = 0) -> list[bytes]:
        """``count`` records with values ``v<i>`` and keys ``k<i>``, spread round-robin; the values."""
        values = [f"v{i}".encode() for i in range(start, start + count)]
        self.produce(topic, [Record(i % partitions, f"k{i}".encode(), v) for i, v in enumerate(values, start)])
        return values

    def delete_records_before(self, topic: str, partition: int, offset: int) -> None:
        tp = TopicPartition(topic, partition, offset)
        assert self.admin.delete_records([tp])[tp].result(timeout=30).low_watermark == offset

    def read_all(self, topic: str, partitions: int) -> list[tuple[int, int, bytes | None, bytes | None]]:
        """Every record of the topic as (partition, offset, key, value), read up to the high watermark."""
        config = {"bootstrap.servers": self.bootstrap, "group.id": unique_topic("g"), "enable.auto.commit": False}
        consumer = Consumer(config, logger=LOG)
        try:
            ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30) for p in range(partitions)}
            wanted = sum(high - low for low, high in ends.values())
            consumer.assign([TopicPartition(topic, p, low) for p, (low, _) in ends.items()])
            out: list[tuple[int, int, bytes | None, bytes | None]] = []
            while len(out) < wanted:
                message = consumer.poll(30)
                assert message is not None, f"read {len(out)} of {wanted} records of {topic}"
                assert message.error() is None, message.error()
                out.append((message.partition(), message.offset(), message.key(), message.value()))
            return sorted(out)
        finally:
            consumer.close()

    def close(self) -> None:
        self.producer.flush(30)
