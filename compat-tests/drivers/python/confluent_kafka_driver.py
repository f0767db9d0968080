"""compat-tests driver for confluent-kafka (librdkafka).

librdkafka reports broker errors with Kafka's numeric codes (named differently, e.g. UNKNOWN_TOPIC_OR_PART),
so names are derived from the code; its local errors have negative codes and become CLIENT_ERROR:<name>.
Producers are cached per (acks, compression, idempotence, linger) so a scenario reuses one connection set.
Long-lived members (member_start) are polled by their own threads (members.py); their rebalances are
counted by the on_assign callback. librdkafka supports static membership (group.instance.id) and, like
the Java client, sends no LeaveGroup when a static member closes.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

import confluent_kafka
import secured
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
from confluent_kafka import Consumer, ElectionType, KafkaError, KafkaException, Message, Producer, TopicPartition
from confluent_kafka.admin import (  # type: ignore[attr-defined]
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
    OffsetSpec,
    ResourceType,
)
from confluent_kafka_txn import ConfluentTransactions
from members import POLL_S, MemberBook, ThreadMember, ThreadMemberOps, stop_all

_ISOLATION = {"read_uncommitted": "read_uncommitted", "read_committed": "read_committed"}
_RESET = {"earliest": "earliest", "latest": "latest", "none": "error"}
_TIMESTAMP_TYPES = {
    confluent_kafka.TIMESTAMP_CREATE_TIME: "CreateTime",
    confluent_kafka.TIMESTAMP_LOG_APPEND_TIME: "LogAppendTime",
}
_ASSIGNORS = {"range": "range", "roundrobin": "roundrobin", "cooperative-sticky": "cooperative-sticky"}


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


class ConfluentClient(ThreadMemberOps, ConfluentTransactions):
    """Protocol ops on top of confluent-kafka's Producer, Consumer and AdminClient; the transactional
    ops are `ConfluentTransactions`'."""

    def __init__(self, bootstrap: str) -> None:
        ConfluentTransactions.__init__(self)
        self.bootstrap = bootstrap
        self.name = f"confluent-kafka {confluent_kafka.version()[0]} (librdkafka {confluent_kafka.libversion()[0]})"
        self.admin = AdminClient({"bootstrap.servers": bootstrap, **secured.confluent()})
        self.producers: dict[tuple[str, str, bool, int], Producer] = {}
        self.book = MemberBook()
        self.members: dict[str, ThreadMember] = {}

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
        stop_all(self.members)
        for producer in self.producers.values():
            producer.flush(OPERATION_TIMEOUT_S)
        self.close_transactions()

    def _producer(self, step: Json) -> Producer:
        key = producer_settings(step)
        producer = self.producers.get(key)
        if producer is None:
            acks, compression, idempotent, linger = key
            producer = Producer(
                {
                    "bootstrap.servers": self.bootstrap,
                    **secured.confluent(),
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

    def op_create_partitions(self, step: Json) -> Json:
        grow = NewPartitions(step["topic"], int(step["partitions"]))
        futures = self.admin.create_partitions([grow], operation_timeout=OPERATION_TIMEOUT_S)
        futures[step["topic"]].result(OPERATION_TIMEOUT_S)
        return {}

    def op_elect_leaders(self, step: Json) -> Json:
        election = ElectionType.UNCLEAN if step.get("election") == "unclean" else ElectionType.PREFERRED
        wanted = [TopicPartition(step["topic"], int(p)) for p in sorted(step["partitions"])]
        outcome = self.admin.elect_leaders(election, wanted).result(OPERATION_TIMEOUT_S)
        errors = {tp.partition: err for tp, err in outcome.items()}
        results = []
        for tp in wanted:
            err = errors.get(tp.partition)
            results.append({"partition": tp.partition, "error": None if err is None else self._kafka_error(err)})
        return {"results": results}

    def op_describe_cluster(self, step: Json) -> Json:
        described = self.admin.describe_cluster(request_timeout=OPERATION_TIMEOUT_S).result(OPERATION_TIMEOUT_S)
        return {"brokers": sorted(node.id for node in described.nodes), "controller": described.controller.id}

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
                **secured.confluent(),
                # librdkafka insists on a group id even for assign(); nothing is ever committed to it.
                "group.id": f"compat-assign-{os.getpid()}",
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "isolation.level": _ISOLATION[step.get("isolation", "read_uncommitted")],
                "fetch.message.max.bytes": CLIENT_MAX_REQUEST_BYTES,
                **({"auto.offset.reset": _RESET[step["auto_offset_reset"]]} if step.get("auto_offset_reset") else {}),
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
                record = self._record(msg)
                kind = _TIMESTAMP_TYPES.get(msg.timestamp()[0])
                if kind is not None:
                    record["timestamp_type"] = kind
                records.append(record)
            return {"records": records}
        finally:
            consumer.close()

    def _record(self, msg: Message) -> Json:
        return {
            "partition": msg.partition(),
            "offset": msg.offset(),
            "key": b64encode(msg.key()),
            "value": b64encode(msg.value()),
            "headers": headers_out(msg.headers()),
            "timestamp": normalise_timestamp(msg.timestamp()[1]),
        }

    def _group_consumer(self, step: Json, member: str | None = None) -> Consumer:
        """A subscribed group consumer; with ``member``, its assigned callbacks count in the member book."""
        assignor = _ASSIGNORS.get(step.get("assignor") or "range")
        reset = _RESET.get(step.get("auto_offset_reset") or "earliest")
        if assignor is None or reset is None:
            raise Unsupported("assignor or auto_offset_reset")
        optional = {
            "session.timeout.ms": step.get("session_timeout_ms"),
            "heartbeat.interval.ms": step.get("heartbeat_interval_ms"),
            "max.poll.interval.ms": step.get("max_poll_interval_ms"),
            "group.instance.id": step.get("group_instance_id"),
        }
        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                **secured.confluent(),
                "group.id": step["group"],
                "group.protocol": "classic",
                "enable.auto.commit": False,
                "auto.offset.reset": reset,
                "partition.assignment.strategy": assignor,
                "fetch.message.max.bytes": CLIENT_MAX_REQUEST_BYTES,
                **{key: value for key, value in optional.items() if value is not None},
            }
        )
        if member is None:
            consumer.subscribe([step["topic"]])
        else:
            book = self.book

            def on_assign(consumer: Consumer, partitions: list[TopicPartition]) -> None:
                book.assigned(member)

            consumer.subscribe([step["topic"]], on_assign=on_assign)
        return consumer

    def op_member_start(self, step: Json) -> Json:
        name = str(step["member"])
        self.book.add(name)
        try:
            consumer = self._group_consumer(step, name)
        except BaseException:
            self.book.remove(name)
            raise
        self.members[name] = ThreadMember(
            name, self.book, lambda: _poll_discard(consumer), consumer.assignment, consumer.close
        )
        return {}

    def op_group_consume(self, step: Json) -> Json:
        consumer = self._group_consumer(step)
        try:
            wanted = int(step.get("max_records", 1))
            deadline = time.monotonic() + int(step.get("timeout_ms", 5000)) / 1000
            kept: list[Message] = []
            while len(kept) < wanted:
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
                kept.append(msg)
            assignment = assignment_pairs(consumer.assignment())
            if step.get("commit") and kept:
                points = commit_points([(str(m.topic()), int(m.partition() or 0), int(m.offset() or 0)) for m in kept])
                offsets = [TopicPartition(t, p, o) for (t, p), o in points.items()]
                consumer.commit(offsets=offsets, asynchronous=False)
            return {"records": sorted_records([self._record(m) for m in kept]), "assignment": assignment}
        finally:
            consumer.close()

    def op_group_members(self, step: Json) -> Json:
        metadata = self.admin.list_topics(step["topic"], timeout=OPERATION_TIMEOUT_S)
        total = len(metadata.topics[step["topic"]].partitions)
        count = int(step["members"])
        consumers = [self._group_consumer(step) for _ in range(count)]
        assignments: list[list[list[Any]]] = [[] for _ in range(count)]
        stop = threading.Event()

        def member(index: int) -> None:
            while not stop.is_set():
                consumers[index].poll(0.1)
                assignments[index] = assignment_pairs(consumers[index].assignment())

        threads = [threading.Thread(target=member, args=(i,), daemon=True) for i in range(count)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + int(step.get("timeout_ms", 30000)) / 1000
        try:
            while time.monotonic() < deadline and not covers_exactly(list(assignments), total):
                time.sleep(0.05)
            return {"members": sorted_members(list(assignments))}
        finally:
            stop.set()
            for thread in threads:
                thread.join()
            closers = [threading.Thread(target=c.close) for c in consumers]
            for closer in closers:
                closer.start()
            for closer in closers:
                closer.join()

    def op_committed(self, step: Json) -> Json:
        consumer = Consumer({"bootstrap.servers": self.bootstrap, **secured.confluent(), "group.id": step["group"]})
        try:
            wanted = [TopicPartition(step["topic"], int(p)) for p in step["partitions"]]
            got = consumer.committed(wanted, timeout=OPERATION_TIMEOUT_S)
            for tp in got:
                if tp.error is not None:
                    raise KafkaException(tp.error)
            return {"offsets": [{"partition": tp.partition, "offset": normalise_offset(tp.offset)} for tp in got]}
        finally:
            consumer.close()

    def op_describe_group(self, step: Json) -> Json:
        futures = self.admin.describe_consumer_groups([step["group"]], request_timeout=OPERATION_TIMEOUT_S)
        desc = futures[step["group"]].result(OPERATION_TIMEOUT_S)
        members = [assignment_pairs(m.assignment.topic_partitions) for m in desc.members]
        return {
            "state": group_state(desc.state),
            "protocol": desc.partition_assignor,
            "members": sorted_members(members),
        }

    def op_list_groups(self, step: Json) -> Json:
        result = self.admin.list_consumer_groups(request_timeout=OPERATION_TIMEOUT_S).result(OPERATION_TIMEOUT_S)
        groups = [{"group": g.group_id, "state": group_state(g.state)} for g in result.valid]
        return {"groups": sorted(groups, key=lambda g: g["group"])}

    def op_list_offsets(self, step: Json) -> Json:
        tp = TopicPartition(step["topic"], int(step["partition"]))
        futures = self.admin.list_offsets({tp: _offset_spec(step["spec"])}, request_timeout=OPERATION_TIMEOUT_S)
        info = next(iter(futures.values())).result(OPERATION_TIMEOUT_S)
        return {"offset": normalise_offset(info.offset), "timestamp": normalise_timestamp(info.timestamp)}

    def _topic_resource(self, step: Json, **kwargs: Any) -> ConfigResource:
        return ConfigResource(ResourceType.TOPIC, step["topic"], **kwargs)

    def op_describe_configs(self, step: Json) -> Json:
        futures = self.admin.describe_configs([self._topic_resource(step)], request_timeout=OPERATION_TIMEOUT_S)
        entries = next(iter(futures.values())).result(OPERATION_TIMEOUT_S)
        described = {
            name: config_entry(
                e.value,
                e.source,
                e.is_read_only,
                e.is_sensitive,
                [(s.name, s.value, s.source) for s in e.synonyms.values()] if step.get("synonyms") else None,
                is_default=e.is_default,
            )
            for name, e in entries.items()
        }
        return wanted_configs(step, described)

    def op_alter_configs(self, step: Json) -> Json:
        changes = [
            ConfigEntry(name, str(value), incremental_operation=AlterConfigOpType.SET)
            for name, value in (step.get("set") or {}).items()
        ]
        changes += [
            ConfigEntry(name, None, incremental_operation=AlterConfigOpType.DELETE) for name in step.get("delete") or []
        ]
        resource = self._topic_resource(step, incremental_configs=changes)
        futures = self.admin.incremental_alter_configs([resource], request_timeout=OPERATION_TIMEOUT_S)
        next(iter(futures.values())).result(OPERATION_TIMEOUT_S)
        return {}

    def op_delete_records(self, step: Json) -> Json:
        tp = TopicPartition(step["topic"], int(step["partition"]), int(step["before_offset"]))
        futures = self.admin.delete_records([tp], request_timeout=OPERATION_TIMEOUT_S)
        deleted = next(iter(futures.values())).result(OPERATION_TIMEOUT_S)
        return {"low_watermark": int(deleted.low_watermark)}


def _poll_discard(consumer: Consumer) -> None:
    """One poll of a long-lived member; records are dropped, errors other than end-of-partition logged."""
    msg = consumer.poll(POLL_S)
    err = None if msg is None else msg.error()
    if err is not None and err.code() != KafkaError._PARTITION_EOF:
        logging.warning("member poll: %s", err)


if __name__ == "__main__":
    raise SystemExit(serve(ConfluentClient))
