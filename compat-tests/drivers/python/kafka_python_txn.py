"""Transactions for the kafka-python driver: txn_produce, txn_end, txn_copy (PROTOCOL.md).

kafka-python's KafkaProducer with a transactional_id: init_transactions once per named producer,
then begin/commit/abort; offsets go into the transaction with send_offsets_to_transaction and the
consumer's group metadata.
"""

from __future__ import annotations

import time
from typing import Any

import secured
from common import CLIENT_MAX_REQUEST_BYTES, OPERATION_TIMEOUT_S, Json, b64decode, headers_in, normalise_offset
from kafka import KafkaConsumer, KafkaProducer, OffsetAndMetadata, TopicPartition

_TIMEOUT_MS = int(OPERATION_TIMEOUT_S * 1000)


class KafkaPythonTransactions:
    """Mixed into the kafka-python client: named transactional producers and their open transactions."""

    bootstrap: str

    def __init__(self) -> None:
        self.txn_producers: dict[str, KafkaProducer] = {}
        self.txn_open: set[str] = set()

    def _txn_producer(self, step: Json) -> KafkaProducer:
        name = str(step["producer"])
        producer = self.txn_producers.get(name)
        if producer is None:
            optional = {"transaction_timeout_ms": step.get("transaction_timeout_ms")}
            producer = KafkaProducer(
                bootstrap_servers=self.bootstrap,
                **secured.kafka_python(),
                transactional_id=step["transactional_id"],
                linger_ms=5,
                max_request_size=CLIENT_MAX_REQUEST_BYTES,
                request_timeout_ms=_TIMEOUT_MS - 5000,
                max_block_ms=_TIMEOUT_MS - 5000,
                **{key: int(value) for key, value in optional.items() if value is not None},
            )
            producer.init_transactions()
            self.txn_producers[name] = producer
        return producer

    def _begin(self, name: str, producer: KafkaProducer) -> None:
        if name not in self.txn_open:
            producer.begin_transaction()
            self.txn_open.add(name)

    def _end(self, name: str, producer: KafkaProducer, commit: bool) -> None:
        self.txn_open.discard(name)
        if commit:
            producer.commit_transaction()
        else:
            producer.abort_transaction()

    def op_txn_produce(self, step: Json) -> Json:
        name = str(step["producer"])
        producer = self._txn_producer(step)
        self._begin(name, producer)
        futures: list[Any] = [
            producer.send(
                step["topic"],
                key=b64decode(record.get("key")),
                value=b64decode(record.get("value")),
                headers=headers_in(record.get("headers")),
                partition=record.get("partition"),
            )
            for record in step["records"]
        ]
        producer.flush(timeout=OPERATION_TIMEOUT_S)
        results: list[Json] = []
        for future in futures:
            meta = future.get(timeout=OPERATION_TIMEOUT_S)
            results.append({"partition": meta.partition, "offset": normalise_offset(meta.offset)})
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
        consumer = KafkaConsumer(
            bootstrap_servers=self.bootstrap,
            **secured.kafka_python(),
            group_id=step["group"],
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            isolation_level="read_committed",
        )
        try:
            consumer.subscribe([step["input"]])
            wanted = int(step["max_records"])
            deadline = time.monotonic() + int(step["timeout_ms"]) / 1000
            kept: list[Any] = []
            while len(kept) < wanted and time.monotonic() < deadline:
                batch = consumer.poll(timeout_ms=500, max_records=wanted - len(kept))
                for msgs in batch.values():
                    kept.extend(msgs)
            if not kept:
                return {"copied": 0}
            self._begin(name, producer)
            for msg in kept:
                producer.send(
                    step["output"], key=msg.key, value=msg.value, headers=msg.headers, partition=msg.partition
                )
            positions: dict[int, int] = {}
            for msg in kept:
                positions[msg.partition] = msg.offset + 1
            offsets = {
                TopicPartition(step["input"], p): OffsetAndMetadata(o, "", -1) for p, o in sorted(positions.items())
            }
            producer.send_offsets_to_transaction(offsets, consumer.group_metadata())
            self._end(name, producer, True)
            return {"copied": len(kept)}
        finally:
            consumer.close()

    def close_transactions(self) -> None:
        for producer in self.txn_producers.values():
            producer.close(timeout=OPERATION_TIMEOUT_S)
