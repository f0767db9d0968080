"""The KRaft quorum and cluster membership: DescribeQuorum (55), UnregisterBroker (64),
AddRaftVoter (80), RemoveRaftVoter (81) and UnregisterController (94).

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants: every one of them is
flexible in every version; DescribeQuorum's replica directory ids and controller endpoints
(``nodes``) exist from v2, its fetch timestamps from v1; AddRaftVoter's
``ack_when_committed`` exists from v1.
"""

from odradek.wire.schema import BOOL, INT16, INT32, INT64, STRING, UINT16, UUID, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "AddRaftVoterRequest",
    "AddRaftVoterResponse",
    "DescribeQuorumRequest",
    "DescribeQuorumResponse",
    "RemoveRaftVoterRequest",
    "RemoveRaftVoterResponse",
    "UnregisterBrokerRequest",
    "UnregisterBrokerResponse",
    "UnregisterControllerRequest",
    "UnregisterControllerResponse",
]

_PARTITION_DATA = Struct(
    "PartitionData",
    [
        Field("partition_index", INT32, "0+"),
    ],
)


_TOPIC_DATA = Struct(
    "TopicData",
    [
        Field("topic_name", STRING, "0+"),
        Field("partitions", ArrayOf(_PARTITION_DATA), "0+"),
    ],
)


DescribeQuorumRequest = Message(
    "DescribeQuorumRequest",
    api_key=55,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="0+",
    fields=[
        Field("topics", ArrayOf(_TOPIC_DATA), "0+"),
    ],
)


_REPLICA_STATE = Struct(
    "ReplicaState",
    [
        Field("replica_id", INT32, "0+"),
        Field("replica_directory_id", UUID, "2+"),
        Field("log_end_offset", INT64, "0+"),
        Field("last_fetch_timestamp", INT64, "1+", default=-1, ignorable=True),
        Field("last_caught_up_timestamp", INT64, "1+", default=-1, ignorable=True),
    ],
)


_DESCRIBE_QUORUM_PARTITION_DATA = Struct(
    "PartitionData",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "2+", nullable="2+", ignorable=True),
        Field("leader_id", INT32, "0+"),
        Field("leader_epoch", INT32, "0+"),
        Field("high_watermark", INT64, "0+"),
        Field("current_voters", ArrayOf(_REPLICA_STATE), "0+"),
        Field("observers", ArrayOf(_REPLICA_STATE), "0+"),
    ],
)


_DESCRIBE_QUORUM_TOPIC_DATA = Struct(
    "TopicData",
    [
        Field("topic_name", STRING, "0+"),
        Field("partitions", ArrayOf(_DESCRIBE_QUORUM_PARTITION_DATA), "0+"),
    ],
)


_LISTENER = Struct(
    "Listener",
    [
        Field("name", STRING, "2+"),
        Field("host", STRING, "2+"),
        Field("port", UINT16, "2+"),
    ],
)


_NODE = Struct(
    "Node",
    [
        Field("node_id", INT32, "2+"),
        Field("listeners", ArrayOf(_LISTENER), "2+"),
    ],
)


DescribeQuorumResponse = Message(
    "DescribeQuorumResponse",
    api_key=55,
    kind=Kind.RESPONSE,
    valid="0-2",
    flexible="0+",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "2+", nullable="2+", ignorable=True),
        Field("topics", ArrayOf(_DESCRIBE_QUORUM_TOPIC_DATA), "0+"),
        Field("nodes", ArrayOf(_NODE), "2+"),
    ],
)


_ADD_RAFT_VOTER_LISTENER = Struct(
    "Listener",
    [
        Field("name", STRING, "0+"),
        Field("host", STRING, "0+"),
        Field("port", UINT16, "0+"),
    ],
)


AddRaftVoterRequest = Message(
    "AddRaftVoterRequest",
    api_key=80,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="0+",
    fields=[
        Field("cluster_id", STRING, "0+", nullable="0+"),
        Field("timeout_ms", INT32, "0+"),
        Field("voter_id", INT32, "0+"),
        Field("voter_directory_id", UUID, "0+"),
        Field("listeners", ArrayOf(_ADD_RAFT_VOTER_LISTENER), "0+"),
        Field("ack_when_committed", BOOL, "1+", default=True),
    ],
)


AddRaftVoterResponse = Message(
    "AddRaftVoterResponse",
    api_key=80,
    kind=Kind.RESPONSE,
    valid="0-1",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", ignorable=True),
    ],
)


RemoveRaftVoterRequest = Message(
    "RemoveRaftVoterRequest",
    api_key=81,
    kind=Kind.REQUEST,
    valid="0",
    flexible="0+",
    fields=[
        Field("cluster_id", STRING, "0+", nullable="0+"),
        Field("voter_id", INT32, "0+"),
        Field("voter_directory_id", UUID, "0+"),
    ],
)


RemoveRaftVoterResponse = Message(
    "RemoveRaftVoterResponse",
    api_key=81,
    kind=Kind.RESPONSE,
    valid="0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", ignorable=True),
    ],
)


UnregisterBrokerRequest = Message(
    "UnregisterBrokerRequest",
    api_key=64,
    kind=Kind.REQUEST,
    valid="0",
    flexible="0+",
    fields=[
        Field("broker_id", INT32, "0+"),
    ],
)


UnregisterBrokerResponse = Message(
    "UnregisterBrokerResponse",
    api_key=64,
    kind=Kind.RESPONSE,
    valid="0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
    ],
)


UnregisterControllerRequest = Message(
    "UnregisterControllerRequest",
    api_key=94,
    kind=Kind.REQUEST,
    valid="0",
    flexible="0+",
    fields=[
        Field("controller_id", INT32, "0+"),
    ],
)


UnregisterControllerResponse = Message(
    "UnregisterControllerResponse",
    api_key=94,
    kind=Kind.RESPONSE,
    valid="0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
    ],
)


# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
AddRaftVoterRequestValue = AddRaftVoterRequest.cls
AddRaftVoterResponseValue = AddRaftVoterResponse.cls
DescribeQuorumRequestValue = DescribeQuorumRequest.cls
DescribeQuorumResponseValue = DescribeQuorumResponse.cls
RemoveRaftVoterRequestValue = RemoveRaftVoterRequest.cls
RemoveRaftVoterResponseValue = RemoveRaftVoterResponse.cls
UnregisterBrokerRequestValue = UnregisterBrokerRequest.cls
UnregisterBrokerResponseValue = UnregisterBrokerResponse.cls
UnregisterControllerRequestValue = UnregisterControllerRequest.cls
UnregisterControllerResponseValue = UnregisterControllerResponse.cls
