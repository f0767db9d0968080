"""Offset APIs: OffsetCommit (8), OffsetFetch (9), OffsetDelete (47), OffsetForLeaderEpoch (23),
DeleteRecords (21).

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants:
- OffsetFetch v8+ fetches for a batch of `groups`, v1-7 for one `group_id`;
- OffsetCommit and OffsetFetch v10+ address topics by id;
- OffsetForLeaderEpoch v0-1 were removed by KIP-896 (floor 2); `replica_id` exists from v3.
"""

from odradek.wire.schema import BOOL, INT16, INT32, INT64, STRING, UUID, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "DeleteRecordsRequest",
    "DeleteRecordsResponse",
    "OffsetCommitRequest",
    "OffsetCommitResponse",
    "OffsetDeleteRequest",
    "OffsetDeleteResponse",
    "OffsetFetchRequest",
    "OffsetFetchResponse",
    "OffsetForLeaderEpochRequest",
    "OffsetForLeaderEpochResponse",
]

_OFFSET_COMMIT_REQUEST_PARTITION = Struct(
    "OffsetCommitRequestPartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("committed_offset", INT64, "0+"),
        Field("committed_leader_epoch", INT32, "6+", default=-1, ignorable=True),
        Field("committed_metadata", STRING, "0+", nullable="0+"),
    ],
)

_OFFSET_COMMIT_REQUEST_TOPIC = Struct(
    "OffsetCommitRequestTopic",
    [
        Field("name", STRING, "0-9", ignorable=True),
        Field("topic_id", UUID, "10+", ignorable=True),
        Field("partitions", ArrayOf(_OFFSET_COMMIT_REQUEST_PARTITION), "0+"),
    ],
)

OffsetCommitRequest = Message(
    "OffsetCommitRequest",
    api_key=8,
    kind=Kind.REQUEST,
    valid="2-10",
    flexible="8+",
    fields=[
        Field("group_id", STRING, "0+"),
        Field("generation_id_or_member_epoch", INT32, "1+", default=-1, ignorable=True),
        Field("member_id", STRING, "1+", ignorable=True),
        Field("group_instance_id", STRING, "7+", nullable="7+", default=None),
        Field("retention_time_ms", INT64, "2-4", default=-1, ignorable=True),
        Field("topics", ArrayOf(_OFFSET_COMMIT_REQUEST_TOPIC), "0+"),
    ],
)

_OFFSET_COMMIT_RESPONSE_PARTITION = Struct(
    "OffsetCommitResponsePartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
    ],
)

_OFFSET_COMMIT_RESPONSE_TOPIC = Struct(
    "OffsetCommitResponseTopic",
    [
        Field("name", STRING, "0-9", ignorable=True),
        Field("topic_id", UUID, "10+", ignorable=True),
        Field("partitions", ArrayOf(_OFFSET_COMMIT_RESPONSE_PARTITION), "0+"),
    ],
)

OffsetCommitResponse = Message(
    "OffsetCommitResponse",
    api_key=8,
    kind=Kind.RESPONSE,
    valid="2-10",
    flexible="8+",
    fields=[
        Field("throttle_time_ms", INT32, "3+", ignorable=True),
        Field("topics", ArrayOf(_OFFSET_COMMIT_RESPONSE_TOPIC), "0+"),
    ],
)

_OFFSET_FETCH_REQUEST_TOPIC = Struct(
    "OffsetFetchRequestTopic",
    [
        Field("name", STRING, "0-7"),
        Field("partition_indexes", ArrayOf(INT32), "0-7"),
    ],
)

_OFFSET_FETCH_REQUEST_TOPICS = Struct(
    "OffsetFetchRequestTopics",
    [
        Field("name", STRING, "8-9", ignorable=True),
        Field("topic_id", UUID, "10+", ignorable=True),
        Field("partition_indexes", ArrayOf(INT32), "8+"),
    ],
)

_OFFSET_FETCH_REQUEST_GROUP = Struct(
    "OffsetFetchRequestGroup",
    [
        Field("group_id", STRING, "8+"),
        Field("member_id", STRING, "9+", nullable="9+", default=None, ignorable=True),
        Field("member_epoch", INT32, "9+", default=-1, ignorable=True),
        Field("topics", ArrayOf(_OFFSET_FETCH_REQUEST_TOPICS), "8+", nullable="8+"),
    ],
)

