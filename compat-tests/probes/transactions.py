"""Probe sequences for transactions (issue 12): the transaction coordinator's APIs and their error
paths, transactional produce, markers, the last stable offset and read_committed fetches,
transactional offset commits, transactions v2 and the introspection APIs.

Producer ids are broker-assigned; both brokers hand them out from 0 on a fresh cluster in the
same order, so they compare as they are.  Times a broker reads from its clock (a transaction's
start, a producer's last timestamp, a marker's timestamp) are replaced by ``<time>`` when set;
fetched record sets are compared as their decoded batches (offsets, producer, sequence, kind,
records), not as bytes, because a marker's timestamp is the broker's clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from odradek.wire.api import ApiKey
from odradek.wire.records.batch import iter_batches
from odradek.wire.records.builder import build_batch, decode_batch, parse_control_record
from odradek.wire.records.record import Record
from probes.groups import coordinator_ready, join, topic_with, until
from probes.session import Session
from probes.storage import T0

__all__ = ["SEQUENCES"]

TRANSACTION = 1
_TIME_FIELDS = {"transaction_start_time_ms", "last_timestamp"}


def _batch(pid: int, epoch: int, sequence: int, count: int = 2, transactional: bool = True, tag: str = "r") -> bytes:
    records = [
        Record(offset_delta=i, timestamp_delta=i, key=b"k", value=f"{tag}{sequence + i}".encode()) for i in range(count)
    ]
    return build_batch(
        records,
        producer_id=pid,
        producer_epoch=epoch,
        base_sequence=sequence,
        is_transactional=transactional,
        base_timestamp=T0,
        max_timestamp=T0 + count - 1,
    )


def _mask_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: ("<time>" if k in _TIME_FIELDS and isinstance(v, int) and v > 0 else _mask_times(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_mask_times(v) for v in value]
    return value


def _keep(s: Session, response: Any) -> Any:
    """Replace the last observation's response (a masked or summarised one)."""
    s.observations[-1] = replace(s.observations[-1], response=response)
    return response


def _decoded(records_hex: str | None) -> Any:
    """A fetched record set as its batches, without the broker-chosen timestamps and CRCs."""
    if not records_hex:
        return records_hex
    data = bytes.fromhex(records_hex)
    batches = []
    for position, header in iter_batches(data):
        if position + header.total_size > len(data):
            batches.append({"partial_batch_at": header.base_offset})
            break
        _, records = decode_batch(data, position)
        entry: dict[str, Any] = {
            "base_offset": header.base_offset,
            "last_offset_delta": header.last_offset_delta,
            "producer_id": header.producer_id,
            "producer_epoch": header.producer_epoch,
            "base_sequence": header.base_sequence,
            "transactional": header.is_transactional,
            "control": header.is_control,
            "leader_epoch": header.partition_leader_epoch,
        }
        if header.is_control:
            control = parse_control_record(records[0])
            entry["marker"] = (int(control.type), control.coordinator_epoch)
        else:
            entry["values"] = [(r.value or b"").decode() for r in records]
        batches.append(entry)
    return batches


