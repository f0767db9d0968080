"""Offsets committed inside a transaction (TxnOffsetCommit): pending until the transaction ends.

A transactional offset commit is written to ``__consumer_offsets`` like any commit, but in a
transactional batch of the producer; it is not the group's committed offset until the COMMIT
marker of that producer reaches the group's ``__consumer_offsets`` partition, and an ABORT
marker discards it.  Meanwhile OffsetFetch with ``require_stable`` answers
UNSTABLE_OFFSET_COMMIT for the partition.

Kafka keeps the newest of a transactional and a plain commit of the same partition: a pending
offset replaces the committed one at COMMIT only if it was written after it.  Every record
applied gets the next position of one counter (the order of the log: records are applied in
append order, and replayed in log order), so "written after" is a comparison of positions.

Invariant: a producer's pending offsets are all discarded or all applied at its marker, for
the groups of the partition that marker was written to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from odradek.coordinator.records import OffsetCommitRecord, OffsetCommitValue

__all__ = ["PendingOffset", "PendingTxnOffsets"]

TopicPartition = tuple[str, int]


@dataclass(frozen=True, slots=True)
class PendingOffset:
    value: OffsetCommitValue
    position: int


class PendingTxnOffsets:
    """Pending offsets by producer id, then group, then (topic, partition)."""

    def __init__(self) -> None:
        self._by_producer: dict[int, dict[str, dict[TopicPartition, PendingOffset]]] = {}

    def add(self, producer_id: int, record: OffsetCommitRecord, position: int) -> None:
        if record.value is None:
            return
        groups = self._by_producer.setdefault(producer_id, {})
        groups.setdefault(record.group, {})[(record.topic, record.partition)] = PendingOffset(record.value, position)

    def has_pending(self, group_id: str, topic: str, partition: int) -> bool:
        return any((topic, partition) in groups.get(group_id, {}) for groups in self._by_producer.values())

    def producers(self) -> list[int]:
        return list(self._by_producer)

    def take(
        self, producer_id: int, in_partition: Callable[[str], bool]
    ) -> dict[str, dict[TopicPartition, PendingOffset]]:
        """Remove and return the producer's pending offsets of the groups ``in_partition`` accepts."""
        groups = self._by_producer.get(producer_id, {})
        taken = {group: offsets for group, offsets in groups.items() if in_partition(group)}
        for group in taken:
            del groups[group]
        if not groups:
            self._by_producer.pop(producer_id, None)
        return taken
