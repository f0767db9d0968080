"""ListOffsets (key 2), versions 1-11, flexible from 6.

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants: v0 was removed by KIP-896;
the isolation level exists from v2 and the per-partition leader epoch from v4; negative request
timestamps name the special queries (latest, earliest, max timestamp, ...), each version adding one.
"""

from odradek.wire.schema import INT8, INT16, INT32, INT64, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = ["ListOffsetsRequest", "ListOffsetsResponse"]

_LIST_OFFSETS_PARTITION = Struct(
    "ListOffsetsPartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("current_leader_epoch", INT32, "4+", default=-1, ignorable=True),
        Field("timestamp", INT64, "0+"),
    ],
)

_LIST_OFFSETS_TOPIC = Struct(
    "ListOffsetsTopic",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_LIST_OFFSETS_PARTITION), "0+"),
    ],
)

ListOffsetsRequest = Message(
    "ListOffsetsRequest",
    api_key=2,
    kind=Kind.REQUEST,
    valid="1-11",
    flexible="6+",
    fields=[
        Field("replica_id", INT32, "0+"),
        Field("isolation_level", INT8, "2+"),
        Field("topics", ArrayOf(_LIST_OFFSETS_TOPIC), "0+"),
        Field("timeout_ms", INT32, "10+", ignorable=True),
    ],
)

_LIST_OFFSETS_PARTITION_RESPONSE = Struct(
    "ListOffsetsPartitionResponse",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("timestamp", INT64, "1+", default=-1),
        Field("offset", INT64, "1+", default=-1),
        Field("leader_epoch", INT32, "4+", default=-1),
    ],
)

_LIST_OFFSETS_TOPIC_RESPONSE = Struct(
    "ListOffsetsTopicResponse",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_LIST_OFFSETS_PARTITION_RESPONSE), "0+"),
    ],
)

ListOffsetsResponse = Message(
    "ListOffsetsResponse",
    api_key=2,
    kind=Kind.RESPONSE,
    valid="1-11",
    flexible="6+",
    fields=[
        Field("throttle_time_ms", INT32, "2+", ignorable=True),
        Field("topics", ArrayOf(_LIST_OFFSETS_TOPIC_RESPONSE), "0+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
ListOffsetsRequestValue = ListOffsetsRequest.cls
ListOffsetsResponseValue = ListOffsetsResponse.cls
