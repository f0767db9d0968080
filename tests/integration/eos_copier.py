"""The copy job of the exactly-once test: input topic to output topic, one transaction per batch.

A consumer of the group (static member ``--instance``, read_committed, no auto commit) reads a
batch; a transactional producer writes each record to the same partition of the output topic and
sends the consumer's positions with the group's metadata (sendOffsetsToTransaction), then commits.
On any error the job exits with status 2, and the test starts a new one, which fences this one and
resumes at the committed offsets: no retry logic of its own can hide a broker fault.  With
``--idle-exit-s`` it exits 0 once no record came for that long.

Run as ``python eos_copier.py --bootstrap ... --input ... --output ... --group ... --transactional-id ...``.
"""

from __future__ import annotations

import argparse
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer

TIMEOUT_S = 30.0


def main() -> int:
    parser = argparse.ArgumentParser()
    for flag in ("--bootstrap", "--input", "--output", "--group", "--transactional-id", "--instance"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--idle-exit-s", type=float, default=0.0)
    args = parser.parse_args()
    consumer = Consumer(
        {
            "bootstrap.servers": args.bootstrap,
            "group.id": args.group,
            "group.instance.id": args.instance,
            "session.timeout.ms": 10_000,
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    producer = Producer({"bootstrap.servers": args.bootstrap, "transactional.id": args.transactional_id})
    try:
        producer.init_transactions(TIMEOUT_S)
        consumer.subscribe([args.input])
        idle_since = time.monotonic()
        while True:
            batch = consumer.consume(args.batch, timeout=0.5)
            for msg in batch:
                if msg.error() is not None:
                    raise KafkaException(msg.error())
            if not batch:
                if args.idle_exit_s and time.monotonic() - idle_since > args.idle_exit_s:
                    return 0
                continue
            idle_since = time.monotonic()
            producer.begin_transaction()
            for msg in batch:
                producer.produce(args.output, key=msg.key(), value=msg.value(), partition=msg.partition())
            positions = consumer.position(consumer.assignment())
            producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), TIMEOUT_S)
            producer.commit_transaction(TIMEOUT_S)
    except Exception as exc:
        print(f"copier stops: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        return 2
    finally:
        consumer.close()


if __name__ == "__main__":
    sys.exit(main())
