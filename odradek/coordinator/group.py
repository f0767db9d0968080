"""A classic group's membership bookkeeping (Kafka's ClassicGroup and ClassicGroupMember).

This module keeps the counts and indexes consistent; the rebalance protocol that decides when
to call these methods lives in `rebalance`.

Invariants:
- ``num_awaiting_join`` equals the number of members with a join waiter;
- ``supported[name]`` counts the members that list protocol ``name``;
- ``static_members`` maps each member's group instance id to its member id, and nothing else;
- the leader, when set, is a member; pending members (KIP-394) are never members.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from odradek.coordinator.messages import JoinedMember, JoinResult, Protocol, SyncResult
from odradek.coordinator.state import GroupState, check_transition
from odradek.wire.errors import ErrorCode

__all__ = ["CONSUMER_PROTOCOL_TYPE", "Group", "JoinTimer", "Member"]

CONSUMER_PROTOCOL_TYPE = "consumer"

log = logging.getLogger(__name__)

JoinWaiter = Callable[[JoinResult], None]
SyncWaiter = Callable[[SyncResult], None]


@dataclass(slots=True, eq=False)
class Member:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: tuple[Protocol, ...]
    assignment: bytes = b""
    join_waiter: JoinWaiter | None = None
    sync_waiter: SyncWaiter | None = None
    is_new: bool = False
    heartbeat_deadline_ms: int | None = None

    @property
    def is_awaiting_join(self) -> bool:
        return self.join_waiter is not None

    @property
    def is_awaiting_sync(self) -> bool:
        return self.sync_waiter is not None

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    def metadata(self, protocol: str | None) -> bytes:
        for name, metadata in self.protocols:
            if name == protocol:
                return metadata
        return b""

    def matches(self, protocols: tuple[Protocol, ...]) -> bool:
        return self.protocols == protocols

    def vote(self, candidates: set[str]) -> str:
        """This member's most preferred protocol among ``candidates`` (never empty when called)."""
        return next(name for name, _ in self.protocols if name in candidates)

    def has_satisfied_heartbeat(self) -> bool:
        """A member parked in a join or sync counts as alive, unless it is new (never synced)."""
        if self.is_new:
            return False
        return self.is_awaiting_join or self.is_awaiting_sync


class JoinTimer(Enum):
    """What the group's join-phase deadline does when it fires."""

    INITIAL_DELAY = "initial-delay"
    COMPLETE_JOIN = "complete-join"


