"""compat-tests driver for kafka-python.

kafka-python's broker errors are KafkaError subclasses carrying Kafka's code in ``errno``; anything else
(timeouts, assertion failures on bad arguments) becomes CLIENT_ERROR:<exception class>.
"""

from __future__ import annotations

import time
from typing import Any

import kafka
from common import (
    CLIENT_MAX_REQUEST_BYTES,
    OPERATION_TIMEOUT_S,
    Json,
    Unsupported,
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
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic, OffsetSpec
from kafka.errors import KafkaError

_TIMEOUT_MS = int(OPERATION_TIMEOUT_S * 1000)


def _offset_spec(spec: Any) -> Any:
    if spec == "earliest":
        return OffsetSpec.EARLIEST
    if spec == "latest":
        return OffsetSpec.LATEST
    if spec == "max_timestamp":
        return OffsetSpec.MAX_TIMESTAMP
    return int(spec["timestamp"])


class KafkaPythonClient:
    """Protocol ops on top of kafka-python's KafkaProducer, KafkaConsumer and KafkaAdminClient."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.name = f"kafka-python {kafka.__version__}"
        self.admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=_TIMEOUT_MS)
        self.producers: dict[tuple[str, str, bool, int], KafkaProducer] = {}

    def error_name(self, exc: BaseException) -> str:
        errno = getattr(exc, "errno", None)
        if isinstance(exc, KafkaError) and isinstance(errno, int):
            return kafka_error_name(errno)
        return client_error(type(exc).__name__)

    def close(self) -> None:
        for producer in self.producers.values():
            producer.close(timeout=OPERATION_TIMEOUT_S)
        self.admin.close()

    def _producer(self, step: Json) -> KafkaProducer:
        key = (
            str(step.get("acks", "all")),
            str(step.get("compression", "none")),
            bool(step.get("idempotent", False)),
            int(step.get("linger_ms", 5)),
        )
        producer = self.producers.get(key)
        if producer is None:
            acks, compression, idempotent, linger = key
            producer = KafkaProducer(
                bootstrap_servers=self.bootstrap,
                acks="all" if acks == "all" else int(acks),
                compression_type=None if compression == "none" else compression,
                enable_idempotence=idempotent,
                linger_ms=linger,
                max_request_size=CLIENT_MAX_REQUEST_BYTES,
                request_timeout_ms=_TIMEOUT_MS - 5000,
                max_block_ms=_TIMEOUT_MS - 5000,
            )
            self.producers[key] = producer
        return producer

    def op_create_topic(self, step: Json) -> Json:
        topic = NewTopic(
            step["topic"],
            num_partitions=int(step.get("partitions", 1)),
            replication_factor=int(step.get("replication_factor", 1)),
            topic_configs={k: str(v) for k, v in (step.get("configs") or {}).items()},
        )
        self.admin.create_topics([topic], timeout_ms=_TIMEOUT_MS)
        return {}

    def op_delete_topic(self, step: Json) -> Json:
        self.admin.delete_topics([step["topic"]], timeout_ms=_TIMEOUT_MS)
        return {}

    def op_list_topics(self, step: Json) -> Json:
        described = self.admin.describe_topics()
        topics = {
            t["topic"] if "topic" in t else t["name"]: len(t["partitions"])
            for t in described
            if not t.get("is_internal") and t.get("error_code", 0) == 0
        }
        return {"topics": {name: count for name, count in topics.items() if not name.startswith("__")}}

    def op_produce(self, step: Json) -> Json:
        producer = self._producer(step)
        futures: list[Any] = []
        for record in step["records"]:
            try:
                futures.append(
                    producer.send(
                        step["topic"],
                        key=b64decode(record.get("key")),
                        value=b64decode(record.get("value")),
                        headers=headers_in(record.get("headers")),
                        partition=record.get("partition"),
                        timestamp_ms=record.get("timestamp"),
                    )
                )
            except Exception as exc:
                futures.append(exc)
        producer.flush(timeout=OPERATION_TIMEOUT_S)
        results: list[Json] = []
        for future in futures:
            if isinstance(future, Exception):
                results.append({"error": self.error_name(future)})
                continue
            try:
                meta = future.get(timeout=OPERATION_TIMEOUT_S)
            except Exception as exc:
                results.append({"error": self.error_name(exc)})
                continue
            results.append({"partition": meta.partition, "offset": normalise_offset(meta.offset)})
        return {"results": results}

    def op_consume(self, step: Json) -> Json:
        consumer = KafkaConsumer(
            bootstrap_servers=self.bootstrap,
            group_id=None,
            enable_auto_commit=False,
            isolation_level=step.get("isolation", "read_uncommitted"),
            max_partition_fetch_bytes=CLIENT_MAX_REQUEST_BYTES,
            fetch_max_bytes=CLIENT_MAX_REQUEST_BYTES,
        )
        try:
            tp = TopicPartition(step["topic"], int(step["partition"]))
            consumer.assign([tp])
            offset = step["offset"]
            if offset == "earliest":
                consumer.seek_to_beginning(tp)
            elif offset == "latest":
                consumer.seek_to_end(tp)
            else:
                consumer.seek(tp, int(offset))
            wanted = int(step.get("max_records", 1))
            deadline = time.monotonic() + int(step.get("timeout_ms", 5000)) / 1000
            records: list[Json] = []
            while len(records) < wanted:
                left_ms = int((deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    break
                batch = consumer.poll(timeout_ms=min(left_ms, 500), max_records=wanted - len(records))
                for msgs in batch.values():
                    for msg in msgs:
                        records.append(
                            {
                                "partition": msg.partition,
                                "offset": msg.offset,
                                "key": b64encode(msg.key),
                                "value": b64encode(msg.value),
                                "headers": headers_out(msg.headers),
                                "timestamp": normalise_timestamp(msg.timestamp),
                            }
                        )
            return {"records": records}
        finally:
            consumer.close()

    def op_list_offsets(self, step: Json) -> Json:
        tp = TopicPartition(step["topic"], int(step["partition"]))
        try:
            result = self.admin.list_partition_offsets({tp: _offset_spec(step["spec"])}, timeout_ms=_TIMEOUT_MS)
        except NotImplementedError as exc:
            raise Unsupported from exc
        info = result.get(tp)
        if info is None:
            return {"offset": -1, "timestamp": None}
        return {"offset": normalise_offset(info.offset), "timestamp": normalise_timestamp(info.timestamp)}


if __name__ == "__main__":
    raise SystemExit(serve(KafkaPythonClient))
