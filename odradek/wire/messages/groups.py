"""Classic consumer-group APIs: JoinGroup (11), Heartbeat (12), LeaveGroup (13), SyncGroup (14),
DescribeGroups (15), ListGroups (16), DeleteGroups (42).

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants:
- `group_instance_id` (static membership) exists from JoinGroup v5, SyncGroup v3, Heartbeat v3;
- LeaveGroup v3+ removes a batch of `members`, v0-2 the single `member_id`;
- `protocol_type`/`protocol_name` in SyncGroup exist from v5;
- protocol metadata and assignments are opaque bytes (the consumer protocol is decoded elsewhere).
"""

from odradek.wire.schema import BOOL, BYTES, INT16, INT32, STRING, ArrayOf, Field, Kind, Message, Struct

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

_JOIN_GROUP_REQUEST_PROTOCOL = Struct(
    "JoinGroupRequestProtocol",
    [
        Field("name", STRING, "0+"),
        Field("metadata", BYTES, "0+"),
    ],
)

JoinGroupRequest = Message(
    "JoinGroupRequest",
    api_key=11,
    kind=Kind.REQUEST,
    valid="0-9",
    flexible="6+",
    fields=[
        Field("group_id", STRING, "0+"),
        Field("session_timeout_ms", INT32, "0+"),
        Field("rebalance_timeout_ms", INT32, "1+", default=-1, ignorable=True),
        Field("member_id", STRING, "0+"),
        Field("group_instance_id", STRING, "5+", nullable="5+", default=None),
        Field("protocol_type", STRING, "0+"),
        Field("protocols", ArrayOf(_JOIN_GROUP_REQUEST_PROTOCOL), "0+"),
        Field("reason", STRING, "8+", nullable="8+", default=None, ignorable=True),
    ],
)

_JOIN_GROUP_RESPONSE_MEMBER = Struct(
    "JoinGroupResponseMember",
    [
        Field("member_id", STRING, "0+"),
        Field("group_instance_id", STRING, "5+", nullable="5+", default=None, ignorable=True),
        Field("metadata", BYTES, "0+"),
    ],
)

JoinGroupResponse = Message(
    "JoinGroupResponse",
    api_key=11,
    kind=Kind.RESPONSE,
    valid="0-9",
    flexible="6+",
    fields=[
        Field("throttle_time_ms", INT32, "2+", ignorable=True),
        Field("error_code", INT16, "0+"),
        Field("generation_id", INT32, "0+", default=-1),
        Field("protocol_type", STRING, "7+", nullable="7+", default=None, ignorable=True),
        Field("protocol_name", STRING, "0+", nullable="7+"),
        Field("leader", STRING, "0+"),
        Field("skip_assignment", BOOL, "9+"),
        Field("member_id", STRING, "0+"),
        Field("members", ArrayOf(_JOIN_GROUP_RESPONSE_MEMBER), "0+"),
    ],
)

HeartbeatRequest = Message(
    "HeartbeatRequest",
    api_key=12,
    kind=Kind.REQUEST,
    valid="0-4",
    flexible="4+",
    fields=[
        Field("group_id", STRING, "0+"),
        Field("generation_id", INT32, "0+"),
        Field("member_id", STRING, "0+"),
        Field("group_instance_id", STRING, "3+", nullable="3+", default=None),
    ],
)

HeartbeatResponse = Message(
    "HeartbeatResponse",
    api_key=12,
    kind=Kind.RESPONSE,
    valid="0-4",
    flexible="4+",
    fields=[
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("error_code", INT16, "0+"),
    ],
)

_MEMBER_IDENTITY = Struct(
    "MemberIdentity",
    [
        Field("member_id", STRING, "3+"),
        Field("group_instance_id", STRING, "3+", nullable="3+", default=None),
        Field("reason", STRING, "5+", nullable="5+", default=None, ignorable=True),
    ],
)

LeaveGroupRequest = Message(
    "LeaveGroupRequest",
    api_key=13,
    kind=Kind.REQUEST,
    valid="0-5",
    flexible="4+",
    fields=[
        Field("group_id", STRING, "0+"),
        Field("member_id", STRING, "0-2"),
        Field("members", ArrayOf(_MEMBER_IDENTITY), "3+"),
    ],
)

_MEMBER_RESPONSE = Struct(
    "MemberResponse",
    [
        Field("member_id", STRING, "3+"),
        Field("group_instance_id", STRING, "3+", nullable="3+"),
        Field("error_code", INT16, "3+"),
    ],
)

LeaveGroupResponse = Message(
    "LeaveGroupResponse",
    api_key=13,
    kind=Kind.RESPONSE,
    valid="0-5",
    flexible="4+",
    fields=[
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("error_code", INT16, "0+"),
        Field("members", ArrayOf(_MEMBER_RESPONSE), "3+"),
    ],
)

_SYNC_GROUP_REQUEST_ASSIGNMENT = Struct(
    "SyncGroupRequestAssignment",
    [
        Field("member_id", STRING, "0+"),
        Field("assignment", BYTES, "0+"),
    ],
)

