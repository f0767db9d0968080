"""Cluster APIs: DescribeCluster (60), DescribeLogDirs (35), AlterReplicaLogDirs (34),
SaslHandshake (17).

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants: DescribeCluster is flexible
in every version and v1+ can describe controllers (`endpoint_type`); a null DescribeLogDirs topic
list asks for every partition; SaslHandshake is never flexible.
"""

from odradek.wire.schema import BOOL, INT8, INT16, INT32, INT64, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "AlterReplicaLogDirsRequest",
    "AlterReplicaLogDirsResponse",
    "DescribeClusterRequest",
    "DescribeClusterResponse",
    "DescribeLogDirsRequest",
    "DescribeLogDirsResponse",
    "SaslHandshakeRequest",
    "SaslHandshakeResponse",
]

DescribeClusterRequest = Message(
    "DescribeClusterRequest",
    api_key=60,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="0+",
    fields=[
        Field("include_cluster_authorized_operations", BOOL, "0+"),
        Field("endpoint_type", INT8, "1+", default=1),
        Field("include_fenced_brokers", BOOL, "2+"),
    ],
)

_DESCRIBE_CLUSTER_BROKER = Struct(
    "DescribeClusterBroker",
    [
        Field("broker_id", INT32, "0+"),
        Field("host", STRING, "0+"),
        Field("port", INT32, "0+"),
        Field("rack", STRING, "0+", nullable="0+", default=None),
        Field("is_fenced", BOOL, "2+"),
    ],
)

DescribeClusterResponse = Message(
    "DescribeClusterResponse",
    api_key=60,
    kind=Kind.RESPONSE,
    valid="0-2",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("endpoint_type", INT8, "1+", default=1),
        Field("cluster_id", STRING, "0+"),
        Field("controller_id", INT32, "0+", default=-1),
        Field("brokers", ArrayOf(_DESCRIBE_CLUSTER_BROKER), "0+"),
        Field("cluster_authorized_operations", INT32, "0+", default=-2147483648),
    ],
)

_DESCRIBABLE_LOG_DIR_TOPIC = Struct(
    "DescribableLogDirTopic",
    [
        Field("topic", STRING, "0+"),
        Field("partitions", ArrayOf(INT32), "0+"),
    ],
)

DescribeLogDirsRequest = Message(
    "DescribeLogDirsRequest",
    api_key=35,
    kind=Kind.REQUEST,
    valid="1-5",
    flexible="2+",
    fields=[
        Field("topics", ArrayOf(_DESCRIBABLE_LOG_DIR_TOPIC), "0+", nullable="0+"),
    ],
)

_DESCRIBE_LOG_DIRS_PARTITION = Struct(
    "DescribeLogDirsPartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("partition_size", INT64, "0+"),
        Field("offset_lag", INT64, "0+"),
        Field("is_future_key", BOOL, "0+"),
    ],
)

_DESCRIBE_LOG_DIRS_TOPIC = Struct(
    "DescribeLogDirsTopic",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_DESCRIBE_LOG_DIRS_PARTITION), "0+"),
    ],
)

_DESCRIBE_LOG_DIRS_RESULT = Struct(
    "DescribeLogDirsResult",
    [
        Field("error_code", INT16, "0+"),
        Field("log_dir", STRING, "0+"),
        Field("topics", ArrayOf(_DESCRIBE_LOG_DIRS_TOPIC), "0+"),
        Field("total_bytes", INT64, "4+", default=-1, ignorable=True),
        Field("usable_bytes", INT64, "4+", default=-1, ignorable=True),
        Field("is_cordoned", BOOL, "5+", ignorable=True),
    ],
)

DescribeLogDirsResponse = Message(
    "DescribeLogDirsResponse",
    api_key=35,
    kind=Kind.RESPONSE,
    valid="1-5",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "3+", ignorable=True),
        Field("results", ArrayOf(_DESCRIBE_LOG_DIRS_RESULT), "0+"),
    ],
)

SaslHandshakeRequest = Message(
    "SaslHandshakeRequest",
    api_key=17,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="none",
    fields=[
        Field("mechanism", STRING, "0+"),
    ],
)

SaslHandshakeResponse = Message(
    "SaslHandshakeResponse",
    api_key=17,
    kind=Kind.RESPONSE,
    valid="0-1",
    flexible="none",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("mechanisms", ArrayOf(STRING), "0+"),
    ],
)

_ALTER_REPLICA_LOG_DIR_TOPIC = Struct(
    "AlterReplicaLogDirTopic",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(INT32), "0+"),
    ],
)


_ALTER_REPLICA_LOG_DIR = Struct(
    "AlterReplicaLogDir",
    [
        Field("path", STRING, "0+"),
        Field("topics", ArrayOf(_ALTER_REPLICA_LOG_DIR_TOPIC), "0+"),
    ],
)


AlterReplicaLogDirsRequest = Message(
    "AlterReplicaLogDirsRequest",
    api_key=34,
    kind=Kind.REQUEST,
    valid="1-2",
    flexible="2+",
    fields=[
        Field("dirs", ArrayOf(_ALTER_REPLICA_LOG_DIR), "0+"),
    ],
)


_ALTER_REPLICA_LOG_DIR_PARTITION_RESULT = Struct(
    "AlterReplicaLogDirPartitionResult",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
    ],
)


_ALTER_REPLICA_LOG_DIR_TOPIC_RESULT = Struct(
    "AlterReplicaLogDirTopicResult",
    [
        Field("topic_name", STRING, "0+"),
        Field("partitions", ArrayOf(_ALTER_REPLICA_LOG_DIR_PARTITION_RESULT), "0+"),
    ],
)


AlterReplicaLogDirsResponse = Message(
    "AlterReplicaLogDirsResponse",
    api_key=34,
    kind=Kind.RESPONSE,
    valid="1-2",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("results", ArrayOf(_ALTER_REPLICA_LOG_DIR_TOPIC_RESULT), "0+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
AlterReplicaLogDirsRequestValue = AlterReplicaLogDirsRequest.cls
AlterReplicaLogDirsResponseValue = AlterReplicaLogDirsResponse.cls
DescribeClusterRequestValue = DescribeClusterRequest.cls
DescribeClusterResponseValue = DescribeClusterResponse.cls
DescribeLogDirsRequestValue = DescribeLogDirsRequest.cls
DescribeLogDirsResponseValue = DescribeLogDirsResponse.cls
SaslHandshakeRequestValue = SaslHandshakeRequest.cls
SaslHandshakeResponseValue = SaslHandshakeResponse.cls
