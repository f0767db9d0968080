"""What Metadata and DescribeTopicPartitions say of one partition's leadership, in the fields the
two answers share (each answer's partition struct takes them as keywords)."""

from __future__ import annotations

from typing import TypedDict

from odradek.partition.results import Leadership
from odradek.wire.errors import ErrorCode

__all__ = ["LeaderFields", "leader_fields"]


class LeaderFields(TypedDict):
    error_code: ErrorCode
    partition_index: int
    leader_id: int
    leader_epoch: int
    replica_nodes: list[int]
    isr_nodes: list[int]
    offline_replicas: list[int]


def leader_fields(index: int, leader: Leadership) -> LeaderFields:
    """Partition ``index`` led as ``leader`` says: LEADER_NOT_AVAILABLE while it has no leader (a
    node that unregistered itself), as Kafka answers (probe cluster.unregister_itself)."""
    return {
        "error_code": ErrorCode.LEADER_NOT_AVAILABLE if leader.leader_id < 0 else ErrorCode.NONE,
        "partition_index": index,
        "leader_id": leader.leader_id,
        "leader_epoch": leader.leader_epoch,
        "replica_nodes": list(leader.replicas),
        "isr_nodes": list(leader.isr),
        "offline_replicas": list(leader.offline),
    }