class Txn:
    """One transactional id's raw requests."""

    def __init__(self, s: Session, tid: str) -> None:
        self.s = s
        self.tid = tid
        self.pid = -1
        self.epoch = -1

    def find(self) -> None:
        def ready() -> bool:
            answer = self.s.call(
                "find coordinator", ApiKey.FIND_COORDINATOR, 4, key_type=TRANSACTION, coordinator_keys=[self.tid]
            )
            return bool(answer["coordinators"][0]["error_code"] == 0)

        until(self.s, ready, f"transaction coordinator of {self.tid}")

    def init(self, label: str, version: int = 4, timeout_ms: int = 60_000, **fields: Any) -> Any:
        if version >= 3:
            fields.setdefault("producer_id", -1)
            fields.setdefault("producer_epoch", -1)
        answer = self.s.call(
            label,
            ApiKey.INIT_PRODUCER_ID,
            version,
            transactional_id=self.tid,
            transaction_timeout_ms=timeout_ms,
            **fields,
        )
        if answer["error_code"] == 0:
            self.pid, self.epoch = int(answer["producer_id"]), int(answer["producer_epoch"])
        return answer

    def init_ready(self, timeout_ms: int = 60_000) -> None:
        """InitProducerId until the coordinator has loaded (not kept: timing)."""
        until(self.s, lambda: self.init("init producer id", timeout_ms=timeout_ms)["error_code"] == 0, "init")

    def add(self, label: str, topics: dict[str, list[int]], version: int = 3, **override: Any) -> Any:
        fields = {
            "v3_and_below_transactional_id": self.tid,
            "v3_and_below_producer_id": self.pid,
            "v3_and_below_producer_epoch": self.epoch,
            "v3_and_below_topics": [{"name": t, "partitions": ps} for t, ps in topics.items()],
        }
        fields.update(override)
        return self.s.call(label, ApiKey.ADD_PARTITIONS_TO_TXN, version, **fields)

    def add_batched(self, label: str, topics: dict[str, list[int]], verify_only: bool, version: int = 4) -> Any:
        transaction = {
            "transactional_id": self.tid,
            "producer_id": self.pid,
            "producer_epoch": self.epoch,
            "verify_only": verify_only,
            "topics": [{"name": t, "partitions": ps} for t, ps in topics.items()],
        }
        return self.s.call(label, ApiKey.ADD_PARTITIONS_TO_TXN, version, transactions=[transaction])

    def add_offsets(self, label: str, group: str, version: int = 3, **override: Any) -> Any:
        fields = {
            "transactional_id": self.tid,
            "producer_id": self.pid,
            "producer_epoch": self.epoch,
            "group_id": group,
        }
        fields.update(override)
        return self.s.call(label, ApiKey.ADD_OFFSETS_TO_TXN, version, **fields)

    def end(self, label: str, commit: bool, version: int = 3, **override: Any) -> Any:
        fields = {
            "transactional_id": self.tid,
            "producer_id": self.pid,
            "producer_epoch": self.epoch,
            "committed": commit,
        }
        fields.update(override)
        answer = self.s.call(label, ApiKey.END_TXN, version, **fields)
        if version >= 5 and answer["error_code"] == 0 and not override:
            self.pid, self.epoch = int(answer["producer_id"]), int(answer["producer_epoch"])
        return answer

    def produce(
        self, label: str, topic: str, partition: int, batch: bytes, version: int = 11, tid: str | None = "<self>"
    ) -> Any:
        data = [{"name": topic, "partition_data": [{"index": partition, "records": batch}]}]
        return self.s.call(
            label,
            ApiKey.PRODUCE,
            version,
            transactional_id=self.tid if tid == "<self>" else tid,
            acks=-1,
            timeout_ms=5000,
            topic_data=data,
        )

    def describe(self, label: str) -> Any:
        answer = self.s.call(label, ApiKey.DESCRIBE_TRANSACTIONS, 0, transactional_ids=[self.tid])
        return _keep(self.s, _mask_times(answer))

    def wait_state(self, state: str) -> None:
        def reached() -> bool:
            answer = self.s.call("describe", ApiKey.DESCRIBE_TRANSACTIONS, 0, transactional_ids=[self.tid])
            return bool(answer["transaction_states"][0]["transaction_state"] == state)

        until(self.s, reached, f"{self.tid} {state}")


def fetch(s: Session, label: str, topic: str, partitions: int, isolation: int, offset: int = 0) -> Any:
    parts = [
        {
            "partition": p,
            "current_leader_epoch": -1,
            "fetch_offset": offset,
            "last_fetched_epoch": -1,
            "log_start_offset": -1,
            "partition_max_bytes": 1 << 20,
        }
        for p in range(partitions)
    ]
    answer = s.call(
        label,
        ApiKey.FETCH,
        12,
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=1 << 20,
        isolation_level=isolation,
        session_id=0,
        session_epoch=-1,
        topics=[{"topic": topic, "partitions": parts}],
        forgotten_topics_data=[],
        rack_id="",
    )
    for t in answer["responses"]:
        for p in t["partitions"]:
            p["records"] = _decoded(p["records"])
    return _keep(s, answer)


def list_offsets(s: Session, label: str, topic: str, partitions: int, isolation: int, timestamp: int = -1) -> Any:
    parts = [{"partition_index": p, "current_leader_epoch": -1, "timestamp": timestamp} for p in range(partitions)]
    return s.call(
        label,
        ApiKey.LIST_OFFSETS,
        9,
        replica_id=-1,
        isolation_level=isolation,
        topics=[{"name": topic, "partitions": parts}],
    )


