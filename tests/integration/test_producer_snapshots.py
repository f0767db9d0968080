"""An idempotent producer keeps writing across a broker restart, graceful or killed: the broker
loads its producer state from the newest ``.snapshot`` file plus the log after it, so the
client's next sequence number is accepted and nothing is written twice."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.conftest import BrokerProcess

PER_ROUND = 400
PADDING = b" " * 4000  # 400 records fill more than one 1 MiB segment


def _send(producer: Producer, topic: str, start: int) -> None:
    failures: list[KafkaError] = []

    def delivered(err: KafkaError | None, _msg: Message) -> None:
        if err is not None:
            failures.append(err)

    for i in range(start, start + PER_ROUND):
        producer.produce(topic, value=str(i).encode() + PADDING, on_delivery=delivered)
        if i % 50 == 0:
            producer.flush(30)
    assert producer.flush(30) == 0
    assert failures == []


def _snapshots(directory: Path) -> list[Path]:
    """The snapshot files once the broker's sync worker wrote one (a roll queues its snapshot
    there, off the event loop); empty if none came within 30 s."""
    deadline = time.monotonic() + 30
    while not (found := sorted(directory.glob("*.snapshot"))) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def _values(bootstrap: str, topic: str, expected: int) -> list[int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "snapshots", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    values: list[int] = []
    idle = 0
    while len(values) < expected and idle < 20:
        batch = consumer.consume(num_messages=1000, timeout=0.5)
        idle = 0 if batch else idle + 1
        for msg in batch:
            assert msg.error() is None, msg.error()
            values.append(int(msg.value()))  # type: ignore[arg-type]
    consumer.close()
    return values


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["graceful", "killed"])
def test_an_idempotent_producer_continues_after_a_restart(
    tmp_path_factory: pytest.TempPathFactory, topic_name: str, stop_signal: int
) -> None:
    broker = BrokerProcess(tmp_path_factory.mktemp("snapshots"))
    broker.start()
    producer: Producer | None = None
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic(topic_name, 1, 1, config={"segment.bytes": "1048576"})])[topic_name].result(10)
        producer = Producer(
            {"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "linger.ms": 0, "retries": 1000}
        )
        _send(producer, topic_name, 0)
        directory = broker.data_dir / f"{topic_name}-0"
        assert _snapshots(directory), "a roll wrote a producer snapshot"
        broker.stop(stop_signal)
        broker.start()
        _send(producer, topic_name, PER_ROUND)
        assert _values(broker.bootstrap, topic_name, 2 * PER_ROUND) == list(range(2 * PER_ROUND))
    finally:
        if producer is not None:
            producer.flush(5)
        broker.stop()
