"""Kafka's checks of a manual replica list (CreateTopics, CreatePartitions and
AlterPartitionReassignments assignments), worded as Kafka 4.4's controller words them.

The broker ids are checked in ascending order, so the lowest offending id is the one named
(checked with compat-tests/probes).  This node is the only registered broker.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["replica_list_error"]


def replica_list_error(broker_ids: Sequence[int], node_id: int) -> str | None:
    """Why Kafka refuses ``broker_ids`` as one partition's replicas (INVALID_REPLICA_ASSIGNMENT),
    or None when it accepts them."""
    brokers = sorted(broker_ids)
    if not brokers:
        return "The manual partition assignment includes an empty replica list."
    previous: int | None = None
    for broker_id in brokers:
        if broker_id != node_id:
            return f"The manual partition assignment includes broker {broker_id}, but no such broker is registered."
        if broker_id == previous:
            return f"The manual partition assignment includes the broker {broker_id} more than once."
        previous = broker_id
    return None
