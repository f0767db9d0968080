"""The fixtures from async tests (pytest-asyncio) with aiokafka, as docs/testing.md shows them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from odradek import Broker


@pytest.mark.asyncio
async def test_aiokafka_round_trip_on_the_session_broker(kafka_clean: Any, kafka_topic: Callable[..., str]) -> None:
    topic = kafka_topic()
    producer = AIOKafkaProducer(bootstrap_servers=kafka_clean.bootstrap_servers)
    await producer.start()
    try:
        await producer.send_and_wait(topic, b"async")
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=kafka_clean.bootstrap_servers, auto_offset_reset="earliest")
    await consumer.start()
    try:
        message = await consumer.getone()
    finally:
        await consumer.stop()
    assert message.value == b"async"


@pytest.mark.asyncio
async def test_a_broker_of_its_own_with_async_with_and_virtual_time() -> None:
    async with Broker(storage="memory", manual_time=True) as broker:
        assert broker.clock.frozen
        before = broker.clock.time_ms()
        await broker.clock.aadvance(3600)
        assert broker.clock.time_ms() == before + 3_600_000
        await broker.acreate_topic("events", partitions=2)
        assert broker.topics() == ["events"]
