"""Which partition of a coordinator topic holds a group (``__consumer_offsets``) or a
transactional id (``__transaction_state``): Kafka's ``partitionFor``.

``abs(groupId.hashCode()) % offsets.topic.num.partitions`` with Java's ``String.hashCode`` (over
UTF-16 code units, wrapping at 32 bits) and Kafka's ``Utils.abs``, which maps
``Integer.MIN_VALUE`` to 0 instead of leaving it negative.
"""

from __future__ import annotations

from odradek.java_hash import java_string_hash

__all__ = ["OFFSETS_TOPIC", "TRANSACTION_STATE_TOPIC", "java_string_hash", "partition_for"]

OFFSETS_TOPIC = "__consumer_offsets"
TRANSACTION_STATE_TOPIC = "__transaction_state"

_INT_MIN = -(2**31)


def partition_for(group_id: str, num_partitions: int) -> int:
    h = java_string_hash(group_id)
    return (0 if h == _INT_MIN else abs(h)) % num_partitions
