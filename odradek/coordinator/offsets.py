"""Committed offsets: the store, and Kafka's rules for committing, fetching and expiring them.

The store changes only through `OffsetStore.apply` (a record that was appended, or replayed at
start-up); `validate_commit` decides whether a commit may happen and the coordinator turns the
accepted partitions into records.

Rules (Kafka's ClassicGroup.validateOffsetCommit and OffsetMetadataManager):
- generation < 0 on an Empty or unknown group: a standalone commit, always allowed (an unknown
  group is created Empty, with no protocol type, as Kafka does);
- an unknown group with generation >= 0: GROUP_ID_NOT_FOUND from v9, ILLEGAL_GENERATION before;
- otherwise the member must be current (UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID) and of the
  current generation (ILLEGAL_GENERATION), and the group not CompletingRebalance
  (REBALANCE_IN_PROGRESS); a Dead group answers COORDINATOR_NOT_AVAILABLE;
- metadata longer than ``offset.metadata.max.bytes`` characters: OFFSET_METADATA_TOO_LARGE;
- a transactional commit (TxnOffsetCommit) follows the same rules, except that an unknown group
  with generation >= 0 is ILLEGAL_GENERATION at every version, a commit naming no member (v0-2,
  or generation -1 without member and instance ids) is accepted whatever the group's state, and
  a group completing a rebalance accepts it (Kafka's OffsetMetadataManager).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from odradek.coordinator.group import CONSUMER_PROTOCOL_TYPE, Group
from odradek.coordinator.messages import CommitIdentity
from odradek.coordinator.records import OffsetCommitRecord, OffsetCommitValue
from odradek.coordinator.state import GroupState
from odradek.wire.errors import ErrorCode

__all__ = ["OffsetStore", "subscribed_topics", "validate_commit"]

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")

TopicPartition = tuple[str, int]


def validate_commit(
    group: Group | None, who: CommitIdentity, api_version: int, *, transactional: bool = False
) -> ErrorCode:
    """Whether ``who`` may commit; a transactional commit (TxnOffsetCommit) is not refused while
    the group completes a rebalance, and an unknown group answers ILLEGAL_GENERATION."""
    if group is None:
        if transactional:
            return ErrorCode.NONE if who.generation_id < 0 else ErrorCode.ILLEGAL_GENERATION
        if who.generation_id < 0:
            return ErrorCode.NONE
        return ErrorCode.GROUP_ID_NOT_FOUND if api_version >= 9 else ErrorCode.ILLEGAL_GENERATION
    if group.is_in(GroupState.DEAD):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if who.generation_id < 0 and group.is_in(GroupState.EMPTY):
        return ErrorCode.NONE
    if transactional and who.generation_id == -1 and not who.member_id and who.group_instance_id is None:
        return ErrorCode.NONE
    if who.generation_id >= 0 or who.member_id or who.group_instance_id is not None:
        error = group.validate_member(who.member_id, who.group_instance_id)
        if error is not ErrorCode.NONE:
            return error
        if who.generation_id != group.generation_id:
            return ErrorCode.ILLEGAL_GENERATION
    elif not group.is_in(GroupState.EMPTY):
        return ErrorCode.UNKNOWN_MEMBER_ID
    if group.is_in(GroupState.COMPLETING_REBALANCE) and not transactional:
        return ErrorCode.REBALANCE_IN_PROGRESS
    return ErrorCode.NONE


def _read_string(data: bytes, pos: int) -> tuple[str, int]:
    (size,) = _I16.unpack_from(data, pos)
    pos += _I16.size
    if size < 0 or pos + size > len(data):
        raise ValueError("bad string")
    return data[pos : pos + size].decode(), pos + size


def _subscription_topics(metadata: bytes) -> set[str]:
    """The topics of a ConsumerProtocolSubscription, read with its v0 prefix.

    Grammar: version int16, topics [string] (int32 count, int16-length strings), user data ...
    """
    (count,) = _I32.unpack_from(metadata, _I16.size)
    pos = _I16.size + _I32.size
    topics = set()
    for _ in range(count):
        topic, pos = _read_string(metadata, pos)
        topics.add(topic)
    return topics


def subscribed_topics(group: Group) -> set[str] | None:
    """The topics a ``consumer`` group's members subscribe to; None when unknown."""
    if group.protocol_type != CONSUMER_PROTOCOL_TYPE:
        return None
    if not group.members:
        return set()
    if group.protocol_name is None:
        return None
    topics: set[str] = set()
    try:
        for member in group.members.values():
            topics |= _subscription_topics(member.metadata(group.protocol_name))
    except (struct.error, ValueError, UnicodeDecodeError):
        return None
    return topics


class OffsetStore:
    """Committed offsets by group, then by (topic, partition)."""

    def __init__(self) -> None:
        self._offsets: dict[str, dict[TopicPartition, OffsetCommitValue]] = {}

    def apply(self, record: OffsetCommitRecord) -> None:
        if record.value is None:
            offsets = self._offsets.get(record.group)
            if offsets is not None:
                offsets.pop((record.topic, record.partition), None)
                if not offsets:
                    del self._offsets[record.group]
            return
        self._offsets.setdefault(record.group, {})[(record.topic, record.partition)] = record.value

    def get(self, group_id: str, topic: str, partition: int) -> OffsetCommitValue | None:
        return self._offsets.get(group_id, {}).get((topic, partition))

    def all(self, group_id: str) -> dict[TopicPartition, OffsetCommitValue]:
        return dict(self._offsets.get(group_id, {}))

    def has_offsets(self, group_id: str) -> bool:
        return bool(self._offsets.get(group_id))

    def groups(self) -> Iterator[str]:
        return iter(list(self._offsets))

    def tombstones(self, group_id: str) -> list[OffsetCommitRecord]:
        """Records deleting every offset of the group."""
        return [OffsetCommitRecord(group_id, t, p, None) for (t, p) in self._offsets.get(group_id, {})]

    def expired(self, group: Group | None, group_id: str, now_ms: int, retention_ms: int) -> list[OffsetCommitRecord]:
        """Tombstones for the offsets Kafka's retention would expire now.

        A group with a protocol type expires its offsets only when Empty (counting from when it
        became Empty), or, for a Stable ``consumer`` group, the offsets of topics it no longer
        subscribes to.  A standalone group counts from each commit.  A commit's own expire
        timestamp (OffsetCommit v2-4 retention time) wins over the retention setting.
        """
        offsets = self._offsets.get(group_id, {})
        unsubscribed_only: set[str] | None = None
        base_from_state: int | None = None
        if group is not None and group.protocol_type:
            if group.is_in(GroupState.EMPTY):
                base_from_state = group.state_timestamp_ms
            elif group.is_in(GroupState.STABLE) and (topics := subscribed_topics(group)) is not None:
                unsubscribed_only = topics
            else:
                return []
        records = []
        for (topic, partition), value in offsets.items():
            if unsubscribed_only is not None and topic in unsubscribed_only:
                continue
            if value.expire_timestamp != -1:
                expired = now_ms >= value.expire_timestamp
            else:
                base = base_from_state if base_from_state is not None else value.commit_timestamp
                expired = now_ms - base >= retention_ms
            if expired:
                records.append(OffsetCommitRecord(group_id, topic, partition, None))
        return records