def describe_producers(s: Session, label: str, topic: str, partitions: list[int]) -> Any:
    answer = s.call(label, ApiKey.DESCRIBE_PRODUCERS, 0, topics=[{"name": topic, "partition_indexes": partitions}])
    return _keep(s, _mask_times(answer))


# ----------------------------------------------------------------------------- sequences


def init_producer_id(s: Session, names: dict[str, str]) -> None:
    """InitProducerId for transactional ids: bad arguments, timeouts, epoch bumps, KIP-360."""
    txn = Txn(s, names["group"] + "-tx")
    txn.find()
    txn.init_ready()
    first = (txn.pid, txn.epoch)
    txn.init("again: the epoch is bumped")
    txn.init("v0", version=0)
    txn.init("v2", version=2)
    txn.init("v5", version=5)
    s.call("an empty transactional id", ApiKey.INIT_PRODUCER_ID, 4, transactional_id="",
           transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1)  # fmt: skip
    txn.init("timeout 0", timeout_ms=0)
    txn.init("timeout -1", timeout_ms=-1)
    txn.init("timeout above transaction.max.timeout.ms", timeout_ms=900_001)
    txn.init("timeout at transaction.max.timeout.ms", timeout_ms=900_000)
    txn.init("a producer id without an epoch", producer_id=txn.pid, producer_epoch=-1)
    txn.init("an epoch without a producer id", producer_id=-1, producer_epoch=txn.epoch)
    txn.init("KIP-360: the current id and epoch", producer_id=txn.pid, producer_epoch=txn.epoch)
    txn.init("KIP-360: the current id and an old epoch", producer_id=txn.pid, producer_epoch=0)
    txn.init("KIP-360 v3: an old epoch", version=3, producer_id=txn.pid, producer_epoch=0)
    txn.init("KIP-360: another producer id", producer_id=txn.pid + 500, producer_epoch=txn.epoch)
    txn.init("KIP-360: the first id and epoch", producer_id=first[0], producer_epoch=first[1])
    other = Txn(s, names["other"] + "-tx")
    other.init("a transactional id whose coordinator was not looked up")
    s.call("idempotent (null id) with timeout 0", ApiKey.INIT_PRODUCER_ID, 4, transactional_id=None,
           transaction_timeout_ms=0, producer_id=-1, producer_epoch=-1)  # fmt: skip


def add_partitions(s: Session, names: dict[str, str]) -> None:
    """AddPartitionsToTxn v0-5 and AddOffsetsToTxn: unknown ids, stale epochs, unknown topics,
    batched (broker) requests with and without verify-only."""
    topic, other_topic = names["topic"], names["other"]
    topic_with(s, topic, 3)
    coordinator_ready(s, names["group"])
    txn = Txn(s, names["group"] + "-tx")
    txn.find()
    txn.init_ready()
    stranger = Txn(s, names["missing"] + "-tx")
    stranger.pid, stranger.epoch = txn.pid, txn.epoch
    stranger.add("an unknown transactional id", {topic: [0]})
    txn.add("an unknown producer id", {topic: [0]}, v3_and_below_producer_id=txn.pid + 777)
    txn.add("an older epoch (v3)", {topic: [0]}, v3_and_below_producer_epoch=txn.epoch - 1 if txn.epoch else 5)
    txn.add("an older epoch (v1)", {topic: [0]}, version=1, v3_and_below_producer_epoch=txn.epoch + 5)
    txn.add("an empty transactional id", {topic: [0]}, v3_and_below_transactional_id="")
    txn.add("an unknown topic with a known one", {topic: [0], other_topic: [0]})
    txn.add("a partition past the topic's end", {topic: [0, 7]})
    txn.describe("describe: still empty")
    txn.add("two partitions (v0)", {topic: [0, 1]}, version=0)
    txn.add("the same again (v2)", {topic: [1, 0]}, version=2)
    txn.add("a third (v3)", {topic: [2]})
    txn.describe("describe: ongoing with three partitions")
    txn.add_offsets("add offsets: an older epoch", names["group"], producer_epoch=txn.epoch + 3)
    txn.add_offsets("add offsets: another producer id", names["group"], producer_id=txn.pid + 777)
    txn.add_offsets("add offsets (v0)", names["group"], version=0)
    txn.add_offsets("add offsets (v4)", names["group"], version=4)
    txn.add_batched("v4 verify-only: partitions in the transaction", {topic: [0, 2]}, verify_only=True)
    txn.add_batched("v4 verify-only: one outside", {topic: [0], other_topic: [1]}, verify_only=True)
    txn.add_batched("v5 verify-only: one outside", {topic: [0], other_topic: [1]}, verify_only=True, version=5)
    txn.describe("describe: the offsets partition added")
    txn.end("abort (v3)", commit=False)
    txn.wait_state("CompleteAbort")
    txn.add_batched("v4 verify-only after the abort", {topic: [0]}, verify_only=True)
    txn.add_batched("v4 add (not verify-only)", {topic: [0]}, verify_only=False)
    txn.describe("describe: opened by the broker request")
    txn.end("abort again (v2)", commit=False, version=2)
    txn.wait_state("CompleteAbort")
    s.call(
        "v4 with two transactions, one unknown",
        ApiKey.ADD_PARTITIONS_TO_TXN,
        4,
        transactions=[
            {"transactional_id": txn.tid, "producer_id": txn.pid, "producer_epoch": txn.epoch, "verify_only": True,
             "topics": [{"name": topic, "partitions": [0]}]},
            {"transactional_id": stranger.tid, "producer_id": txn.pid, "producer_epoch": txn.epoch,
             "verify_only": True, "topics": [{"name": topic, "partitions": [1]}]},
        ],
    )  # fmt: skip


