"""Transaction APIs: InitProducerId (22), AddPartitionsToTxn (24), AddOffsetsToTxn (25),
EndTxn (26), WriteTxnMarkers (27), TxnOffsetCommit (28), DescribeProducers (61),
DescribeTransactions (65), ListTransactions (66).

Transcribed from Apache Kafka 4.4.0's message definitions.  Kafka marks InitProducerId's newest
version (v6, two-phase commit) unstable: brokers advertise it only when unstable APIs are enabled,
which the registry decides, not this definition.  Invariants:
- AddPartitionsToTxn v4+ carries a batch of `transactions` (broker-to-broker verification); v0-3 the
  `v3_and_below_*` fields for one transaction; the per-topic structs are shared by both shapes;
- EndTxn v5+ responses carry the bumped producer id and epoch (KIP-890);
- WriteTxnMarkers starts at v1 (v0 was removed in Kafka 4.0), v2 adds each marker's transaction version.
"""

from odradek.wire.schema import BOOL, INT8, INT16, INT32, INT64, STRING, UUID, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "AddOffsetsToTxnRequest",
    "AddOffsetsToTxnResponse",
    "AddPartitionsToTxnRequest",
    "AddPartitionsToTxnResponse",
    "DescribeProducersRequest",
    "DescribeProducersResponse",
    "DescribeTransactionsRequest",
    "DescribeTransactionsResponse",
    "EndTxnRequest",
    "EndTxnResponse",
    "InitProducerIdRequest",
    "InitProducerIdResponse",
    "ListTransactionsRequest",
    "ListTransactionsResponse",
    "TxnOffsetCommitRequest",
    "TxnOffsetCommitResponse",
    "WriteTxnMarkersRequest",
    "WriteTxnMarkersResponse",
]

InitProducerIdRequest = Message(
    "InitProducerIdRequest",
    api_key=22,
    kind=Kind.REQUEST,
    valid="0-6",
    flexible="2+",
    fields=[
        Field("transactional_id", STRING, "0+", nullable="0+"),
        Field("transaction_timeout_ms", INT32, "0+"),
        Field("producer_id", INT64, "3+", default=-1),
        Field("producer_epoch", INT16, "3+", default=-1),
        Field("enable_2pc", BOOL, "6+"),
        Field("keep_prepared_txn", BOOL, "6+"),
    ],
)

InitProducerIdResponse = Message(
    "InitProducerIdResponse",
    api_key=22,
    kind=Kind.RESPONSE,
    valid="0-6",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+", ignorable=True),
        Field("error_code", INT16, "0+"),
        Field("producer_id", INT64, "0+", default=-1),
        Field("producer_epoch", INT16, "0+"),
        Field("ongoing_txn_producer_id", INT64, "6+", default=-1),
        Field("ongoing_txn_producer_epoch", INT16, "6+", default=-1),
    ],
)

_ADD_PARTITIONS_TO_TXN_TOPIC = Struct(
    "AddPartitionsToTxnTopic",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(INT32), "0+"),
    ],
)

_ADD_PARTITIONS_TO_TXN_TRANSACTION = Struct(
    "AddPartitionsToTxnTransaction",
    [
        Field("transactional_id", STRING, "4+"),
        Field("producer_id", INT64, "4+"),
        Field("producer_epoch", INT16, "4+"),
        Field("verify_only", BOOL, "4+"),
        Field("topics", ArrayOf(_ADD_PARTITIONS_TO_TXN_TOPIC), "4+"),
    ],
)

AddPartitionsToTxnRequest = Message(
    "AddPartitionsToTxnRequest",
    api_key=24,
    kind=Kind.REQUEST,
    valid="0-5",
    flexible="3+",
    fields=[
        Field("transactions", ArrayOf(_ADD_PARTITIONS_TO_TXN_TRANSACTION), "4+"),
        Field("v3_and_below_transactional_id", STRING, "0-3"),
        Field("v3_and_below_producer_id", INT64, "0-3"),
        Field("v3_and_below_producer_epoch", INT16, "0-3"),
        Field("v3_and_below_topics", ArrayOf(_ADD_PARTITIONS_TO_TXN_TOPIC), "0-3"),
    ],
)

