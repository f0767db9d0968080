"""Probe sequence for idempotent produce: InitProducerId, then batches whose sequence numbers
are right, repeated, ahead, behind, or carry a stale or future epoch or an unknown producer id.

Producer ids are broker-assigned and compared through their aliasing below; odradek and Kafka
both hand out ids from 0 on a fresh cluster, so the first id is the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from probes.groups import topic_with, until
from probes.session import Session
from probes.storage import T0, produce_batch

__all__ = ["SEQUENCES"]


def _batch(producer_id: int, epoch: int, sequence: int, count: int = 2) -> bytes:
    records = [Record(offset_delta=i, timestamp_delta=i, key=b"k", value=b"s%d" % (sequence + i)) for i in range(count)]
    return build_batch(
        records,
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
        base_timestamp=T0,
        max_timestamp=T0 + count - 1,
    )


def sequences(s: Session, names: dict[str, str]) -> None:
    topic = names["topic"]
    topic_with(s, topic, 1)

    def init_producer() -> Any:
        return s.call(
            "init producer id",
            ApiKey.INIT_PRODUCER_ID,
            4,
            transactional_id=None,
            transaction_timeout_ms=60_000,
            producer_id=-1,
            producer_epoch=-1,
        )

    # Kafka answers COORDINATOR_LOAD_IN_PROGRESS until its controller handed it a block of ids.
    until(s, lambda: bool(init_producer()["error_code"] != 14), "producer id block")
    init = init_producer()
    pid, epoch = int(init["producer_id"]), int(init["producer_epoch"])

    def send(label: str, batch: bytes) -> Any:
        return produce_batch(s, label, topic, batch)

    send("sequence 0", _batch(pid, epoch, 0))
    send("sequence 2", _batch(pid, epoch, 2))
    send("sequence 2 again (duplicate of the last batch)", _batch(pid, epoch, 2))
    send("sequence 0 again (duplicate of an older batch)", _batch(pid, epoch, 0))
    send("sequence 9 (a gap)", _batch(pid, epoch, 9))
    send("sequence 1 (behind, not a duplicate)", _batch(pid, epoch, 1))
    send("an older epoch", _batch(pid, epoch - 1 if epoch > 0 else 0, 4) if epoch > 0 else _batch(pid, epoch, 4))
    send("a newer epoch starting at sequence 5", _batch(pid, epoch + 1, 5))
    send("a newer epoch starting at sequence 0", _batch(pid, epoch + 1, 0))
    send("the old epoch after the bump", _batch(pid, epoch, 4))
    send("an unknown producer id at sequence 3", _batch(pid + 1000, 0, 3))
    send("an unknown producer id at sequence 0", _batch(pid + 1000, 0, 0))
    again = s.call(
        "init producer id with the current id and epoch",
        ApiKey.INIT_PRODUCER_ID,
        4,
        transactional_id=None,
        transaction_timeout_ms=60_000,
        producer_id=pid,
        producer_epoch=epoch + 1,
    )
    s.call(
        "init producer id v2 (no id fields)",
        ApiKey.INIT_PRODUCER_ID,
        2,
        transactional_id=None,
        transaction_timeout_ms=60_000,
    )
    send("the re-initialised epoch at sequence 0", _batch(int(again["producer_id"]), int(again["producer_epoch"]), 0))
    s.call(
        "list offsets latest",
        ApiKey.LIST_OFFSETS,
        9,
        replica_id=-1,
        isolation_level=0,
        topics=[{"name": topic, "partitions": [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": -1}]}],
    )
    s.call("describe log dirs", ApiKey.DESCRIBE_LOG_DIRS, 4, topics=[{"topic": topic, "partitions": [0, 3]}])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {"produce.idempotence": sequences}
