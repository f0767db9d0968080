"""What handlers hand the coordinator and what it answers: domain values, not wire messages.

Handlers import this module alone of the coordinator's: the broker builds the coordinator itself
(and so imports the rest of the package) when a request first needs it.

A call that may have to wait (JoinGroup until the others rejoin, SyncGroup until the leader's
assignment) takes a ``respond`` callback that the coordinator calls exactly once, maybe later
(from another request or from a timer).  Every state-changing call returns a
`results.Result`: the response and the records to persist.
"""

from __future__ import annotations

from dataclasses import dataclass

from odradek.wire.errors import ErrorCode

__all__ = [
    "CommitIdentity",
    "CommitPartition",
    "HeartbeatRequest",
    "JoinRequest",
    "JoinResult",
    "JoinedMember",
    "LeaveMember",
    "LeaveResult",
    "Protocol",
    "SyncRequest",
    "SyncResult",
]

Protocol = tuple[str, bytes]
"""(protocol name, protocol metadata) as a member lists them in JoinGroup, in preference order."""


@dataclass(frozen=True, slots=True)
class JoinRequest:
    """A JoinGroup; ``rebalance_timeout_ms`` already defaulted to the session timeout for v0."""

    group_id: str
    member_id: str
    group_instance_id: str | None
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: tuple[Protocol, ...]
    client_id: str
    client_host: str
    requires_known_member_id: bool
    supports_skip_assignment: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class JoinedMember:
    member_id: str
    group_instance_id: str | None
    metadata: bytes


@dataclass(frozen=True, slots=True)
class JoinResult:
    error: ErrorCode
    member_id: str
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    skip_assignment: bool = False
    members: tuple[JoinedMember, ...] = ()


@dataclass(frozen=True, slots=True)
class SyncRequest:
    group_id: str
    member_id: str
    generation_id: int
    group_instance_id: str | None
    protocol_type: str | None
    protocol_name: str | None
    assignments: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True, slots=True)
class SyncResult:
    error: ErrorCode
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


@dataclass(frozen=True, slots=True)
class HeartbeatRequest:
    group_id: str
    member_id: str
    generation_id: int
    group_instance_id: str | None


@dataclass(frozen=True, slots=True)
class LeaveMember:
    member_id: str
    group_instance_id: str | None
    error: ErrorCode = ErrorCode.NONE


@dataclass(frozen=True, slots=True)
class LeaveResult:
    """``error`` is the group-level error; ``members`` the per-member answers (v3+ form)."""

    error: ErrorCode
    members: tuple[LeaveMember, ...] = ()


@dataclass(frozen=True, slots=True)
class CommitIdentity:
    """Who commits: ``generation_id`` -1 and an empty member id for a standalone consumer."""

    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None


@dataclass(frozen=True, slots=True)
class CommitPartition:
    topic: str
    partition: int
    offset: int
    leader_epoch: int
    metadata: str | None
