"""The order processor against a Kafka broker: odradek by default, Apache Kafka with
``--kafka-bootstrap``.  Tests that need the test double (faults, journal, clock) skip there."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import confluent_kafka
import pytest
from orders.processor import OrderProcessor, price


@pytest.fixture
def topics(kafka_clean: Any, kafka_topic: Callable[..., str]) -> tuple[str, str]:
    return kafka_topic(), kafka_topic(partitions=1)


@pytest.fixture
def group() -> str:
    return f"orders-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def processors(kafka_clean: Any, topics: tuple[str, str], group: str) -> Iterator[Callable[[], OrderProcessor]]:
    made: list[OrderProcessor] = []

    def make() -> OrderProcessor:
        processor = OrderProcessor(kafka_clean.bootstrap_servers, group, topics[0], topics[1])
        made.append(processor)
        return processor

    yield make
    for processor in made:
        processor.close()


def _send(bootstrap: str, topic: str, orders: list[Any]) -> None:
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    for order in orders:
        payload = order if isinstance(order, bytes) else json.dumps(order).encode()
        producer.produce(topic, payload, key=str(order.get("id") if isinstance(order, dict) else "").encode())
    assert producer.flush(15) == 0


def _results(bootstrap: str, topic: str, count: int) -> list[dict[str, Any]]:
    consumer = confluent_kafka.Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"reader-{uuid.uuid4().hex[:8]}", "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([topic])
    found: list[dict[str, Any]] = []
    try:
        for _ in range(300):
            message = consumer.poll(0.1)
            if message is not None and message.error() is None:
                found.append(json.loads(message.value()))
                if len(found) == count:
                    break
    finally:
        consumer.close()
    return found


def _order(order_id: str, qty: int = 1, price_each: float = 2.5) -> dict[str, Any]:
    return {"id": order_id, "items": [{"sku": "tea", "qty": qty, "price": price_each}]}


def test_pricing_rules() -> None:
    assert price(json.dumps(_order("a", 3, 1.1)).encode()) == {"id": "a", "status": "accepted", "total": 3.3}
    assert price(json.dumps({"id": "b", "items": []}).encode())["reason"] == "no items"
    assert price(b"not json")["status"] == "rejected"


def test_orders_are_priced_and_their_offsets_committed(
    kafka_clean: Any, topics: tuple[str, str], group: str, processors: Callable[[], OrderProcessor]
) -> None:
    orders_topic, results_topic = topics
    _send(kafka_clean.bootstrap_servers, orders_topic, [_order("o1", 2), _order("o2", 0), _order("o3", 4, 1.0)])
    processor = processors()
    assert processor.run(max_orders=3) == 3
    results = {r["id"]: r for r in _results(kafka_clean.bootstrap_servers, results_topic, 3)}
    assert results["o1"] == {"id": "o1", "status": "accepted", "total": 5.0}
    assert results["o2"]["status"] == "rejected"
    assert results["o3"]["total"] == 4.0


def test_a_replacement_processor_starts_after_the_committed_orders(
    kafka_clean: Any, topics: tuple[str, str], processors: Callable[[], OrderProcessor]
) -> None:
    orders_topic, results_topic = topics
    _send(kafka_clean.bootstrap_servers, orders_topic, [_order("first")])
    first = processors()
    assert first.run(max_orders=1) == 1
    first.close()
    _send(kafka_clean.bootstrap_servers, orders_topic, [_order("second")])
    second = processors()
    assert second.run(max_orders=5, timeout_s=3) == 1
    ids = [r["id"] for r in _results(kafka_clean.bootstrap_servers, results_topic, 2)]
    assert sorted(ids) == ["first", "second"]


def test_the_processor_survives_a_leader_change_while_writing_results(
    kafka_clean: Any, topics: tuple[str, str], processors: Callable[[], OrderProcessor]
) -> None:
    orders_topic, results_topic = topics
    kafka_clean.faults.inject("Produce", error="NOT_LEADER_OR_FOLLOWER", topic=results_topic, count=2)
    _send(kafka_clean.bootstrap_servers, orders_topic, [_order("x")])
    assert processors().run(max_orders=1) == 1
    assert [r["id"] for r in _results(kafka_clean.bootstrap_servers, results_topic, 1)] == ["x"]


def test_the_processor_commits_as_the_group_it_is(
    kafka_clean: Any, topics: tuple[str, str], group: str, processors: Callable[[], OrderProcessor]
) -> None:
    orders_topic, _ = topics
    kafka_clean.journal.start()
    _send(kafka_clean.bootstrap_servers, orders_topic, [_order("j1"), _order("j2")])
    assert processors().run(max_orders=2) == 2
    commits = kafka_clean.journal.requests(api="OffsetCommit", group=group)
    assert commits and all(c.client_id == "order-processor" and not c.errors for c in commits)
    assert {t for c in commits for t, _ in c.partitions} == {orders_topic}
