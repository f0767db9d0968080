"""A librdkafka load generator (confluent-kafka), run as its own process pinned to the client core.

Modes (``python rdkafka_load.py MODE --bootstrap HOST:PORT --topic T ...``), each printing one JSON
object on stdout:
  produce   N records of S bytes as fast as the producer takes them; records, bytes, seconds, errors
  consume   read N records from the beginning of every partition, no consumer group (assign); when
            every partition is read to its end and N is not reached yet, start again from the beginning;
            seconds counts the reading only, not the restarts between passes (see ``consume``)
  latency   produce at a fixed rate and consume in the same process; send->receive percentiles from
            a monotonic nanosecond clock carried in each payload (microsecond resolution)
  multi     M producer instances (M connections) spreading N records over P partitions
  mixed     M producers at a fixed total rate over P partitions, and a consumer group of 3 (one thread
            each) committing every half second, all for S seconds: per-role throughput, produce-ack,
            produce-to-consume and commit p99
The Python loop around librdkafka costs about a microsecond per record; the caller compares this
process's CPU time with the wall time to tell when the client core is the bottleneck.
"""

from __future__ import annotations

import argparse
import json
import statistics
import struct
import sys
import threading
import time
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

_STAMP = struct.Struct(">q")  # perf_counter_ns at send time, then padding to the record size