def end_txn(s: Session, names: dict[str, str]) -> None:
    """EndTxn v0-4 in every state: Empty, Ongoing, completed, retried, with stale epochs."""
    topic = names["topic"]
    topic_with(s, topic, 1)
    txn = Txn(s, names["group"] + "-tx")
    txn.find()
    txn.init_ready()
    txn.end("commit with nothing open", commit=True)
    txn.end("abort with nothing open", commit=False)
    txn.end("an unknown producer id", commit=True, producer_id=txn.pid + 9)
    Txn(s, names["missing"] + "-tx").end("an unknown transactional id", commit=True)
    txn.end("an empty transactional id", commit=True, transactional_id="")
    txn.add("open", {topic: [0]})
    txn.end("an older epoch", commit=True, producer_epoch=txn.epoch - 1 if txn.epoch else 3)
    txn.end("an older epoch (v1)", commit=True, version=1, producer_epoch=txn.epoch + 3)
    txn.end("commit", commit=True)
    txn.wait_state("CompleteCommit")
    txn.end("commit again: a retry", commit=True)
    txn.end("abort after the commit", commit=False)
    txn.describe("describe: complete commit")
    txn.add("open again", {topic: [0]})
    txn.end("abort (v0)", commit=False, version=0)
    txn.wait_state("CompleteAbort")
    txn.end("abort again: a retry", commit=False, version=0)
    txn.end("commit after the abort", commit=True)
    txn.init("a new epoch")
    txn.end("commit in the new epoch with nothing open", commit=True)
    txn.describe("describe: empty in the new epoch")


