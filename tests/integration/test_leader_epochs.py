"""Leader epochs across restarts, as a single Kafka node has them: every start leads each
partition 2 epochs later, OffsetForLeaderEpoch answers from the persisted cache, and a consumer
that validates its position after the epoch change (KIP-320) carries on without a reset."""

from __future__ import annotations

import signal

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from odradek.wire.api import ApiKey
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.offsets import OffsetForLeaderEpochRequest
from tests.integration.conftest import BrokerProcess
from tests.integration.rawclient import RawConnection

_Topic = OffsetForLeaderEpochRequest.OffsetForLeaderTopic
_Partition = _Topic.OffsetForLeaderPartition


def _epochs(bootstrap: str, topic: str) -> list[int]:
    connection = RawConnection(bootstrap)
    try:
        answer = connection.request(
            ApiKey.METADATA, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)])
        )
    finally:
        connection.close()
    return [p.leader_epoch for p in answer.topics[0].partitions]


def _epoch_ends(bootstrap: str, topic: str, epochs: list[int]) -> list[tuple[int, int, int]]:
    connection = RawConnection(bootstrap)
    try:
        partitions = [_Partition(partition=0, leader_epoch=epoch) for epoch in epochs]
        answer = connection.request(
            ApiKey.OFFSET_FOR_LEADER_EPOCH,
            4,
            OffsetForLeaderEpochRequest(topics=[_Topic(topic=topic, partitions=partitions)]),
        )
    finally:
        connection.close()
    return [(p.error_code, p.leader_epoch, p.end_offset) for p in answer.topics[0].partitions]


def _produce(bootstrap: str, topic: str, values: range) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for value in values:
        producer.produce(topic, value=str(value).encode(), partition=0)
    assert producer.flush(20) == 0


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["graceful", "killed"])
def test_each_start_leads_two_epochs_later_and_the_cache_survives(
    tmp_path_factory: pytest.TempPathFactory, topic_name: str, stop_signal: int
) -> None:
    broker = BrokerProcess(tmp_path_factory.mktemp("epochs"))
    broker.start()
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic(topic_name, 2, 1)])[topic_name].result(10)
        assert _epochs(broker.bootstrap, topic_name) == [0, 0]
        _produce(broker.bootstrap, topic_name, range(3))
        broker.stop(stop_signal)
        broker.start()
        assert _epochs(broker.bootstrap, topic_name) == [2, 2]
        _produce(broker.bootstrap, topic_name, range(3, 5))
        broker.stop(stop_signal)
        broker.start()
        assert _epochs(broker.bootstrap, topic_name) == [4, 4]
        assert _epoch_ends(broker.bootstrap, topic_name, [0, 1, 2, 3, 4, 5]) == [
            (0, 0, 3),
            (0, 0, 3),
            (0, 2, 5),
            (0, 2, 5),
            (0, 4, 5),
            (0, -1, -1),
        ]
        checkpoint = broker.data_dir / f"{topic_name}-0" / "leader-epoch-checkpoint"
        assert checkpoint.read_text() == "0\n3\n0 0\n2 3\n4 5\n"
    finally:
        broker.stop()


def test_a_consumer_validates_its_position_after_a_restart_and_carries_on(
    tmp_path_factory: pytest.TempPathFactory, topic_name: str
) -> None:
    broker = BrokerProcess(tmp_path_factory.mktemp("epochs-consumer"))
    broker.start()
    consumer: Consumer | None = None
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic(topic_name, 1, 1)])[topic_name].result(10)
        _produce(broker.bootstrap, topic_name, range(3))
        consumer = Consumer(
            {"bootstrap.servers": broker.bootstrap, "group.id": topic_name, "enable.auto.commit": False}
        )
        consumer.assign([TopicPartition(topic_name, 0, 0)])
        seen = _consume(consumer, 3)
        broker.restart()
        _produce(broker.bootstrap, topic_name, range(3, 5))
        seen += _consume(consumer, 2)
        assert seen == [(0, b"0"), (1, b"1"), (2, b"2"), (3, b"3"), (4, b"4")]
    finally:
        if consumer is not None:
            consumer.close()
        broker.stop()


def _consume(consumer: Consumer, count: int) -> list[tuple[int, bytes]]:
    seen: list[tuple[int, bytes]] = []
    for _ in range(120):
        message = consumer.poll(0.5)
        if message is None:
            continue
        assert message.error() is None, message.error()
        seen.append((message.offset(), message.value()))
        if len(seen) == count:
            return seen
    raise AssertionError(f"consumed {seen}, expected {count} records")