class _Errors:
    """Delivery failures reported by librdkafka (only errors are reported)."""

    def __init__(self) -> None:
        self.count = 0
        self.first = ""

    def __call__(self, err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            self.count += 1
            self.first = self.first or str(err)


def _producer_conf(args: argparse.Namespace, errors: _Errors) -> dict[str, Any]:
    return {
        "bootstrap.servers": args.bootstrap,
        "acks": args.acks,
        "enable.idempotence": args.idempotence,
        "linger.ms": args.linger_ms,
        "batch.size": args.batch_bytes,
        "batch.num.messages": args.batch_messages,
        "message.max.bytes": max(1_000_000, args.batch_bytes + 65_536),
        "queue.buffering.max.messages": 2_000_000,
        "queue.buffering.max.kbytes": 1_048_576,
        "compression.type": "none",
        "delivery.report.only.error": True,
        "on_delivery": errors,
        "log_level": 3,
    }


def _produce_all(producer: Producer, topic: str, payload: bytes, records: int, partitions: int | None) -> None:
    produce = producer.produce
    for i in range(records):
        while True:
            try:
                if partitions is None:
                    produce(topic, payload)
                else:
                    produce(topic, payload, partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.005)
        if i % 10_000 == 0:
            producer.poll(0)


def produce(args: argparse.Namespace) -> dict[str, Any]:
    errors = _Errors()
    producer = Producer(_producer_conf(args, errors))
    payload = b"x" * args.size
    start = time.perf_counter()
    _produce_all(producer, args.topic, payload, args.records, None)
    left = producer.flush(300)
    seconds = time.perf_counter() - start
    return {
        "records": args.records - left,
        "bytes": (args.records - left) * args.size,
        "seconds": seconds,
        "errors": errors.count,
        "first_error": errors.first,
    }


def multi(args: argparse.Namespace) -> dict[str, Any]:
    errors = _Errors()
    producers = [Producer(_producer_conf(args, errors)) for _ in range(args.producers)]
    for producer in producers:  # every instance connects and learns the partition leaders first
        producer.list_topics(args.topic, timeout=30)
    payload = b"x" * args.size
    share = args.records // args.producers
    start = time.perf_counter()
    for index, producer in enumerate(producers):
        offset = index * share
        for i in range(share):
            while True:
                try:
                    producer.produce(args.topic, payload, partition=(offset + i) % args.partitions)
                    break
                except BufferError:
                    producer.poll(0.005)
        producer.poll(0)
    left = sum(producer.flush(300) for producer in producers)
    seconds = time.perf_counter() - start
    sent = share * args.producers - left
    return {
        "records": sent,
        "bytes": sent * args.size,
        "seconds": seconds,
        "errors": errors.count,
        "first_error": errors.first,
    }


def _consumer(args: argparse.Namespace, **extra: Any) -> Consumer:
    return Consumer(
        {
            "bootstrap.servers": args.bootstrap,
            "group.id": "odradek-bench-unused",  # required by the client; no subscribe, no commits
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "log_level": 3,
            **extra,
        }
    )


def _pass_size(consumer: Consumer, partitions: list[TopicPartition]) -> int:
    """The records one pass over ``partitions`` reads: the log is prefilled and no longer written."""
    size = 0
    for partition in partitions:
        low, high = consumer.get_watermark_offsets(partition, timeout=30)
        size += high - low
    return size


def consume(args: argparse.Namespace) -> dict[str, Any]:
    """Passes over the prefilled log; ``seconds`` is the time spent reading, not between passes.

    A pass reads exactly the records the log holds (its watermarks, taken once) and ends when the
    last of them arrives. Waiting for librdkafka's end-of-partition event instead would put about
    1.5 s of idle time into every pass, the same on every broker: the event comes only with the first
    empty answer after the last records (a fetch at the end of the log that the broker holds for
    fetch.wait.max.ms, 500 ms), a consume() call holding fewer records than it asked for returns only
    at its timeout, and the fetch from the beginning waits for the long poll still in flight. How many
    passes a run needs depends on how many records it wants, so those waits made the figure depend on
    where the run's size fell against the log's (issue 19). A pass's clock starts when its first
    record arrives (after the reassignment, whose wait for that long poll is not reading), so one
    fetch per pass goes uncounted: about a millisecond against the second a pass over the 1 GB log
    takes. ``wall_seconds`` is the whole loop, waits included.
    """
    consumer = _consumer(args)
    numbers = list(consumer.list_topics(args.topic, timeout=30).topics[args.topic].partitions)
    from_start = [TopicPartition(args.topic, p, OFFSET_BEGINNING) for p in numbers]
    per_pass = _pass_size(consumer, [TopicPartition(args.topic, p) for p in numbers])
    if per_pass <= 0:
        raise SystemExit(f"topic {args.topic} holds no records to read")
    count = size = 0
    reading_s = 0.0
    start = time.perf_counter()
    deadline = start + 300
    while count < args.records and time.perf_counter() < deadline:
        consumer.assign(from_start)
        left = min(per_pass, args.records - count)
        first_at: float | None = None
        while left > 0 and time.perf_counter() < deadline:
            # One record first (it starts the clock), then never more than the pass has left, so
            # the call holding the pass's last record returns as that record arrives.
            wanted = 1 if first_at is None else min(10_000, left)
            for msg in consumer.consume(num_messages=wanted, timeout=1.0):
                if msg.error() is None:
                    count += 1
                    size += len(msg)
                    left -= 1
                    if first_at is None:
                        first_at = time.perf_counter()
        if first_at is not None:
            reading_s += time.perf_counter() - first_at
    wall = time.perf_counter() - start
    consumer.close()
    return {"records": count, "bytes": size, "seconds": reading_s, "wall_seconds": wall, "errors": 0, "first_error": ""}


def _percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def latency(args: argparse.Namespace) -> dict[str, Any]:
    consumer = _consumer(args)
    _low, high = consumer.get_watermark_offsets(TopicPartition(args.topic, 0), timeout=30)
    consumer.assign([TopicPartition(args.topic, 0, high)])
    errors = _Errors()
    args.linger_ms, args.batch_messages = 0, 1
    producer = Producer(_producer_conf(args, errors))
    producer.list_topics(args.topic, timeout=30)
    total = int(args.rate * args.seconds)
    samples: list[float] = []
    done = threading.Event()

    def receive() -> None:
        # poll() returns each record as soon as librdkafka has it; consume(n) would wait for n records.
        while len(samples) < total and not done.is_set():
            msg = consumer.poll(0.2)
            if msg is None:
                continue
            value = msg.value()
            if msg.error() is None and value is not None:
                samples.append((time.perf_counter_ns() - _STAMP.unpack_from(value)[0]) / 1e6)

    reader = threading.Thread(target=receive)
    reader.start()
    time.sleep(0.5)  # let the consumer's first fetch reach the broker before the clock starts
    padding = b"x" * max(0, args.size - _STAMP.size)
    start = time.perf_counter()
    for i in range(total):
        delay = start + i / args.rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        producer.produce(args.topic, _STAMP.pack(time.perf_counter_ns()) + padding)
        producer.poll(0)
    producer.flush(60)
    reader.join(timeout=60)
    done.set()
    reader.join()
    consumer.close()
    ordered = sorted(samples)
    if not ordered:
        return {"records": 0, "bytes": 0, "seconds": 0.0, "errors": errors.count, "first_error": errors.first}
    return {
        "records": len(ordered),
        "bytes": len(ordered) * args.size,
        "seconds": time.perf_counter() - start,
        "errors": errors.count,
        "first_error": errors.first,
        "p50_ms": _percentile(ordered, 0.5),
        "p99_ms": _percentile(ordered, 0.99),
        "p999_ms": _percentile(ordered, 0.999),
        "avg_ms": statistics.fmean(ordered),
        "max_ms": ordered[-1],
    }


def _p99(samples: list[float]) -> float:
    return _percentile(sorted(samples), 0.99) if samples else float("nan")


class _Group:
    """One member of W8's consumer group: reads, measures produce-to-consume latency from the stamp in
    each record, and commits synchronously every half second, timing each commit."""

    COMMIT_EVERY_S = 0.5

    def __init__(self, args: argparse.Namespace, stop: threading.Event) -> None:
        settings = {"group.id": args.group, "auto.offset.reset": "earliest", "enable.auto.offset.store": True}
        self.consumer = _consumer(args, **settings)
        self.consumer.subscribe([args.topic])
        self.stop = stop
        self.records = self.bytes = self.commits = 0
        self.latency_ms: list[float] = []
        self.commit_ms: list[float] = []
        self.thread = threading.Thread(target=self._loop)

    def _loop(self) -> None:
        next_commit = time.perf_counter() + self.COMMIT_EVERY_S
        while not self.stop.is_set():
            for msg in self.consumer.consume(num_messages=1000, timeout=0.1):
                value = msg.value()
                if msg.error() is None and value is not None:
                    self.records += 1
                    self.bytes += len(value)
                    self.latency_ms.append((time.perf_counter_ns() - _STAMP.unpack_from(value)[0]) / 1e6)
            if time.perf_counter() >= next_commit and self.records:
                began = time.perf_counter_ns()
                try:
                    self.consumer.commit(asynchronous=False)
                    self.commit_ms.append((time.perf_counter_ns() - began) / 1e6)
                    self.commits += 1
                except KafkaException:
                    pass  # nothing new to commit
                next_commit += self.COMMIT_EVERY_S


def mixed(args: argparse.Namespace) -> dict[str, Any]:
    errors = _Errors()
    args.idempotence, args.linger_ms, args.batch_bytes = False, 5.0, 1_048_576
    # Every delivery is reported here (the sampled ones carry their own callback for the ack time).
    producers = [
        Producer({**_producer_conf(args, errors), "delivery.report.only.error": False}) for _ in range(args.producers)
    ]
    for producer in producers:
        producer.list_topics(args.topic, timeout=30)
    stop = threading.Event()
    group = [_Group(args, stop) for _ in range(3)]
    for member in group:
        member.thread.start()
    time.sleep(3.0)  # let the group form and take its assignment before the clock starts
    acks_ms: list[float] = []

    def acked(err: KafkaError | None, msg: Message) -> None:
        value = msg.value()
        if err is None and value is not None:
            acks_ms.append((time.perf_counter_ns() - _STAMP.unpack_from(value)[0]) / 1e6)
        else:
            errors(err, msg)

    padding = b"x" * max(0, args.size - _STAMP.size)
    total = int(args.rate * args.seconds)
    start = time.perf_counter()
    for i in range(total):
        delay = start + i / args.rate - time.perf_counter()
        if delay > 0.001:
            time.sleep(delay)
        producer = producers[i % len(producers)]
        payload = _STAMP.pack(time.perf_counter_ns()) + padding
        if i % 50 == 0:  # one send in 50 reports its ack time
            producer.produce(args.topic, payload, partition=i % args.partitions, on_delivery=acked)
        else:
            producer.produce(args.topic, payload, partition=i % args.partitions)
        if i % 10 == 0:  # serve delivery callbacks promptly: they time the acks
            for each in producers:
                each.poll(0)
    for producer in producers:
        producer.flush(60)
    produced_s = time.perf_counter() - start
    drain_until = time.perf_counter() + 10
    while sum(m.records for m in group) < total and time.perf_counter() < drain_until:
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    stop.set()
    for member in group:
        member.thread.join()
        member.consumer.close()
    consumed = sum(m.records for m in group)
    consumed_bytes = sum(m.bytes for m in group)
    return {
        "records": total + consumed,
        "bytes": total * args.size + consumed_bytes,
        "seconds": seconds,
        "errors": errors.count + (0 if consumed >= total else 1),
        "first_error": errors.first or ("" if consumed >= total else f"consumed {consumed} of {total} records"),
        "produce_mb_s": total * args.size / 1e6 / produced_s,
        "consume_mb_s": consumed_bytes / 1e6 / seconds,
        "commit_s": sum(m.commits for m in group) / seconds,
        "produce_p99_ms": _p99(acks_ms),
        "e2e_p99_ms": _p99([v for m in group for v in m.latency_ms]),
        "commit_p99_ms": _p99([v for m in group for v in m.commit_ms]),
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("produce", "consume", "latency", "multi", "mixed"))
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--acks", default="1")
    parser.add_argument("--idempotence", action="store_true")
    parser.add_argument("--linger-ms", type=float, default=10.0)
    parser.add_argument("--batch-bytes", type=int, default=1_048_576)
    parser.add_argument("--batch-messages", type=int, default=1_000_000)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--producers", type=int, default=10)
    parser.add_argument("--partitions", type=int, default=1)
    parser.add_argument("--group", default="odradek-bench-mixed")
    return parser


def main() -> int:
    args = _parser().parse_args()
    mode = {"produce": produce, "consume": consume, "latency": latency, "multi": multi, "mixed": mixed}[args.mode]
    print(json.dumps(mode(args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