def produce_and_read(s: Session, names: dict[str, str]) -> None:
    """Transactional produce, commit and abort across three partitions, the LSO, read_committed
    and read_uncommitted fetches, ListOffsets by isolation level, DescribeProducers."""
    topic = names["topic"]
    topic_with(s, topic, 3)
    txn = Txn(s, names["group"] + "-tx")
    txn.find()
    txn.init_ready()
    txn.produce("a partition not added (v9)", topic, 0, _batch(txn.pid, txn.epoch, 0), version=9)
    txn.produce("a partition not added (v10)", topic, 0, _batch(txn.pid, txn.epoch, 0), version=10)
    txn.produce("a partition not added (v11)", topic, 0, _batch(txn.pid, txn.epoch, 0), version=11)
    txn.produce("a transactional batch with no transactional id", topic, 0, _batch(txn.pid, txn.epoch, 0), tid=None)
    txn.add("add three partitions", {topic: [0, 1, 2]})
    for p in range(3):
        txn.produce(f"produce to partition {p}", topic, p, _batch(txn.pid, txn.epoch, 0, count=3, tag=f"c{p}-"))
    txn.produce("partition 0 again", topic, 0, _batch(txn.pid, txn.epoch, 3, count=2, tag="c0-"))
    txn.produce("a duplicate", topic, 0, _batch(txn.pid, txn.epoch, 3, count=2, tag="c0-"))
    txn.produce("a sequence gap", topic, 0, _batch(txn.pid, txn.epoch, 9, count=1))
    txn.produce("an older epoch", topic, 1, _batch(txn.pid, txn.epoch - 1 if txn.epoch else 0, 3, count=1))
    txn.produce("a non-transactional batch of the producer", topic, 1, _batch(txn.pid, txn.epoch, 3, 1, False))
    list_offsets(s, "list offsets uncommitted (open)", topic, 3, 0)
    list_offsets(s, "list offsets committed (open)", topic, 3, 1)
    list_offsets(s, "list offsets committed by timestamp (open)", topic, 3, 1, timestamp=T0)
    fetch(s, "fetch read_uncommitted (open)", topic, 3, 0)
    fetch(s, "fetch read_committed (open)", topic, 3, 1)
    describe_producers(s, "describe producers (open)", topic, [0, 1, 2, 5])
    txn.end("commit", commit=True)
    txn.wait_state("CompleteCommit")
    list_offsets(s, "list offsets committed (committed)", topic, 3, 1)
    fetch(s, "fetch read_committed (committed)", topic, 3, 1)
    txn.add("add two partitions", {topic: [0, 1]})
    txn.produce("abortable data on 0", topic, 0, _batch(txn.pid, txn.epoch, 5, count=2, tag="a0-"))
    txn.produce("abortable data on 1", topic, 1, _batch(txn.pid, txn.epoch, 3, count=1, tag="a1-"))
    txn.end("abort", commit=False)
    txn.wait_state("CompleteAbort")
    fetch(s, "fetch read_committed (aborted)", topic, 3, 1)
    fetch(s, "fetch read_committed from offset 6 (aborted)", topic, 3, 1, offset=6)
    fetch(s, "fetch read_uncommitted (aborted)", topic, 3, 0)
    list_offsets(s, "list offsets committed (aborted)", topic, 3, 1)
    describe_producers(s, "describe producers (done)", topic, [0, 1, 2])
    plain = s.call("idempotent producer", ApiKey.INIT_PRODUCER_ID, 4, transactional_id=None,
                   transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1)  # fmt: skip
    txn.add("an open transaction on partition 2", {topic: [2]})
    txn.produce("open data on 2", topic, 2, _batch(txn.pid, txn.epoch, 3, count=2, tag="o2-"))
    plain_pid = int(plain["producer_id"])
    txn.produce("an idempotent batch after the open one", topic, 2, _batch(plain_pid, 0, 0, 2, False), tid=None)
    fetch(s, "fetch read_committed: stops at the open transaction", topic, 3, 1)
    list_offsets(s, "list offsets committed: the LSO", topic, 3, 1)
    txn.end("commit it", commit=True)
    txn.wait_state("CompleteCommit")
    fetch(s, "fetch read_committed: everything", topic, 3, 1)