_ADD_PARTITIONS_TO_TXN_PARTITION_RESULT = Struct(
    "AddPartitionsToTxnPartitionResult",
    [
        Field("partition_index", INT32, "0+"),
        Field("partition_error_code", INT16, "0+"),
    ],
)

_ADD_PARTITIONS_TO_TXN_TOPIC_RESULT = Struct(
    "AddPartitionsToTxnTopicResult",
    [
        Field("name", STRING, "0+"),
        Field("results_by_partition", ArrayOf(_ADD_PARTITIONS_TO_TXN_PARTITION_RESULT), "0+"),
    ],
)

_ADD_PARTITIONS_TO_TXN_RESULT = Struct(
    "AddPartitionsToTxnResult",
    [
        Field("transactional_id", STRING, "4+"),
        Field("topic_results", ArrayOf(_ADD_PARTITIONS_TO_TXN_TOPIC_RESULT), "4+"),
    ],
)

AddPartitionsToTxnResponse = Message(
    "AddPartitionsToTxnResponse",
    api_key=24,
    kind=Kind.RESPONSE,
    valid="0-5",
    flexible="3+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "4+", ignorable=True),
        Field("results_by_transaction", ArrayOf(_ADD_PARTITIONS_TO_TXN_RESULT), "4+"),
        Field("results_by_topic_v3_and_below", ArrayOf(_ADD_PARTITIONS_TO_TXN_TOPIC_RESULT), "0-3"),
    ],
)

AddOffsetsToTxnRequest = Message(
    "AddOffsetsToTxnRequest",
    api_key=25,
    kind=Kind.REQUEST,
    valid="0-4",
    flexible="3+",
    fields=[
        Field("transactional_id", STRING, "0+"),
        Field("producer_id", INT64, "0+"),
        Field("producer_epoch", INT16, "0+"),
        Field("group_id", STRING, "0+"),
    ],
)

AddOffsetsToTxnResponse = Message(
    "AddOffsetsToTxnResponse",
    api_key=25,
    kind=Kind.RESPONSE,
    valid="0-4",
    flexible="3+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
    ],
)

EndTxnRequest = Message(
    "EndTxnRequest",
    api_key=26,
    kind=Kind.REQUEST,
    valid="0-5",
    flexible="3+",
    fields=[
        Field("transactional_id", STRING, "0+"),
        Field("producer_id", INT64, "0+"),
        Field("producer_epoch", INT16, "0+"),
        Field("committed", BOOL, "0+"),
    ],
)

EndTxnResponse = Message(
    "EndTxnResponse",
    api_key=26,
    kind=Kind.RESPONSE,
    valid="0-5",
    flexible="3+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("producer_id", INT64, "5+", default=-1, ignorable=True),
        Field("producer_epoch", INT16, "5+", default=-1, ignorable=True),
    ],
)

_TXN_OFFSET_COMMIT_REQUEST_PARTITION = Struct(
    "TxnOffsetCommitRequestPartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("committed_offset", INT64, "0+"),
        Field("committed_leader_epoch", INT32, "2+", default=-1, ignorable=True),
        Field("committed_metadata", STRING, "0+", nullable="0+"),
    ],
)

_TXN_OFFSET_COMMIT_REQUEST_TOPIC = Struct(
    "TxnOffsetCommitRequestTopic",
    [
        Field("name", STRING, "0-5", ignorable=True),
        Field("topic_id", UUID, "6+", ignorable=True),
        Field("partitions", ArrayOf(_TXN_OFFSET_COMMIT_REQUEST_PARTITION), "0+"),
    ],
)

TxnOffsetCommitRequest = Message(
    "TxnOffsetCommitRequest",
    api_key=28,
    kind=Kind.REQUEST,
    valid="0-6",
    flexible="3+",
    fields=[
        Field("transactional_id", STRING, "0+"),
        Field("group_id", STRING, "0+"),
        Field("producer_id", INT64, "0+"),
        Field("producer_epoch", INT16, "0+"),
        Field("generation_id_or_member_epoch", INT32, "3+", default=-1),
        Field("member_id", STRING, "3+"),
        Field("group_instance_id", STRING, "3+", nullable="3+", default=None),
        Field("topics", ArrayOf(_TXN_OFFSET_COMMIT_REQUEST_TOPIC), "0+"),
    ],
)

