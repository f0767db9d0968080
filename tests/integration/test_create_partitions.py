"""CreatePartitions through real admin clients: topics grow, producers and consumers see the new
partitions after a metadata refresh, refusals come as each client reports Kafka's errors, and a
restart (graceful or SIGKILL) keeps the new partitions."""

from __future__ import annotations

import signal

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic
from kafka.admin import KafkaAdminClient
from kafka.admin import NewPartitions as KpNewPartitions
from kafka.errors import InvalidPartitionsError, UnknownTopicOrPartitionError

from tests.integration.conftest import BrokerProcess


def _partition_count(admin: AdminClient, topic: str) -> int:
    return len(admin.list_topics(topic, timeout=10).topics[topic].partitions)


def test_admin_grows_a_topic_and_clients_use_the_new_partitions(broker: BrokerProcess, topic_name: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 1, 1)])[topic_name].result(10)

    admin.create_partitions([NewPartitions(topic_name, 3)], validate_only=True)[topic_name].result(10)
    assert _partition_count(admin, topic_name) == 1
    admin.create_partitions([NewPartitions(topic_name, 3)])[topic_name].result(10)
    assert _partition_count(admin, topic_name) == 3

    producer = Producer({"bootstrap.servers": broker.bootstrap, "topic.metadata.refresh.interval.ms": 200})
    delivered: list[tuple[int, int]] = []
    for partition in range(3):
        producer.produce(
            topic_name,
            value=b"v%d" % partition,
            partition=partition,
            on_delivery=lambda err, msg: delivered.append((msg.partition(), msg.offset())) if err is None else None,
        )
    assert producer.flush(20) == 0
    assert sorted(delivered) == [(0, 0), (1, 0), (2, 0)]

    settings = {"bootstrap.servers": broker.bootstrap, "group.id": topic_name, "auto.offset.reset": "earliest"}
    consumer = Consumer(settings)
    consumer.subscribe([topic_name])
    seen: set[int] = set()
    for _ in range(60):
        message = consumer.poll(0.5)
        if message is not None and message.error() is None:
            seen.add(message.partition())
        if len(seen) == 3:
            break
    consumer.close()
    assert seen == {0, 1, 2}


def test_refusals_reach_the_admin_clients(broker: BrokerProcess, topic_name: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 2, 1)])[topic_name].result(10)
    with pytest.raises(KafkaException) as shrink:
        admin.create_partitions([NewPartitions(topic_name, 1)])[topic_name].result(10)
    assert shrink.value.args[0].name() == "INVALID_PARTITIONS"
    assert "2 partition(s); 1 would not be an increase" in shrink.value.args[0].str()

    client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        with pytest.raises(InvalidPartitionsError):
            client.create_partitions({topic_name: KpNewPartitions(2)})
        with pytest.raises(UnknownTopicOrPartitionError):
            client.create_partitions({topic_name + "-missing": KpNewPartitions(2)})
        client.create_partitions({topic_name: KpNewPartitions(4, [[1], [1]])})
    finally:
        client.close()
    assert _partition_count(admin, topic_name) == 4


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["graceful", "killed"])
def test_new_partitions_survive_a_restart(
    tmp_path_factory: pytest.TempPathFactory, topic_name: str, stop_signal: int
) -> None:
    broker = BrokerProcess(tmp_path_factory.mktemp("grow"))
    broker.start()
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic(topic_name, 1, 1)])[topic_name].result(10)
        admin.create_partitions([NewPartitions(topic_name, 4)])[topic_name].result(10)
        producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all"})
        producer.produce(topic_name, value=b"kept", partition=3)
        assert producer.flush(20) == 0
        del producer
        broker.stop(stop_signal)
        broker.start()
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        assert _partition_count(admin, topic_name) == 4
        consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": topic_name})
        low, high = consumer.get_watermark_offsets(TopicPartition(topic_name, 3), timeout=10)
        consumer.close()
        assert (low, high) == (0, 1)
    finally:
        broker.stop()


def test_a_large_topics_metadata_follows_its_growth(broker: BrokerProcess, topic_name: str) -> None:
    """A topic of 64 partitions or more is answered from partitions the broker keeps between
    Metadata requests (`odradek.handlers.metadata`); growing it must show at once."""
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 64, 1)])[topic_name].result(10)
    assert _partition_count(admin, topic_name) == 64
    assert _partition_count(admin, topic_name) == 64
    admin.create_partitions([NewPartitions(topic_name, 70)])[topic_name].result(10)
    described = admin.list_topics(topic_name, timeout=10).topics[topic_name].partitions
    assert sorted(described) == list(range(70))
    assert {partition.leader for partition in described.values()} == {1}
