"""Tests of the test double: the embedded broker, its pytest plugin, virtual time, faults,
release emulation, the journal and the control endpoint, with real clients over real sockets.

The plugin's fixtures (``kafka_broker``, ``kafka_clean``, ``kafka_topic``) come from the
``pytest11`` entry point odradek installs, exactly as an application's test suite gets them.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import confluent_kafka
import pytest


@pytest.fixture
def group_id() -> str:
    return f"g-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def producer_factory() -> Iterator[Callable[..., confluent_kafka.Producer]]:
    made: list[confluent_kafka.Producer] = []

    def make(bootstrap: str, **config: Any) -> confluent_kafka.Producer:
        producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, **config})
        made.append(producer)
        return producer

    yield make
    for producer in made:
        producer.flush(10)


@pytest.fixture
def consumer_factory() -> Iterator[Callable[..., confluent_kafka.Consumer]]:
    made: list[confluent_kafka.Consumer] = []

    def make(bootstrap: str, **config: Any) -> confluent_kafka.Consumer:
        settings = {"bootstrap.servers": bootstrap, "auto.offset.reset": "earliest", **config}
        consumer = confluent_kafka.Consumer(settings)
        made.append(consumer)
        return consumer

    yield make
    for consumer in made:
        with contextlib.suppress(RuntimeError):  # closed by the test already, before its broker stopped
            consumer.close()
