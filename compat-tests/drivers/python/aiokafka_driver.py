"""compat-tests driver for aiokafka.

One event loop lives for the whole session, running in its own thread so that long-lived members
(member_start) keep polling and heartbeating between steps; each step is submitted to it and runs to
completion before the next line is read. A member is a task polling its consumer (getmany) until
member_stop; a ConsumerRebalanceListener counts its rebalances. aiokafka leaves the group itself once
max_poll_interval_ms passes without a getmany, and sends no LeaveGroup for a static member
(group_instance_id). aiokafka's admin client returns raw CreateTopics/DeleteTopics responses, so their
per-topic error codes are turned into exceptions here. aiokafka has no ListOffsets MAX_TIMESTAMP spec: that step is
reported as unsupported. aiokafka has no IncrementalAlterConfigs either: alter_configs reads the topic's
dynamic configs (DescribeConfigs) and sends the whole changed set with AlterConfigs, which replaces a
topic's overrides; the outcome is the same as an incremental SET/DELETE.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

import aiokafka
import secured
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.admin.records_to_delete import RecordsToDelete
from aiokafka.client import AIOKafkaClient
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from aiokafka.errors import KafkaError, for_code
from aiokafka.structs import OffsetAndMetadata
from aiokafka_txn import AiokafkaTransactions
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
from members import POLL_S, MemberBook

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


class AiokafkaClient(AiokafkaTransactions):
    """Protocol ops on top of aiokafka, driven synchronously one step at a time; the transactional
    ops are `AiokafkaTransactions`'."""

    def __init__(self, bootstrap: str) -> None:
        AiokafkaTransactions.__init__(self)
        self.bootstrap = bootstrap
        self.name = f"aiokafka {aiokafka.__version__}"
        self.loop = asyncio.new_event_loop()
        self.loop_thread = threading.Thread(target=self.loop.run_forever, name="event-loop", daemon=True)
        self.loop_thread.start()
        self.admin: AIOKafkaAdminClient = self._run(self._start_admin())
        self.producers: dict[tuple[str, str, bool, int], AIOKafkaProducer] = {}
        self.book = MemberBook()
        self.members: dict[str, _Member] = {}

    async def _start_admin(self) -> AIOKafkaAdminClient:
        admin = AIOKafkaAdminClient(
            bootstrap_servers=self.bootstrap, **secured.aiokafka(), request_timeout_ms=_TIMEOUT_MS
        )
        await admin.start()
        return admin

    def error_name(self, exc: BaseException) -> str:
        errno = getattr(exc, "errno", None)
        if isinstance(exc, KafkaError) and isinstance(errno, int) and errno >= 0:
            return kafka_error_name(errno)
        return client_error(type(exc).__name__)

    def _run(self, coro: Any, limit_s: float = OPERATION_TIMEOUT_S + 5) -> Any:
        """Run ``coro`` on the session's loop thread and wait for its result (at most ``limit_s``)."""
        return asyncio.run_coroutine_threadsafe(asyncio.wait_for(coro, limit_s), self.loop).result()

    def close(self) -> None:
        members = list(self.members.values())
        self.members.clear()
        self._run(_stop_members(members))
        for producer in self.producers.values():
            self._run(producer.stop())
        self.close_transactions()
        self._run(self.admin.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.loop_thread.join()
        self.loop.close()

    async def _producer(self, step: Json) -> AIOKafkaProducer:
        key = producer_settings(step)
        producer = self.producers.get(key)
        if producer is None:
            acks, compression, idempotent, linger = key
            producer = AIOKafkaProducer(
                bootstrap_servers=self.bootstrap,
                **secured.aiokafka(),
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

    def op_create_partitions(self, step: Json) -> Json:
        grow = {step["topic"]: NewPartitions(int(step["partitions"]))}
        response = self._run(self.admin.create_partitions(grow, timeout_ms=_TIMEOUT_MS))
        _raise_topic_errors(response.topic_errors)
        return {}

    def op_describe_cluster(self, step: Json) -> Json:
        described = self._run(self.admin.describe_cluster())
        brokers = sorted(int(b["node_id"]) for b in described["brokers"])
        return {"brokers": brokers, "controller": int(described["controller_id"])}

    def op_delete_topic(self, step: Json) -> Json:
        response = self._run(self.admin.delete_topics([step["topic"]], timeout_ms=_TIMEOUT_MS))
        _raise_topic_errors(response.topic_error_codes)
        return {}

    def op_list_topics(self, step: Json) -> Json:
        return {"topics": self._run(self._list_topics())}

    async def _list_topics(self) -> dict[str, int]:
        client = AIOKafkaClient(bootstrap_servers=self.bootstrap, **secured.aiokafka(), request_timeout_ms=_TIMEOUT_MS)
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

    def _group_consumer(self, step: Json, member: str | None = None) -> AIOKafkaConsumer:
        """A group consumer, subscribed unless it is for ``member`` (see ``_member_start``)."""
        assignor = _ASSIGNORS.get(step.get("assignor") or "range")
        if assignor is None:
            raise Unsupported("assignor")
        optional = {
            "session_timeout_ms": step.get("session_timeout_ms"),
            "heartbeat_interval_ms": step.get("heartbeat_interval_ms"),
            "max_poll_interval_ms": step.get("max_poll_interval_ms"),
            "group_instance_id": step.get("group_instance_id"),
        }
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap,
            **secured.aiokafka(),
            group_id=step["group"],
            enable_auto_commit=False,
            auto_offset_reset=step.get("auto_offset_reset") or "earliest",
            partition_assignment_strategy=(assignor,),
            max_partition_fetch_bytes=CLIENT_MAX_REQUEST_BYTES,
            fetch_max_bytes=CLIENT_MAX_REQUEST_BYTES,
            **{key: value for key, value in optional.items() if value is not None},
        )
        if member is None:
            consumer.subscribe([step["topic"]])
        return consumer

    def op_member_start(self, step: Json) -> Json:
        name = str(step["member"])
        self.book.add(name)
        try:
            self.members[name] = self._run(self._member_start(step, name))
        except BaseException:
            self.book.remove(name)
            raise
        return {}

    async def _member_start(self, step: Json, name: str) -> _Member:
        """Start the consumer, then subscribe: subscribed before start, start() would wait for an assignment."""
        consumer = self._group_consumer(step, name)
        await consumer.start()
        consumer.subscribe([step["topic"]], listener=_CountingListener(self.book, name))
        return _Member(name, consumer, self.book)

    def op_members_wait(self, step: Json) -> Json:
        return self.book.wait(step)

    def op_member_pause(self, step: Json) -> Json:
        self.members[str(step["member"])].pause(int(step["ms"]))
        return {}

    def op_member_stop(self, step: Json) -> Json:
        self._run(self.members.pop(str(step["member"])).stop())
        return {}

    def op_group_consume(self, step: Json) -> Json:
        result: Json = self._run_long(self._group_consume(step), step)
        return result

    def _run_long(self, coro: Any, step: Json) -> Any:
        return self._run(coro, int(step.get("timeout_ms", 5000)) / 1000 + OPERATION_TIMEOUT_S)

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
            **secured.aiokafka(),
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
            bootstrap_servers=self.bootstrap,
            **secured.aiokafka(),
            group_id=None,
            enable_auto_commit=False,
            request_timeout_ms=10000,
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


async def _stop_members(members: list[_Member]) -> None:
    """Stop members at once (each stop may wait for the coordinator)."""
    await asyncio.gather(*(m.stop() for m in members))


class _CountingListener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Counts a member's completed assignments in the member book."""

    def __init__(self, book: MemberBook, member: str) -> None:
        self.book = book
        self.member = member

    def on_partitions_revoked(self, revoked: Any) -> None:
        return None

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.book.assigned(self.member)


class _Member:
    """A long-lived member: a task on the session's loop polling ``consumer`` until ``stop``.

    Created on the loop thread; ``pause`` may be called from any thread (it only sets a deadline)."""

    def __init__(self, name: str, consumer: AIOKafkaConsumer, book: MemberBook) -> None:
        self.name = name
        self.consumer = consumer
        self.book = book
        self.stopping = False
        self.paused_until = 0.0
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while not self.stopping:
            left = self.paused_until - time.monotonic()
            if left > 0:
                await asyncio.sleep(min(left, POLL_S))
                continue
            try:
                await self.consumer.getmany(timeout_ms=int(POLL_S * 1000))
                self.book.report(self.name, self.consumer.assignment())
            except Exception:
                logging.exception("member %s: getmany failed", self.name)
                await asyncio.sleep(POLL_S)

    def pause(self, ms: int) -> None:
        self.paused_until = time.monotonic() + ms / 1000

    async def stop(self) -> None:
        """End the poll task, then stop the consumer (a dynamic member leaves the group)."""
        self.stopping = True
        await self.task
        try:
            await self.consumer.stop()
        finally:
            self.book.remove(self.name)


if __name__ == "__main__":
    raise SystemExit(serve(AiokafkaClient))
