"""compat-tests driver for aiokafka.

One event loop lives for the whole session; each step runs to completion on it before the next line is
read. aiokafka's admin client returns raw CreateTopics/DeleteTopics responses, so their per-topic error
codes are turned into exceptions here. aiokafka has no ListOffsets MAX_TIMESTAMP spec: that step is
reported as unsupported. aiokafka has no IncrementalAlterConfigs either: alter_configs reads the topic's
dynamic configs (DescribeConfigs) and sends the whole changed set with AlterConfigs, which replaces a
topic's overrides; the outcome is the same as an incremental SET/DELETE.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiokafka
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.admin.records_to_delete import RecordsToDelete
from aiokafka.client import AIOKafkaClient
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from aiokafka.errors import KafkaError, for_code
from aiokafka.structs import OffsetAndMetadata
from common import (
    CLIENT_MAX_REQUEST_BYTES,
    OPERATION_TIMEOUT_S,
    Json,
    Unsupported,
    assignment_pairs,
    b64decode,
    b64encode,
    client_error,
    commit_points,
    config_entry,
    covers_exactly,
    decode_consumer_assignment,
    group_state,
    headers_in,
    headers_out,
    kafka_error_name,
    normalise_offset,
    normalise_timestamp,
    producer_settings,
    serve,
    sorted_members,
    sorted_records,
    wanted_configs,
)

_TIMEOUT_MS = int(OPERATION_TIMEOUT_S * 1000)
_TIMESTAMP_TYPES = {0: "CreateTime", 1: "LogAppendTime"}
#: DescribeConfigs' source code for a topic override.
_DYNAMIC_TOPIC_CONFIG = 1
_ASSIGNORS: dict[str, Any] = {
    "range": RangePartitionAssignor,
    "roundrobin": RoundRobinPartitionAssignor,
    "sticky": StickyPartitionAssignor,
}


def _raise_topic_errors(entries: Any) -> None:
    """Entries are (topic, error_code, ...) tuples from a CreateTopics/DeleteTopics response."""
    for entry in entries:
        code = int(entry[1])
        if code != 0:
            raise for_code(code)()


class AiokafkaClient:
    """Protocol ops on top of aiokafka, driven synchronously one step at a time."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.name = f"aiokafka {aiokafka.__version__}"
        self.loop = asyncio.new_event_loop()
        self.admin: AIOKafkaAdminClient = self.loop.run_until_complete(self._start_admin())
        self.producers: dict[tuple[str, str, bool, int], AIOKafkaProducer] = {}

    async def _start_admin(self) -> AIOKafkaAdminClient:
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=_TIMEOUT_MS)
        await admin.start()
        return admin

    def error_name(self, exc: BaseException) -> str:
        errno = getattr(exc, "errno", None)
        if isinstance(exc, KafkaError) and isinstance(errno, int) and errno >= 0:
            return kafka_error_name(errno)
        return client_error(type(exc).__name__)

    def _run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, OPERATION_TIMEOUT_S + 5))

    def close(self) -> None:
        for producer in self.producers.values():
            self._run(producer.stop())
        self._run(self.admin.close())
        self.loop.close()

    async def _producer(self, step: Json) -> AIOKafkaProducer:
        key = producer_settings(step)
        producer = self.producers.get(key)
        if producer is None:
            acks, compression, idempotent, linger = key
            producer = AIOKafkaProducer(
                bootstrap_servers=self.bootstrap,
                acks="all" if acks == "all" else int(acks),
                compression_type=None if compression == "none" else compression,
                enable_idempotence=idempotent,
                linger_ms=linger,
                max_request_size=CLIENT_MAX_REQUEST_BYTES,
                request_timeout_ms=_TIMEOUT_MS - 5000,
            )
            await producer.start()
            self.producers[key] = producer
        return producer

    def op_create_topic(self, step: Json) -> Json:
        topic = NewTopic(
            step["topic"],
            num_partitions=int(step.get("partitions", 1)),
            replication_factor=int(step.get("replication_factor", 1)),
            topic_configs={k: str(v) for k, v in (step.get("configs") or {}).items()},
        )
        response = self._run(self.admin.create_topics([topic], timeout_ms=_TIMEOUT_MS))
        _raise_topic_errors(response.topic_errors)
        return {}

    def op_delete_topic(self, step: Json) -> Json:
        response = self._run(self.admin.delete_topics([step["topic"]], timeout_ms=_TIMEOUT_MS))
        _raise_topic_errors(response.topic_error_codes)
        return {}

    def op_list_topics(self, step: Json) -> Json:
        return {"topics": self._run(self._list_topics())}

    async def _list_topics(self) -> dict[str, int]:
        client = AIOKafkaClient(bootstrap_servers=self.bootstrap, request_timeout_ms=_TIMEOUT_MS)
        await client.bootstrap()
        try:
            metadata = await client.fetch_all_metadata()
            return {
                name: len(metadata.partitions_for_topic(name) or ())
                for name in metadata.topics(exclude_internal_topics=True)
                if not name.startswith("__")
            }
        finally:
            await client.close()

    def op_produce(self, step: Json) -> Json:
        return {"results": self._run(self._produce(step))}

    async def _produce(self, step: Json) -> list[Json]:
        producer = await self._producer(step)
        pending: list[Any] = []
        for record in step["records"]:
            try:
                pending.append(
                    await producer.send(
                        step["topic"],
                        key=b64decode(record.get("key")),
                        value=b64decode(record.get("value")),
                        headers=headers_in(record.get("headers")),
                        partition=record.get("partition"),
                        timestamp_ms=record.get("timestamp"),
                    )
                )
            except Exception as exc:
                pending.append(exc)
        await producer.flush()
        results: list[Json] = []
        for record, item in zip(step["records"], pending, strict=True):
            if isinstance(item, Exception):
                results.append({"error": self.error_name(item)})
                continue
            try:
                meta = await item
            except Exception as exc:
                results.append({"error": self.error_name(exc)})
                continue
            if meta is None:  # acks=0: aiokafka resolves the delivery future without metadata
                partition = record.get("partition")
                results.append({"partition": -1 if partition is None else partition, "offset": -1})
                continue
            results.append({"partition": meta.partition, "offset": normalise_offset(meta.offset)})
        return results

    def _group_consumer(self, step: Json) -> AIOKafkaConsumer:
        assignor = _ASSIGNORS.get(step.get("assignor") or "range")
        if assignor is None:
            raise Unsupported("assignor")
        return AIOKafkaConsumer(
            step["topic"],
            bootstrap_servers=self.bootstrap,
            group_id=step["group"],
            enable_auto_commit=False,
            auto_offset_reset=step.get("auto_offset_reset") or "earliest",
            partition_assignment_strategy=(assignor,),
            max_partition_fetch_bytes=CLIENT_MAX_REQUEST_BYTES,
            fetch_max_bytes=CLIENT_MAX_REQUEST_BYTES,
        )

    def op_group_consume(self, step: Json) -> Json:
        result: Json = self._run_long(self._group_consume(step), step)
        return result

    def _run_long(self, coro: Any, step: Json) -> Any:
        limit = int(step.get("timeout_ms", 5000)) / 1000 + OPERATION_TIMEOUT_S
        return self.loop.run_until_complete(asyncio.wait_for(coro, limit))

    async def _group_consume(self, step: Json) -> Json:
        consumer = self._group_consumer(step)
        await consumer.start()
        try:
            wanted = int(step.get("max_records", 1))
            deadline = time.monotonic() + int(step.get("timeout_ms", 5000)) / 1000
            kept: list[Any] = []
            while len(kept) < wanted:
                left_ms = int((deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    break
                batch = await consumer.getmany(timeout_ms=min(left_ms, 500), max_records=wanted - len(kept))
                kept.extend(msg for msgs in batch.values() for msg in msgs)
            assignment = assignment_pairs(consumer.assignment())
            if step.get("commit") and kept:
                points = commit_points([(m.topic, m.partition, m.offset) for m in kept])
                await consumer.commit({TopicPartition(t, p): OffsetAndMetadata(o, "") for (t, p), o in points.items()})
            records = [
                {
                    "partition": m.partition,
                    "offset": m.offset,
                    "key": b64encode(m.key),
                    "value": b64encode(m.value),
                    "headers": headers_out(m.headers),
                    "timestamp": normalise_timestamp(m.timestamp),
                }
                for m in kept
            ]
            return {"records": sorted_records(records), "assignment": assignment}
        finally:
            await consumer.stop()

    def op_group_members(self, step: Json) -> Json:
        result: Json = self._run_long(self._group_members(step), step)
        return result

    async def _group_members(self, step: Json) -> Json:
        described = await self.admin.describe_topics([step["topic"]])
        total = len(described[0]["partitions"])
        consumers = [self._group_consumer(step) for _ in range(int(step["members"]))]
        await asyncio.gather(*(c.start() for c in consumers))
        deadline = time.monotonic() + int(step.get("timeout_ms", 30000)) / 1000
        stop = asyncio.Event()

        async def member(consumer: AIOKafkaConsumer) -> None:
            while not stop.is_set():
                await consumer.getmany(timeout_ms=100)

        tasks = [asyncio.ensure_future(member(c)) for c in consumers]
        try:
            while time.monotonic() < deadline:
                assignments = [assignment_pairs(c.assignment()) for c in consumers]
                if covers_exactly(assignments, total):
                    break
                await asyncio.sleep(0.05)
            return {"members": sorted_members([assignment_pairs(c.assignment()) for c in consumers])}
        finally:
            stop.set()
            await asyncio.gather(*tasks)
            await asyncio.gather(*(c.stop() for c in consumers))

    def op_committed(self, step: Json) -> Json:
        wanted = [TopicPartition(step["topic"], int(p)) for p in step["partitions"]]
        got = self._run(self.admin.list_consumer_group_offsets(step["group"], partitions=wanted))
        offsets = []
        for tp in wanted:
            meta = got.get(tp)
            offsets.append({"partition": tp.partition, "offset": -1 if meta is None else normalise_offset(meta.offset)})
        return {"offsets": offsets}

    def op_describe_group(self, step: Json) -> Json:
        responses = self._run(self.admin.describe_consumer_groups([step["group"]]))
        group = responses[0].to_object()["groups"][0]
        if group["error_code"]:
            raise for_code(group["error_code"])()
        members = [decode_consumer_assignment(m["member_assignment"]) for m in group["members"]]
        return {
            "state": group_state(group["state"]),
            "protocol_type": group["protocol_type"],
            "protocol": group["protocol"],
            "members": sorted_members(members),
        }

    def op_list_groups(self, step: Json) -> Json:
        listed = self._run(self.admin.list_consumer_groups())
        groups = [{"group": g[0], "protocol_type": g[1]} for g in listed]
        return {"groups": sorted(groups, key=lambda g: g["group"])}

    def op_consume(self, step: Json) -> Json:
        return {"records": self._run(self._consume(step))}

    async def _consume(self, step: Json) -> list[Json]:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap,
            group_id=None,
            enable_auto_commit=False,
            isolation_level=step.get("isolation", "read_uncommitted"),
            max_partition_fetch_bytes=CLIENT_MAX_REQUEST_BYTES,
            fetch_max_bytes=CLIENT_MAX_REQUEST_BYTES,
            **({"auto_offset_reset": step["auto_offset_reset"]} if step.get("auto_offset_reset") else {}),
        )
        await consumer.start()
        try:
            tp = TopicPartition(step["topic"], int(step["partition"]))
            consumer.assign([tp])
            offset = step["offset"]
            if offset == "earliest":
                await consumer.seek_to_beginning(tp)
            elif offset == "latest":
                await consumer.seek_to_end(tp)
            else:
                consumer.seek(tp, int(offset))
            wanted = int(step.get("max_records", 1))
            deadline = time.monotonic() + int(step.get("timeout_ms", 5000)) / 1000
            records: list[Json] = []
            while len(records) < wanted:
                left_ms = int((deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    break
                batch = await consumer.getmany(tp, timeout_ms=min(left_ms, 500), max_records=wanted - len(records))
                for msg in batch.get(tp, []):
                    record: Json = {
                        "partition": msg.partition,
                        "offset": msg.offset,
                        "key": b64encode(msg.key),
                        "value": b64encode(msg.value),
                        "headers": headers_out(msg.headers),
                        "timestamp": normalise_timestamp(msg.timestamp),
                    }
                    if msg.timestamp_type in _TIMESTAMP_TYPES:
                        record["timestamp_type"] = _TIMESTAMP_TYPES[msg.timestamp_type]
                    records.append(record)
            return records
        finally:
            await consumer.stop()

    def op_list_offsets(self, step: Json) -> Json:
        if step["spec"] == "max_timestamp":
            raise Unsupported
        result: Json = self._run(self._list_offsets(step))
        return result

    async def _list_offsets(self, step: Json) -> Json:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap, group_id=None, enable_auto_commit=False, request_timeout_ms=10000
        )
        await consumer.start()
        try:
            tp = TopicPartition(step["topic"], int(step["partition"]))
            spec = step["spec"]
            if spec == "earliest":
                return {"offset": (await consumer.beginning_offsets([tp]))[tp], "timestamp": None}
            if spec == "latest":
                return {"offset": (await consumer.end_offsets([tp]))[tp], "timestamp": None}
            found = (await consumer.offsets_for_times({tp: int(spec["timestamp"])}))[tp]
            if found is None:
                return {"offset": -1, "timestamp": None}
            return {"offset": normalise_offset(found.offset), "timestamp": normalise_timestamp(found.timestamp)}
        finally:
            await consumer.stop()

    async def _describe_entries(self, topic: str, names: list[str] | None, synonyms: bool) -> list[dict[str, Any]]:
        """The topic's DescribeConfigs entries as dicts; a resource error is raised."""
        configs = None if names is None else dict.fromkeys(names)
        resource = ConfigResource(ConfigResourceType.TOPIC, topic, configs)
        responses = await self.admin.describe_configs([resource], include_synonyms=synonyms)
        entries: list[dict[str, Any]] = []
        for response in responses:
            for result in response.to_object()["resources"]:
                if result["error_code"]:
                    raise for_code(result["error_code"])()
                entries.extend(result["config_entries"])
        return entries

    def op_describe_configs(self, step: Json) -> Json:
        synonyms = bool(step.get("synonyms"))
        entries = self._run(self._describe_entries(step["topic"], step.get("names"), synonyms))
        described = {
            e["config_names"]: config_entry(
                e["config_value"],
                e["config_source"],
                e["read_only"],
                e["is_sensitive"],
                [(y["config_name"], y["config_value"], y["config_source"]) for y in e["config_synonyms"]]
                if synonyms
                else None,
            )
            for e in entries
        }
        return wanted_configs(step, described)

    def op_alter_configs(self, step: Json) -> Json:
        self._run(self._alter_configs(step))
        return {}

    async def _alter_configs(self, step: Json) -> None:
        entries = await self._describe_entries(step["topic"], None, False)
        configs = {e["config_names"]: e["config_value"] for e in entries if e["config_source"] == _DYNAMIC_TOPIC_CONFIG}
        for name in step.get("delete") or []:
            configs.pop(name, None)
        configs |= {name: str(value) for name, value in (step.get("set") or {}).items()}
        resource = ConfigResource(ConfigResourceType.TOPIC, step["topic"], configs)
        for response in await self.admin.alter_configs([resource]):
            for result in response.to_object()["resources"]:
                if result["error_code"]:
                    raise for_code(result["error_code"])()

    def op_delete_records(self, step: Json) -> Json:
        tp = TopicPartition(step["topic"], int(step["partition"]))
        records = {tp: RecordsToDelete(int(step["before_offset"]))}
        deleted = self._run(self.admin.delete_records(records, timeout_ms=_TIMEOUT_MS))
        return {"low_watermark": int(deleted[tp])}


if __name__ == "__main__":
    raise SystemExit(serve(AiokafkaClient))
