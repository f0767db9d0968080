"""The group coordinator: one pure state machine for classic groups and their committed offsets.

Handlers call it with domain values; every state-changing operation returns a `Result`: the
response and the records to persist.  The runtime appends those records to
``__consumer_offsets`` and hands each one back through `GroupCoordinator.replay`, the same
path the records take at start-up.  Replay rules:

- an offset record always updates the offset store (a tombstone deletes the offset); an offset
  for a group the coordinator does not know creates it Empty (a standalone consumer's group);
- a group tombstone removes the group; a group metadata value rebuilds the group only while
  loading (`begin_load` .. `finish_load`): live, the coordinator already holds that state.

Time: every method reads the injected clock.  Each group's earliest deadline (session, join,
sync, initial delay, pending member) goes to the deadline listener whenever it changes (None:
the group has no deadline left); the owner of the timers calls `fire_timers` for the group
once the clock reaches it, so every deadline fires at its own millisecond.  The owner also
calls `expire_offsets_now` every ``offsets.retention.check.interval.ms``: offsets expire and
Empty groups with none left are deleted.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from odradek.clock import Clock
from odradek.config import BrokerConfig
from odradek.coordinator.group import Group, JoinWaiter, Member
from odradek.coordinator.messages import (
    CommitIdentity,
    CommitPartition,
    HeartbeatRequest,
    JoinRequest,
    LeaveMember,
    LeaveResult,
    SyncRequest,
    SyncResult,
)
from odradek.coordinator.offsets import OffsetStore, subscribed_topics, validate_commit
from odradek.coordinator.rebalance import GroupSettings, Rebalancer
from odradek.coordinator.records import (
    CoordinatorRecord,
    GroupMetadataRecord,
    GroupMetadataValue,
    OffsetCommitRecord,
    OffsetCommitValue,
)
from odradek.coordinator.results import Result
from odradek.coordinator.state import GroupState
from odradek.coordinator.txn_offsets import PendingTxnOffsets
from odradek.wire.errors import ErrorCode

__all__ = [
    "CLASSIC_GROUP_TYPE",
    "CoordinatorSettings",
    "DeadlineListener",
    "DescribedGroup",
    "DescribedMember",
    "GroupCoordinator",
    "ListedGroup",
]

CLASSIC_GROUP_TYPE = "classic"

T = TypeVar("T")

DeadlineListener = Callable[[str, "int | None"], None]
"""Called with a group id and its new earliest deadline (clock ms), or None when it has none."""


@dataclass(frozen=True, slots=True)
class CoordinatorSettings:
    groups: GroupSettings
    offsets_retention_ms: int = 10080 * 60_000
    offsets_retention_check_interval_ms: int = 600_000
    offset_metadata_max_bytes: int = 4096

    @classmethod
    def from_config(cls, config: BrokerConfig) -> CoordinatorSettings:
        return cls(
            GroupSettings(
                min_session_timeout_ms=config.group_min_session_timeout_ms,
                max_session_timeout_ms=config.group_max_session_timeout_ms,
                initial_rebalance_delay_ms=config.group_initial_rebalance_delay_ms,
                max_size=config.group_max_size,
            ),
            offsets_retention_ms=config.offsets_retention_minutes * 60_000,
            offsets_retention_check_interval_ms=config.offsets_retention_check_interval_ms,
            offset_metadata_max_bytes=config.offset_metadata_max_bytes,
        )


@dataclass(frozen=True, slots=True)
class ListedGroup:
    group_id: str
    protocol_type: str
    state: GroupState
    group_type: str = CLASSIC_GROUP_TYPE


@dataclass(frozen=True, slots=True)
class DescribedMember:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass(frozen=True, slots=True)
class DescribedGroup:
    group_id: str
    state: GroupState
    protocol_type: str
    protocol_data: str
    members: tuple[DescribedMember, ...]


class GroupCoordinator:
    def __init__(self, settings: CoordinatorSettings, clock: Clock, new_uuid: Callable[[], str] | None = None) -> None:
        self.settings = settings
        self.clock = clock
        self.rebalancer = Rebalancer(settings.groups, new_uuid)
        self.offsets = OffsetStore()
        self.pending = PendingTxnOffsets()
        """Offsets of open transactions (TxnOffsetCommit), until their producer's marker."""
        self._positions = itertools.count()
        self._committed_at: dict[tuple[str, str, int], int] = {}
        self._loading = False
        self._on_deadline: DeadlineListener | None = None
        self._reported: dict[str, int] = {}

    @property
    def groups(self) -> dict[str, Group]:
        return self.rebalancer.groups

    def group(self, group_id: str) -> Group | None:
        return self.rebalancer.groups.get(group_id)

    # ------------------------------------------------------------ membership

    def join(self, req: JoinRequest, respond: JoinWaiter) -> Result[None]:
        return self._tracked(self.rebalancer.join(req, respond, self.clock.time_ms()), [req.group_id])

    def sync(self, req: SyncRequest, respond: Callable[[SyncResult], None]) -> Result[None]:
        return self._tracked(self.rebalancer.sync(req, respond, self.clock.time_ms()), [req.group_id])

    def heartbeat(self, req: HeartbeatRequest) -> ErrorCode:
        """No records.  A heartbeat only moves a session deadline later, so the group's timer
        is re-armed only when it has none or the new deadline comes before it; otherwise the
        timer fires first, finds nothing due and reports the next deadline (one scan of the
        group per timer, not per heartbeat)."""
        error = self.rebalancer.heartbeat(req, self.clock.time_ms())
        group = self.group(req.group_id)
        member = group.members.get(req.member_id) if group is not None else None
        reported = self._reported.get(req.group_id)
        deadline = member.heartbeat_deadline_ms if member is not None else None
        if reported is None or (deadline is not None and deadline < reported):
            self._reschedule(req.group_id)
        return error

    def leave(self, group_id: str, members: list[LeaveMember]) -> Result[LeaveResult]:
        return self._tracked(self.rebalancer.leave(group_id, members, self.clock.time_ms()), [group_id])

    # --------------------------------------------------------------- offsets

    def commit_offsets(
        self, who: CommitIdentity, partitions: list[CommitPartition], api_version: int, retention_time_ms: int = -1
    ) -> Result[list[ErrorCode]]:
        """Per-partition errors (in request order) and the offset records to append."""
        now = self.clock.time_ms()
        group = self.group(who.group_id)
        error = validate_commit(group, who, api_version)
        if error is not ErrorCode.NONE:
            return Result([error] * len(partitions))
        if group is None:
            group = self.rebalancer.groups[who.group_id] = Group(who.group_id, now)
        elif group.is_in(GroupState.STABLE, GroupState.PREPARING_REBALANCE) and who.member_id in group.members:
            member = group.members[who.member_id]
            member.heartbeat_deadline_ms = now + member.session_timeout_ms
        errors: list[ErrorCode] = []
        result = Result(errors, on_failure=_fail_accepted, too_large=ErrorCode.INVALID_COMMIT_OFFSET_SIZE)
        expire = now + retention_time_ms if retention_time_ms != -1 else -1
        for p in partitions:
            metadata = p.metadata if p.metadata is not None else ""
            if len(metadata) > self.settings.offset_metadata_max_bytes:
                errors.append(ErrorCode.OFFSET_METADATA_TOO_LARGE)
                continue
            value = OffsetCommitValue(p.offset, p.leader_epoch, metadata, now, expire)
            result.records.append(OffsetCommitRecord(who.group_id, p.topic, p.partition, value))
            errors.append(ErrorCode.NONE)
        return self._tracked(result, [who.group_id])

    def commit_txn_offsets(
        self,
        who: CommitIdentity,
        producer_id: int,
        producer_epoch: int,
        partitions: list[CommitPartition],
        api_version: int,
    ) -> Result[list[ErrorCode]]:
        """TxnOffsetCommit: per-partition errors and the records to append in the producer's
        transaction (they stay pending until its marker, see `complete_transaction`)."""
        now = self.clock.time_ms()
        group = self.group(who.group_id)
        error = validate_commit(group, who, api_version, transactional=True)
        if error is not ErrorCode.NONE:
            return Result([error] * len(partitions))
        if group is None:
            group = self.rebalancer.groups[who.group_id] = Group(who.group_id, now)
        errors: list[ErrorCode] = []
        result = Result(errors, on_failure=_fail_accepted, producer=(producer_id, producer_epoch))
        for p in partitions:
            metadata = p.metadata if p.metadata is not None else ""
            if len(metadata) > self.settings.offset_metadata_max_bytes:
                errors.append(ErrorCode.OFFSET_METADATA_TOO_LARGE)
                continue
            value = OffsetCommitValue(p.offset, p.leader_epoch, metadata, now, -1)
            result.records.append(OffsetCommitRecord(who.group_id, p.topic, p.partition, value))
            errors.append(ErrorCode.NONE)
        return self._tracked(result, [who.group_id])

    def complete_transaction(self, producer_id: int, commit: bool, in_partition: Callable[[str], bool]) -> None:
        """The producer's marker reached a ``__consumer_offsets`` partition: its pending offsets
        of the groups ``in_partition`` accepts become committed (COMMIT: each unless a plain
        commit written after it exists) or are dropped (ABORT).  No records: the marker is the
        record."""
        for group_id, offsets in self.pending.take(producer_id, in_partition).items():
            if not commit:
                continue
            for (topic, partition), pending in offsets.items():
                if pending.position > self._committed_at.get((group_id, topic, partition), -1):
                    self._committed_at[(group_id, topic, partition)] = pending.position
                    self.offsets.apply(OffsetCommitRecord(group_id, topic, partition, pending.value))
                    if group_id not in self.groups:
                        self.groups[group_id] = Group(group_id, None)

    def has_pending_offset(self, group_id: str, topic: str, partition: int) -> bool:
        return self.pending.has_pending(group_id, topic, partition)

    def fetch_offsets(
        self, group_id: str, partitions: Iterable[tuple[str, int]] | None
    ) -> tuple[ErrorCode, list[tuple[str, int, OffsetCommitValue | None]]]:
        """The committed offsets asked for (None: every committed one); unknown ones are None."""
        group = self.group(group_id)
        if group is not None and group.is_in(GroupState.DEAD):
            return ErrorCode.GROUP_ID_NOT_FOUND, []
        if partitions is None:
            found = sorted(self.offsets.all(group_id).items())
            return ErrorCode.NONE, [(t, p, v) for (t, p), v in found]
        return ErrorCode.NONE, [(t, p, self.offsets.get(group_id, t, p)) for t, p in partitions]

    def delete_offsets(
        self, group_id: str, partitions: list[tuple[str, int]]
    ) -> Result[tuple[ErrorCode, list[ErrorCode]]]:
        """OffsetDelete: group error, per-partition errors, tombstones for the deleted offsets."""
        group = self.group(group_id)
        if group is None or group.is_in(GroupState.DEAD):
            return Result((ErrorCode.GROUP_ID_NOT_FOUND, []))
        consumer = group.protocol_type == "consumer"
        if not group.is_in(GroupState.EMPTY) and not consumer:
            return Result((ErrorCode.NON_EMPTY_GROUP, []))
        topics = subscribed_topics(group)
        errors: list[ErrorCode] = []
        result = Result((ErrorCode.NONE, errors), on_failure=lambda _planned, error: (error, []))
        for topic, partition in partitions:
            subscribed = topic in topics if topics is not None else consumer
            if not group.is_in(GroupState.EMPTY) and subscribed:
                errors.append(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC)
                continue
            if self.offsets.get(group_id, topic, partition) is not None:
                result.records.append(OffsetCommitRecord(group_id, topic, partition, None))
            errors.append(ErrorCode.NONE)
        return result

    # ----------------------------------------------------------------- admin

    def list_groups(self, states: Iterable[str] = (), types: Iterable[str] = ()) -> list[ListedGroup]:
        wanted_states = {s.lower() for s in states}
        wanted_types = {t.lower() for t in types}
        if wanted_types and CLASSIC_GROUP_TYPE not in wanted_types:
            return []
        return [
            ListedGroup(g.group_id, g.protocol_type or "", g.state)
            for g in self.groups.values()
            if not wanted_states or g.state.value.lower() in wanted_states
        ]

    def describe_group(self, group_id: str) -> DescribedGroup | None:
        group = self.group(group_id)
        if group is None or group.is_in(GroupState.DEAD):
            return None
        stable = group.is_in(GroupState.STABLE)
        members = tuple(_describe(m, group.protocol_name if stable else None) for m in group.members.values())
        protocol_data = (group.protocol_name or "") if stable else ""
        return DescribedGroup(group_id, group.state, group.protocol_type or "", protocol_data, members)

    def delete_groups(self, group_ids: list[str]) -> Result[list[ErrorCode]]:
        errors: list[ErrorCode] = []
        result = Result(errors, on_failure=_fail_accepted)
        for group_id in group_ids:
            group = self.group(group_id)
            if group is None or group.is_in(GroupState.DEAD):
                errors.append(ErrorCode.GROUP_ID_NOT_FOUND)
            elif not group.is_in(GroupState.EMPTY):
                errors.append(ErrorCode.NON_EMPTY_GROUP)
            else:
                result.records.extend(self.offsets.tombstones(group_id))
                result.records.append(GroupMetadataRecord(group_id, None))
                errors.append(ErrorCode.NONE)
        return self._tracked(result, group_ids)

    # ----------------------------------------------------------------- timers

    def set_deadline_listener(self, listener: DeadlineListener) -> None:
        """Report every group's earliest deadline to ``listener``: those known now, and each change."""
        self._on_deadline = listener
        self._reported.clear()
        for group_id in list(self.groups):
            self._reschedule(group_id)

    def fire_timers(self, group_id: str) -> Result[None]:
        """The clock reached the group's reported deadline: fire every deadline now due."""
        self._reported.pop(group_id, None)
        group = self.group(group_id)
        result = Result(None) if group is None else self.rebalancer.fire_due(group, self.clock.time_ms())
        return self._tracked(result, [group_id])

    def expire_offsets_now(self) -> Result[None]:
        """The ``offsets.retention.check.interval.ms`` task: tombstones for what expired now."""
        records = self.expire_offsets(self.clock.time_ms())
        return self._tracked(Result(None, records), sorted({r.group for r in records}))

    def expire_offsets(self, now_ms: int) -> list[CoordinatorRecord]:
        """Tombstones for expired offsets, and for Empty groups left with no offsets."""
        records: list[CoordinatorRecord] = []
        for group_id in sorted(set(self.offsets.groups()) | set(self.groups)):
            group = self.group(group_id)
            expired = self.offsets.expired(group, group_id, now_ms, self.settings.offsets_retention_ms)
            records.extend(expired)
            remaining = len(self.offsets.all(group_id)) - len(expired)
            if group is not None and group.is_in(GroupState.EMPTY) and remaining == 0:
                records.append(GroupMetadataRecord(group_id, None))
        return records

    def _tracked(self, result: Result[T], group_ids: Iterable[str]) -> Result[T]:
        """Have ``result`` report the groups' deadlines once its records are applied."""
        ids = list(group_ids)
        applied = result.on_append

        def on_append(error: ErrorCode) -> None:
            if applied is not None:
                applied(error)
            for group_id in ids:
                self._reschedule(group_id)

        result.on_append = on_append
        return result

    def _reschedule(self, group_id: str) -> None:
        group = self.group(group_id)
        live = group is not None and not group.is_in(GroupState.DEAD)
        deadline = self.rebalancer.next_deadline(group) if group is not None and live else None
        if self._reported.get(group_id) == deadline:
            return
        if deadline is None:
            del self._reported[group_id]
        else:
            self._reported[group_id] = deadline
        if self._on_deadline is not None:
            self._on_deadline(group_id, deadline)

    # ------------------------------------------------------------ persistence

    def begin_load(self) -> None:
        self._loading = True

    def finish_load(self) -> Result[None]:
        """Loading is over: restart every loaded member's session from now."""
        self._loading = False
        now = self.clock.time_ms()
        result = Result(None)
        for group in list(self.groups.values()):
            result.records.extend(self.rebalancer.load(group, now).records)
        return self._tracked(result, list(self.groups))

    def replay(self, record: CoordinatorRecord, producer_id: int | None = None) -> None:
        """Apply an appended or loaded record; ``producer_id``: it came in that producer's
        transactional batch (a pending offset)."""
        if isinstance(record, OffsetCommitRecord):
            position = next(self._positions)
            if producer_id is not None:
                self.pending.add(producer_id, record, position)
                return
            key = (record.group, record.topic, record.partition)
            if record.value is None:
                self._committed_at.pop(key, None)
            else:
                self._committed_at[key] = position
            self.offsets.apply(record)
            if record.value is not None and record.group not in self.groups:
                self.groups[record.group] = Group(record.group, None)
            return
        if record.value is None:
            group = self.groups.pop(record.group, None)
            if group is not None:
                group.transition(GroupState.DEAD, self.clock.time_ms())
            return
        if self._loading:
            self.groups[record.group] = _loaded_group(record.group, record.value)


