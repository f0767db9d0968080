"""Micro-benchmark of the schema codec: decode and encode of five typical messages.

Cases (the request path of a small produce, a fetch round and a metadata refresh):

- ProduceRequest v9: one topic, one partition, one record batch carrying a 1 KiB value;
- ProduceResponse v9: the answer to it;
- FetchRequest v12: one topic, 10 partitions;
- FetchResponse v12: one topic, 10 partitions, each a batch of five 40-byte records;
- MetadataResponse v12: 3 brokers, 20 topics of 3 partitions with 3 replicas each.

Each operation is timed with `timeit` (best of ``--repeat`` runs of a loop sized to take about
0.2 s) and reported in microseconds per call; best-of is the figure least disturbed by other work
on a shared machine.  ``--json`` prints the numbers as JSON instead of a table.

    .venv/bin/python benchmarks/codec_speed.py [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import timeit
from collections.abc import Callable
from functools import partial
from typing import Any

from odradek.wire.codec import decode, encode
from odradek.wire.messages.fetch import FetchRequest, FetchResponse
from odradek.wire.messages.metadata import MetadataResponse
from odradek.wire.messages.produce import ProduceRequest, ProduceResponse
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from odradek.wire.schema import Message

TOPIC_ID = bytes(range(16))


def _batch(values: list[bytes]) -> bytes:
    records = [Record(offset_delta=i, timestamp_delta=0, key=None, value=v) for i, v in enumerate(values)]
    return build_batch(records, base_timestamp=1_700_000_000_000)


def produce_request() -> Any:
    partition = ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=_batch([b"v" * 1024]))
    topic = ProduceRequest.TopicProduceData(name="bench-topic", partition_data=[partition])
    return ProduceRequest(transactional_id=None, acks=-1, timeout_ms=30_000, topic_data=[topic])


def produce_response() -> Any:
    partition = ProduceResponse.TopicProduceResponse.PartitionProduceResponse(
        index=0, error_code=0, base_offset=123_456
    )
    topic = ProduceResponse.TopicProduceResponse(name="bench-topic", partition_responses=[partition])
    return ProduceResponse(responses=[topic], throttle_time_ms=0)


def fetch_request() -> Any:
    partitions = [
        FetchRequest.FetchTopic.FetchPartition(
            partition=i, current_leader_epoch=3, fetch_offset=10_000 + i, partition_max_bytes=1_048_576
        )
        for i in range(10)
    ]
    topic = FetchRequest.FetchTopic(topic="bench-topic", partitions=partitions)
    return FetchRequest(
        replica_id=-1, max_wait_ms=500, min_bytes=1, max_bytes=52_428_800, session_id=7, session_epoch=3, topics=[topic]
    )


def fetch_response() -> Any:
    records = _batch([b"r" * 40 for _ in range(5)])
    partitions = [
        FetchResponse.FetchableTopicResponse.PartitionData(
            partition_index=i,
            error_code=0,
            high_watermark=20_000,
            last_stable_offset=20_000,
            log_start_offset=0,
            aborted_transactions=None,
            records=records,
        )
        for i in range(10)
    ]
    topic = FetchResponse.FetchableTopicResponse(topic="bench-topic", partitions=partitions)
    return FetchResponse(throttle_time_ms=0, error_code=0, session_id=7, responses=[topic])


def metadata_response() -> Any:
    brokers = [
        MetadataResponse.MetadataResponseBroker(node_id=n, host=f"broker-{n}.example", port=9092, rack=None)
        for n in (1, 2, 3)
    ]
    topics = [
        MetadataResponse.MetadataResponseTopic(
            error_code=0,
            name=f"topic-{t:03d}",
            topic_id=bytes([t]) * 16,
            is_internal=False,
            partitions=[
                MetadataResponse.MetadataResponseTopic.MetadataResponsePartition(
                    error_code=0,
                    partition_index=p,
                    leader_id=1 + p % 3,
                    leader_epoch=5,
                    replica_nodes=[1, 2, 3],
                    isr_nodes=[1, 2, 3],
                    offline_replicas=[],
                )
                for p in range(3)
            ],
        )
        for t in range(20)
    ]
    return MetadataResponse(
        throttle_time_ms=0, brokers=brokers, cluster_id="bench-cluster", controller_id=1, topics=topics
    )


CASES: list[tuple[str, Message, int, Callable[[], Any]]] = [
    ("ProduceRequest v9", ProduceRequest, 9, produce_request),
    ("ProduceResponse v9", ProduceResponse, 9, produce_response),
    ("FetchRequest v12", FetchRequest, 12, fetch_request),
    ("FetchResponse v12", FetchResponse, 12, fetch_response),
    ("MetadataResponse v12", MetadataResponse, 12, metadata_response),
]


def _best_us(fn: Callable[[], object], repeat: int) -> float:
    timer = timeit.Timer(fn)
    number, elapsed = timer.autorange()
    number = max(1, int(number * 0.2 / max(elapsed, 1e-9)))
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def measure(repeat: int) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    for label, message, version, build in CASES:
        value = build()
        data = encode(message, version, value)
        if decode(message, version, data) != value:
            raise AssertionError(f"{label}: the round trip changed the value")
        results[label] = {
            "bytes": float(len(data)),
            "decode_us": _best_us(partial(decode, message, version, data), repeat),
            "encode_us": _best_us(partial(encode, message, version, value), repeat),
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timeit runs per operation; the best is reported")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    results = measure(args.repeat)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'message':<22} {'bytes':>7} {'decode µs':>10} {'encode µs':>10}")
    for label, row in results.items():
        print(f"{label:<22} {int(row['bytes']):>7} {row['decode_us']:>10.2f} {row['encode_us']:>10.2f}")


if __name__ == "__main__":
    main()