OffsetFetchRequest = Message(
    "OffsetFetchRequest",
    api_key=9,
    kind=Kind.REQUEST,
    valid="1-10",
    flexible="6+",
    fields=[
        Field("group_id", STRING, "0-7"),
        Field("topics", ArrayOf(_OFFSET_FETCH_REQUEST_TOPIC), "0-7", nullable="2-7"),
        Field("groups", ArrayOf(_OFFSET_FETCH_REQUEST_GROUP), "8+"),
        Field("require_stable", BOOL, "7+"),
    ],
)

_OFFSET_FETCH_RESPONSE_PARTITION = Struct(
    "OffsetFetchResponsePartition",
    [
        Field("partition_index", INT32, "0-7"),
        Field("committed_offset", INT64, "0-7"),
        Field("committed_leader_epoch", INT32, "5-7", default=-1, ignorable=True),
        Field("metadata", STRING, "0-7", nullable="0-7"),
        Field("error_code", INT16, "0-7"),
    ],
)

_OFFSET_FETCH_RESPONSE_TOPIC = Struct(
    "OffsetFetchResponseTopic",
    [
        Field("name", STRING, "0-7"),
        Field("partitions", ArrayOf(_OFFSET_FETCH_RESPONSE_PARTITION), "0-7"),
    ],
)

_OFFSET_FETCH_RESPONSE_PARTITIONS = Struct(
    "OffsetFetchResponsePartitions",
    [
        Field("partition_index", INT32, "8+"),
        Field("committed_offset", INT64, "8+"),
        Field("committed_leader_epoch", INT32, "8+", default=-1, ignorable=True),
        Field("metadata", STRING, "8+", nullable="8+"),
        Field("error_code", INT16, "8+"),
    ],
)

_OFFSET_FETCH_RESPONSE_TOPICS = Struct(
    "OffsetFetchResponseTopics",
    [
        Field("name", STRING, "8-9", ignorable=True),
        Field("topic_id", UUID, "10+", ignorable=True),
        Field("partitions", ArrayOf(_OFFSET_FETCH_RESPONSE_PARTITIONS), "8+"),
    ],
)

_OFFSET_FETCH_RESPONSE_GROUP = Struct(
    "OffsetFetchResponseGroup",
    [
        Field("group_id", STRING, "8+"),
        Field("topics", ArrayOf(_OFFSET_FETCH_RESPONSE_TOPICS), "8+"),
        Field("error_code", INT16, "8+"),
    ],
)

OffsetFetchResponse = Message(
    "OffsetFetchResponse",
    api_key=9,
    kind=Kind.RESPONSE,
    valid="1-10",
    flexible="6+",
    fields=[
        Field("throttle_time_ms", INT32, "3+", ignorable=True),
        Field("topics", ArrayOf(_OFFSET_FETCH_RESPONSE_TOPIC), "0-7"),
        Field("error_code", INT16, "2-7", ignorable=True),
        Field("groups", ArrayOf(_OFFSET_FETCH_RESPONSE_GROUP), "8+"),
    ],
)

_OFFSET_DELETE_REQUEST_PARTITION = Struct(
    "OffsetDeleteRequestPartition",
    [
        Field("partition_index", INT32, "0+"),
    ],
)

_OFFSET_DELETE_REQUEST_TOPIC = Struct(
    "OffsetDeleteRequestTopic",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_OFFSET_DELETE_REQUEST_PARTITION), "0+"),
    ],
)

OffsetDeleteRequest = Message(
    "OffsetDeleteRequest",
    api_key=47,
    kind=Kind.REQUEST,
    valid="0",
    flexible="none",
    fields=[
        Field("group_id", STRING, "0+"),
        Field("topics", ArrayOf(_OFFSET_DELETE_REQUEST_TOPIC), "0+"),
    ],
)

_OFFSET_DELETE_RESPONSE_PARTITION = Struct(
    "OffsetDeleteResponsePartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
    ],
)

_OFFSET_DELETE_RESPONSE_TOPIC = Struct(
    "OffsetDeleteResponseTopic",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_OFFSET_DELETE_RESPONSE_PARTITION), "0+"),
    ],
)

