"""Partition administration: ElectLeaders (43), AlterPartitionReassignments (45) and
ListPartitionReassignments (46).

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants: a null ElectLeaders
topic list asks for every partition; ElectLeaders' election type exists from v1 (v0 elects the
preferred replica) and its top-level error code from v1; a null replica list in a reassignment
cancels the partition's reassignment; the reassignment APIs are flexible in every version.
"""

from odradek.wire.schema import BOOL, INT8, INT16, INT32, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "AlterPartitionReassignmentsRequest",
    "AlterPartitionReassignmentsResponse",
    "ElectLeadersRequest",
    "ElectLeadersResponse",
    "ListPartitionReassignmentsRequest",
    "ListPartitionReassignmentsResponse",
]

_TOPIC_PARTITIONS = Struct(
    "TopicPartitions",
    [
        Field("topic", STRING, "0+"),
        Field("partitions", ArrayOf(INT32), "0+"),
    ],
)


ElectLeadersRequest = Message(
    "ElectLeadersRequest",
    api_key=43,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="2+",
    fields=[
        Field("election_type", INT8, "1+"),
        Field("topic_partitions", ArrayOf(_TOPIC_PARTITIONS), "0+", nullable="0+"),
        Field("timeout_ms", INT32, "0+", default=60000),
    ],
)


_PARTITION_RESULT = Struct(
    "PartitionResult",
    [
        Field("partition_id", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
    ],
)


_REPLICA_ELECTION_RESULT = Struct(
    "ReplicaElectionResult",
    [
        Field("topic", STRING, "0+"),
        Field("partition_result", ArrayOf(_PARTITION_RESULT), "0+"),
    ],
)


ElectLeadersResponse = Message(
    "ElectLeadersResponse",
    api_key=43,
    kind=Kind.RESPONSE,
    valid="0-2",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "1+"),
        Field("replica_election_results", ArrayOf(_REPLICA_ELECTION_RESULT), "0+"),
    ],
)


_REASSIGNABLE_PARTITION = Struct(
    "ReassignablePartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("replicas", ArrayOf(INT32), "0+", nullable="0+", default=None),
    ],
)


_REASSIGNABLE_TOPIC = Struct(
    "ReassignableTopic",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_REASSIGNABLE_PARTITION), "0+"),
    ],
)


AlterPartitionReassignmentsRequest = Message(
    "AlterPartitionReassignmentsRequest",
    api_key=45,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="0+",
    fields=[
        Field("timeout_ms", INT32, "0+", default=60000),
        Field("allow_replication_factor_change", BOOL, "1+", default=True),
        Field("topics", ArrayOf(_REASSIGNABLE_TOPIC), "0+"),
    ],
)


_REASSIGNABLE_PARTITION_RESPONSE = Struct(
    "ReassignablePartitionResponse",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
    ],
)


_REASSIGNABLE_TOPIC_RESPONSE = Struct(
    "ReassignableTopicResponse",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_REASSIGNABLE_PARTITION_RESPONSE), "0+"),
    ],
)


AlterPartitionReassignmentsResponse = Message(
    "AlterPartitionReassignmentsResponse",
    api_key=45,
    kind=Kind.RESPONSE,
    valid="0-1",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("allow_replication_factor_change", BOOL, "1+", default=True, ignorable=True),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
        Field("responses", ArrayOf(_REASSIGNABLE_TOPIC_RESPONSE), "0+"),
    ],
)


_LIST_PARTITION_REASSIGNMENTS_TOPICS = Struct(
    "ListPartitionReassignmentsTopics",
    [
        Field("name", STRING, "0+"),
        Field("partition_indexes", ArrayOf(INT32), "0+"),
    ],
)


ListPartitionReassignmentsRequest = Message(
    "ListPartitionReassignmentsRequest",
    api_key=46,
    kind=Kind.REQUEST,
    valid="0",
    flexible="0+",
    fields=[
        Field("timeout_ms", INT32, "0+", default=60000),
        Field("topics", ArrayOf(_LIST_PARTITION_REASSIGNMENTS_TOPICS), "0+", nullable="0+", default=None),
    ],
)


_ONGOING_PARTITION_REASSIGNMENT = Struct(
    "OngoingPartitionReassignment",
    [
        Field("partition_index", INT32, "0+"),
        Field("replicas", ArrayOf(INT32), "0+"),
        Field("adding_replicas", ArrayOf(INT32), "0+"),
        Field("removing_replicas", ArrayOf(INT32), "0+"),
    ],
)


_ONGOING_TOPIC_REASSIGNMENT = Struct(
    "OngoingTopicReassignment",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_ONGOING_PARTITION_REASSIGNMENT), "0+"),
    ],
)


ListPartitionReassignmentsResponse = Message(
    "ListPartitionReassignmentsResponse",
    api_key=46,
    kind=Kind.RESPONSE,
    valid="0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
        Field("topics", ArrayOf(_ONGOING_TOPIC_REASSIGNMENT), "0+"),
    ],
)


# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
AlterPartitionReassignmentsRequestValue = AlterPartitionReassignmentsRequest.cls
AlterPartitionReassignmentsResponseValue = AlterPartitionReassignmentsResponse.cls
ElectLeadersRequestValue = ElectLeadersRequest.cls
ElectLeadersResponseValue = ElectLeadersResponse.cls
ListPartitionReassignmentsRequestValue = ListPartitionReassignmentsRequest.cls
ListPartitionReassignmentsResponseValue = ListPartitionReassignmentsResponse.cls
