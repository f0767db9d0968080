"""Fetch (key 1), versions 4-18, flexible from 12.

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants:
- requests: `cluster_id` is tag 0 and `replica_state` tag 1 (v15+, replacing `replica_id`);
  per-partition `replica_directory_id` is tag 0 (v17+) and `high_watermark` tag 1 (v18+);
- responses: per-partition `diverging_epoch`, `current_leader`, `snapshot_id` are tags 0, 1, 2,
  top-level `node_endpoints` is tag 0 (v16+);
- v13+ addresses topics by id, v4-12 by name;
- `records` is opaque and nullable; `aborted_transactions` is nullable.
"""

from odradek.wire.schema import (
    INT8,
    INT16,
    INT32,
    INT64,
    RECORDS,
    STRING,
    UUID,
    ArrayOf,
    Field,
    Kind,
    Message,
    Struct,
)

__all__ = ["FetchRequest", "FetchResponse"]

_REPLICA_STATE = Struct(
    "ReplicaState",
    [
        Field("replica_id", INT32, "15+", default=-1),
        Field("replica_epoch", INT64, "15+", default=-1),
    ],
)

_FETCH_PARTITION = Struct(
    "FetchPartition",
    [
        Field("partition", INT32, "0+"),
        Field("current_leader_epoch", INT32, "9+", default=-1, ignorable=True),
        Field("fetch_offset", INT64, "0+"),
        Field("last_fetched_epoch", INT32, "12+", default=-1),
        Field("log_start_offset", INT64, "5+", default=-1, ignorable=True),
        Field("partition_max_bytes", INT32, "0+"),
        Field("replica_directory_id", UUID, "17+", tag=0, tagged="17+", ignorable=True),
        Field("high_watermark", INT64, "18+", tag=1, tagged="18+", default=9223372036854775807, ignorable=True),
    ],
)

_FETCH_TOPIC = Struct(
    "FetchTopic",
    [
        Field("topic", STRING, "0-12", ignorable=True),
        Field("topic_id", UUID, "13+", ignorable=True),
        Field("partitions", ArrayOf(_FETCH_PARTITION), "0+"),
    ],
)

_FORGOTTEN_TOPIC = Struct(
    "ForgottenTopic",
    [
        Field("topic", STRING, "7-12", ignorable=True),
        Field("topic_id", UUID, "13+", ignorable=True),
        Field("partitions", ArrayOf(INT32), "7+"),
    ],
)

FetchRequest = Message(
    "FetchRequest",
    api_key=1,
    kind=Kind.REQUEST,
    valid="4-18",
    flexible="12+",
    fields=[
        Field("cluster_id", STRING, "12+", nullable="12+", tag=0, tagged="12+", default=None, ignorable=True),
        Field("replica_id", INT32, "0-14", default=-1),
        Field("replica_state", _REPLICA_STATE, "15+", tag=1, tagged="15+"),
        Field("max_wait_ms", INT32, "0+"),
        Field("min_bytes", INT32, "0+"),
        Field("max_bytes", INT32, "3+", default=0x7FFFFFFF, ignorable=True),
        Field("isolation_level", INT8, "4+", ignorable=True),
        Field("session_id", INT32, "7+", ignorable=True),
        Field("session_epoch", INT32, "7+", default=-1, ignorable=True),
        Field("topics", ArrayOf(_FETCH_TOPIC), "0+"),
        Field("forgotten_topics_data", ArrayOf(_FORGOTTEN_TOPIC), "7+"),
        Field("rack_id", STRING, "11+", ignorable=True),
    ],
)

_EPOCH_END_OFFSET = Struct(
    "EpochEndOffset",
    [
        Field("epoch", INT32, "12+", default=-1),
        Field("end_offset", INT64, "12+", default=-1),
    ],
)

_LEADER_ID_AND_EPOCH = Struct(
    "LeaderIdAndEpoch",
    [
        Field("leader_id", INT32, "12+", default=-1),
        Field("leader_epoch", INT32, "12+", default=-1),
    ],
)

_SNAPSHOT_ID = Struct(
    "SnapshotId",
    [
        Field("end_offset", INT64, "0+", default=-1),
        Field("epoch", INT32, "0+", default=-1),
    ],
)

_ABORTED_TRANSACTION = Struct(
    "AbortedTransaction",
    [
        Field("producer_id", INT64, "4+"),
        Field("first_offset", INT64, "4+"),
    ],
)

_PARTITION_DATA = Struct(
    "PartitionData",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("high_watermark", INT64, "0+"),
        Field("last_stable_offset", INT64, "4+", default=-1, ignorable=True),
        Field("log_start_offset", INT64, "5+", default=-1, ignorable=True),
        Field("diverging_epoch", _EPOCH_END_OFFSET, "12+", tag=0, tagged="12+"),
        Field("current_leader", _LEADER_ID_AND_EPOCH, "12+", tag=1, tagged="12+"),
        Field("snapshot_id", _SNAPSHOT_ID, "12+", tag=2, tagged="12+"),
        Field("aborted_transactions", ArrayOf(_ABORTED_TRANSACTION), "4+", nullable="4+", ignorable=True),
        Field("preferred_read_replica", INT32, "11+", default=-1),
        Field("records", RECORDS, "0+", nullable="0+"),
    ],
)

_FETCHABLE_TOPIC_RESPONSE = Struct(
    "FetchableTopicResponse",
    [
        Field("topic", STRING, "0-12", ignorable=True),
        Field("topic_id", UUID, "13+", ignorable=True),
        Field("partitions", ArrayOf(_PARTITION_DATA), "0+"),
    ],
)

_NODE_ENDPOINT = Struct(
    "NodeEndpoint",
    [
        Field("node_id", INT32, "16+"),
        Field("host", STRING, "16+"),
        Field("port", INT32, "16+"),
        Field("rack", STRING, "16+", nullable="16+", default=None),
    ],
)

FetchResponse = Message(
    "FetchResponse",
    api_key=1,
    kind=Kind.RESPONSE,
    valid="4-18",
    flexible="12+",
    fields=[
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("error_code", INT16, "7+", ignorable=True),
        Field("session_id", INT32, "7+"),
        Field("responses", ArrayOf(_FETCHABLE_TOPIC_RESPONSE), "0+"),
        Field("node_endpoints", ArrayOf(_NODE_ENDPOINT), "16+", tag=0, tagged="16+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
FetchRequestValue = FetchRequest.cls
FetchResponseValue = FetchResponse.cls