OffsetDeleteResponse = Message(
    "OffsetDeleteResponse",
    api_key=47,
    kind=Kind.RESPONSE,
    valid="0",
    flexible="none",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("throttle_time_ms", INT32, "0+", ignorable=True),
        Field("topics", ArrayOf(_OFFSET_DELETE_RESPONSE_TOPIC), "0+"),
    ],
)

_OFFSET_FOR_LEADER_PARTITION = Struct(
    "OffsetForLeaderPartition",
    [
        Field("partition", INT32, "0+"),
        Field("current_leader_epoch", INT32, "2+", default=-1, ignorable=True),
        Field("leader_epoch", INT32, "0+"),
    ],
)

_OFFSET_FOR_LEADER_TOPIC = Struct(
    "OffsetForLeaderTopic",
    [
        Field("topic", STRING, "0+"),
        Field("partitions", ArrayOf(_OFFSET_FOR_LEADER_PARTITION), "0+"),
    ],
)

OffsetForLeaderEpochRequest = Message(
    "OffsetForLeaderEpochRequest",
    api_key=23,
    kind=Kind.REQUEST,
    valid="2-4",
    flexible="4+",
    fields=[
        Field("replica_id", INT32, "3+", default=-2, ignorable=True),
        Field("topics", ArrayOf(_OFFSET_FOR_LEADER_TOPIC), "0+"),
    ],
)

_EPOCH_END_OFFSET = Struct(
    "EpochEndOffset",
    [
        Field("error_code", INT16, "0+"),
        Field("partition", INT32, "0+"),
        Field("leader_epoch", INT32, "1+", default=-1, ignorable=True),
        Field("end_offset", INT64, "0+", default=-1),
    ],
)

_OFFSET_FOR_LEADER_TOPIC_RESULT = Struct(
    "OffsetForLeaderTopicResult",
    [
        Field("topic", STRING, "0+"),
        Field("partitions", ArrayOf(_EPOCH_END_OFFSET), "0+"),
    ],
)

OffsetForLeaderEpochResponse = Message(
    "OffsetForLeaderEpochResponse",
    api_key=23,
    kind=Kind.RESPONSE,
    valid="2-4",
    flexible="4+",
    fields=[
        Field("throttle_time_ms", INT32, "2+", ignorable=True),
        Field("topics", ArrayOf(_OFFSET_FOR_LEADER_TOPIC_RESULT), "0+"),
    ],
)

_DELETE_RECORDS_PARTITION = Struct(
    "DeleteRecordsPartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("offset", INT64, "0+"),
    ],
)

_DELETE_RECORDS_TOPIC = Struct(
    "DeleteRecordsTopic",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_DELETE_RECORDS_PARTITION), "0+"),
    ],
)

DeleteRecordsRequest = Message(
    "DeleteRecordsRequest",
    api_key=21,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="2+",
    fields=[
        Field("topics", ArrayOf(_DELETE_RECORDS_TOPIC), "0+"),
        Field("timeout_ms", INT32, "0+"),
    ],
)

_DELETE_RECORDS_PARTITION_RESULT = Struct(
    "DeleteRecordsPartitionResult",
    [
        Field("partition_index", INT32, "0+"),
        Field("low_watermark", INT64, "0+"),
        Field("error_code", INT16, "0+"),
    ],
)

_DELETE_RECORDS_TOPIC_RESULT = Struct(
    "DeleteRecordsTopicResult",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_DELETE_RECORDS_PARTITION_RESULT), "0+"),
    ],
)

DeleteRecordsResponse = Message(
    "DeleteRecordsResponse",
    api_key=21,
    kind=Kind.RESPONSE,
    valid="0-2",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("topics", ArrayOf(_DELETE_RECORDS_TOPIC_RESULT), "0+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
DeleteRecordsRequestValue = DeleteRecordsRequest.cls
DeleteRecordsResponseValue = DeleteRecordsResponse.cls
OffsetCommitRequestValue = OffsetCommitRequest.cls
OffsetCommitResponseValue = OffsetCommitResponse.cls
OffsetDeleteRequestValue = OffsetDeleteRequest.cls
OffsetDeleteResponseValue = OffsetDeleteResponse.cls
OffsetFetchRequestValue = OffsetFetchRequest.cls
OffsetFetchResponseValue = OffsetFetchResponse.cls
OffsetForLeaderEpochRequestValue = OffsetForLeaderEpochRequest.cls
OffsetForLeaderEpochResponseValue = OffsetForLeaderEpochResponse.cls
