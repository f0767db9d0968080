"""The classic rebalance protocol: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and their timers.

Follows Apache Kafka's classic group coordinator step by step, with Kafka's error codes:

- JoinGroup validates the session timeout (INVALID_SESSION_TIMEOUT), finds or creates the group
  (a known member id for an unknown group: UNKNOWN_MEMBER_ID), enforces ``group.max.size``
  (GROUP_MAX_SIZE_REACHED) and the protocol type/names (INCONSISTENT_GROUP_PROTOCOL).  A new
  dynamic member of v4+ gets MEMBER_ID_REQUIRED and a generated id (KIP-394); a new static
  member replaces the instance's previous member id, fencing it (KIP-345), without a rebalance
  when the group is Stable and the selected protocol does not change.
- The join phase ends when every member has rejoined, or at the rebalance timeout (dynamic
  members that did not rejoin are dropped); the first rebalance of an Empty group waits
  ``group.initial.rebalance.delay.ms``, extended while new members keep arriving, up to the
  rebalance timeout.  Then the generation increments, the protocol is chosen by vote and every
  parked JoinGroup is answered (the leader gets the members' metadata).
- SyncGroup from the leader stores the assignment (a GroupMetadata record), then answers every
  parked SyncGroup; members that never sync within the rebalance timeout are removed.
- Heartbeat keeps a member's session alive and reports REBALANCE_IN_PROGRESS while the group
  rebalances; a member whose session expires is removed and the group rebalances.

Time comes from ``now_ms`` arguments; deadlines are plain numbers (clock ms).  The owner of the
timers asks `Rebalancer.next_deadline` and, once the clock reaches it, calls `Rebalancer.fire_due`.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from odradek.coordinator.group import Group, JoinTimer, JoinWaiter, Member
from odradek.coordinator.messages import (
    HeartbeatRequest,
    JoinRequest,
    JoinResult,
    LeaveMember,
    LeaveResult,
    SyncRequest,
    SyncResult,
)
from odradek.coordinator.records import GroupMetadataRecord, GroupMetadataValue, MemberMetadata
from odradek.coordinator.results import Result
from odradek.coordinator.state import GroupState
from odradek.wire.errors import ErrorCode

__all__ = ["GroupSettings", "Rebalancer", "metadata_record"]

log = logging.getLogger(__name__)

_S = GroupState
UNKNOWN_MEMBER_ID = ""
NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000


@dataclass(frozen=True, slots=True)
class GroupSettings:
    min_session_timeout_ms: int = 6000
    max_session_timeout_ms: int = 1_800_000
    initial_rebalance_delay_ms: int = 3000
    max_size: int = 2**31 - 1
    new_member_join_timeout_ms: int = NEW_MEMBER_JOIN_TIMEOUT_MS


def metadata_record(
    group: Group, *, empty: bool = False, assignment: dict[str, bytes] | None = None
) -> GroupMetadataRecord:
    """The group's generation and assignment as Kafka writes it (``empty``: a brand-new group).

    ``assignment`` overrides the members' current assignments (the leader's, not yet applied).
    """
    if empty:
        value = GroupMetadataValue("", 0, None, None, _timestamp(group), ())
        return GroupMetadataRecord(group.group_id, value)
    members = tuple(
        MemberMetadata(
            m.member_id,
            m.group_instance_id,
            m.client_id,
            m.client_host,
            m.rebalance_timeout_ms,
            m.session_timeout_ms,
            m.metadata(group.protocol_name),
            m.assignment if assignment is None else assignment[m.member_id],
        )
        for m in group.members.values()
    )
    value = GroupMetadataValue(
        group.protocol_type or "", group.generation_id, group.protocol_name, group.leader_id, _timestamp(group), members
    )
    return GroupMetadataRecord(group.group_id, value)


def _timestamp(group: Group) -> int:
    return -1 if group.state_timestamp_ms is None else group.state_timestamp_ms


class Rebalancer:
    """Classic groups by id, and the protocol that moves them between states."""

    def __init__(self, settings: GroupSettings, new_uuid: Callable[[], str] | None = None) -> None:
        self.settings = settings
        self.groups: dict[str, Group] = {}
        self._new_uuid = new_uuid or (lambda: str(uuid.uuid4()))

    # ----------------------------------------------------------------- JoinGroup

    def join(self, req: JoinRequest, respond: JoinWaiter, now_ms: int) -> Result[None]:
        s = self.settings
        if not s.min_session_timeout_ms <= req.session_timeout_ms <= s.max_session_timeout_ms:
            respond(JoinResult(ErrorCode.INVALID_SESSION_TIMEOUT, req.member_id))
            return Result(None)
        is_unknown = req.member_id == UNKNOWN_MEMBER_ID
        group = self.groups.get(req.group_id)
        is_new_group = group is None
        if group is None:
            if not is_unknown:
                respond(JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, req.member_id))
                return Result(None)
            group = self.groups[req.group_id] = Group(req.group_id, now_ms)
        if not self._accept_joining_member(group, req.member_id):
            group.remove(req.member_id)
            respond(JoinResult(ErrorCode.GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID))
            outcome = Result(None)
        elif is_unknown:
            outcome = self._join_new_member(group, req, respond, now_ms)
        else:
            outcome = self._join_existing_member(group, req, respond, now_ms)
        if is_new_group and not outcome.records:
            outcome.records.append(metadata_record(group, empty=True))
        return outcome

    def _accept_joining_member(self, group: Group, member_id: str) -> bool:
        max_size = self.settings.max_size
        if group.is_in(_S.EMPTY, _S.DEAD):
            return True
        if group.is_in(_S.PREPARING_REBALANCE):
            member = group.members.get(member_id)
            return (member is not None and member.is_awaiting_join) or group.num_awaiting_join < max_size
        return member_id in group.members or len(group.members) < max_size

    def _protocols_ok(self, group: Group, req: JoinRequest) -> bool:
        return group.supports_protocols(req.protocol_type, {name for name, _ in req.protocols})

    def _join_new_member(self, group: Group, req: JoinRequest, respond: JoinWaiter, now_ms: int) -> Result[None]:
        if group.is_in(_S.DEAD):
            respond(JoinResult(ErrorCode.COORDINATOR_NOT_AVAILABLE, UNKNOWN_MEMBER_ID))
            return Result(None)
        if not self._protocols_ok(group, req):
            respond(JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, UNKNOWN_MEMBER_ID))
            return Result(None)
        prefix = req.group_instance_id if req.group_instance_id is not None else req.client_id
        new_id = f"{prefix}-{self._new_uuid()}"
        if req.group_instance_id is not None:
            existing = group.static_members.get(req.group_instance_id)
            if existing is not None:
                return self._replace_static_member(group, req, existing, new_id, respond, now_ms)
            return self._add_member(group, req, new_id, respond, now_ms)
        if req.requires_known_member_id:
            group.pending_join[new_id] = now_ms + req.session_timeout_ms
            respond(JoinResult(ErrorCode.MEMBER_ID_REQUIRED, new_id))
            return Result(None)
        return self._add_member(group, req, new_id, respond, now_ms)

    def _join_existing_member(self, group: Group, req: JoinRequest, respond: JoinWaiter, now_ms: int) -> Result[None]:
        member_id = req.member_id
        if group.is_in(_S.DEAD):
            respond(JoinResult(ErrorCode.COORDINATOR_NOT_AVAILABLE, member_id))
            return Result(None)
        if not self._protocols_ok(group, req):
            respond(JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, member_id))
            return Result(None)
        if member_id in group.pending_join:
            return self._add_member(group, req, member_id, respond, now_ms)
        error = group.validate_member(member_id, req.group_instance_id)
        if error is not ErrorCode.NONE:
            respond(JoinResult(error, member_id))
            return Result(None)
        member = group.members[member_id]
        if group.is_in(_S.PREPARING_REBALANCE):
            return self._update_member(group, member, req, respond, now_ms)
        if group.is_in(_S.COMPLETING_REBALANCE):
            if member.matches(req.protocols):
                respond(group.join_result(member_id, with_members=group.is_leader(member_id)))
                return Result(None)
            return self._update_member(group, member, req, respond, now_ms)
        if group.is_in(_S.STABLE):
            if group.is_leader(member_id) or not member.matches(req.protocols):
                return self._update_member(group, member, req, respond, now_ms)
            respond(group.join_result(member_id, with_members=False))
            return Result(None)
        respond(JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id))
        return Result(None)

    def _add_member(
        self, group: Group, req: JoinRequest, member_id: str, respond: JoinWaiter, now_ms: int
    ) -> Result[None]:
        member = Member(
            member_id,
            req.group_instance_id,
            req.client_id,
            req.client_host,
            req.rebalance_timeout_ms,
            req.session_timeout_ms,
            req.protocol_type,
            req.protocols,
            is_new=True,
        )
        if group.is_in(_S.PREPARING_REBALANCE) and group.previous_state is _S.EMPTY:
            group.new_member_added = True
        group.add(member, respond)
        member.heartbeat_deadline_ms = now_ms + self.settings.new_member_join_timeout_ms
        return self._maybe_prepare_rebalance_or_complete_join(group, now_ms)

    def _update_member(
        self, group: Group, member: Member, req: JoinRequest, respond: JoinWaiter, now_ms: int
    ) -> Result[None]:
        group.update_member(member, req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms, respond)
        return self._maybe_prepare_rebalance_or_complete_join(group, now_ms)

    def _replace_static_member(
        self, group: Group, req: JoinRequest, old_id: str, new_id: str, respond: JoinWaiter, now_ms: int
    ) -> Result[None]:
        instance_id = req.group_instance_id
        assert instance_id is not None
        current_leader = group.leader_id or ""
        member = group.replace_static_member(instance_id, old_id, new_id)
        member.heartbeat_deadline_ms = now_ms + member.session_timeout_ms
        old_protocols, old_rto, old_sto = member.protocols, member.rebalance_timeout_ms, member.session_timeout_ms
        group.update_member(member, req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms, respond)
        if group.is_in(_S.STABLE):
            if (group.protocol_name or "") != group.select_protocol():
                return self._maybe_prepare_rebalance_or_complete_join(group, now_ms)

            def on_append(error: ErrorCode) -> None:
                if error is not ErrorCode.NONE:
                    group.update_member(member, old_protocols, old_rto, old_sto, None)
                    old = group.replace_static_member(instance_id, new_id, old_id)
                    old.heartbeat_deadline_ms = now_ms + old.session_timeout_ms
                    respond(
                        JoinResult(
                            error,
                            UNKNOWN_MEMBER_ID,
                            group.generation_id,
                            group.protocol_type,
                            group.protocol_name,
                            current_leader,
                        )
                    )
                elif req.supports_skip_assignment:
                    leader = group.is_leader(new_id)
                    group.complete_join(member, group.join_result(new_id, with_members=leader, skip_assignment=leader))
                else:
                    result = group.join_result(new_id, with_members=False)
                    group.complete_join(
                        member,
                        JoinResult(
                            result.error,
                            new_id,
                            result.generation_id,
                            result.protocol_type,
                            result.protocol_name,
                            current_leader,
                        ),
                    )

            return Result(None, [metadata_record(group)], on_append)
        if group.is_in(_S.COMPLETING_REBALANCE):
            return self._prepare_rebalance(group, now_ms)
        return self._maybe_complete_join_phase(group, now_ms)

    # ------------------------------------------------------- rebalance phases

    def _maybe_prepare_rebalance_or_complete_join(self, group: Group, now_ms: int) -> Result[None]:
        if group.can_rebalance:
            return self._prepare_rebalance(group, now_ms)
        return self._maybe_complete_join_phase(group, now_ms)

    def _maybe_complete_join_phase(self, group: Group, now_ms: int) -> Result[None]:
        if (
            group.is_in(_S.PREPARING_REBALANCE)
            and group.has_all_members_joined()
            and group.previous_state is not _S.EMPTY
        ):
            return self._complete_join(group, now_ms)
        return Result(None)

    def _prepare_rebalance(self, group: Group, now_ms: int) -> Result[None]:
        if group.is_in(_S.COMPLETING_REBALANCE):
            self._reset_and_propagate_assignment(group, ErrorCode.REBALANCE_IN_PROGRESS, now_ms)
        group.pending_sync.clear()
        group.sync_deadline_ms = None
        initial = group.is_in(_S.EMPTY)
        if initial:
            delay = self.settings.initial_rebalance_delay_ms
            group.join_timer = JoinTimer.INITIAL_DELAY
            group.join_deadline_ms = now_ms + delay
            group.initial_delay_ms = delay
            group.initial_remaining_ms = max(group.rebalance_timeout_ms() - delay, 0)
        group.transition(_S.PREPARING_REBALANCE, now_ms)
        if initial:
            return Result(None)
        if group.has_all_members_joined():
            return self._complete_join(group, now_ms)
        group.join_timer = JoinTimer.COMPLETE_JOIN
        group.join_deadline_ms = now_ms + group.rebalance_timeout_ms()
        return Result(None)

    def _initial_delay_expired(self, group: Group, now_ms: int) -> Result[None]:
        delay, remaining = group.initial_delay_ms, group.initial_remaining_ms
        if group.new_member_added and remaining != 0:
            group.new_member_added = False
            group.initial_delay_ms = min(self.settings.initial_rebalance_delay_ms, remaining)
            group.initial_remaining_ms = max(remaining - delay, 0)
            group.join_timer = JoinTimer.INITIAL_DELAY
            group.join_deadline_ms = now_ms + group.initial_delay_ms
            return Result(None)
        return self._complete_join(group, now_ms)

    def _complete_join(self, group: Group, now_ms: int) -> Result[None]:
        """End the join phase: drop dynamic members that did not rejoin, start the next generation."""
        group.join_deadline_ms = None
        for member in [m for m in group.members.values() if not m.is_awaiting_join and not m.is_static]:
            group.remove(member.member_id)
        if group.is_in(_S.DEAD):
            return Result(None)
        if not group.maybe_elect_new_joined_leader() and group.members:
            group.join_timer = JoinTimer.COMPLETE_JOIN
            group.join_deadline_ms = now_ms + group.rebalance_timeout_ms()
            return Result(None)
        group.init_next_generation(now_ms)
        if group.is_in(_S.EMPTY):
            return Result(None, [metadata_record(group)])
        for member in list(group.members.values()):
            group.complete_join(
                member, group.join_result(member.member_id, with_members=group.is_leader(member.member_id))
            )
            member.heartbeat_deadline_ms = now_ms + member.session_timeout_ms
            member.is_new = False
            group.pending_sync.add(member.member_id)
        group.sync_deadline_ms = now_ms + group.rebalance_timeout_ms()
        group.sync_generation = group.generation_id
        return Result(None)

    def _reset_and_propagate_assignment(self, group: Group, error: ErrorCode, now_ms: int) -> None:
        for member in group.members.values():
            member.assignment = b""
        self._propagate_assignment(group, error, now_ms)

    def _propagate_assignment(self, group: Group, error: ErrorCode, now_ms: int) -> None:
        ok = error is ErrorCode.NONE
        for member in group.members.values():
            result = SyncResult(
                error,
                group.protocol_type if ok else None,
                group.protocol_name if ok else None,
                member.assignment,
            )
            if group.complete_sync(member, result):
                member.heartbeat_deadline_ms = now_ms + member.session_timeout_ms

    # ----------------------------------------------------------------- SyncGroup

    def sync(self, req: SyncRequest, respond: Callable[[SyncResult], None], now_ms: int) -> Result[None]:
        group = self.groups.get(req.group_id)
        if group is None:
            respond(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
            return Result(None)
        error = self._validate_sync(group, req)
        if error is not ErrorCode.NONE:
            respond(SyncResult(error))
            return Result(None)
        if group.is_in(_S.EMPTY):
            respond(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
            return Result(None)
        if group.is_in(_S.PREPARING_REBALANCE):
            respond(SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
            return Result(None)
        member = group.members[req.member_id]
        if group.is_in(_S.STABLE):
            self._remove_pending_sync(group, req.member_id)
            respond(SyncResult(ErrorCode.NONE, group.protocol_type, group.protocol_name, member.assignment))
            return Result(None)
        member.sync_waiter = respond
        self._remove_pending_sync(group, req.member_id)
        if not group.is_leader(req.member_id):
            return Result(None)
        assignment = dict(req.assignments)
        for member_id in group.members:
            assignment.setdefault(member_id, b"")
        generation = req.generation_id
        record = metadata_record(group, assignment=assignment)

        def on_append(append_error: ErrorCode) -> None:
            if not (group.is_in(_S.COMPLETING_REBALANCE) and generation == group.generation_id):
                return
            if append_error is not ErrorCode.NONE:
                self._reset_and_propagate_assignment(group, append_error, now_ms)
                self._maybe_prepare_rebalance_or_complete_join(group, now_ms)
                return
            for m in group.members.values():
                m.assignment = assignment.get(m.member_id, b"")
            self._propagate_assignment(group, ErrorCode.NONE, now_ms)
            group.transition(_S.STABLE, now_ms)

        return Result(None, [record], on_append)

    def _validate_sync(self, group: Group, req: SyncRequest) -> ErrorCode:
        if group.is_in(_S.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        error = group.validate_member(req.member_id, req.group_instance_id)
        if error is not ErrorCode.NONE:
            return error
        if req.generation_id != group.generation_id:
            return ErrorCode.ILLEGAL_GENERATION
        if _inconsistent(req.protocol_type, group.protocol_type) or _inconsistent(
            req.protocol_name, group.protocol_name
        ):
            return ErrorCode.INCONSISTENT_GROUP_PROTOCOL
        return ErrorCode.NONE

    def _remove_pending_sync(self, group: Group, member_id: str) -> None:
        group.pending_sync.discard(member_id)
        if not group.pending_sync or group.is_in(_S.DEAD, _S.EMPTY, _S.PREPARING_REBALANCE):
            group.sync_deadline_ms = None

    # ----------------------------------------------------------------- Heartbeat

    def heartbeat(self, req: HeartbeatRequest, now_ms: int) -> ErrorCode:
        group = self.groups.get(req.group_id)
        if group is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if group.is_in(_S.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        error = group.validate_member(req.member_id, req.group_instance_id)
        if error is not ErrorCode.NONE:
            return error
        if req.generation_id != group.generation_id:
            return ErrorCode.ILLEGAL_GENERATION
        if group.is_in(_S.EMPTY):
            return ErrorCode.UNKNOWN_MEMBER_ID
        member = group.members[req.member_id]
        member.heartbeat_deadline_ms = now_ms + member.session_timeout_ms
        if group.is_in(_S.PREPARING_REBALANCE):
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    # ---------------------------------------------------------------- LeaveGroup

    def leave(self, group_id: str, members: list[LeaveMember], now_ms: int) -> Result[LeaveResult]:
        group = self.groups.get(group_id)
        if group is None:
            return Result(LeaveResult(ErrorCode.UNKNOWN_MEMBER_ID))
        if group.is_in(_S.DEAD):
            return Result(LeaveResult(ErrorCode.COORDINATOR_NOT_AVAILABLE))
        answers: list[LeaveMember] = []
        for leaving in members:
            member_id, instance_id = leaving.member_id, leaving.group_instance_id
            error = ErrorCode.NONE
            if member_id == UNKNOWN_MEMBER_ID:
                if instance_id is not None and instance_id in group.static_members:
                    self._remove_current_member(group, group.static_members[instance_id])
                else:
                    error = ErrorCode.UNKNOWN_MEMBER_ID
            elif member_id in group.pending_join:
                group.remove(member_id)
            else:
                error = group.validate_member(member_id, instance_id)
                if error is ErrorCode.NONE:
                    self._remove_current_member(group, member_id)
            answers.append(LeaveMember(member_id, instance_id, error))
        result = Result(LeaveResult(ErrorCode.NONE, tuple(answers)))
        if any(a.error is ErrorCode.NONE for a in answers):
            if group.is_in(_S.STABLE, _S.COMPLETING_REBALANCE):
                result.merge(self._maybe_prepare_rebalance_or_complete_join(group, now_ms))
            elif group.is_in(_S.PREPARING_REBALANCE):
                result.merge(self._maybe_complete_join_phase(group, now_ms))
        return result

    def _remove_current_member(self, group: Group, member_id: str) -> None:
        member = group.members[member_id]
        group.complete_join(member, JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, UNKNOWN_MEMBER_ID))
        group.remove(member_id)

    # --------------------------------------------------------------------- timers

    def next_deadline(self, group: Group) -> int | None:
        """The earliest of the group's deadlines (join, sync, pending members, sessions)."""
        return min((deadline for deadline, _ in self._deadlines(group)), default=None)

    def fire_due(self, group: Group, now_ms: int) -> Result[None]:
        """Fire the group's deadlines at or before ``now_ms``, earliest first, each at most once."""
        result = Result(None)
        fired: set[tuple[str, str]] = set()
        while True:
            due = [
                (deadline, key) for deadline, key in self._deadlines(group) if deadline <= now_ms and key not in fired
            ]
            if not due:
                return result
            key = min(due)[1]
            fired.add(key)
            result.merge(self._fire(group, key, now_ms))

    def _deadlines(self, group: Group) -> list[tuple[int, tuple[str, str]]]:
        timers: list[tuple[int, tuple[str, str]]] = []
        if group.join_deadline_ms is not None:
            timers.append((group.join_deadline_ms, ("join", "")))
        if group.sync_deadline_ms is not None:
            timers.append((group.sync_deadline_ms, ("sync", "")))
        timers.extend((deadline, ("pending", member_id)) for member_id, deadline in group.pending_join.items())
        timers.extend(
            (m.heartbeat_deadline_ms, ("member", m.member_id))
            for m in group.members.values()
            if m.heartbeat_deadline_ms is not None
        )
        return timers

    def _fire(self, group: Group, key: tuple[str, str], now_ms: int) -> Result[None]:
        kind, member_id = key
        if kind == "join":
            group.join_deadline_ms = None
            if group.join_timer is JoinTimer.INITIAL_DELAY:
                return self._initial_delay_expired(group, now_ms)
            return self._complete_join(group, now_ms)
        if kind == "sync":
            group.sync_deadline_ms = None
            return self._expire_pending_sync(group, now_ms)
        if kind == "pending":
            group.remove(member_id)
            if group.is_in(_S.PREPARING_REBALANCE) and group.has_all_members_joined():
                return self._complete_join(group, now_ms)
            return Result(None)
        member = group.members[member_id]
        member.heartbeat_deadline_ms = None
        if group.is_in(_S.DEAD) or member.has_satisfied_heartbeat():
            return Result(None)
        log.info("group %s: member %s's session expired; removing it", group.group_id, member_id)
        group.complete_join(member, JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, UNKNOWN_MEMBER_ID))
        group.remove(member_id)
        if group.is_in(_S.STABLE, _S.COMPLETING_REBALANCE):
            return self._maybe_prepare_rebalance_or_complete_join(group, now_ms)
        if group.is_in(_S.PREPARING_REBALANCE) and group.has_all_members_joined():
            return self._complete_join(group, now_ms)
        return Result(None)

    def _expire_pending_sync(self, group: Group, now_ms: int) -> Result[None]:
        if group.sync_generation != group.generation_id:
            return Result(None)
        if not group.is_in(_S.COMPLETING_REBALANCE, _S.STABLE) or not group.pending_sync:
            return Result(None)
        for member_id in list(group.pending_sync):
            group.remove(member_id)
        return self._prepare_rebalance(group, now_ms)

    # ------------------------------------------------------------------ loading

    def load(self, group: Group, now_ms: int) -> Result[None]:
        """Install a group rebuilt from its last metadata record; members' sessions restart now."""
        self.groups[group.group_id] = group
        for member in group.members.values():
            member.heartbeat_deadline_ms = now_ms + member.session_timeout_ms
        if len(group.members) > self.settings.max_size:
            return self._prepare_rebalance(group, now_ms)
        return Result(None)


def _inconsistent(requested: str | None, current: str | None) -> bool:
    return requested is not None and current is not None and requested != current