def txn_offsets(s: Session, names: dict[str, str]) -> None:
    """TxnOffsetCommit v0-5: group and member validation, pending offsets, OffsetFetch with
    require_stable, commit and abort of offsets."""
    topic, group = names["topic"], names["group"]
    topic_with(s, topic, 2)
    coordinator_ready(s, group)
    txn = Txn(s, group + "-tx")
    txn.find()
    txn.init_ready()

    def commit(label: str, version: int = 3, offset: int = 5, **override: Any) -> Any:
        fields: dict[str, Any] = {
            "transactional_id": txn.tid,
            "group_id": group,
            "producer_id": txn.pid,
            "producer_epoch": txn.epoch,
            "topics": [
                {
                    "name": topic,
                    "partitions": [
                        {"partition_index": 0, "committed_offset": offset, "committed_metadata": "m"},
                        {"partition_index": 1, "committed_offset": offset + 1, "committed_metadata": None},
                    ],
                }
            ],
        }
        if version >= 3:
            fields.update(generation_id_or_member_epoch=-1, member_id="", group_instance_id=None)
        fields.update(override)
        return s.call(label, ApiKey.TXN_OFFSET_COMMIT, version, **fields)

    def fetch_offsets(label: str, stable: bool, version: int = 8) -> Any:
        if version >= 8:
            wanted = [{"group_id": group, "topics": [{"name": topic, "partition_indexes": [0, 1]}]}]
            return s.call(label, ApiKey.OFFSET_FETCH, version, require_stable=stable, groups=wanted)
        topics = [{"name": topic, "partition_indexes": [0, 1]}]
        return s.call(label, ApiKey.OFFSET_FETCH, version, group_id=group, require_stable=stable, topics=topics)

    commit("before AddOffsetsToTxn")
    txn.add_offsets("add offsets", group)
    commit("an unknown producer id", producer_id=txn.pid + 99)
    commit("an older epoch", producer_epoch=txn.epoch + 4)
    commit("an unknown member with a generation", generation_id_or_member_epoch=3, member_id="nobody")
    commit("an unknown member without a generation", member_id="nobody")
    commit("an unknown topic", topics=[{"name": names["missing"], "partitions": [
        {"partition_index": 0, "committed_offset": 1, "committed_metadata": ""}]}])  # fmt: skip
    commit("standalone (v0)", version=0)
    commit("standalone (v3)")
    fetch_offsets("offset fetch v8, not stable", False)
    fetch_offsets("offset fetch v8, require stable", True)
    fetch_offsets("offset fetch v7, require stable", True, version=7)
    s.call("offset fetch v8, every partition, require stable", ApiKey.OFFSET_FETCH, 8, require_stable=True,
           groups=[{"group_id": group, "topics": None}])  # fmt: skip
    txn.end("commit", commit=True)
    txn.wait_state("CompleteCommit")
    fetch_offsets("after the commit, require stable", True)
    txn.add_offsets("add offsets again", group)
    commit("offsets to abort", offset=50)
    txn.end("abort", commit=False)
    txn.wait_state("CompleteAbort")
    fetch_offsets("after the abort, require stable", True)
    member = _member(s, group)
    commit("a member of the group, wrong generation, offsets not added", version=3,
           generation_id_or_member_epoch=member[1] + 1, member_id=member[0])  # fmt: skip
    commit("v4 offsets not added", version=4)
    txn.add_offsets("add offsets a third time", group)
    commit("a member of the group, wrong generation", version=3, generation_id_or_member_epoch=member[1] + 1,
           member_id=member[0])  # fmt: skip
    commit("another member id", version=3, generation_id_or_member_epoch=member[1], member_id="someone-else")
    commit("no member named while the group has one (v3)")
    commit("no member named while the group has one (v0)", version=0)
    commit("a member of the group", version=3, generation_id_or_member_epoch=member[1], member_id=member[0])
    txn.end("commit the member's offsets", commit=True)
    txn.wait_state("CompleteCommit")
    fetch_offsets("the member's offsets", True)


def _member(s: Session, group: str) -> tuple[str, int]:
    """A member of ``group`` that joined and synced: (member id, generation)."""
    member = str(join(s, "join (member id required)", group)["member_id"])
    joined = join(s, "join", group, member=member)
    generation = int(str(joined["generation_id"]))
    s.call("sync", ApiKey.SYNC_GROUP, 5, group_id=group, generation_id=generation, member_id=member,
           protocol_type="consumer", protocol_name="range", assignments=[])  # fmt: skip
    return member, generation


