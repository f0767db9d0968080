"""Metadata (key 3), versions 0-13, flexible from 9; DescribeTopicPartitions (key 75), version 0.

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants:
- a null topic list (v1+) asks for every topic; v0 has no null and an empty list means all;
- topic ids exist from v10, topic names become nullable in requests from v10 and responses from v12;
- cluster-level authorized operations exist only in v8-v10; the top-level error code only in v13+.
"""

from odradek.wire.schema import BOOL, INT16, INT32, STRING, UUID, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "DescribeTopicPartitionsRequest",
    "DescribeTopicPartitionsResponse",
    "MetadataRequest",
    "MetadataResponse",
]

_METADATA_REQUEST_TOPIC = Struct(
    "MetadataRequestTopic",
    [
        Field("topic_id", UUID, "10+", ignorable=True),
        Field("name", STRING, "0+", nullable="10+"),
    ],
)

MetadataRequest = Message(
    "MetadataRequest",
    api_key=3,
    kind=Kind.REQUEST,
    valid="0-13",
    flexible="9+",
    fields=[
        Field("topics", ArrayOf(_METADATA_REQUEST_TOPIC), "0+", nullable="1+"),
        Field("allow_auto_topic_creation", BOOL, "4+", default=True),
        Field("include_cluster_authorized_operations", BOOL, "8-10"),
        Field("include_topic_authorized_operations", BOOL, "8+"),
    ],
)

_METADATA_RESPONSE_BROKER = Struct(
    "MetadataResponseBroker",
    [
        Field("node_id", INT32, "0+"),
        Field("host", STRING, "0+"),
        Field("port", INT32, "0+"),
        Field("rack", STRING, "1+", nullable="1+", default=None, ignorable=True),
    ],
)

_METADATA_RESPONSE_PARTITION = Struct(
    "MetadataResponsePartition",
    [
        Field("error_code", INT16, "0+"),
        Field("partition_index", INT32, "0+"),
        Field("leader_id", INT32, "0+"),
        Field("leader_epoch", INT32, "7+", default=-1, ignorable=True),
        Field("replica_nodes", ArrayOf(INT32), "0+"),
        Field("isr_nodes", ArrayOf(INT32), "0+"),
        Field("offline_replicas", ArrayOf(INT32), "5+", ignorable=True),
    ],
)

_METADATA_RESPONSE_TOPIC = Struct(
    "MetadataResponseTopic",
    [
        Field("error_code", INT16, "0+"),
        Field("name", STRING, "0+", nullable="12+"),
        Field("topic_id", UUID, "10+", ignorable=True),
        Field("is_internal", BOOL, "1+", ignorable=True),
        Field("partitions", ArrayOf(_METADATA_RESPONSE_PARTITION), "0+"),
        Field("topic_authorized_operations", INT32, "8+", default=-2147483648),
    ],
)

MetadataResponse = Message(
    "MetadataResponse",
    api_key=3,
    kind=Kind.RESPONSE,
    valid="0-13",
    flexible="9+",
    fields=[
        Field("throttle_time_ms", INT32, "3+", ignorable=True),
        Field("brokers", ArrayOf(_METADATA_RESPONSE_BROKER), "0+"),
        Field("cluster_id", STRING, "2+", nullable="2+", default=None, ignorable=True),
        Field("controller_id", INT32, "1+", default=-1, ignorable=True),
        Field("topics", ArrayOf(_METADATA_RESPONSE_TOPIC), "0+"),
        Field("cluster_authorized_operations", INT32, "8-10", default=-2147483648),
        Field("error_code", INT16, "13+", ignorable=True),
    ],
)

_CURSOR = Struct(
    "Cursor",
    [
        Field("topic_name", STRING, "0+"),
        Field("partition_index", INT32, "0+"),
    ],
)

_TOPIC_REQUEST = Struct("TopicRequest", [Field("name", STRING, "0+")])

DescribeTopicPartitionsRequest = Message(
    "DescribeTopicPartitionsRequest",
    api_key=75,
    kind=Kind.REQUEST,
    valid="0",
    flexible="0+",
    fields=[
        Field("topics", ArrayOf(_TOPIC_REQUEST), "0+"),
        Field("response_partition_limit", INT32, "0+", default=2000),
        Field("cursor", _CURSOR, "0+", nullable="0+", default=None),
    ],
)

_DESCRIBE_TOPIC_PARTITIONS_RESPONSE_PARTITION = Struct(
    "DescribeTopicPartitionsResponsePartition",
    [
        Field("error_code", INT16, "0+"),
        Field("partition_index", INT32, "0+"),
        Field("leader_id", INT32, "0+"),
        Field("leader_epoch", INT32, "0+", default=-1, ignorable=True),
        Field("replica_nodes", ArrayOf(INT32), "0+"),
        Field("isr_nodes", ArrayOf(INT32), "0+"),
        Field("eligible_leader_replicas", ArrayOf(INT32), "0+", nullable="0+", default=None),
        Field("last_known_elr", ArrayOf(INT32), "0+", nullable="0+", default=None),
        Field("offline_replicas", ArrayOf(INT32), "0+", ignorable=True),
    ],
)

_DESCRIBE_TOPIC_PARTITIONS_RESPONSE_TOPIC = Struct(
    "DescribeTopicPartitionsResponseTopic",
    [
        Field("error_code", INT16, "0+"),
        Field("name", STRING, "0+", nullable="0+"),
        Field("topic_id", UUID, "0+", ignorable=True),
        Field("is_internal", BOOL, "0+", ignorable=True),
        Field("partitions", ArrayOf(_DESCRIBE_TOPIC_PARTITIONS_RESPONSE_PARTITION), "0+"),
        Field("topic_authorized_operations", INT32, "0+", default=-2147483648),
    ],
)

DescribeTopicPartitionsResponse = Message(
    "DescribeTopicPartitionsResponse",
    api_key=75,
    kind=Kind.RESPONSE,
    valid="0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+", ignorable=True),
        Field("topics", ArrayOf(_DESCRIBE_TOPIC_PARTITIONS_RESPONSE_TOPIC), "0+"),
        Field("next_cursor", _CURSOR, "0+", nullable="0+", default=None),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
DescribeTopicPartitionsRequestValue = DescribeTopicPartitionsRequest.cls
DescribeTopicPartitionsResponseValue = DescribeTopicPartitionsResponse.cls
MetadataRequestValue = MetadataRequest.cls
MetadataResponseValue = MetadataResponse.cls
