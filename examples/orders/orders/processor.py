"""Prices each order read from the ``orders`` topic and publishes the result.

An order is a JSON object ``{"id": str, "items": [{"sku": str, "qty": int, "price": float}]}``.
The result, keyed by the order id, is ``{"id", "status": "accepted", "total"}``, or
``{"id", "status": "rejected", "reason"}`` for an order with no items or a quantity below one,
or a value that is not such an object.

At least once: the processor commits a partition's offset only after the results of the orders
before it are acknowledged by the broker, so a processor that dies is replaced by one that
starts after the last order whose result was written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import confluent_kafka


def price(raw: bytes) -> dict[str, Any]:
    """The result of one order value."""
    try:
        order = json.loads(raw)
        order_id = str(order["id"])
        items = order["items"]
    except (ValueError, KeyError, TypeError):
        return {"id": None, "status": "rejected", "reason": "not an order"}
    if not items:
        return {"id": order_id, "status": "rejected", "reason": "no items"}
    if any(int(item["qty"]) < 1 for item in items):
        return {"id": order_id, "status": "rejected", "reason": "quantity below one"}
    total = round(sum(int(item["qty"]) * float(item["price"]) for item in items), 2)
    return {"id": order_id, "status": "accepted", "total": total}


@dataclass
class OrderProcessor:
    bootstrap_servers: str
    group_id: str = "order-processor"
    orders_topic: str = "orders"
    results_topic: str = "order-results"
    client_id: str = "order-processor"
    processed: int = 0
    _consumer: confluent_kafka.Consumer = field(init=False)
    _producer: confluent_kafka.Producer = field(init=False)

    def __post_init__(self) -> None:
        self._consumer = confluent_kafka.Consumer(
            {
                "bootstrap.servers": self.bootstrap_servers,
                "group.id": self.group_id,
                "client.id": self.client_id,
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
            }
        )
        self._producer = confluent_kafka.Producer(
            {
                "bootstrap.servers": self.bootstrap_servers,
                "client.id": self.client_id,
                "enable.idempotence": True,
                "linger.ms": 5,
            }
        )
        self._consumer.subscribe([self.orders_topic])

    def run(self, max_orders: int, timeout_s: float = 30.0) -> int:
        """Process orders until ``max_orders`` were handled or none came for ``timeout_s``;
        commit after their results are written; how many were handled."""
        handled = 0
        idle_polls = 0
        while handled < max_orders and idle_polls * 0.1 < timeout_s:
            message = self._consumer.poll(0.1)
            if message is None:
                idle_polls += 1
                continue
            if message.error() is not None:
                continue
            idle_polls = 0
            result = price(message.value())
            key = (result["id"] or "").encode()
            self._producer.produce(self.results_topic, json.dumps(result).encode(), key=key)
            handled += 1
        if self._producer.flush(30) != 0:
            raise RuntimeError("results were not acknowledged; nothing is committed")
        if handled:
            self._consumer.commit(asynchronous=False)
        self.processed += handled
        return handled

    def close(self) -> None:
        self._producer.flush(30)
        self._consumer.close()
