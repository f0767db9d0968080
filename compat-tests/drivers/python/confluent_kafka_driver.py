"""compat-tests driver for confluent-kafka (librdkafka).

librdkafka reports broker errors with Kafka's numeric codes (named differently, e.g. UNKNOWN_TOPIC_OR_PART),
so names are derived from the code; its local errors have negative codes and become CLIENT_ERROR:<name>.
Producers are cached per (acks, compression, idempotence, linger) so a scenario reuses one connection set.
"""

from __future__ import annotations

import os
import time
from typing import Any

import confluent_kafka
from common import (
    CLIENT_MAX_REQUEST_BYTES,
    OPERATION_TIMEOUT_S,
    Json,
    b64decode,
    b64encode,
    client_error,
    headers_in,
    headers_out,
    kafka_error_name,
    normalise_offset,
    normalise_timestamp,
    serve,
)
from confluent_kafka import Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec  # type: ignore[attr-defined]

_ISOLATION = {"read_uncommitted": "read_uncommitted", "read_committed": "read_committed"}


def _offset_spec(spec: Any) -> Any:
    """The client's OffsetSpec (an untyped class) for a protocol spec."""
    if spec == "earliest":
        return OffsetSpec.earliest()  # type: ignore[no-untyped-call]
    if spec == "latest":
        return OffsetSpec.latest()  # type: ignore[no-untyped-call]
    if spec == "max_timestamp":
        return OffsetSpec.max_timestamp()  # type: ignore[no-untyped-call]
    return OffsetSpec.for_timestamp(int(spec["timestamp"]))


def _start_offset(offset: Any) -> int:
    if offset == "earliest":
        return confluent_kafka.OFFSET_BEGINNING
    if offset == "latest":
        return confluent_kafka.OFFSET_END
    return int(offset)


class ConfluentClient:
    """Protocol ops on top of confluent-kafka's Producer, Consumer and AdminClient."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.name = f"confluent-kafka {confluent_kafka.version()[0]} (librdkafka {confluent_kafka.libversion()[0]})"
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self.producers: dict[tuple[str, str, bool, int], Producer] = {}

    def error_name(self, exc: BaseException) -> str:
        if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
            return self._kafka_error(exc.args[0])
        return client_error(f"{type(exc).__name__}: {exc}")

    @staticmethod
    def _kafka_error(err: KafkaError) -> str:
        code = err.code()
        if code >= 0:
            return kafka_error_name(code)
        return client_error(err.name())

    def close(self) -> None:
        for producer in self.producers.values():
            producer.flush(OPERATION_TIMEOUT_S)

    def _producer(self, step: Json) -> Producer:
        key = (
            str(step.get("acks", "all")),
            str(step.get("compression", "none")),
            bool(step.get("idempotent", False)),
            int(step.get("linger_ms", 5)),
        )
        producer = self.producers.get(key)
        if producer is None:
            acks, compression, idempotent, linger = key
            producer = Producer(
                {
                    "bootstrap.servers": self.bootstrap,
                    "acks": "-1" if acks == "all" else acks,
                    "compression.type": compression,
                    "enable.idempotence": idempotent,
                    "linger.ms": linger,
                    "message.max.bytes": CLIENT_MAX_REQUEST_BYTES,
                    "message.timeout.ms": int(OPERATION_TIMEOUT_S * 1000) - 5000,
                }
            )
            self.producers[key] = producer
        return producer

    def op_create_topic(self, step: Json) -> Json:
        topic = NewTopic(
            step["topic"],
            num_partitions=int(step.get("partitions", 1)),
            replication_factor=int(step.get("replication_factor", 1)),
            config={k: str(v) for k, v in (step.get("configs") or {}).items()},
        )
        futures = self.admin.create_topics([topic], operation_timeout=OPERATION_TIMEOUT_S)
        futures[step["topic"]].result(OPERATION_TIMEOUT_S)
        return {}

    def op_delete_topic(self, step: Json) -> Json:
        futures = self.admin.delete_topics([step["topic"]], operation_timeout=OPERATION_TIMEOUT_S)
        futures[step["topic"]].result(OPERATION_TIMEOUT_S)
        return {}

    def op_list_topics(self, step: Json) -> Json:
        metadata = self.admin.list_topics(timeout=OPERATION_TIMEOUT_S)
        topics = {name: len(meta.partitions) for name, meta in metadata.topics.items() if not name.startswith("__")}
        return {"topics": topics}

    def op_produce(self, step: Json) -> Json:
        producer = self._producer(step)
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
            if record.get("timestamp") is not None:
                kwargs["timestamp"] = int(record["timestamp"])
            try:
                producer.produce(step["topic"], **kwargs)
            except KafkaException as exc:
                results[index] = {"error": self.error_name(exc)}
            producer.poll(0)
        remaining = producer.flush(OPERATION_TIMEOUT_S)
        if remaining:
            raise TimeoutError(f"{remaining} records still in flight after flush")
        return {"results": results}

    def op_consume(self, step: Json) -> Json:
        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                # librdkafka insists on a group id even for assign(); nothing is ever committed to it.
                "group.id": f"compat-assign-{os.getpid()}",
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "isolation.level": _ISOLATION[step.get("isolation", "read_uncommitted")],
                "fetch.message.max.bytes": CLIENT_MAX_REQUEST_BYTES,
            }
        )
        try:
            consumer.assign([TopicPartition(step["topic"], int(step["partition"]), _start_offset(step["offset"]))])
            wanted = int(step.get("max_records", 1))
            deadline = time.monotonic() + int(step.get("timeout_ms", 5000)) / 1000
            records: list[Json] = []
            while len(records) < wanted:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                msg = consumer.poll(min(left, 0.5))
                if msg is None:
                    continue
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        continue
                    raise KafkaException(err)
                records.append(
                    {
                        "partition": msg.partition(),
                        "offset": msg.offset(),
                        "key": b64encode(msg.key()),
                        "value": b64encode(msg.value()),
                        "headers": headers_out(msg.headers()),
                        "timestamp": normalise_timestamp(msg.timestamp()[1]),
                    }
                )
            return {"records": records}
        finally:
            consumer.close()

    def op_list_offsets(self, step: Json) -> Json:
        tp = TopicPartition(step["topic"], int(step["partition"]))
        futures = self.admin.list_offsets({tp: _offset_spec(step["spec"])}, request_timeout=OPERATION_TIMEOUT_S)
        info = next(iter(futures.values())).result(OPERATION_TIMEOUT_S)
        return {"offset": normalise_offset(info.offset), "timestamp": normalise_timestamp(info.timestamp)}


if __name__ == "__main__":
    raise SystemExit(serve(ConfluentClient))
