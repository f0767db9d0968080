"""The load side of ``benchmarks/scale.py``: one process, pinned to the client core, that opens many
connections, asks for metadata and fetches over thousands of partitions, runs many consumer groups,
or produces and consumes across every partition, and reports latencies as JSON lines on stdout.

Raw requests use odradek's codec (checked byte for byte against kafka-clients by codec-diff), so
both brokers receive exactly the same bytes; the consumer groups are aiokafka consumers and the
traffic is librdkafka's.  Phases that the parent measures from outside (broker memory with the
connections or groups held) print ``{"ready": PHASE}`` and wait for one line on stdin.

    python -m bench.scale_load connections --bootstrap H:P --count 1000 --seconds 20 --rate 1000 --topic T
    python -m bench.scale_load latency --bootstrap H:P --topics-prefix scale- --topics 100 --partitions 100
    python -m bench.scale_load groups --bootstrap H:P --count 100 --topics-prefix scale- --topics 100 --seconds 20
    python -m bench.scale_load traffic --bootstrap H:P --topics-prefix scale- --topics 100 --partitions 100 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import struct
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from odradek.wire.api import RequestHeader, encode_request_header
from odradek.wire.codec import encode_into
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.primitives import Writer
from odradek.wire.schema import StructValue

_SIZE = struct.Struct(">i")
_STAMP = struct.Struct(">q")


def request_frame(api_key: int, version: int, correlation_id: int, value: StructValue) -> bytes:
    request = ALL_MESSAGES[api_key][0]
    writer = Writer()
    header = RequestHeader(api_key, version, correlation_id, "scale")
    encode_request_header(writer, header, request.is_flexible(version))
    encode_into(request, version, value, writer)
    body = writer.getvalue()
    return _SIZE.pack(len(body)) + body


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50, p99, p99.9 and max of ``samples`` (milliseconds), and their count."""
    if not samples:
        return {"count": 0}
    ordered = sorted(samples)

    def at(fraction: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))], 3)

    return {"count": len(ordered), "p50": at(0.5), "p99": at(0.99), "p999": at(0.999), "max": round(ordered[-1], 3)}


class RawClient:
    """One connection doing request/response in turn; ``call`` returns the answer's body."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.correlation = 0

    @classmethod
    async def open(cls, bootstrap: str) -> RawClient:
        host, port = bootstrap.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port), limit=64 << 20)
        return cls(reader, writer)

    async def call(self, api_key: int, version: int, value: StructValue) -> bytes:
        self.correlation += 1
        self.writer.write(request_frame(api_key, version, self.correlation, value))
        (size,) = _SIZE.unpack(await self.reader.readexactly(4))
        return await self.reader.readexactly(size)

    def close(self) -> None:
        self.writer.close()


def emit(document: dict[str, Any]) -> None:
    print(json.dumps(document), flush=True)


async def _wait_for_parent(phase: str) -> None:
    emit({"ready": phase})
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


def _api_versions() -> StructValue:
    request = ALL_MESSAGES[18][0]
    return request(client_software_name="scale", client_software_version="1")


def _metadata(topics: list[str] | None) -> StructValue:
    request = ALL_MESSAGES[3][0]
    entries = None if topics is None else [request.cls.MetadataRequestTopic(name=t) for t in topics]
    return request(topics=entries, allow_auto_topic_creation=False)


def _fetch(topics: list[str], partitions: int, offset: int, partition_bytes: int) -> StructValue:
    request = ALL_MESSAGES[1][0]
    fetch_topic = request.cls.FetchTopic
    return request(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=64 << 20,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[
            fetch_topic(
                topic=t,
                partitions=[
                    fetch_topic.FetchPartition(partition=p, fetch_offset=offset, partition_max_bytes=partition_bytes)
                    for p in range(partitions)
                ],
            )
            for t in topics
        ],
    )


async def _timed(samples: list[float], call: Callable[[], Awaitable[bytes]]) -> None:
    started = time.perf_counter()
    await call()
    samples.append((time.perf_counter() - started) * 1000)


async def connections(args: argparse.Namespace) -> None:
    """Open ``count`` connections (each says ApiVersions once) and hold them idle; then each asks
    for one topic's metadata in turn, ``rate`` requests a second over all of them."""
    clients: list[RawClient] = []
    started = time.perf_counter()
    for _ in range(args.count):
        client = await RawClient.open(args.bootstrap)
        await client.call(18, 3, _api_versions())
        clients.append(client)
    emit({"opened": len(clients), "seconds": round(time.perf_counter() - started, 3)})
    await _wait_for_parent("idle")
    samples: list[float] = []
    interval = len(clients) / args.rate
    deadline = time.perf_counter() + args.seconds
    request = _metadata([args.topic])

    async def active(client: RawClient) -> None:
        await asyncio.sleep(random.random() * interval)
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            await _timed(samples, lambda: client.call(3, 12, request))
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - began)))

    await asyncio.gather(*(active(client) for client in clients))
    emit({"active_metadata_ms": percentiles(samples), "rate": round(len(samples) / args.seconds, 1)})
    await _wait_for_parent("active-done")
    for client in clients:
        client.close()