SyncGroupRequest = Message(
    "SyncGroupRequest",
    api_key=14,
    kind=Kind.REQUEST,
    valid="0-5",
    flexible="4+",
    fields=[
        Field("group_id", STRING, "0+"),
        Field("generation_id", INT32, "0+"),
        Field("member_id", STRING, "0+"),
        Field("group_instance_id", STRING, "3+", nullable="3+", default=None),
        Field("protocol_type", STRING, "5+", nullable="5+", default=None, ignorable=True),
        Field("protocol_name", STRING, "5+", nullable="5+", default=None, ignorable=True),
        Field("assignments", ArrayOf(_SYNC_GROUP_REQUEST_ASSIGNMENT), "0+"),
    ],
)

SyncGroupResponse = Message(
    "SyncGroupResponse",
    api_key=14,
    kind=Kind.RESPONSE,
    valid="0-5",
    flexible="4+",
    fields=[
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("error_code", INT16, "0+"),
        Field("protocol_type", STRING, "5+", nullable="5+", default=None, ignorable=True),
        Field("protocol_name", STRING, "5+", nullable="5+", default=None, ignorable=True),
        Field("assignment", BYTES, "0+"),
    ],
)

DescribeGroupsRequest = Message(
    "DescribeGroupsRequest",
    api_key=15,
    kind=Kind.REQUEST,
    valid="0-6",
    flexible="5+",
    fields=[
        Field("groups", ArrayOf(STRING), "0+"),
        Field("include_authorized_operations", BOOL, "3+"),
    ],
)

_DESCRIBED_GROUP_MEMBER = Struct(
    "DescribedGroupMember",
    [
        Field("member_id", STRING, "0+"),
        Field("group_instance_id", STRING, "4+", nullable="4+", default=None, ignorable=True),
        Field("client_id", STRING, "0+"),
        Field("client_host", STRING, "0+"),
        Field("member_metadata", BYTES, "0+"),
        Field("member_assignment", BYTES, "0+"),
    ],
)

_DESCRIBED_GROUP = Struct(
    "DescribedGroup",
    [
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "6+", nullable="6+", default=None),
        Field("group_id", STRING, "0+"),
        Field("group_state", STRING, "0+"),
        Field("protocol_type", STRING, "0+"),
        Field("protocol_data", STRING, "0+"),
        Field("members", ArrayOf(_DESCRIBED_GROUP_MEMBER), "0+"),
        Field("authorized_operations", INT32, "3+", default=-2147483648),
    ],
)

DescribeGroupsResponse = Message(
    "DescribeGroupsResponse",
    api_key=15,
    kind=Kind.RESPONSE,
    valid="0-6",
    flexible="5+",
    fields=[
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("groups", ArrayOf(_DESCRIBED_GROUP), "0+"),
    ],
)

ListGroupsRequest = Message(
    "ListGroupsRequest",
    api_key=16,
    kind=Kind.REQUEST,
    valid="0-5",
    flexible="3+",
    fields=[
        Field("states_filter", ArrayOf(STRING), "4+"),
        Field("types_filter", ArrayOf(STRING), "5+"),
    ],
)

_LISTED_GROUP = Struct(
    "ListedGroup",
    [
        Field("group_id", STRING, "0+"),
        Field("protocol_type", STRING, "0+"),
        Field("group_state", STRING, "4+", ignorable=True),
        Field("group_type", STRING, "5+", ignorable=True),
    ],
)

ListGroupsResponse = Message(
    "ListGroupsResponse",
    api_key=16,
    kind=Kind.RESPONSE,
    valid="0-5",
    flexible="3+",
    fields=[
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("error_code", INT16, "0+"),
        Field("groups", ArrayOf(_LISTED_GROUP), "0+"),
    ],
)

DeleteGroupsRequest = Message(
    "DeleteGroupsRequest",
    api_key=42,
    kind=Kind.REQUEST,
    valid="0-3",
    flexible="2+",
    fields=[
        Field("groups_names", ArrayOf(STRING), "0+"),
    ],
)

_DELETABLE_GROUP_RESULT = Struct(
    "DeletableGroupResult",
    [
        Field("group_id", STRING, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "3+", nullable="3+", default=None, ignorable=True),
    ],
)

DeleteGroupsResponse = Message(
    "DeleteGroupsResponse",
    api_key=42,
    kind=Kind.RESPONSE,
    valid="0-3",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("results", ArrayOf(_DELETABLE_GROUP_RESULT), "0+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
DeleteGroupsRequestValue = DeleteGroupsRequest.cls
DeleteGroupsResponseValue = DeleteGroupsResponse.cls
DescribeGroupsRequestValue = DescribeGroupsRequest.cls
DescribeGroupsResponseValue = DescribeGroupsResponse.cls
HeartbeatRequestValue = HeartbeatRequest.cls
HeartbeatResponseValue = HeartbeatResponse.cls
JoinGroupRequestValue = JoinGroupRequest.cls
JoinGroupResponseValue = JoinGroupResponse.cls
LeaveGroupRequestValue = LeaveGroupRequest.cls
LeaveGroupResponseValue = LeaveGroupResponse.cls
ListGroupsRequestValue = ListGroupsRequest.cls
ListGroupsResponseValue = ListGroupsResponse.cls
SyncGroupRequestValue = SyncGroupRequest.cls
SyncGroupResponseValue = SyncGroupResponse.cls
