"""Transactions for the confluent-kafka driver: txn_produce, txn_end, txn_copy (PROTOCOL.md).

librdkafka's transactional producer: init_transactions once per named producer, then
begin/commit/abort; a fenced producer fails with its local _FENCED (a fatal error).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import secured
from common import CLIENT_MAX_REQUEST_BYTES, OPERATION_TIMEOUT_S, Json, b64decode, headers_in, normalise_offset
from confluent_kafka import Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition


class ConfluentTransactions:
    """Mixed into the confluent-kafka client: named transactional producers and their open transactions."""

    bootstrap: str
    _kafka_error: Callable[[KafkaError], str]

    def __init__(self) -> None:
        self.txn_producers: dict[str, Producer] = {}
        self.txn_open: set[str] = set()

    def _txn_producer(self, step: Json) -> Producer:
        name = str(step["producer"])
        producer = self.txn_producers.get(name)
        if producer is None:
            config: dict[str, Any] = {
                "bootstrap.servers": self.bootstrap,
                **secured.confluent(),
                "transactional.id": step["transactional_id"],
                "linger.ms": 5,
                "message.max.bytes": CLIENT_MAX_REQUEST_BYTES,
            }
            if step.get("transaction_timeout_ms") is not None:
                config["transaction.timeout.ms"] = int(step["transaction_timeout_ms"])
            producer = Producer(config)
            producer.init_transactions(OPERATION_TIMEOUT_S)
            self.txn_producers[name] = producer
        return producer

    def _begin(self, name: str, producer: Producer) -> None:
        if name not in self.txn_open:
            producer.begin_transaction()
            self.txn_open.add(name)

    def _end(self, name: str, producer: Producer, commit: bool) -> None:
        self.txn_open.discard(name)
        if commit:
            producer.commit_transaction(OPERATION_TIMEOUT_S)
        else:
            producer.abort_transaction(OPERATION_TIMEOUT_S)

    def op_txn_produce(self, step: Json) -> Json:
        name = str(step["producer"])
        producer = self._txn_producer(step)
        self._begin(name, producer)
        records = step["records"]
        results: list[Json | None] = [None] * len(records)

        def on_delivery(index: int) -> Any:
            def callback(err: KafkaError | None, msg: Message) -> None:
                if err is not None:
                    results[index] = {"error": self._kafka_error(err)}
                else:
                    results[index] = {"partition": msg.partition(), "offset": normalise_offset(msg.offset())}

            return callback

        for index, record in enumerate(records):
            kwargs: dict[str, Any] = {
                "key": b64decode(record.get("key")),
                "value": b64decode(record.get("value")),
                "headers": headers_in(record.get("headers")),
                "on_delivery": on_delivery(index),
            }
            if record.get("partition") is not None:
                kwargs["partition"] = int(record["partition"])
            producer.produce(step["topic"], **kwargs)
            producer.poll(0)
        remaining = producer.flush(OPERATION_TIMEOUT_S)
        if remaining:
            raise TimeoutError(f"{remaining} records still in flight after flush")
        end = step.get("end", "commit")
        if end != "open":
            self._end(name, producer, end == "commit")
        return {"results": results}

    def op_txn_end(self, step: Json) -> Json:
        name = str(step["producer"])
        self._end(name, self.txn_producers[name], bool(step["commit"]))
        return {}

    def op_txn_copy(self, step: Json) -> Json:
        name = str(step["producer"])
        producer = self._txn_producer(step)
        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                **secured.confluent(),
                "group.id": step["group"],
                "group.protocol": "classic",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "isolation.level": "read_committed",
            }
        )
        try:
            consumer.subscribe([step["input"]])
            wanted = int(step["max_records"])
            deadline = time.monotonic() + int(step["timeout_ms"]) / 1000
            kept: list[Message] = []
            while len(kept) < wanted and time.monotonic() < deadline:
                msg = consumer.poll(min(max(deadline - time.monotonic(), 0.0), 0.5))
                if msg is None:
                    continue
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        continue
                    raise KafkaException(err)
                kept.append(msg)
            if not kept:
                return {"copied": 0}
            self._begin(name, producer)
            for msg in kept:
                producer.produce(
                    step["output"], key=msg.key(), value=msg.value(), headers=msg.headers(), partition=msg.partition()
                )
            positions: dict[int, int] = {}
            for msg in kept:
                positions[int(msg.partition() or 0)] = int(msg.offset() or 0) + 1
            offsets = [TopicPartition(step["input"], p, o) for p, o in sorted(positions.items())]
            producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), OPERATION_TIMEOUT_S)
            self._end(name, producer, True)
            return {"copied": len(kept)}
        finally:
            consumer.close()

    def close_transactions(self) -> None:
        for producer in self.txn_producers.values():
            producer.flush(OPERATION_TIMEOUT_S)