def introspection(s: Session, names: dict[str, str]) -> None:
    """DescribeTransactions and ListTransactions v0-2 with their filters."""
    topic = names["topic"]
    topic_with(s, topic, 1)
    txn = Txn(s, names["group"] + "-tx")
    txn.find()
    txn.init_ready()
    txn.add("open", {topic: [0]})
    s.call("describe: ours, an unknown one, an empty one", ApiKey.DESCRIBE_TRANSACTIONS, 0,
           transactional_ids=[txn.tid, names["missing"] + "-tx", ""])  # fmt: skip
    _keep(s, _mask_times(s.observations[-1].response))
    s.call("describe: none", ApiKey.DESCRIBE_TRANSACTIONS, 0, transactional_ids=[])

    def listed(label: str, version: int, **filters: Any) -> None:
        fields: dict[str, Any] = {"state_filters": [], "producer_id_filters": []}
        fields.update(filters)
        answer = s.call(label, ApiKey.LIST_TRANSACTIONS, version, **fields)
        mine = [t for t in answer["transaction_states"] if str(t["transactional_id"]).startswith("probe-")]
        answer["transaction_states"] = sorted(
            [t for t in mine if t["transactional_id"] == txn.tid], key=lambda t: str(t["transactional_id"])
        )
        _keep(s, answer)

    listed("list v0", 0)
    listed("list v0 by state Ongoing", 0, state_filters=["Ongoing"])
    listed("list v0 by state Empty and an unknown state", 0, state_filters=["Empty", "Nonsense"])
    listed("list v0 by producer id", 0, producer_id_filters=[txn.pid])
    listed("list v0 by another producer id", 0, producer_id_filters=[txn.pid + 1000])
    listed("list v1 running longer than an hour", 1, duration_filter=3_600_000)
    listed("list v1 running longer than 0 ms", 1, duration_filter=0)
    listed("list v2 by pattern", 2, transactional_id_pattern="probe-group-.*")
    listed("list v2 by a pattern matching nothing", 2, transactional_id_pattern="nothing-.*")
    listed("list v2 by an invalid pattern", 2, transactional_id_pattern="(")
    listed("list v2 by an empty pattern", 2, transactional_id_pattern="")
    txn.end("abort", commit=False)


def fencing_and_timeout(s: Session, names: dict[str, str]) -> None:
    """A zombie fenced by a new InitProducerId while its transaction is open, and a transaction
    left open past its timeout, aborted by the coordinator."""
    topic = names["topic"]
    topic_with(s, topic, 1)
    zombie = Txn(s, names["group"] + "-tx")
    zombie.find()
    zombie.init_ready()
    zombie.add("the zombie opens a transaction", {topic: [0]})
    zombie.produce("the zombie writes", topic, 0, _batch(zombie.pid, zombie.epoch, 0, tag="z"))
    fresh = Txn(s, zombie.tid)
    until(s, lambda: fresh.init("a new instance")["error_code"] == 0, "fencing")
    zombie.describe("describe after fencing")
    zombie.produce("the zombie writes again", topic, 0, _batch(zombie.pid, zombie.epoch, 2, tag="z"))
    zombie.add("the zombie adds a partition", {topic: [0]})
    zombie.end("the zombie commits", commit=True)
    zombie.end("the zombie commits (v1)", commit=True, version=1)
    fetch(s, "read_committed after fencing", topic, 1, 1)
    fetch(s, "read_uncommitted after fencing", topic, 1, 0)
    slow = Txn(s, names["other"] + "-tx")
    slow.find()
    until(s, lambda: slow.init("init with a 1 s timeout", timeout_ms=1000)["error_code"] == 0, "init")
    slow.add("open", {topic: [0]})
    slow.produce("write", topic, 0, _batch(slow.pid, slow.epoch, 0, tag="s"))
    slow.wait_state("CompleteAbort")
    slow.describe("describe after the timeout")
    slow.produce("write after the timeout", topic, 0, _batch(slow.pid, slow.epoch, 2, tag="s"))
    slow.end("commit after the timeout", commit=True)
    fetch(s, "read_committed after the timeout", topic, 1, 1)


def write_markers(s: Session, names: dict[str, str]) -> None:
    """WriteTxnMarkers v1-2 sent by a client (no authorizer: allowed, as in Kafka)."""
    topic = names["topic"]
    topic_with(s, topic, 2)
    txn = Txn(s, names["group"] + "-tx")
    txn.find()
    txn.init_ready()
    txn.add("open", {topic: [0]})
    txn.produce("write", topic, 0, _batch(txn.pid, txn.epoch, 0))

    def markers(label: str, version: int, commit: bool, partitions: list[int], epoch: int, **extra: Any) -> None:
        marker = {
            "producer_id": txn.pid,
            "producer_epoch": epoch,
            "transaction_result": commit,
            "topics": [
                {"name": topic, "partition_indexes": partitions},
                {"name": names["missing"], "partition_indexes": [0]},
            ],
            "coordinator_epoch": 0,
            **extra,
        }
        s.call(label, ApiKey.WRITE_TXN_MARKERS, version, markers=[marker])

    markers("an older producer epoch", 1, True, [0], txn.epoch - 1 if txn.epoch else 0)
    markers("abort partitions 0 and 1", 1, False, [0, 1], txn.epoch)
    markers("v2 at the same epoch", 2, False, [0], txn.epoch, transaction_version=2)
    markers("v2 at the next epoch", 2, True, [0], txn.epoch + 1, transaction_version=2)
    fetch(s, "read_committed", topic, 2, 1)
    describe_producers(s, "producers", topic, [0, 1])
    fetch(s, "read_uncommitted", topic, 2, 0)


