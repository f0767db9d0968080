"""Classic group membership and group admin: JoinGroup (11) v0-9, Heartbeat (12) v0-4,
LeaveGroup (13) v0-5, SyncGroup (14) v0-5, DescribeGroups (15) v0-6, ListGroups (16) v0-5,
DeleteGroups (42) v0-2 (v3 arrives with Kafka 4.4; the reference broker is 4.3.1).

The work is `odradek.coordinator` (see its docstrings for the protocol and error codes); these
handlers translate wire messages to its domain values and back.

- An empty group id: INVALID_GROUP_ID (JoinGroup, SyncGroup, Heartbeat, LeaveGroup).
- JoinGroup v0 has no rebalance timeout: the session timeout stands in for it.  Before v7 a
  null protocol name is sent as "".  v4+ requires a known member id (KIP-394); v9 may tell
  a rejoining static leader to skip the assignment.
- LeaveGroup v0-2 carries one member and reports its error at the top level; v3+ a batch.
- DescribeGroups of an unknown group: state Dead, and GROUP_ID_NOT_FOUND from v6 (KIP-1043).
- ListGroups filters by state (v4+, case-insensitive) and type (v5+: every group is "classic").
- Not implemented: KIP-848 consumer groups (ConsumerGroupHeartbeat) and share groups.
"""

from __future__ import annotations

from odradek.coordinator.messages import HeartbeatRequest as Heartbeat
from odradek.coordinator.messages import JoinRequest, LeaveMember, SyncRequest
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.groups import (
    DeleteGroupsRequest,
    DeleteGroupsRequestValue,
    DeleteGroupsResponse,
    DeleteGroupsResponseValue,
    DescribeGroupsRequest,
    DescribeGroupsRequestValue,
    DescribeGroupsResponse,
    DescribeGroupsResponseValue,
    HeartbeatRequest,
    HeartbeatRequestValue,
    HeartbeatResponse,
    HeartbeatResponseValue,
    JoinGroupRequest,
    JoinGroupRequestValue,
    JoinGroupResponse,
    JoinGroupResponseValue,
    LeaveGroupRequest,
    LeaveGroupRequestValue,
    LeaveGroupResponse,
    LeaveGroupResponseValue,
    ListGroupsRequest,
    ListGroupsRequestValue,
    ListGroupsResponse,
    ListGroupsResponseValue,
    SyncGroupRequest,
    SyncGroupRequestValue,
    SyncGroupResponse,
    SyncGroupResponseValue,
)

AUTHORIZED_OPERATIONS_OMITTED = -(2**31)
# READ, DELETE, DESCRIBE as AclOperation bits: what a group resource supports.
GROUP_OPERATIONS = (AclOperation.READ, AclOperation.DELETE, AclOperation.DESCRIBE)
ALL_GROUP_OPERATIONS = sum(1 << op for op in GROUP_OPERATIONS)

_JoinMember = JoinGroupResponse.JoinGroupResponseMember
_LeaveMember = LeaveGroupResponse.MemberResponse
_Described = DescribeGroupsResponse.DescribedGroup
_DescribedMember = _Described.DescribedGroupMember


def client_host(ctx: RequestContext) -> str:
    """The client's address as Kafka prints it: ``/`` and the IP address."""
    return "/" + ctx.connection.peer.rsplit(":", 1)[0]


# ----------------------------------------------------------------------- JoinGroup


def _join_error(request: JoinGroupRequestValue, code: ErrorCode) -> JoinGroupResponseValue:
    return JoinGroupResponse(error_code=code, member_id=request.member_id, protocol_name="", leader="")


