"""Transactions for the aiokafka driver: txn_produce, txn_end, txn_copy (PROTOCOL.md).

aiokafka's AIOKafkaProducer with a transactional_id initialises its producer id when started; then
begin/commit/abort; offsets go into the transaction with send_offsets_to_transaction and the group id.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import secured
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.structs import OffsetAndMetadata
from common import CLIENT_MAX_REQUEST_BYTES, OPERATION_TIMEOUT_S, Json, b64decode, headers_in, normalise_offset

_TIMEOUT_MS = int(OPERATION_TIMEOUT_S * 1000)


class AiokafkaTransactions:
    """Mixed into the aiokafka client: named transactional producers and their open transactions."""

    bootstrap: str
    _run: Callable[..., Any]

    def __init__(self) -> None:
        self.txn_producers: dict[str, AIOKafkaProducer] = {}
        self.txn_open: set[str] = set()

    async def _txn_producer(self, step: Json) -> AIOKafkaProducer:
        name = str(step["producer"])
        producer = self.txn_producers.get(name)
        if producer is None:
            optional = {"transaction_timeout_ms": step.get("transaction_timeout_ms")}
            producer = AIOKafkaProducer(
                bootstrap_servers=self.bootstrap,
                **secured.aiokafka(),
                transactional_id=step["transactional_id"],
                linger_ms=5,
                max_request_size=CLIENT_MAX_REQUEST_BYTES,
                request_timeout_ms=_TIMEOUT_MS - 5000,
                **{key: int(value) for key, value in optional.items() if value is not None},
            )
            await producer.start()
            self.txn_producers[name] = producer
        return producer

    async def _begin(self, name: str, producer: AIOKafkaProducer) -> None:
        if name not in self.txn_open:
            await producer.begin_transaction()
            self.txn_open.add(name)

    async def _end(self, name: str, producer: AIOKafkaProducer, commit: bool) -> None:
        self.txn_open.discard(name)
        if commit:
            await producer.commit_transaction()
        else:
            await producer.abort_transaction()

    def op_txn_produce(self, step: Json) -> Json:
        return {"results": self._run(self._txn_produce(step))}

    async def _txn_produce(self, step: Json) -> list[Json]:
        name = str(step["producer"])
        producer = await self._txn_producer(step)
        await self._begin(name, producer)
        futures = [
            await producer.send(
                step["topic"],
                key=b64decode(record.get("key")),
                value=b64decode(record.get("value")),
                headers=headers_in(record.get("headers")),
                partition=record.get("partition"),
            )
            for record in step["records"]
        ]
        results = []
        for future in futures:
            meta = await future
            results.append({"partition": meta.partition, "offset": normalise_offset(meta.offset)})
        end = step.get("end", "commit")
        if end != "open":
            await self._end(name, producer, end == "commit")
        return results

    def op_txn_end(self, step: Json) -> Json:
        name = str(step["producer"])
        self._run(self._end(name, self.txn_producers[name], bool(step["commit"])))
        return {}

    def op_txn_copy(self, step: Json) -> Json:
        return {"copied": self._run(self._txn_copy(step), float(step["timeout_ms"]) / 1000 + OPERATION_TIMEOUT_S)}

    async def _txn_copy(self, step: Json) -> int:
        name = str(step["producer"])
        producer = await self._txn_producer(step)
        consumer = AIOKafkaConsumer(
            step["input"],
            bootstrap_servers=self.bootstrap,
            **secured.aiokafka(),
            group_id=step["group"],
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            isolation_level="read_committed",
        )
        await consumer.start()
        try:
            wanted = int(step["max_records"])
            deadline = time.monotonic() + int(step["timeout_ms"]) / 1000
            kept: list[Any] = []
            while len(kept) < wanted and time.monotonic() < deadline:
                batch = await consumer.getmany(timeout_ms=500, max_records=wanted - len(kept))
                for msgs in batch.values():
                    kept.extend(msgs)
            if not kept:
                return 0
            await self._begin(name, producer)
            for msg in kept:
                await producer.send_and_wait(
                    step["output"], key=msg.key, value=msg.value, headers=list(msg.headers), partition=msg.partition
                )
            positions: dict[int, int] = {}
            for msg in kept:
                positions[msg.partition] = msg.offset + 1
            offsets = {TopicPartition(step["input"], p): OffsetAndMetadata(o, "") for p, o in sorted(positions.items())}
            await producer.send_offsets_to_transaction(offsets, step["group"])
            await self._end(name, producer, True)
            return len(kept)
        finally:
            await consumer.stop()

    def close_transactions(self) -> None:
        for producer in self.txn_producers.values():
            self._run(producer.stop())