def transactions_v2(s: Session, names: dict[str, str]) -> None:
    """Transactions v2 (KIP-890): Produce v12 adds the partition itself, EndTxn v5 bumps the
    epoch on every transaction, TxnOffsetCommit v5 adds the offsets partition."""
    topic, group = names["topic"], names["group"]
    topic_with(s, topic, 2)
    coordinator_ready(s, group)
    txn = Txn(s, group + "-tx")
    txn.find()
    txn.init_ready()
    before = (txn.pid, txn.epoch)
    txn.produce("produce v12 to a partition not added", topic, 0, _batch(txn.pid, txn.epoch, 0), version=12)
    txn.produce("produce v12 to another", topic, 1, _batch(txn.pid, txn.epoch, 0), version=12)
    txn.produce("produce v13 by topic name? (v12 again)", topic, 0, _batch(txn.pid, txn.epoch, 2), version=12)
    txn.describe("describe: ongoing, added by produce")
    s.call("txn offset commit v5 without AddOffsetsToTxn", ApiKey.TXN_OFFSET_COMMIT, 5, transactional_id=txn.tid,
           group_id=group, producer_id=txn.pid, producer_epoch=txn.epoch, generation_id_or_member_epoch=-1,
           member_id="", group_instance_id=None, topics=[{"name": topic, "partitions": [
               {"partition_index": 0, "committed_offset": 3, "committed_leader_epoch": -1,
                "committed_metadata": ""}]}])  # fmt: skip
    txn.describe("describe: the offsets partition added")
    txn.end("commit v5", commit=True, version=5)
    txn.wait_state("CompleteCommit")
    txn.describe("describe: the epoch bumped")
    txn.end("commit retry with the old epoch (v5)", commit=True, version=5, producer_epoch=before[1])
    txn.end("abort retry with the old epoch (v5)", commit=False, version=5, producer_epoch=before[1])
    txn.produce("produce v12 with the old epoch", topic, 0, _batch(txn.pid, before[1], 4), version=12)
    txn.end("commit with nothing open (v5)", commit=True, version=5)
    txn.end("abort with nothing open (v5): a new epoch", commit=False, version=5)
    txn.wait_state("CompleteAbort")
    txn.end("abort retry (v5)", commit=False, version=5, producer_epoch=txn.epoch - 1)
    txn.end("commit after the abort (v5)", commit=True, version=5)
    txn.produce("produce v12 at sequence 5 in the new epoch", topic, 0, _batch(txn.pid, txn.epoch, 5), version=12)
    txn.produce("produce v12 in the new epoch", topic, 0, _batch(txn.pid, txn.epoch, 0), version=12)
    txn.produce("produce v11 in the new epoch, partition 1", topic, 1, _batch(txn.pid, txn.epoch, 0), version=11)
    txn.end("abort v5", commit=False, version=5)
    txn.wait_state("CompleteAbort")
    txn.end("abort v4 after v5", commit=False, version=4)
    fresh = Txn(s, names["other"] + "-tx")
    fresh.find()
    fresh.init_ready()
    fresh.produce("a new producer id at sequence 3 (v12)", topic, 1, _batch(fresh.pid, fresh.epoch, 3), version=12)
    fresh.produce("a new producer id at sequence 0 (v12)", topic, 1, _batch(fresh.pid, fresh.epoch, 0), version=12)
    fresh.end("its commit (v5)", commit=True, version=5)
    fresh.wait_state("CompleteCommit")
    fetch(s, "read_committed", topic, 2, 1)
    fetch(s, "read_uncommitted", topic, 2, 0)
    describe_producers(s, "producers", topic, [0, 1])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "txn.init_producer_id": init_producer_id,
    "txn.add_partitions": add_partitions,
    "txn.end_txn": end_txn,
    "txn.produce_and_read": produce_and_read,
    "txn.offsets": txn_offsets,
    "txn.introspection": introspection,
    "txn.fencing_and_timeout": fencing_and_timeout,
    "txn.write_markers": write_markers,
    "txn.v2": transactions_v2,
}