_TXN_OFFSET_COMMIT_RESPONSE_PARTITION = Struct(
    "TxnOffsetCommitResponsePartition",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
    ],
)

_TXN_OFFSET_COMMIT_RESPONSE_TOPIC = Struct(
    "TxnOffsetCommitResponseTopic",
    [
        Field("name", STRING, "0-5", ignorable=True),
        Field("topic_id", UUID, "6+", ignorable=True),
        Field("partitions", ArrayOf(_TXN_OFFSET_COMMIT_RESPONSE_PARTITION), "0+"),
    ],
)

TxnOffsetCommitResponse = Message(
    "TxnOffsetCommitResponse",
    api_key=28,
    kind=Kind.RESPONSE,
    valid="0-6",
    flexible="3+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("topics", ArrayOf(_TXN_OFFSET_COMMIT_RESPONSE_TOPIC), "0+"),
    ],
)

_WRITABLE_TXN_MARKER_TOPIC = Struct(
    "WritableTxnMarkerTopic",
    [
        Field("name", STRING, "0+"),
        Field("partition_indexes", ArrayOf(INT32), "0+"),
    ],
)

_WRITABLE_TXN_MARKER = Struct(
    "WritableTxnMarker",
    [
        Field("producer_id", INT64, "0+"),
        Field("producer_epoch", INT16, "0+"),
        Field("transaction_result", BOOL, "0+"),
        Field("topics", ArrayOf(_WRITABLE_TXN_MARKER_TOPIC), "0+"),
        Field("coordinator_epoch", INT32, "0+"),
        Field("transaction_version", INT8, "2+", default=0, ignorable=True),
    ],
)

WriteTxnMarkersRequest = Message(
    "WriteTxnMarkersRequest",
    api_key=27,
    kind=Kind.REQUEST,
    valid="1-2",
    flexible="1+",
    fields=[Field("markers", ArrayOf(_WRITABLE_TXN_MARKER), "0+")],
)

_WRITABLE_TXN_MARKER_PARTITION_RESULT = Struct(
    "WritableTxnMarkerPartitionResult",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
    ],
)

_WRITABLE_TXN_MARKER_TOPIC_RESULT = Struct(
    "WritableTxnMarkerTopicResult",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_WRITABLE_TXN_MARKER_PARTITION_RESULT), "0+"),
    ],
)

_WRITABLE_TXN_MARKER_RESULT = Struct(
    "WritableTxnMarkerResult",
    [
        Field("producer_id", INT64, "0+"),
        Field("topics", ArrayOf(_WRITABLE_TXN_MARKER_TOPIC_RESULT), "0+"),
    ],
)

WriteTxnMarkersResponse = Message(
    "WriteTxnMarkersResponse",
    api_key=27,
    kind=Kind.RESPONSE,
    valid="1-2",
    flexible="1+",
    fields=[Field("markers", ArrayOf(_WRITABLE_TXN_MARKER_RESULT), "0+")],
)

_DESCRIBE_PRODUCERS_TOPIC_REQUEST = Struct(
    "TopicRequest",
    [
        Field("name", STRING, "0+"),
        Field("partition_indexes", ArrayOf(INT32), "0+"),
    ],
)

DescribeProducersRequest = Message(
    "DescribeProducersRequest",
    api_key=61,
    kind=Kind.REQUEST,
    valid="0",
    flexible="0+",
    fields=[Field("topics", ArrayOf(_DESCRIBE_PRODUCERS_TOPIC_REQUEST), "0+")],
)

_PRODUCER_STATE = Struct(
    "ProducerState",
    [
        Field("producer_id", INT64, "0+"),
        Field("producer_epoch", INT32, "0+"),
        Field("last_sequence", INT32, "0+", default=-1),
        Field("last_timestamp", INT64, "0+", default=-1),
        Field("coordinator_epoch", INT32, "0+"),
        Field("current_txn_start_offset", INT64, "0+", default=-1),
    ],
)

