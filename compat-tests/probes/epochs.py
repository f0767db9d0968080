"""Probe sequences for leader epochs: OffsetForLeaderEpoch at every version and edge, the epochs
Metadata, ListOffsets, Produce and Fetch report, Fetch's diverging epoch, and what a restart
(graceful and killed) does to all of them and to each partition's ``leader-epoch-checkpoint``
file, compared byte for byte."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import topic_with
from probes.partitions import partitions_ready
from probes.session import Session, own_broker
from probes.storage import produce_one

__all__ = ["SEQUENCES"]


def _epoch_end(s: Session, label: str, topic: str, leader_epoch: int, current: int = -1, **extra: Any) -> None:
    version = extra.pop("version", 4)
    partition = extra.pop("partition", 0)
    fields: dict[str, Any] = {
        "topics": [
            {
                "topic": topic,
                "partitions": [{"partition": partition, "current_leader_epoch": current, "leader_epoch": leader_epoch}],
            }
        ]
    }
    if version >= 3:
        fields["replica_id"] = extra.pop("replica_id", -1)
    s.call(label, ApiKey.OFFSET_FOR_LEADER_EPOCH, version, **fields)


def _list_offsets(s: Session, label: str, topic: str, timestamp: int, partition: int = 0, current: int = -1) -> None:
    parts = [{"partition_index": partition, "current_leader_epoch": current, "timestamp": timestamp}]
    s.call(
        label, ApiKey.LIST_OFFSETS, 9, replica_id=-1, isolation_level=0, topics=[{"name": topic, "partitions": parts}]
    )


def _fetch(s: Session, label: str, topic: str, offset: int, last_fetched_epoch: int = -1, current: int = -1) -> None:
    part = {
        "partition": 0,
        "current_leader_epoch": current,
        "fetch_offset": offset,
        "last_fetched_epoch": last_fetched_epoch,
        "log_start_offset": -1,
        "partition_max_bytes": 1 << 20,
    }
    s.call(label, ApiKey.FETCH, 12, replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0,
           session_id=0, session_epoch=-1, topics=[{"topic": topic, "partitions": [part]}], forgotten_topics_data=[],
           rack_id="")  # fmt: skip


def _metadata(s: Session, label: str, topic: str) -> None:
    s.call(label, ApiKey.METADATA, 12, topics=[{"name": topic}], allow_auto_topic_creation=False,
           include_topic_authorized_operations=False)  # fmt: skip


def _checkpoints(s: Session, label: str, topic: str, partitions: int = 2, *, settle: bool = False) -> None:
    """The checkpoint files; ``settle`` first gives Kafka a moment, because it rewrites the file
    on a background thread after the log start moved (the answers change at once)."""
    if settle:
        time.sleep(1.5)
    for partition in range(partitions):
        s.read_file(
            f"{label}: leader-epoch-checkpoint of partition {partition}", f"{topic}-{partition}/leader-epoch-checkpoint"
        )


def _delete_records(s: Session, label: str, topic: str, offset: int) -> None:
    s.call(label, ApiKey.DELETE_RECORDS, 2, timeout_ms=5000,
           topics=[{"name": topic, "partitions": [{"partition_index": 0, "offset": offset}]}])  # fmt: skip


def offsets_for_leader_epoch(s: Session, names: dict[str, str]) -> None:
    """Every answer OffsetForLeaderEpoch gives on a broker that was never restarted."""
    topic, missing = names["topic"], names["missing"]
    topic_with(s, topic, 2)
    _checkpoints(s, "new topic", topic)
    for version in (2, 3, 4):
        for epoch in (-1, 0, 1, 5):
            _epoch_end(s, f"v{version}: epoch {epoch} of an empty partition", topic, epoch, version=version)
    for i in range(3):
        produce_one(s, f"produce {i}", topic, 0, i)
    for epoch in (-1, 0, 1):
        _epoch_end(s, f"epoch {epoch} after three records", topic, epoch)
    _epoch_end(s, "current epoch 0 (ours)", topic, 0, current=0)
    _epoch_end(s, "current epoch 1 (newer than ours)", topic, 0, current=1)
    _epoch_end(s, "a follower's replica id", topic, 0, replica_id=1)
    _epoch_end(s, "a debugging replica id", topic, 0, replica_id=-2)
    _epoch_end(s, "an unknown partition", topic, 0, partition=7)
    _epoch_end(s, "an unknown topic", missing, 0)
    _epoch_end(s, "an invalid topic name", missing + "!", 0)
    s.call("two topics and partitions in one request", ApiKey.OFFSET_FOR_LEADER_EPOCH, 4, replica_id=-1, topics=[
        {"topic": topic, "partitions": [{"partition": 1, "current_leader_epoch": -1, "leader_epoch": 0},
                                        {"partition": 0, "current_leader_epoch": 0, "leader_epoch": 0}]},
        {"topic": missing, "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}]},
    ])  # fmt: skip
    s.call("no topics", ApiKey.OFFSET_FOR_LEADER_EPOCH, 4, replica_id=-1, topics=[])
    for timestamp in (-2, -1, -3):
        _list_offsets(s, f"list offsets {timestamp}", topic, timestamp)
    _list_offsets(s, "list offsets with current epoch 3", topic, -1, current=3)
    _fetch(s, "fetch: last fetched epoch 0 at the log end", topic, 3, last_fetched_epoch=0)
    _fetch(s, "fetch: last fetched epoch 0 inside the log", topic, 1, last_fetched_epoch=0)
    _fetch(s, "fetch: last fetched epoch 0 past the log end", topic, 5, last_fetched_epoch=0)
    _fetch(s, "fetch: last fetched epoch 1 (above ours)", topic, 3, last_fetched_epoch=1)
    _fetch(s, "fetch: current epoch 0 and last fetched epoch 0", topic, 2, last_fetched_epoch=0, current=0)
    _delete_records(s, "delete records below 2", topic, 2)
    _checkpoints(s, "after delete records", topic, settle=True)
    _epoch_end(s, "epoch 0 after delete records", topic, 0)
    _list_offsets(s, "earliest after delete records", topic, -2)
    _fetch(s, "fetch: last fetched epoch 0 below the log start", topic, 1, last_fetched_epoch=0)
    _delete_records(s, "delete every record", topic, 3)
    _checkpoints(s, "after deleting every record", topic, settle=True)
    _epoch_end(s, "epoch 0 of an emptied log", topic, 0)


@own_broker
def epochs_across_restarts(s: Session, names: dict[str, str]) -> None:
    """Leader epochs after a graceful restart and after a SIGKILL: what every API reports and
    what the checkpoint files hold."""
    topic = names["topic"]
    topic_with(s, topic, 2)
    for i in range(3):
        produce_one(s, f"produce {i}", topic, 0, i)
    _checkpoints(s, "before the restart", topic)
    s.restart("graceful restart", kill=False)
    partitions_ready(s, topic, 2)
    _metadata(s, "metadata after the restart", topic)
    _checkpoints(s, "after the restart", topic)
    for epoch in (0, 1, 2, 3):
        _epoch_end(s, f"epoch {epoch} after the restart", topic, epoch)
        _epoch_end(s, f"epoch {epoch} of the empty partition after the restart", topic, epoch, partition=1)
    _epoch_end(s, "current epoch 0 after the restart (fenced)", topic, 0, current=0)
    for timestamp in (-2, -1, -3):
        _list_offsets(s, f"list offsets {timestamp} after the restart", topic, timestamp)
    _list_offsets(s, "list offsets with the old current epoch", topic, -1, current=0)
    _fetch(s, "fetch with the old current epoch", topic, 0, current=0)
    _fetch(s, "fetch: last fetched epoch 0 at offset 3", topic, 3, last_fetched_epoch=0)
    _fetch(s, "fetch: last fetched epoch 1 at offset 3", topic, 3, last_fetched_epoch=1)
    for i in range(3, 5):
        produce_one(s, f"produce {i} after the restart", topic, 0, i)
    _fetch(s, "fetch every record (batches carry their epochs)", topic, 0)
    _fetch(s, "fetch: last fetched epoch 0 at offset 4", topic, 4, last_fetched_epoch=0)
    s.restart("killed and restarted", kill=True)
    partitions_ready(s, topic, 2)
    _metadata(s, "metadata after the kill", topic)
    _checkpoints(s, "after the kill", topic)
    for epoch in range(6):
        _epoch_end(s, f"epoch {epoch} after the kill", topic, epoch)
    for timestamp in (-2, -1):
        _list_offsets(s, f"list offsets {timestamp} after the kill", topic, timestamp)
    _delete_records(s, "delete records below 4", topic, 4)
    _checkpoints(s, "after delete records", topic, settle=True)
    _list_offsets(s, "earliest after delete records", topic, -2)
    for epoch in (0, 2, 4):
        _epoch_end(s, f"epoch {epoch} after delete records", topic, epoch)


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "epochs.offsets_for_leader_epoch": offsets_for_leader_epoch,
    "epochs.restarts": epochs_across_restarts,
}