@registry.api(JoinGroupRequest, JoinGroupResponse, "0-9", _join_error)
async def join_group(ctx: RequestContext, request: JoinGroupRequestValue) -> JoinGroupResponseValue:
    version = ctx.version
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return _join_error(request, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if not request.group_id:
        # Kafka's answer names no protocol: null where the field is nullable (v7+).
        refused = _join_error(request, ErrorCode.INVALID_GROUP_ID)
        refused.protocol_name = None if version >= 7 else ""
        return refused
    rebalance_timeout = request.session_timeout_ms if version == 0 else request.rebalance_timeout_ms
    join = JoinRequest(
        group_id=request.group_id,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id,
        session_timeout_ms=request.session_timeout_ms,
        rebalance_timeout_ms=rebalance_timeout,
        protocol_type=request.protocol_type,
        protocols=tuple((p.name, p.metadata) for p in request.protocols),
        client_id=ctx.header.client_id or "",
        client_host=client_host(ctx),
        requires_known_member_id=version >= 4 and request.group_instance_id is None,
        supports_skip_assignment=version >= 9,
        reason=request.reason,
    )
    result = await ctx.groups.join(join)
    protocol_name = result.protocol_name
    if protocol_name is None and version < 7:
        protocol_name = ""
    return JoinGroupResponse(
        error_code=result.error,
        generation_id=result.generation_id,
        protocol_type=result.protocol_type,
        protocol_name=protocol_name,
        leader=result.leader,
        skip_assignment=result.skip_assignment,
        member_id=result.member_id,
        members=[
            _JoinMember(member_id=m.member_id, group_instance_id=m.group_instance_id, metadata=m.metadata)
            for m in result.members
        ],
    )


# ----------------------------------------------------------------------- SyncGroup


def _sync_error(request: SyncGroupRequestValue, code: ErrorCode) -> SyncGroupResponseValue:
    return SyncGroupResponse(error_code=code, assignment=b"")


@registry.api(SyncGroupRequest, SyncGroupResponse, "0-5", _sync_error)
async def sync_group(ctx: RequestContext, request: SyncGroupRequestValue) -> SyncGroupResponseValue:
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return _sync_error(request, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if not request.group_id:
        return _sync_error(request, ErrorCode.INVALID_GROUP_ID)
    sync = SyncRequest(
        group_id=request.group_id,
        member_id=request.member_id,
        generation_id=request.generation_id,
        group_instance_id=request.group_instance_id,
        protocol_type=request.protocol_type,
        protocol_name=request.protocol_name,
        assignments=tuple((a.member_id, a.assignment) for a in request.assignments),
    )
    result = await ctx.groups.sync(sync)
    return SyncGroupResponse(
        error_code=result.error,
        protocol_type=result.protocol_type,
        protocol_name=result.protocol_name,
        assignment=result.assignment,
    )


# ----------------------------------------------------------------------- Heartbeat


def _heartbeat_error(request: HeartbeatRequestValue, code: ErrorCode) -> HeartbeatResponseValue:
    return HeartbeatResponse(error_code=code)


@registry.api(HeartbeatRequest, HeartbeatResponse, "0-4", _heartbeat_error)
async def heartbeat(ctx: RequestContext, request: HeartbeatRequestValue) -> HeartbeatResponseValue:
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return _heartbeat_error(request, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if not request.group_id:
        return _heartbeat_error(request, ErrorCode.INVALID_GROUP_ID)
    beat = Heartbeat(request.group_id, request.member_id, request.generation_id, request.group_instance_id)
    return HeartbeatResponse(error_code=ctx.groups.coordinator.heartbeat(beat))


# ---------------------------------------------------------------------- LeaveGroup


def _leave_error(request: LeaveGroupRequestValue, code: ErrorCode) -> LeaveGroupResponseValue:
    return LeaveGroupResponse(error_code=code)


@registry.api(LeaveGroupRequest, LeaveGroupResponse, "0-5", _leave_error)
async def leave_group(ctx: RequestContext, request: LeaveGroupRequestValue) -> LeaveGroupResponseValue:
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return _leave_error(request, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if not request.group_id:
        return _leave_error(request, ErrorCode.INVALID_GROUP_ID)
    if ctx.version < 3:
        leaving = [LeaveMember(request.member_id, None)]
    else:
        leaving = [LeaveMember(m.member_id, m.group_instance_id) for m in request.members]
    result = ctx.groups.leave(request.group_id, leaving)
    if ctx.version < 3:
        error = result.error
        if error is ErrorCode.NONE and result.members:
            error = result.members[0].error
        return LeaveGroupResponse(error_code=error)
    return LeaveGroupResponse(
        error_code=result.error,
        members=[
            _LeaveMember(member_id=m.member_id, group_instance_id=m.group_instance_id, error_code=m.error)
            for m in result.members
        ],
    )


# ------------------------------------------------------------------ DescribeGroups


def _describe_error(request: DescribeGroupsRequestValue, code: ErrorCode) -> DescribeGroupsResponseValue:
    return DescribeGroupsResponse(groups=[_Described(error_code=code, group_id=g) for g in request.groups])


@registry.api(DescribeGroupsRequest, DescribeGroupsResponse, "0-6", _describe_error)
async def describe_groups(ctx: RequestContext, request: DescribeGroupsRequestValue) -> DescribeGroupsResponseValue:
    coordinator = ctx.groups.coordinator
    groups = []
    for group_id in request.groups:
        if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            groups.append(_Described(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED, group_id=group_id))
            continue
        operations = (
            ctx.authorized_operations(ResourceType.GROUP, group_id, GROUP_OPERATIONS)
            if request.include_authorized_operations
            else AUTHORIZED_OPERATIONS_OMITTED
        )
        described = coordinator.describe_group(group_id)
        if described is None:
            not_found = ctx.version >= 6
            groups.append(
                _Described(
                    error_code=ErrorCode.GROUP_ID_NOT_FOUND if not_found else ErrorCode.NONE,
                    error_message=f"Group {group_id} not found." if not_found else None,
                    group_id=group_id,
                    group_state="Dead",
                    authorized_operations=operations,
                )
            )
            continue
        groups.append(
            _Described(
                error_code=ErrorCode.NONE,
                group_id=group_id,
                group_state=described.state.value,
                protocol_type=described.protocol_type,
                protocol_data=described.protocol_data,
                members=[
                    _DescribedMember(
                        member_id=m.member_id,
                        group_instance_id=m.group_instance_id,
                        client_id=m.client_id,
                        client_host=m.client_host,
                        member_metadata=m.metadata,
                        member_assignment=m.assignment,
                    )
                    for m in described.members
                ],
                authorized_operations=operations,
            )
        )
    return DescribeGroupsResponse(groups=groups)


# --------------------------------------------------------------------- ListGroups


def _list_error(request: ListGroupsRequestValue, code: ErrorCode) -> ListGroupsResponseValue:
    return ListGroupsResponse(error_code=code)


@registry.api(ListGroupsRequest, ListGroupsResponse, "0-5", _list_error)
async def list_groups(ctx: RequestContext, request: ListGroupsRequestValue) -> ListGroupsResponseValue:
    listed = ctx.groups.coordinator.list_groups(request.states_filter, request.types_filter)
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        listed = [g for g in listed if ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, g.group_id)]
    return ListGroupsResponse(
        error_code=ErrorCode.NONE,
        groups=[
            ListGroupsResponse.ListedGroup(
                group_id=g.group_id,
                protocol_type=g.protocol_type,
                group_state=g.state.value,
                group_type=g.group_type,
            )
            for g in listed
        ],
    )


# ------------------------------------------------------------------- DeleteGroups


def _delete_error(request: DeleteGroupsRequestValue, code: ErrorCode) -> DeleteGroupsResponseValue:
    return DeleteGroupsResponse(
        results=[DeleteGroupsResponse.DeletableGroupResult(group_id=g, error_code=code) for g in request.groups_names]
    )


@registry.api(DeleteGroupsRequest, DeleteGroupsResponse, "0-3", _delete_error)
async def delete_groups(ctx: RequestContext, request: DeleteGroupsRequestValue) -> DeleteGroupsResponseValue:
    names = list(request.groups_names)
    allowed = [name for name in names if ctx.authorize(AclOperation.DELETE, ResourceType.GROUP, name)]
    errors = dict(zip(allowed, ctx.groups.delete_groups(allowed), strict=True))
    return DeleteGroupsResponse(
        results=[
            DeleteGroupsResponse.DeletableGroupResult(
                group_id=name, error_code=errors.get(name, ErrorCode.GROUP_AUTHORIZATION_FAILED)
            )
            for name in names
        ]
    )