_DESCRIBE_PRODUCERS_PARTITION_RESPONSE = Struct(
    "PartitionResponse",
    [
        Field("partition_index", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("active_producers", ArrayOf(_PRODUCER_STATE), "0+"),
    ],
)

_DESCRIBE_PRODUCERS_TOPIC_RESPONSE = Struct(
    "TopicResponse",
    [
        Field("name", STRING, "0+"),
        Field("partitions", ArrayOf(_DESCRIBE_PRODUCERS_PARTITION_RESPONSE), "0+"),
    ],
)

DescribeProducersResponse = Message(
    "DescribeProducersResponse",
    api_key=61,
    kind=Kind.RESPONSE,
    valid="0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("topics", ArrayOf(_DESCRIBE_PRODUCERS_TOPIC_RESPONSE), "0+"),
    ],
)

DescribeTransactionsRequest = Message(
    "DescribeTransactionsRequest",
    api_key=65,
    kind=Kind.REQUEST,
    valid="0",
    flexible="0+",
    fields=[Field("transactional_ids", ArrayOf(STRING), "0+")],
)

_DESCRIBED_TOPIC_DATA = Struct(
    "TopicData",
    [
        Field("topic", STRING, "0+"),
        Field("partitions", ArrayOf(INT32), "0+"),
    ],
)

_DESCRIBED_TRANSACTION_STATE = Struct(
    "TransactionState",
    [
        Field("error_code", INT16, "0+"),
        Field("transactional_id", STRING, "0+"),
        Field("transaction_state", STRING, "0+"),
        Field("transaction_timeout_ms", INT32, "0+"),
        Field("transaction_start_time_ms", INT64, "0+"),
        Field("producer_id", INT64, "0+"),
        Field("producer_epoch", INT16, "0+"),
        Field("topics", ArrayOf(_DESCRIBED_TOPIC_DATA), "0+"),
    ],
)

DescribeTransactionsResponse = Message(
    "DescribeTransactionsResponse",
    api_key=65,
    kind=Kind.RESPONSE,
    valid="0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("transaction_states", ArrayOf(_DESCRIBED_TRANSACTION_STATE), "0+"),
    ],
)

ListTransactionsRequest = Message(
    "ListTransactionsRequest",
    api_key=66,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="0+",
    fields=[
        Field("state_filters", ArrayOf(STRING), "0+"),
        Field("producer_id_filters", ArrayOf(INT64), "0+"),
        Field("duration_filter", INT64, "1+", default=-1),
        Field("transactional_id_pattern", STRING, "2+", nullable="2+", default=None),
    ],
)

_LISTED_TRANSACTION_STATE = Struct(
    "TransactionState",
    [
        Field("transactional_id", STRING, "0+"),
        Field("producer_id", INT64, "0+"),
        Field("transaction_state", STRING, "0+"),
    ],
)

ListTransactionsResponse = Message(
    "ListTransactionsResponse",
    api_key=66,
    kind=Kind.RESPONSE,
    valid="0-2",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("unknown_state_filters", ArrayOf(STRING), "0+"),
        Field("transaction_states", ArrayOf(_LISTED_TRANSACTION_STATE), "0+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
AddOffsetsToTxnRequestValue = AddOffsetsToTxnRequest.cls
AddOffsetsToTxnResponseValue = AddOffsetsToTxnResponse.cls
AddPartitionsToTxnRequestValue = AddPartitionsToTxnRequest.cls
AddPartitionsToTxnResponseValue = AddPartitionsToTxnResponse.cls
DescribeProducersRequestValue = DescribeProducersRequest.cls
DescribeProducersResponseValue = DescribeProducersResponse.cls
DescribeTransactionsRequestValue = DescribeTransactionsRequest.cls
DescribeTransactionsResponseValue = DescribeTransactionsResponse.cls
EndTxnRequestValue = EndTxnRequest.cls
EndTxnResponseValue = EndTxnResponse.cls
InitProducerIdRequestValue = InitProducerIdRequest.cls
InitProducerIdResponseValue = InitProducerIdResponse.cls
ListTransactionsRequestValue = ListTransactionsRequest.cls
ListTransactionsResponseValue = ListTransactionsResponse.cls
TxnOffsetCommitRequestValue = TxnOffsetCommitRequest.cls
TxnOffsetCommitResponseValue = TxnOffsetCommitResponse.cls
WriteTxnMarkersRequestValue = WriteTxnMarkersRequest.cls
WriteTxnMarkersResponseValue = WriteTxnMarkersResponse.cls