def _fail_accepted(planned: list[ErrorCode], error: ErrorCode) -> list[ErrorCode]:
    """The append failed: every entry that would have succeeded answers ``error`` instead."""
    return [error if e is ErrorCode.NONE else e for e in planned]


def _describe(member: Member, protocol: str | None) -> DescribedMember:
    if protocol is None:
        return DescribedMember(
            member.member_id, member.group_instance_id, member.client_id, member.client_host, b"", b""
        )
    return DescribedMember(
        member.member_id,
        member.group_instance_id,
        member.client_id,
        member.client_host,
        member.metadata(protocol),
        member.assignment,
    )


def _loaded_group(group_id: str, value: GroupMetadataValue) -> Group:
    """A group as Kafka rebuilds it from its last metadata record: Stable with members, else Empty."""
    group = Group(group_id, None if value.current_state_timestamp == -1 else value.current_state_timestamp)
    group.generation_id = value.generation
    group.protocol_type = value.protocol_type or None
    group.protocol_name = value.protocol
    for m in value.members:
        rebalance_timeout = m.session_timeout if m.rebalance_timeout == -1 else m.rebalance_timeout
        protocols = ((value.protocol or "", m.subscription),)
        member = Member(
            m.member_id,
            m.group_instance_id,
            m.client_id,
            m.client_host,
            rebalance_timeout,
            m.session_timeout,
            value.protocol_type,
            protocols,
            m.assignment,
        )
        group.add(member, None)
    group.leader_id = value.leader
    group.state = GroupState.STABLE if value.members else GroupState.EMPTY
    return group
