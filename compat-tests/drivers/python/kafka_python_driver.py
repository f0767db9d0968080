"""compat-tests driver for kafka-python.

kafka-python's broker errors are KafkaError subclasses carrying Kafka's code in ``errno``; anything else
(timeouts, assertion failures on bad arguments) becomes CLIENT_ERROR:<exception class>.
describe_configs sends DescribeConfigsRequest itself because the admin client's describe_configs drops
per-resource error codes; alter_configs uses IncrementalAlterConfigs with the client's own pre-check of
config names turned off, so that unknown names are judged by the broker.
Long-lived members (member_start) are polled by their own threads (members.py; kafka-python's heartbeat
thread runs beside them, and leaves the group once max_poll_interval_ms passes without a poll); their
rebalances are counted by a ConsumerRebalanceListener. Static members (group_instance_id) send no
LeaveGroup on close, as in the Java client.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import kafka
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
from kafka import (
    ConsumerRebalanceListener,
    KafkaAdminClient,
    KafkaConsumer,
    KafkaProducer,
    OffsetAndMetadata,
    TopicPartition,
)
from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType, NewPartitions, NewTopic, OffsetSpec
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.errors import KafkaError
from kafka.protocol.admin import DescribeConfigsRequest
from kafka_python_txn import KafkaPythonTransactions
from members import POLL_S, MemberBook, ThreadMember, ThreadMemberOps, stop_all

_TIMEOUT_MS = int(OPERATION_TIMEOUT_S * 1000)
_TIMESTAMP_TYPES = {0: "CreateTime", 1: "LogAppendTime"}
_ERROR_CODE = re.compile(r"\[Error (-?\d+)\]")
_ASSIGNORS: dict[str, Any] = {
    "range": RangePartitionAssignor,
    "roundrobin": RoundRobinPartitionAssignor,
    "sticky": StickyPartitionAssignor,
}


def _offset_spec(spec: Any) -> Any:
    if spec == "earliest":
        return OffsetSpec.EARLIEST
    if spec == "latest":
        return OffsetSpec.LATEST
    if spec == "max_timestamp":
        return OffsetSpec.MAX_TIMESTAMP
    return int(spec["timestamp"])


class KafkaPythonClient(ThreadMemberOps, KafkaPythonTransactions):
    """Protocol ops on top of kafka-python's KafkaProducer, KafkaConsumer and KafkaAdminClient; the
    transactional ops are `KafkaPythonTransactions`'."""

    def __init__(self, bootstrap: str) -> None:
        KafkaPythonTransactions.__init__(self)
        self.bootstrap = bootstrap
        self.name = f"kafka-python {kafka.__version__}"
        self.admin = KafkaAdminClient(
            bootstrap_servers=bootstrap, **secured.kafka_python(), request_timeout_ms=_TIMEOUT_MS
        )
        self.producers: dict[tuple[str, str, bool, int], KafkaProducer] = {}
        self.book = MemberBook()
        self.members: dict[str, ThreadMember] = {}

    def error_name(self, exc: BaseException) -> str:
        errno = getattr(exc, "errno", None)
        if isinstance(exc, KafkaError) and isinstance(errno, int):
            return kafka_error_name(errno)
        return client_error(type(exc).__name__)

    def close(self) -> None:
        stop_all(self.members)
        for producer in self.producers.values():
            producer.close(timeout=OPERATION_TIMEOUT_S)
        self.close_transactions()
        self.admin.close()

    def _producer(self, step: Json) -> KafkaProducer:
        key = producer_settings(step)
        producer = self.producers.get(key)
        if producer is None:
            acks, compression, idempotent, linger = key
            producer = KafkaProducer(
                bootstrap_servers=self.bootstrap,
                **secured.kafka_python(),
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

    def op_create_partitions(self, step: Json) -> Json:
        self.admin.create_partitions({step["topic"]: NewPartitions(int(step["partitions"]))}, timeout_ms=_TIMEOUT_MS)
        return {}

    def op_elect_leaders(self, step: Json) -> Json:
        election = 1 if step.get("election") == "unclean" else 0
        answer = self.admin.elect_leaders(election, {step["topic"]: list(step["partitions"])}, raise_errors=False)
        codes = {
            p.partition_id: p.error_code
            for result in answer.replica_election_results
            for p in result.partition_result
            if result.topic == step["topic"]
        }
        results = [
            {"partition": p, "error": kafka_error_name(codes[p]) if codes.get(p, 0) else None}
            for p in sorted(step["partitions"])
        ]
        return {"results": results}

    def op_alter_reassignment(self, step: Json) -> Json:
        tp = TopicPartition(step["topic"], int(step["partition"]))
        outcome = self.admin.alter_partition_reassignments({tp: step.get("replicas")})
        error = outcome.get(tp)
        if error is not None:
            raise error()
        return {}

    def op_list_reassignments(self, step: Json) -> Json:
        listed = self.admin.list_partition_reassignments({step["topic"]: list(step["partitions"])})
        return {"reassignments": sorted([tp.topic, tp.partition] for tp in listed)}

    def op_describe_cluster(self, step: Json) -> Json:
        described = self.admin.describe_cluster()
        brokers = sorted(int(b["broker_id"]) for b in described["brokers"])
        return {"brokers": brokers, "controller": int(described["controller_id"])}

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
            **secured.kafka_python(),
            group_id=None,
            enable_auto_commit=False,
            isolation_level=step.get("isolation", "read_uncommitted"),
            max_partition_fetch_bytes=CLIENT_MAX_REQUEST_BYTES,
            fetch_max_bytes=CLIENT_MAX_REQUEST_BYTES,
            **({"auto_offset_reset": step["auto_offset_reset"]} if step.get("auto_offset_reset") else {}),
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
                        record = self._record(msg)
                        if msg.timestamp_type in _TIMESTAMP_TYPES:
                            record["timestamp_type"] = _TIMESTAMP_TYPES[msg.timestamp_type]
                        records.append(record)
            return {"records": records}
        finally:
            consumer.close()

    @staticmethod
    def _record(msg: Any) -> Json:
        return {
            "partition": msg.partition,
            "offset": msg.offset,
            "key": b64encode(msg.key),
            "value": b64encode(msg.value),
            "headers": headers_out(msg.headers),
            "timestamp": normalise_timestamp(msg.timestamp),
        }

    def _group_consumer(self, step: Json, member: str | None = None) -> KafkaConsumer:
        """A subscribed group consumer; with ``member``, its assigned callbacks count in the member book."""
        assignor = _ASSIGNORS.get(step.get("assignor") or "range")
        if assignor is None:
            raise Unsupported("assignor")
        optional = {
            "session_timeout_ms": step.get("session_timeout_ms"),
            "heartbeat_interval_ms": step.get("heartbeat_interval_ms"),
            "max_poll_interval_ms": step.get("max_poll_interval_ms"),
            "group_instance_id": step.get("group_instance_id"),
        }
        consumer = KafkaConsumer(
            bootstrap_servers=self.bootstrap,
            **secured.kafka_python(),
            group_id=step["group"],
            enable_auto_commit=False,
            auto_offset_reset=step.get("auto_offset_reset") or "earliest",
            partition_assignment_strategy=(assignor,),
            max_partition_fetch_bytes=CLIENT_MAX_REQUEST_BYTES,
            fetch_max_bytes=CLIENT_MAX_REQUEST_BYTES,
            **{key: value for key, value in optional.items() if value is not None},
        )
        listener = None if member is None else _CountingListener(self.book, member)
        consumer.subscribe([step["topic"]], listener=listener)
        return consumer

    def op_member_start(self, step: Json) -> Json:
        name = str(step["member"])
        self.book.add(name)
        try:
            consumer = self._group_consumer(step, name)
        except BaseException:
            self.book.remove(name)
            raise

        def poll() -> None:
            consumer.poll(timeout_ms=int(POLL_S * 1000))

        self.members[name] = ThreadMember(name, self.book, poll, consumer.assignment, consumer.close)
        return {}

    def op_group_consume(self, step: Json) -> Json:
        consumer = self._group_consumer(step)
        try:
            wanted = int(step.get("max_records", 1))
            deadline = time.monotonic() + int(step.get("timeout_ms", 5000)) / 1000
            kept: list[Any] = []
            while len(kept) < wanted:
                left_ms = int((deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    break
                batch = consumer.poll(timeout_ms=min(left_ms, 500), max_records=wanted - len(kept))
                kept.extend(msg for msgs in batch.values() for msg in msgs)
            assignment = assignment_pairs(consumer.assignment())
            if step.get("commit") and kept:
                points = commit_points([(m.topic, m.partition, m.offset) for m in kept])
                consumer.commit({TopicPartition(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in points.items()})
            return {"records": sorted_records([self._record(m) for m in kept]), "assignment": assignment}
        finally:
            consumer.close()

    def op_group_members(self, step: Json) -> Json:
        total = len(self.admin.describe_topics([step["topic"]])[0]["partitions"])
        count = int(step["members"])
        consumers = [self._group_consumer(step) for _ in range(count)]
        assignments: list[list[list[Any]]] = [[] for _ in range(count)]
        stop = threading.Event()

        def member(index: int) -> None:
            while not stop.is_set():
                consumers[index].poll(timeout_ms=100)
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
            for consumer in consumers:
                consumer.close()

    def op_committed(self, step: Json) -> Json:
        wanted = [TopicPartition(step["topic"], int(p)) for p in step["partitions"]]
        got = self.admin.list_group_offsets({step["group"]: wanted}).get(step["group"], {})
        offsets = []
        for tp in wanted:
            meta = got.get(tp)
            offsets.append({"partition": tp.partition, "offset": -1 if meta is None else normalise_offset(meta.offset)})
        return {"offsets": offsets}

    def op_describe_group(self, step: Json) -> Json:
        desc = self.admin.describe_groups([step["group"]])[step["group"]]
        if desc.get("error"):
            code = re.match(r"\[Error (-?\d+)\]", str(desc["error"]))
            raise kafka.errors.for_code(int(code.group(1)))() if code else RuntimeError(desc["error"])
        members = []
        for member in desc.get("members") or []:
            assignment = member.get("member_assignment")
            members.append(assignment_pairs(_assigned(assignment)))
        return {
            "state": group_state(desc.get("group_state")),
            "protocol_type": desc.get("protocol_type"),
            "protocol": desc.get("protocol_data"),
            "members": sorted_members(members),
        }

    def op_list_groups(self, step: Json) -> Json:
        groups = []
        for g in self.admin.list_groups():
            entry: Json = {"group": g["group_id"], "protocol_type": g.get("protocol_type")}
            if "group_state" in g:
                entry["state"] = group_state(g["group_state"])
            groups.append(entry)
        return {"groups": sorted(groups, key=lambda g: g["group"])}

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

    def op_describe_configs(self, step: Json) -> Json:
        # The public describe_configs drops per-resource error codes, so the request is sent as is.
        request = DescribeConfigsRequest(
            resources=[(ConfigResourceType.TOPIC, step["topic"], step.get("names"))],
            include_synonyms=bool(step.get("synonyms")),
            min_version=1,
        )
        manager = self.admin._manager
        response = manager.run(manager.send, request)
        described: dict[str, Json] = {}
        for result in response.results:
            if result.error_code:
                raise kafka.errors.for_code(result.error_code)(result.error_message)
            for config in result.configs:
                c = config.to_dict()
                synonyms = [(y["name"], y["value"], y["source"]) for y in c.get("synonyms") or []]
                described[c["name"]] = config_entry(
                    c["value"],
                    c["config_source"],
                    c["read_only"],
                    c["is_sensitive"],
                    synonyms if step.get("synonyms") else None,
                )
        return wanted_configs(step, described)

    def op_alter_configs(self, step: Json) -> Json:
        changes: dict[str, Any] = {name: (AlterConfigOp.SET, str(v)) for name, v in (step.get("set") or {}).items()}
        changes |= {name: (AlterConfigOp.DELETE, None) for name in step.get("delete") or []}
        resource = ConfigResource(ConfigResourceType.TOPIC, step["topic"], changes)
        result = self.admin.alter_configs([resource], raise_on_unknown=False, incremental=True)
        outcome = str(result.get("topic", {}).get(step["topic"], "OK"))
        if outcome != "OK":
            code = _ERROR_CODE.match(outcome)
            raise kafka.errors.for_code(int(code.group(1)))() if code else RuntimeError(outcome)
        return {}

    def op_delete_records(self, step: Json) -> Json:
        tp = TopicPartition(step["topic"], int(step["partition"]))
        result = self.admin.delete_records({tp: int(step["before_offset"])}, timeout_ms=_TIMEOUT_MS)
        return {"low_watermark": int(result[tp]["low_watermark"])}


class _CountingListener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Counts a member's completed assignments in the member book."""

    def __init__(self, book: MemberBook, member: str) -> None:
        self.book = book
        self.member = member

    def on_partitions_revoked(self, revoked: Any) -> None:
        return None

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.book.assigned(self.member)


def _assigned(assignment: Any) -> list[list[Any]]:
    """[topic, partition] pairs of a member's assignment as describe_groups returns it: kafka-python 3
    decodes it and turns it into a dict ({"assigned_partitions": [{"topic", "partitions"}]}); older
    releases keep the decoded object; undecodable bytes are decoded here; absent means none."""
    if not assignment:
        return []
    if isinstance(assignment, bytes | bytearray):
        return decode_consumer_assignment(bytes(assignment))
    if isinstance(assignment, dict):
        topics = [(t["topic"], t["partitions"]) for t in assignment.get("assigned_partitions") or []]
    else:
        topics = list(getattr(assignment, "assignment", None) or [])
    return [[topic, int(p)] for topic, partitions in topics for p in partitions]


if __name__ == "__main__":
    raise SystemExit(serve(KafkaPythonClient))