class Group:
    def __init__(self, group_id: str, now_ms: int | None) -> None:
        self.group_id = group_id
        self.state = GroupState.EMPTY
        self.previous_state = GroupState.DEAD
        self.state_timestamp_ms = now_ms
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.generation_id = 0
        self.leader_id: str | None = None
        self.members: dict[str, Member] = {}
        self.static_members: dict[str, str] = {}
        self.pending_join: dict[str, int] = {}
        self.pending_sync: set[str] = set()
        self.supported: Counter[str] = Counter()
        self.num_awaiting_join = 0
        self.new_member_added = False
        self.join_deadline_ms: int | None = None
        self.join_timer = JoinTimer.COMPLETE_JOIN
        self.initial_delay_ms = 0
        self.initial_remaining_ms = 0
        self.sync_deadline_ms: int | None = None
        self.sync_generation = 0

    def __repr__(self) -> str:
        return f"Group({self.group_id!r}, {self.state.value}, generation={self.generation_id})"

    def is_in(self, *states: GroupState) -> bool:
        return self.state in states

    def transition(self, new: GroupState, now_ms: int) -> None:
        check_transition(self.state, new)
        self.previous_state = self.state
        self.state = new
        self.state_timestamp_ms = now_ms
        log.info(
            "group %s: %s -> %s (generation %d, %d members)",
            self.group_id,
            self.previous_state.value,
            new.value,
            self.generation_id,
            len(self.members),
        )

    @property
    def can_rebalance(self) -> bool:
        return self.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE, GroupState.EMPTY)

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    def add(self, member: Member, waiter: JoinWaiter | None) -> None:
        if member.group_instance_id is not None:
            if member.group_instance_id in self.static_members:
                raise ValueError(f"static member {member.group_instance_id} is already in {self.group_id}")
            self.static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        self.supported.update(name for name, _ in member.protocols)
        member.join_waiter = waiter
        if waiter is not None:
            self.num_awaiting_join += 1
        self.pending_join.pop(member.member_id, None)

    def remove(self, member_id: str) -> None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self.supported.subtract(name for name, _ in member.protocols)
            if member.is_awaiting_join:
                self.num_awaiting_join -= 1
            if member.group_instance_id is not None:
                self.static_members.pop(member.group_instance_id, None)
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)
        self.pending_join.pop(member_id, None)
        self.pending_sync.discard(member_id)

    def maybe_elect_new_joined_leader(self) -> bool:
        """Keep a leader that rejoined, else pick a member that did; False if none did."""
        if self.leader_id is None:
            return False
        if self.members[self.leader_id].is_awaiting_join:
            return True
        for member in self.members.values():
            if member.is_awaiting_join:
                self.leader_id = member.member_id
                return True
        return False

    def replace_static_member(self, instance_id: str, old_id: str, new_id: str) -> Member:
        """Give a static member a new member id; whoever waits under the old id is fenced."""
        old = self.members.pop(old_id)
        if old.join_waiter is not None:
            old.join_waiter(JoinResult(ErrorCode.FENCED_INSTANCE_ID, old_id))
            old.join_waiter = None
            self.num_awaiting_join -= 1
        if old.sync_waiter is not None:
            old.sync_waiter(SyncResult(ErrorCode.FENCED_INSTANCE_ID))
            old.sync_waiter = None
        new = Member(
            new_id,
            old.group_instance_id,
            old.client_id,
            old.client_host,
            old.rebalance_timeout_ms,
            old.session_timeout_ms,
            old.protocol_type,
            old.protocols,
            old.assignment,
        )
        self.members[new_id] = new
        if self.is_leader(old_id):
            self.leader_id = new_id
        self.static_members[instance_id] = new_id
        return new

    def has_all_members_joined(self) -> bool:
        return len(self.members) == self.num_awaiting_join and not self.pending_join

    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def supports_protocols(self, protocol_type: str, names: set[str]) -> bool:
        if self.state is GroupState.EMPTY:
            return bool(protocol_type) and bool(names)
        size = len(self.members)
        return self.protocol_type == protocol_type and any(self.supported[name] == size for name in names)

    def select_protocol(self) -> str:
        """The protocol every member supports that most members prefer."""
        size = len(self.members)
        candidates = {name for name, count in self.supported.items() if count == size}
        votes: Counter[str] = Counter(member.vote(candidates) for member in self.members.values())
        return votes.most_common(1)[0][0]

    def update_member(
        self,
        member: Member,
        protocols: tuple[Protocol, ...],
        rebalance_timeout_ms: int,
        session_timeout_ms: int,
        waiter: JoinWaiter | None,
    ) -> None:
        self.supported.subtract(name for name, _ in member.protocols)
        member.protocols = protocols
        self.supported.update(name for name, _ in protocols)
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        if waiter is not None and not member.is_awaiting_join:
            self.num_awaiting_join += 1
        elif waiter is None and member.is_awaiting_join:
            self.num_awaiting_join -= 1
        member.join_waiter = waiter

    def complete_join(self, member: Member, result: JoinResult) -> bool:
        waiter = member.join_waiter
        if waiter is None:
            return False
        member.join_waiter = None
        self.num_awaiting_join -= 1
        waiter(result)
        return True

    def complete_sync(self, member: Member, result: SyncResult) -> bool:
        waiter = member.sync_waiter
        if waiter is None:
            return False
        member.sync_waiter = None
        waiter(result)
        return True

    def init_next_generation(self, now_ms: int) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.transition(GroupState.COMPLETING_REBALANCE, now_ms)
        else:
            self.protocol_name = None
            self.transition(GroupState.EMPTY, now_ms)
        self.pending_sync.clear()

    def current_members(self) -> tuple[JoinedMember, ...]:
        return tuple(
            JoinedMember(m.member_id, m.group_instance_id, m.metadata(self.protocol_name))
            for m in self.members.values()
        )

    def join_result(self, member_id: str, *, with_members: bool, skip_assignment: bool = False) -> JoinResult:
        """The successful JoinGroup answer for the current generation."""
        return JoinResult(
            ErrorCode.NONE,
            member_id,
            self.generation_id,
            self.protocol_type,
            self.protocol_name,
            self.leader_id or "",
            skip_assignment,
            self.current_members() if with_members else (),
        )

    def validate_member(self, member_id: str, instance_id: str | None) -> ErrorCode:
        """UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID when the ids do not name a current member."""
        if instance_id is not None:
            existing = self.static_members.get(instance_id)
            if existing is None:
                return ErrorCode.UNKNOWN_MEMBER_ID
            if existing != member_id:
                return ErrorCode.FENCED_INSTANCE_ID
        if member_id not in self.members:
            return ErrorCode.UNKNOWN_MEMBER_ID
        return ErrorCode.NONE
