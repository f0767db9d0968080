"""Consumer groups with real clients: rebalancing across members, commits surviving a restart."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from conftest import BrokerProcess

GROUP_OVERRIDES = ["group.initial.rebalance.delay.ms=0"]


@pytest.fixture(scope="module")
def group_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path_factory.mktemp("groups-data"), overrides=list(GROUP_OVERRIDES))
    proc.start()
    yield proc
    proc.stop()


def _create_topic(bootstrap: str, name: str, partitions: int) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(timeout=10)


def _produce(bootstrap: str, topic: str, count: int, partitions: int) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(count):
        producer.produce(topic, str(i).encode(), partition=i % partitions)
    assert producer.flush(10) == 0


def test_three_confluent_consumers_share_six_partitions(group_broker: BrokerProcess, topic_name: str) -> None:
    from confluent_kafka import Consumer

    _create_topic(group_broker.bootstrap, topic_name, 6)
    config = {
        "bootstrap.servers": group_broker.bootstrap,
        "group.id": f"g-{topic_name}",
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500,
        "auto.offset.reset": "earliest",
    }
    consumers = [Consumer(config) for _ in range(3)]
    try:
        for consumer in consumers:
            consumer.subscribe([topic_name])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for consumer in consumers:
                consumer.poll(0.1)
            owned = [sorted(tp.partition for tp in c.assignment()) for c in consumers]
            if all(len(parts) == 2 for parts in owned):
                break
        assert sorted(p for parts in owned for p in parts) == list(range(6)), owned
    finally:
        for consumer in consumers:
            consumer.close()


def test_kafka_python_commit_survives_broker_restart(tmp_path_factory: pytest.TempPathFactory, topic_name: str) -> None:
    from kafka import KafkaConsumer, TopicPartition

    proc = BrokerProcess(tmp_path_factory.mktemp("restart-data"), overrides=list(GROUP_OVERRIDES))
    proc.start()
    try:
        _create_topic(proc.bootstrap, topic_name, 2)
        _produce(proc.bootstrap, topic_name, 20, 2)
        group = f"g-{topic_name}"

        def consumer() -> KafkaConsumer:
            return KafkaConsumer(
                topic_name,
                bootstrap_servers=proc.bootstrap,
                group_id=group,
                auto_offset_reset="earliest",
                enable_auto_commit=False,
                session_timeout_ms=6000,
                heartbeat_interval_ms=500,
                consumer_timeout_ms=10_000,
            )

        first = consumer()
        seen = []
        for message in first:
            seen.append(message)
            if len(seen) == 6:
                break
        first.commit()
        committed = {p: first.committed(TopicPartition(topic_name, p)) for p in range(2)}
        first.close()
        assert sum(v or 0 for v in committed.values()) >= 6

        proc.restart()
        second = consumer()
        rest = []
        for message in second:
            rest.append(message)
            if len(seen) + len(rest) == 20:
                break
        after = {p: second.committed(TopicPartition(topic_name, p)) for p in range(2)}
        second.close()
        assert after == committed
        assert {(m.partition, m.offset) for m in rest}.isdisjoint({(m.partition, m.offset) for m in seen})
        assert len(seen) + len(rest) == 20
    finally:
        proc.stop()


def test_aiokafka_commit_and_fetch_committed(group_broker: BrokerProcess, topic_name: str) -> None:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    _create_topic(group_broker.bootstrap, topic_name, 1)
    _produce(group_broker.bootstrap, topic_name, 5, 1)

    async def run() -> int | None:
        consumer = AIOKafkaConsumer(
            topic_name,
            bootstrap_servers=group_broker.bootstrap,
            group_id=f"g-{topic_name}",
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            session_timeout_ms=6000,
            heartbeat_interval_ms=500,
        )
        await consumer.start()
        try:
            tp = TopicPartition(topic_name, 0)
            deadline = asyncio.get_running_loop().time() + 20
            while tp not in consumer.assignment():
                assert asyncio.get_running_loop().time() < deadline, "never assigned"
                await consumer.getmany(timeout_ms=200)
            await consumer.commit({tp: 3})
            return await consumer.committed(tp)
        finally:
            await consumer.stop()

    assert asyncio.run(asyncio.wait_for(run(), 30)) == 3