async def latency(args: argparse.Namespace) -> None:
    """Sequential requests on one connection: full Metadata (every topic), Metadata of one topic,
    and a Fetch of every partition (from offset 0, ``partition_bytes`` each)."""
    topics = [f"{args.topics_prefix}{i}" for i in range(args.topics)]
    client = await RawClient.open(args.bootstrap)
    results: dict[str, Any] = {}
    for name, (api, version, value) in {
        "metadata_all_ms": (3, 12, _metadata(None)),
        "metadata_one_ms": (3, 12, _metadata(topics[:1])),
        "fetch_all_ms": (1, 12, _fetch(topics, args.partitions, 0, args.partition_bytes)),
    }.items():
        samples: list[float] = []
        answer = b""
        for _ in range(args.count):
            began = time.perf_counter()
            answer = await client.call(api, version, value)
            samples.append((time.perf_counter() - began) * 1000)
        results[name] = {**percentiles(samples), "answer_bytes": len(answer) + 4}
    client.close()
    emit(results)


async def groups(args: argparse.Namespace) -> None:
    """``count`` consumer groups of one aiokafka member each, on topics round robin: the time
    until every member holds its partitions, then commit latency while all of them heartbeat."""
    from aiokafka import AIOKafkaConsumer, TopicPartition
    from aiokafka.structs import OffsetAndMetadata

    consumers = []
    started = time.perf_counter()
    for index in range(args.count):
        topic = f"{args.topics_prefix}{index % args.topics}"
        consumer = AIOKafkaConsumer(
            topic,
            bootstrap_servers=args.bootstrap,
            group_id=f"scale-group-{index}",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=30_000,
            heartbeat_interval_ms=3_000,
        )
        await consumer.start()
        consumers.append((consumer, topic))
    join_samples: list[float] = []
    for consumer, _ in consumers:
        while not consumer.assignment():
            await asyncio.sleep(0.01)
        join_samples.append((time.perf_counter() - started) * 1000)
    emit({"groups": len(consumers), "all_joined_s": round(time.perf_counter() - started, 3)})
    await _wait_for_parent("joined")
    samples: list[float] = []
    deadline = time.perf_counter() + args.seconds

    async def commit_loop(consumer: AIOKafkaConsumer, topic: str) -> None:
        partition = TopicPartition(topic, 0)
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            await consumer.commit({partition: OffsetAndMetadata(0, "")})
            samples.append((time.perf_counter() - began) * 1000)
            await asyncio.sleep(1.0)

    await asyncio.gather(*(commit_loop(consumer, topic) for consumer, topic in consumers))
    emit({"commit_ms": percentiles(samples)})
    for consumer, _ in consumers:
        await consumer.stop()


def traffic(args: argparse.Namespace) -> None:
    """librdkafka: one producer spreading ``rate`` records a second over every partition, one
    consumer in a group subscribed to every topic; produce-to-consume latency percentiles of the
    records sent after the consumer received its first one (before that it is still joining and
    finding its positions)."""
    from confluent_kafka import Consumer, Producer

    topics = [f"{args.topics_prefix}{i}" for i in range(args.topics)]
    producer = Producer({"bootstrap.servers": args.bootstrap, "linger.ms": 5, "acks": "1", "enable.idempotence": False})
    consumer = Consumer(
        {
            "bootstrap.servers": args.bootstrap,
            "group.id": "scale-traffic",
            "auto.offset.reset": "latest",
            "enable.auto.commit": True,
        }
    )
    consumer.subscribe(topics)
    samples: list[float] = []
    produced = 0
    measuring_from: int | None = None  # perf_counter_ns of the first record received
    started = time.perf_counter()
    deadline = started + args.seconds

    def receive(timeout_s: float) -> None:
        nonlocal measuring_from
        for message in consumer.consume(1000, timeout_s):
            if message.error() is not None or not message.value():
                continue
            (sent,) = _STAMP.unpack_from(message.value() or b"")
            now = time.perf_counter_ns()
            if measuring_from is None:
                measuring_from = now
            elif sent >= measuring_from:
                samples.append((now - sent) / 1e6)

    while time.perf_counter() < deadline:
        due = started + produced / args.rate
        while time.perf_counter() >= due:
            stamp = _STAMP.pack(time.perf_counter_ns())
            producer.produce(random.choice(topics), stamp + b"x" * 92, partition=random.randrange(args.partitions))
            produced += 1
            due = started + produced / args.rate
        producer.poll(0)
        receive(0.001)
    producer.flush(30)
    drain = time.perf_counter() + 5
    while time.perf_counter() < drain:
        receive(0.05)
    consumer.close()
    warm_up = None if measuring_from is None else round(measuring_from / 1e9 - started, 2)
    emit({"produced": produced, "first_record_s": warm_up, "end_to_end_ms": percentiles(samples)})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("connections", "latency", "groups", "traffic"))
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--topic", default="scale-0")
    parser.add_argument("--topics-prefix", default="scale-")
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--partitions", type=int, default=10)
    parser.add_argument("--partition-bytes", type=int, default=1024)
    return parser


def main() -> int:
    args = _parser().parse_args()
    if args.mode == "traffic":
        traffic(args)
        return 0
    mode = {"connections": connections, "latency": latency, "groups": groups}[args.mode]
    asyncio.run(mode(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
