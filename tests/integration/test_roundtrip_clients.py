"""Real clients produce and read back keyed records through every codec, byte-exact.

Per client and codec: 10,000 records (half acks=1, half acks=all) with headers, null keys and
null values, then an assign()-mode consumer reads them back from offset 0 and every record
must come back at the offset the producer was told, with the same key, value and headers.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.integration.conftest import BrokerProcess

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
COUNT = 10_000


def make_record(i: int) -> tuple[bytes | None, bytes | None, list[tuple[str, bytes]]]:
    key = None if i % 7 == 0 else f"key-{i % 50}".encode()
    # kafka-python refuses a record with neither key nor value, so a null value has a key.
    value = None if i % 11 == 0 and key is not None else (f"value-{i}-".encode() * (1 + i % 5))
    headers = [("h", str(i).encode()), ("empty", b"")] if i % 3 == 0 else []
    return key, value, headers


def _confluent_produce(bootstrap: str, topic: str, codec: str) -> dict[int, int]:
    from confluent_kafka import Producer

    offsets: dict[int, int] = {}
    for acks, start, stop in (("1", 0, COUNT // 2), ("all", COUNT // 2, COUNT)):
        producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "acks": acks,
                "compression.type": codec,
                "linger.ms": 5,
                "partitioner": "murmur2_random",
            }
        )

        def delivered(err: Any, msg: Any, i: int) -> None:
            assert err is None, err
            offsets[i] = msg.offset()

        for i in range(start, stop):
            key, value, headers = make_record(i)
            producer.produce(
                topic,
                value=value,
                key=key,
                headers=headers,
                partition=0,
                on_delivery=lambda e, m, i=i: delivered(e, m, i),
            )
            if i % 1000 == 0:
                producer.poll(0)
        assert producer.flush(30) == 0
    return offsets


def _confluent_consume(bootstrap: str, topic: str) -> list[Any]:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    records: list[Any] = []
    idle = 0
    while len(records) < COUNT and idle < 50:
        batch = consumer.consume(num_messages=2000, timeout=0.5)
        idle = 0 if batch else idle + 1
        for msg in batch:
            assert msg.error() is None, msg.error()
            records.append((msg.offset(), msg.key(), msg.value(), list(msg.headers() or [])))
    consumer.close()
    return records


def _kafka_python_produce(bootstrap: str, topic: str, codec: str) -> dict[int, int]:
    from kafka import KafkaProducer

    offsets: dict[int, int] = {}
    for acks, start, stop in ((1, 0, COUNT // 2), ("all", COUNT // 2, COUNT)):
        producer = KafkaProducer(
            bootstrap_servers=bootstrap,
            acks=acks,
            compression_type=None if codec == "none" else codec,
            linger_ms=5,
        )
        futures = []
        for i in range(start, stop):
            key, value, headers = make_record(i)
            futures.append((i, producer.send(topic, value=value, key=key, headers=headers, partition=0)))
        producer.flush(30)
        for i, future in futures:
            offsets[i] = future.get(timeout=30).offset
        producer.close()
    return offsets


def _kafka_python_consume(bootstrap: str, topic: str) -> list[Any]:
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek(tp, 0)
    records: list[Any] = []
    idle = 0
    while len(records) < COUNT and idle < 20:
        polled = consumer.poll(timeout_ms=500, max_records=5000)
        idle = 0 if polled else idle + 1
        for msg in polled.get(tp, []):
            records.append((msg.offset, msg.key, msg.value, [(k, v) for k, v in msg.headers]))
    consumer.close()
    return records


async def _aiokafka_produce(bootstrap: str, topic: str, codec: str) -> dict[int, int]:
    from aiokafka import AIOKafkaProducer

    offsets: dict[int, int] = {}
    for acks, start, stop in ((1, 0, COUNT // 2), ("all", COUNT // 2, COUNT)):
        producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap,
            acks=acks,
            compression_type=None if codec == "none" else codec,
            linger_ms=5,
        )
        await producer.start()
        try:
            futures = []
            for i in range(start, stop):
                key, value, headers = make_record(i)
                futures.append((i, await producer.send(topic, value=value, key=key, headers=headers, partition=0)))
            for i, future in futures:
                offsets[i] = (await future).offset
        finally:
            await producer.stop()
    return offsets


async def _aiokafka_consume(bootstrap: str, topic: str) -> list[Any]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    tp = TopicPartition(topic, 0)
    try:
        consumer.assign([tp])
        consumer.seek(tp, 0)
        records: list[Any] = []
        idle = 0
        while len(records) < COUNT and idle < 20:
            polled = await consumer.getmany(tp, timeout_ms=500, max_records=5000)
            idle = 0 if polled else idle + 1
            for msg in polled.get(tp, []):
                records.append((msg.offset, msg.key, msg.value, [(k, v) for k, v in msg.headers]))
    finally:
        await consumer.stop()
    return records


def _run(client: str, bootstrap: str, topic: str, codec: str) -> tuple[dict[int, int], list[Any]]:
    if client == "confluent-kafka":
        return _confluent_produce(bootstrap, topic, codec), _confluent_consume(bootstrap, topic)
    if client == "kafka-python":
        return _kafka_python_produce(bootstrap, topic, codec), _kafka_python_consume(bootstrap, topic)
    return asyncio.run(_aiokafka_produce(bootstrap, topic, codec)), asyncio.run(_aiokafka_consume(bootstrap, topic))


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("client", ["confluent-kafka", "kafka-python", "aiokafka"])
def test_round_trip_is_byte_exact(broker: BrokerProcess, topic_name: str, client: str, codec: str) -> None:
    offsets, records = _run(client, broker.bootstrap, topic_name, codec)
    assert sorted(offsets.values()) == list(range(COUNT)), "offsets must be dense from 0"
    assert len(records) == COUNT
    by_offset = {offset: (key, value, headers) for offset, key, value, headers in records}
    assert [r[0] for r in records] == list(range(COUNT)), "records come back in offset order"
    for i, offset in offsets.items():
        key, value, headers = make_record(i)
        assert by_offset[offset] == (key, value, headers), f"record {i} at offset {offset}"
