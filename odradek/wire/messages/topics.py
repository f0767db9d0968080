"""Topic administration: CreateTopics (19), DeleteTopics (20), CreatePartitions (37).

Transcribed from Apache Kafka 4.4.0's message definitions; version floors follow Kafka 4, which
removed CreateTopics v0-1 and DeleteTopics v0 (KIP-896).  Invariants:
- DeleteTopics v6+ names topics by `topics` (name or id); v1-5 by `topic_names`;
- CreatePartitions assignments are null when the broker chooses replicas.
"""

from odradek.wire.schema import BOOL, INT8, INT16, INT32, STRING, UUID, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "CreatePartitionsRequest",
    "CreatePartitionsResponse",
    "CreateTopicsRequest",
    "CreateTopicsResponse",
    "DeleteTopicsRequest",
    "DeleteTopicsResponse",
]

_CREATABLE_REPLICA_ASSIGNMENT = Struct(
    "CreatableReplicaAssignment",
    [
        Field("partition_index", INT32, "0+"),
        Field("broker_ids", ArrayOf(INT32), "0+"),
    ],
)

_CREATABLE_TOPIC_CONFIG = Struct(
    "CreatableTopicConfig",
    [
        Field("name", STRING, "0+"),
        Field("value", STRING, "0+", nullable="0+"),
    ],
)

_CREATABLE_TOPIC = Struct(
    "CreatableTopic",
    [
        Field("name", STRING, "0+"),
        Field("num_partitions", INT32, "0+"),
        Field("replication_factor", INT16, "0+"),
        Field("assignments", ArrayOf(_CREATABLE_REPLICA_ASSIGNMENT), "0+"),
        Field("configs", ArrayOf(_CREATABLE_TOPIC_CONFIG), "0+"),
    ],
)

CreateTopicsRequest = Message(
    "CreateTopicsRequest",
    api_key=19,
    kind=Kind.REQUEST,
    valid="2-7",
    flexible="5+",
    fields=[
        Field("topics", ArrayOf(_CREATABLE_TOPIC), "0+"),
        Field("timeout_ms", INT32, "0+", default=60000),
        Field("validate_only", BOOL, "1+"),
    ],
)

_CREATABLE_TOPIC_CONFIGS = Struct(
    "CreatableTopicConfigs",
    [
        Field("name", STRING, "5+"),
        Field("value", STRING, "5+", nullable="5+"),
        Field("read_only", BOOL, "5+"),
        Field("config_source", INT8, "5+", default=-1, ignorable=True),
        Field("is_sensitive", BOOL, "5+"),
    ],
)

_CREATABLE_TOPIC_RESULT = Struct(
    "CreatableTopicResult",
    [
        Field("name", STRING, "0+"),
        Field("topic_id", UUID, "7+", ignorable=True),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "1+", nullable="0+", ignorable=True),
        Field("topic_config_error_code", INT16, "5+", tag=0, tagged="5+", ignorable=True),
        Field("num_partitions", INT32, "5+", default=-1, ignorable=True),
        Field("replication_factor", INT16, "5+", default=-1, ignorable=True),
        Field("configs", ArrayOf(_CREATABLE_TOPIC_CONFIGS), "5+", nullable="5+", ignorable=True),
    ],
)

CreateTopicsResponse = Message(
    "CreateTopicsResponse",
    api_key=19,
    kind=Kind.RESPONSE,
    valid="2-7",
    flexible="5+",
    fields=[
        Field("throttle_time_ms", INT32, "2+", ignorable=True),
        Field("topics", ArrayOf(_CREATABLE_TOPIC_RESULT), "0+"),
    ],
)

_DELETE_TOPIC_STATE = Struct(
    "DeleteTopicState",
    [
        Field("name", STRING, "6+", nullable="6+", default=None),
        Field("topic_id", UUID, "6+"),
    ],
)

DeleteTopicsRequest = Message(
    "DeleteTopicsRequest",
    api_key=20,
    kind=Kind.REQUEST,
    valid="1-6",
    flexible="4+",
    fields=[
        Field("topics", ArrayOf(_DELETE_TOPIC_STATE), "6+"),
        Field("topic_names", ArrayOf(STRING), "0-5", ignorable=True),
        Field("timeout_ms", INT32, "0+"),
    ],
)

_DELETABLE_TOPIC_RESULT = Struct(
    "DeletableTopicResult",
    [
        Field("name", STRING, "0+", nullable="6+"),
        Field("topic_id", UUID, "6+", ignorable=True),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "5+", nullable="5+", default=None, ignorable=True),
    ],
)

DeleteTopicsResponse = Message(
    "DeleteTopicsResponse",
    api_key=20,
    kind=Kind.RESPONSE,
    valid="1-6",
    flexible="4+",
    fields=[
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("responses", ArrayOf(_DELETABLE_TOPIC_RESULT), "0+"),
    ],
)

_CREATE_PARTITIONS_ASSIGNMENT = Struct(
    "CreatePartitionsAssignment",
    [
        Field("broker_ids", ArrayOf(INT32), "0+"),
    ],
)

_CREATE_PARTITIONS_TOPIC = Struct(
    "CreatePartitionsTopic",
    [
        Field("name", STRING, "0+"),
        Field("count", INT32, "0+"),
        Field("assignments", ArrayOf(_CREATE_PARTITIONS_ASSIGNMENT), "0+", nullable="0+"),
    ],
)

CreatePartitionsRequest = Message(
    "CreatePartitionsRequest",
    api_key=37,
    kind=Kind.REQUEST,
    valid="0-3",
    flexible="2+",
    fields=[
        Field("topics", ArrayOf(_CREATE_PARTITIONS_TOPIC), "0+"),
        Field("timeout_ms", INT32, "0+"),
        Field("validate_only", BOOL, "0+"),
    ],
)

_CREATE_PARTITIONS_TOPIC_RESULT = Struct(
    "CreatePartitionsTopicResult",
    [
        Field("name", STRING, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
    ],
)

CreatePartitionsResponse = Message(
    "CreatePartitionsResponse",
    api_key=37,
    kind=Kind.RESPONSE,
    valid="0-3",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("results", ArrayOf(_CREATE_PARTITIONS_TOPIC_RESULT), "0+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
CreatePartitionsRequestValue = CreatePartitionsRequest.cls
CreatePartitionsResponseValue = CreatePartitionsResponse.cls
CreateTopicsRequestValue = CreateTopicsRequest.cls
CreateTopicsResponseValue = CreateTopicsResponse.cls
DeleteTopicsRequestValue = DeleteTopicsRequest.cls
DeleteTopicsResponseValue = DeleteTopicsResponse.cls
