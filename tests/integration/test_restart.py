"""A broker restart in the middle of a workload loses nothing that was acknowledged."""

from __future__ import annotations

import signal

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.conftest import BrokerProcess


def _produce(bootstrap: str, topic: str, start: int, stop: int) -> dict[int, tuple[int, int]]:
    """Produce values start..stop-1 over 3 partitions; returns value -> (partition, offset)."""
    acked: dict[int, tuple[int, int]] = {}
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 2, "enable.idempotence": True})

    def delivered(err: object, msg: object, i: int) -> None:
        assert err is None, err
        acked[i] = (msg.partition(), msg.offset())  # type: ignore[attr-defined]

    for i in range(start, stop):
        producer.produce(
            topic, key=str(i).encode(), value=str(i).encode(), on_delivery=lambda e, m, i=i: delivered(e, m, i)
        )
        if i % 500 == 0:
            producer.poll(0)
    assert producer.flush(30) == 0
    return acked


def _read_all(bootstrap: str, topic: str, partitions: int, expected: int) -> dict[tuple[int, int], bytes]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "restart-check", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    seen: dict[tuple[int, int], bytes] = {}
    idle = 0
    while len(seen) < expected and idle < 20:
        batch = consumer.consume(num_messages=5000, timeout=0.5)
        idle = 0 if batch else idle + 1
        for msg in batch:
            assert msg.error() is None, msg.error()
            key = (msg.partition(), msg.offset())
            assert key not in seen, f"offset {key} delivered twice"
            seen[key] = msg.value()
    consumer.close()
    return seen


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["graceful", "killed"])
def test_restart_keeps_every_acknowledged_record(
    tmp_path_factory: pytest.TempPathFactory, topic_name: str, stop_signal: int
) -> None:
    broker = BrokerProcess(tmp_path_factory.mktemp("restart"))
    broker.start()
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic(topic_name, 3, 1)])[topic_name].result(10)
        acked = _produce(broker.bootstrap, topic_name, 0, 3000)
        broker.stop(stop_signal)
        broker.start()
        acked.update(_produce(broker.bootstrap, topic_name, 3000, 6000))
        seen = _read_all(broker.bootstrap, topic_name, 3, len(acked))
        assert len(seen) == len(acked) == 6000
        for value, position in acked.items():
            assert seen[position] == str(value).encode()
        if stop_signal == signal.SIGTERM:
            assert "recovery truncated" not in broker.log_text()
    finally:
        broker.stop()
