"""Types of `odradek.wire.messages.groups`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "DeleteGroupsRequest",
    "DeleteGroupsResponse",
    "DescribeGroupsRequest",
    "DescribeGroupsResponse",
    "HeartbeatRequest",
    "HeartbeatResponse",
    "JoinGroupRequest",
    "JoinGroupResponse",
    "LeaveGroupRequest",
    "LeaveGroupResponse",
    "ListGroupsRequest",
    "ListGroupsResponse",
    "SyncGroupRequest",
    "SyncGroupResponse",
]

class DeleteGroupsRequestValue(StructValue):
    """DeleteGroupsRequest (api key 42), versions 0-3, flexible 2+."""

    groups_names: list[str]
    def __init__(self, *, groups_names: list[str] = ..., unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _DeleteGroupsRequest(Message[DeleteGroupsRequestValue]):
    def __call__(
        self, *, groups_names: list[str] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> DeleteGroupsRequestValue: ...

DeleteGroupsRequest: _DeleteGroupsRequest

class DeleteGroupsResponseValue(StructValue):
    """DeleteGroupsResponse (api key 42), versions 0-3, flexible 2+."""

    class DeletableGroupResult(StructValue):
        group_id: str
        error_code: int
        error_message: str | None  # v3+, nullable v3+
        def __init__(
            self,
            *,
            group_id: str = "",
            error_code: int = 0,
            error_message: str | None = None,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    results: list[DeletableGroupResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[DeletableGroupResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DeleteGroupsResponse(Message[DeleteGroupsResponseValue]):
    DeletableGroupResult: TypeAlias = DeleteGroupsResponseValue.DeletableGroupResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[DeletableGroupResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DeleteGroupsResponseValue: ...

DeleteGroupsResponse: _DeleteGroupsResponse

class DescribeGroupsRequestValue(StructValue):
    """DescribeGroupsRequest (api key 15), versions 0-6, flexible 5+."""

    groups: list[str]
    include_authorized_operations: bool  # v3+
    def __init__(
        self,
        *,
        groups: list[str] = ...,
        include_authorized_operations: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeGroupsRequest(Message[DescribeGroupsRequestValue]):
    def __call__(
        self,
        *,
        groups: list[str] = ...,
        include_authorized_operations: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeGroupsRequestValue: ...

DescribeGroupsRequest: _DescribeGroupsRequest

class DescribeGroupsResponseValue(StructValue):
    """DescribeGroupsResponse (api key 15), versions 0-6, flexible 5+."""

    class DescribedGroup(StructValue):
        class DescribedGroupMember(StructValue):
            member_id: str
            group_instance_id: str | None  # v4+, nullable v4+
            client_id: str
            client_host: str
            member_metadata: bytes
            member_assignment: bytes
            def __init__(
                self,
                *,
                member_id: str = "",
                group_instance_id: str | None = None,
                client_id: str = "",
                client_host: str = "",
                member_metadata: bytes = b"",
                member_assignment: bytes = b"",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        error_code: int
        error_message: str | None  # v6+, nullable v6+
        group_id: str
        group_state: str
        protocol_type: str
        protocol_data: str
        members: list[DescribedGroupMember]
        authorized_operations: int  # v3+
        def __init__(
            self,
            *,
            error_code: int = 0,
            error_message: str | None = None,
            group_id: str = "",
            group_state: str = "",
            protocol_type: str = "",
            protocol_data: str = "",
            members: list[DescribedGroupMember] = ...,
            authorized_operations: int = -2147483648,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v1+
    groups: list[DescribedGroup]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        groups: list[DescribedGroup] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeGroupsResponse(Message[DescribeGroupsResponseValue]):
    DescribedGroup: TypeAlias = DescribeGroupsResponseValue.DescribedGroup
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        groups: list[DescribedGroup] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeGroupsResponseValue: ...

DescribeGroupsResponse: _DescribeGroupsResponse

class HeartbeatRequestValue(StructValue):
    """HeartbeatRequest (api key 12), versions 0-4, flexible 4+."""

    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None  # v3+, nullable v3+
    def __init__(
        self,
        *,
        group_id: str = "",
        generation_id: int = 0,
        member_id: str = "",
        group_instance_id: str | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _HeartbeatRequest(Message[HeartbeatRequestValue]):
    def __call__(
        self,
        *,
        group_id: str = "",
        generation_id: int = 0,
        member_id: str = "",
        group_instance_id: str | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> HeartbeatRequestValue: ...

HeartbeatRequest: _HeartbeatRequest

class HeartbeatResponseValue(StructValue):
    """HeartbeatResponse (api key 12), versions 0-4, flexible 4+."""

    throttle_time_ms: int  # v1+
    error_code: int
    def __init__(
        self, *, throttle_time_ms: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _HeartbeatResponse(Message[HeartbeatResponseValue]):
    def __call__(
        self, *, throttle_time_ms: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> HeartbeatResponseValue: ...

HeartbeatResponse: _HeartbeatResponse

class JoinGroupRequestValue(StructValue):
    """JoinGroupRequest (api key 11), versions 0-9, flexible 6+."""

    class JoinGroupRequestProtocol(StructValue):
        name: str
        metadata: bytes
        def __init__(
            self, *, name: str = "", metadata: bytes = b"", unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    group_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: int  # v1+
    member_id: str
    group_instance_id: str | None  # v5+, nullable v5+
    protocol_type: str
    protocols: list[JoinGroupRequestProtocol]
    reason: str | None  # v8+, nullable v8+
    def __init__(
        self,
        *,
        group_id: str = "",
        session_timeout_ms: int = 0,
        rebalance_timeout_ms: int = -1,
        member_id: str = "",
        group_instance_id: str | None = None,
        protocol_type: str = "",
        protocols: list[JoinGroupRequestProtocol] = ...,
        reason: str | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _JoinGroupRequest(Message[JoinGroupRequestValue]):
    JoinGroupRequestProtocol: TypeAlias = JoinGroupRequestValue.JoinGroupRequestProtocol
    def __call__(
        self,
        *,
        group_id: str = "",
        session_timeout_ms: int = 0,
        rebalance_timeout_ms: int = -1,
        member_id: str = "",
        group_instance_id: str | None = None,
        protocol_type: str = "",
        protocols: list[JoinGroupRequestProtocol] = ...,
        reason: str | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> JoinGroupRequestValue: ...

JoinGroupRequest: _JoinGroupRequest

class JoinGroupResponseValue(StructValue):
    """JoinGroupResponse (api key 11), versions 0-9, flexible 6+."""

    class JoinGroupResponseMember(StructValue):
        member_id: str
        group_instance_id: str | None  # v5+, nullable v5+
        metadata: bytes
        def __init__(
            self,
            *,
            member_id: str = "",
            group_instance_id: str | None = None,
            metadata: bytes = b"",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v2+
    error_code: int
    generation_id: int
    protocol_type: str | None  # v7+, nullable v7+
    protocol_name: str | None  # nullable v7+
    leader: str
    skip_assignment: bool  # v9+
    member_id: str
    members: list[JoinGroupResponseMember]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        generation_id: int = -1,
        protocol_type: str | None = None,
        protocol_name: str | None = "",
        leader: str = "",
        skip_assignment: bool = False,
        member_id: str = "",
        members: list[JoinGroupResponseMember] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _JoinGroupResponse(Message[JoinGroupResponseValue]):
    JoinGroupResponseMember: TypeAlias = JoinGroupResponseValue.JoinGroupResponseMember
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        generation_id: int = -1,
        protocol_type: str | None = None,
        protocol_name: str | None = "",
        leader: str = "",
        skip_assignment: bool = False,
        member_id: str = "",
        members: list[JoinGroupResponseMember] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> JoinGroupResponseValue: ...

JoinGroupResponse: _JoinGroupResponse

class LeaveGroupRequestValue(StructValue):
    """LeaveGroupRequest (api key 13), versions 0-5, flexible 4+."""

    class MemberIdentity(StructValue):
        member_id: str  # v3+
        group_instance_id: str | None  # v3+, nullable v3+
        reason: str | None  # v5+, nullable v5+
        def __init__(
            self,
            *,
            member_id: str = "",
            group_instance_id: str | None = None,
            reason: str | None = None,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    group_id: str
    member_id: str  # v0-2
    members: list[MemberIdentity]  # v3+
    def __init__(
        self,
        *,
        group_id: str = "",
        member_id: str = "",
        members: list[MemberIdentity] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _LeaveGroupRequest(Message[LeaveGroupRequestValue]):
    MemberIdentity: TypeAlias = LeaveGroupRequestValue.MemberIdentity
    def __call__(
        self,
        *,
        group_id: str = "",
        member_id: str = "",
        members: list[MemberIdentity] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> LeaveGroupRequestValue: ...

LeaveGroupRequest: _LeaveGroupRequest

class LeaveGroupResponseValue(StructValue):
    """LeaveGroupResponse (api key 13), versions 0-5, flexible 4+."""

    class MemberResponse(StructValue):
        member_id: str  # v3+
        group_instance_id: str | None  # v3+, nullable v3+
        error_code: int  # v3+
        def __init__(
            self,
            *,
            member_id: str = "",
            group_instance_id: str | None = "",
            error_code: int = 0,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v1+
    error_code: int
    members: list[MemberResponse]  # v3+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        members: list[MemberResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _LeaveGroupResponse(Message[LeaveGroupResponseValue]):
    MemberResponse: TypeAlias = LeaveGroupResponseValue.MemberResponse
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        members: list[MemberResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> LeaveGroupResponseValue: ...

LeaveGroupResponse: _LeaveGroupResponse

class ListGroupsRequestValue(StructValue):
    """ListGroupsRequest (api key 16), versions 0-5, flexible 3+."""

    states_filter: list[str]  # v4+
    types_filter: list[str]  # v5+
    def __init__(
        self,
        *,
        states_filter: list[str] = ...,
        types_filter: list[str] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListGroupsRequest(Message[ListGroupsRequestValue]):
    def __call__(
        self,
        *,
        states_filter: list[str] = ...,
        types_filter: list[str] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListGroupsRequestValue: ...

ListGroupsRequest: _ListGroupsRequest

class ListGroupsResponseValue(StructValue):
    """ListGroupsResponse (api key 16), versions 0-5, flexible 3+."""

    class ListedGroup(StructValue):
        group_id: str
        protocol_type: str
        group_state: str  # v4+
        group_type: str  # v5+
        def __init__(
            self,
            *,
            group_id: str = "",
            protocol_type: str = "",
            group_state: str = "",
            group_type: str = "",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v1+
    error_code: int
    groups: list[ListedGroup]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        groups: list[ListedGroup] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListGroupsResponse(Message[ListGroupsResponseValue]):
    ListedGroup: TypeAlias = ListGroupsResponseValue.ListedGroup
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        groups: list[ListedGroup] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListGroupsResponseValue: ...

ListGroupsResponse: _ListGroupsResponse

class SyncGroupRequestValue(StructValue):
    """SyncGroupRequest (api key 14), versions 0-5, flexible 4+."""

    class SyncGroupRequestAssignment(StructValue):
        member_id: str
        assignment: bytes
        def __init__(
            self, *, member_id: str = "", assignment: bytes = b"", unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None  # v3+, nullable v3+
    protocol_type: str | None  # v5+, nullable v5+
    protocol_name: str | None  # v5+, nullable v5+
    assignments: list[SyncGroupRequestAssignment]
    def __init__(
        self,
        *,
        group_id: str = "",
        generation_id: int = 0,
        member_id: str = "",
        group_instance_id: str | None = None,
        protocol_type: str | None = None,
        protocol_name: str | None = None,
        assignments: list[SyncGroupRequestAssignment] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _SyncGroupRequest(Message[SyncGroupRequestValue]):
    SyncGroupRequestAssignment: TypeAlias = SyncGroupRequestValue.SyncGroupRequestAssignment
    def __call__(
        self,
        *,
        group_id: str = "",
        generation_id: int = 0,
        member_id: str = "",
        group_instance_id: str | None = None,
        protocol_type: str | None = None,
        protocol_name: str | None = None,
        assignments: list[SyncGroupRequestAssignment] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> SyncGroupRequestValue: ...

SyncGroupRequest: _SyncGroupRequest

class SyncGroupResponseValue(StructValue):
    """SyncGroupResponse (api key 14), versions 0-5, flexible 4+."""

    throttle_time_ms: int  # v1+
    error_code: int
    protocol_type: str | None  # v5+, nullable v5+
    protocol_name: str | None  # v5+, nullable v5+
    assignment: bytes
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        protocol_type: str | None = None,
        protocol_name: str | None = None,
        assignment: bytes = b"",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _SyncGroupResponse(Message[SyncGroupResponseValue]):
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        protocol_type: str | None = None,
        protocol_name: str | None = None,
        assignment: bytes = b"",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> SyncGroupResponseValue: ...

SyncGroupResponse: _SyncGroupResponse
