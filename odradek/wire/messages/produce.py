"""Produce (key 0), versions 0-13, flexible from 9.

Transcribed from Apache Kafka 4.4.0's message definitions.  The JSON's valid range is 3-13, but
Kafka 4 brokers still parse v0-2 so that they can answer them with UNSUPPORTED_VERSION
(KAFKA-18659); the field ranges already start at 0, so those versions decode here too.  Invariants:
- `records` is an opaque record-batch (or legacy message-set) blob, null allowed in every version;
- v13 addresses topics by id, v0-12 by name;
- `current_leader` and `node_endpoints` are tagged (tag 0 at their levels) from v10.
"""

from odradek.wire.schema import (
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

__all__ = ["ProduceRequest", "ProduceResponse"]

_PARTITION_PRODUCE_DATA = Struct(
    "PartitionProduceData",
    [
        Field("index", INT32, "0+"),
        Field("records", RECORDS, "0+", nullable="0+"),
    ],
)

_TOPIC_PRODUCE_DATA = Struct(
    "TopicProduceData",
    [
        Field("name", STRING, "0-12", ignorable=True),
        Field("topic_id", UUID, "13+", ignorable=True),
        Field("partition_data", ArrayOf(_PARTITION_PRODUCE_DATA), "0+"),
    ],
)

ProduceRequest = Message(
    "ProduceRequest",
    api_key=0,
    kind=Kind.REQUEST,
    valid="0-13",
    flexible="9+",
    fields=[
        Field("transactional_id", STRING, "3+", nullable="3+", default=None),
        Field("acks", INT16, "0+"),
        Field("timeout_ms", INT32, "0+"),
        Field("topic_data", ArrayOf(_TOPIC_PRODUCE_DATA), "0+"),
    ],
)

_BATCH_INDEX_AND_ERROR_MESSAGE = Struct(
    "BatchIndexAndErrorMessage",
    [
        Field("batch_index", INT32, "8+"),
        Field("batch_index_error_message", STRING, "8+", nullable="8+", default=None),
    ],
)

_LEADER_ID_AND_EPOCH = Struct(
    "LeaderIdAndEpoch",
    [
        Field("leader_id", INT32, "10+", default=-1),
        Field("leader_epoch", INT32, "10+", default=-1),
    ],
)

_PARTITION_PRODUCE_RESPONSE = Struct(
    "PartitionProduceResponse",
    [
        Field("index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("base_offset", INT64, "0+"),
        Field("log_append_time_ms", INT64, "2+", default=-1, ignorable=True),
        Field("log_start_offset", INT64, "5+", default=-1, ignorable=True),
        Field("record_errors", ArrayOf(_BATCH_INDEX_AND_ERROR_MESSAGE), "8+", ignorable=True),
        Field("error_message", STRING, "8+", nullable="8+", default=None, ignorable=True),
        Field("current_leader", _LEADER_ID_AND_EPOCH, "10+", tag=0, tagged="10+"),
    ],
)

_TOPIC_PRODUCE_RESPONSE = Struct(
    "TopicProduceResponse",
    [
        Field("name", STRING, "0-12", ignorable=True),
        Field("topic_id", UUID, "13+", ignorable=True),
        Field("partition_responses", ArrayOf(_PARTITION_PRODUCE_RESPONSE), "0+"),
    ],
)

_NODE_ENDPOINT = Struct(
    "NodeEndpoint",
    [
        Field("node_id", INT32, "10+"),
        Field("host", STRING, "10+"),
        Field("port", INT32, "10+"),
        Field("rack", STRING, "10+", nullable="10+", default=None),
    ],
)

ProduceResponse = Message(
    "ProduceResponse",
    api_key=0,
    kind=Kind.RESPONSE,
    valid="0-13",
    flexible="9+",
    fields=[
        Field("responses", ArrayOf(_TOPIC_PRODUCE_RESPONSE), "0+"),
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("node_endpoints", ArrayOf(_NODE_ENDPOINT), "10+", tag=0, tagged="10+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
ProduceRequestValue = ProduceRequest.cls
ProduceResponseValue = ProduceResponse.cls
