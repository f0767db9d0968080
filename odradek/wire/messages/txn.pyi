"""Types of `odradek.wire.messages.txn`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

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

class AddOffsetsToTxnRequestValue(StructValue):
    """AddOffsetsToTxnRequest (api key 25), versions 0-4, flexible 3+."""

    transactional_id: str
    producer_id: int
    producer_epoch: int
    group_id: str
    def __init__(
        self,
        *,
        transactional_id: str = "",
        producer_id: int = 0,
        producer_epoch: int = 0,
        group_id: str = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AddOffsetsToTxnRequest(Message[AddOffsetsToTxnRequestValue]):
    def __call__(
        self,
        *,
        transactional_id: str = "",
        producer_id: int = 0,
        producer_epoch: int = 0,
        group_id: str = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AddOffsetsToTxnRequestValue: ...

AddOffsetsToTxnRequest: _AddOffsetsToTxnRequest

class AddOffsetsToTxnResponseValue(StructValue):
    """AddOffsetsToTxnResponse (api key 25), versions 0-4, flexible 3+."""

    throttle_time_ms: int
    error_code: int
    def __init__(
        self, *, throttle_time_ms: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _AddOffsetsToTxnResponse(Message[AddOffsetsToTxnResponseValue]):
    def __call__(
        self, *, throttle_time_ms: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> AddOffsetsToTxnResponseValue: ...

AddOffsetsToTxnResponse: _AddOffsetsToTxnResponse

class AddPartitionsToTxnRequestValue(StructValue):
    """AddPartitionsToTxnRequest (api key 24), versions 0-5, flexible 3+."""

    class AddPartitionsToTxnTransaction(StructValue):
        class AddPartitionsToTxnTopic(StructValue):
            name: str
            partitions: list[int]
            def __init__(
                self, *, name: str = "", partitions: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        transactional_id: str  # v4+
        producer_id: int  # v4+
        producer_epoch: int  # v4+
        verify_only: bool  # v4+
        topics: list[AddPartitionsToTxnTopic]  # v4+
        def __init__(
            self,
            *,
            transactional_id: str = "",
            producer_id: int = 0,
            producer_epoch: int = 0,
            verify_only: bool = False,
            topics: list[AddPartitionsToTxnTopic] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    AddPartitionsToTxnTopic: TypeAlias = (
        AddPartitionsToTxnRequestValue.AddPartitionsToTxnTransaction.AddPartitionsToTxnTopic
    )
    transactions: list[AddPartitionsToTxnTransaction]  # v4+
    v3_and_below_transactional_id: str  # v0-3
    v3_and_below_producer_id: int  # v0-3
    v3_and_below_producer_epoch: int  # v0-3
    v3_and_below_topics: list[AddPartitionsToTxnTopic]  # v0-3
    def __init__(
        self,
        *,
        transactions: list[AddPartitionsToTxnTransaction] = ...,
        v3_and_below_transactional_id: str = "",
        v3_and_below_producer_id: int = 0,
        v3_and_below_producer_epoch: int = 0,
        v3_and_below_topics: list[AddPartitionsToTxnTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AddPartitionsToTxnRequest(Message[AddPartitionsToTxnRequestValue]):
    AddPartitionsToTxnTransaction: TypeAlias = AddPartitionsToTxnRequestValue.AddPartitionsToTxnTransaction
    AddPartitionsToTxnTopic: TypeAlias = (
        AddPartitionsToTxnRequestValue.AddPartitionsToTxnTransaction.AddPartitionsToTxnTopic
    )
    def __call__(
        self,
        *,
        transactions: list[AddPartitionsToTxnTransaction] = ...,
        v3_and_below_transactional_id: str = "",
        v3_and_below_producer_id: int = 0,
        v3_and_below_producer_epoch: int = 0,
        v3_and_below_topics: list[AddPartitionsToTxnTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AddPartitionsToTxnRequestValue: ...

AddPartitionsToTxnRequest: _AddPartitionsToTxnRequest

class AddPartitionsToTxnResponseValue(StructValue):
    """AddPartitionsToTxnResponse (api key 24), versions 0-5, flexible 3+."""

    class AddPartitionsToTxnResult(StructValue):
        class AddPartitionsToTxnTopicResult(StructValue):
            class AddPartitionsToTxnPartitionResult(StructValue):
                partition_index: int
                partition_error_code: int
                def __init__(
                    self,
                    *,
                    partition_index: int = 0,
                    partition_error_code: int = 0,
                    unknown_tags: dict[int, bytes] | None = None,
                ) -> None: ...

            name: str
            results_by_partition: list[AddPartitionsToTxnPartitionResult]
            def __init__(
                self,
                *,
                name: str = "",
                results_by_partition: list[AddPartitionsToTxnPartitionResult] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        transactional_id: str  # v4+
        topic_results: list[AddPartitionsToTxnTopicResult]  # v4+
        def __init__(
            self,
            *,
            transactional_id: str = "",
            topic_results: list[AddPartitionsToTxnTopicResult] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    AddPartitionsToTxnTopicResult: TypeAlias = (
        AddPartitionsToTxnResponseValue.AddPartitionsToTxnResult.AddPartitionsToTxnTopicResult
    )
    throttle_time_ms: int
    error_code: int  # v4+
    results_by_transaction: list[AddPartitionsToTxnResult]  # v4+
    results_by_topic_v3_and_below: list[AddPartitionsToTxnTopicResult]  # v0-3
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        results_by_transaction: list[AddPartitionsToTxnResult] = ...,
        results_by_topic_v3_and_below: list[AddPartitionsToTxnTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AddPartitionsToTxnResponse(Message[AddPartitionsToTxnResponseValue]):
    AddPartitionsToTxnResult: TypeAlias = AddPartitionsToTxnResponseValue.AddPartitionsToTxnResult
    AddPartitionsToTxnTopicResult: TypeAlias = (
        AddPartitionsToTxnResponseValue.AddPartitionsToTxnResult.AddPartitionsToTxnTopicResult
    )
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        results_by_transaction: list[AddPartitionsToTxnResult] = ...,
        results_by_topic_v3_and_below: list[AddPartitionsToTxnTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AddPartitionsToTxnResponseValue: ...

AddPartitionsToTxnResponse: _AddPartitionsToTxnResponse

class DescribeProducersRequestValue(StructValue):
    """DescribeProducersRequest (api key 61), versions 0, flexible 0+."""

    class TopicRequest(StructValue):
        name: str
        partition_indexes: list[int]
        def __init__(
            self, *, name: str = "", partition_indexes: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    topics: list[TopicRequest]
    def __init__(self, *, topics: list[TopicRequest] = ..., unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _DescribeProducersRequest(Message[DescribeProducersRequestValue]):
    TopicRequest: TypeAlias = DescribeProducersRequestValue.TopicRequest
    def __call__(
        self, *, topics: list[TopicRequest] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> DescribeProducersRequestValue: ...

DescribeProducersRequest: _DescribeProducersRequest

class DescribeProducersResponseValue(StructValue):
    """DescribeProducersResponse (api key 61), versions 0, flexible 0+."""

    class TopicResponse(StructValue):
        class PartitionResponse(StructValue):
            class ProducerState(StructValue):
                producer_id: int
                producer_epoch: int
                last_sequence: int
                last_timestamp: int
                coordinator_epoch: int
                current_txn_start_offset: int
                def __init__(
                    self,
                    *,
                    producer_id: int = 0,
                    producer_epoch: int = 0,
                    last_sequence: int = -1,
                    last_timestamp: int = -1,
                    coordinator_epoch: int = 0,
                    current_txn_start_offset: int = -1,
                    unknown_tags: dict[int, bytes] | None = None,
                ) -> None: ...

            partition_index: int
            error_code: int
            error_message: str | None  # nullable v0+
            active_producers: list[ProducerState]
            def __init__(
                self,
                *,
                partition_index: int = 0,
                error_code: int = 0,
                error_message: str | None = None,
                active_producers: list[ProducerState] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str
        partitions: list[PartitionResponse]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[PartitionResponse] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    topics: list[TopicResponse]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[TopicResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeProducersResponse(Message[DescribeProducersResponseValue]):
    TopicResponse: TypeAlias = DescribeProducersResponseValue.TopicResponse
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[TopicResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeProducersResponseValue: ...

DescribeProducersResponse: _DescribeProducersResponse

class DescribeTransactionsRequestValue(StructValue):
    """DescribeTransactionsRequest (api key 65), versions 0, flexible 0+."""

    transactional_ids: list[str]
    def __init__(self, *, transactional_ids: list[str] = ..., unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _DescribeTransactionsRequest(Message[DescribeTransactionsRequestValue]):
    def __call__(
        self, *, transactional_ids: list[str] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> DescribeTransactionsRequestValue: ...

DescribeTransactionsRequest: _DescribeTransactionsRequest

class DescribeTransactionsResponseValue(StructValue):
    """DescribeTransactionsResponse (api key 65), versions 0, flexible 0+."""

    class TransactionState(StructValue):
        class TopicData(StructValue):
            topic: str
            partitions: list[int]
            def __init__(
                self, *, topic: str = "", partitions: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        error_code: int
        transactional_id: str
        transaction_state: str
        transaction_timeout_ms: int
        transaction_start_time_ms: int
        producer_id: int
        producer_epoch: int
        topics: list[TopicData]
        def __init__(
            self,
            *,
            error_code: int = 0,
            transactional_id: str = "",
            transaction_state: str = "",
            transaction_timeout_ms: int = 0,
            transaction_start_time_ms: int = 0,
            producer_id: int = 0,
            producer_epoch: int = 0,
            topics: list[TopicData] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    transaction_states: list[TransactionState]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        transaction_states: list[TransactionState] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeTransactionsResponse(Message[DescribeTransactionsResponseValue]):
    TransactionState: TypeAlias = DescribeTransactionsResponseValue.TransactionState
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        transaction_states: list[TransactionState] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeTransactionsResponseValue: ...

DescribeTransactionsResponse: _DescribeTransactionsResponse

class EndTxnRequestValue(StructValue):
    """EndTxnRequest (api key 26), versions 0-5, flexible 3+."""

    transactional_id: str
    producer_id: int
    producer_epoch: int
    committed: bool
    def __init__(
        self,
        *,
        transactional_id: str = "",
        producer_id: int = 0,
        producer_epoch: int = 0,
        committed: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _EndTxnRequest(Message[EndTxnRequestValue]):
    def __call__(
        self,
        *,
        transactional_id: str = "",
        producer_id: int = 0,
        producer_epoch: int = 0,
        committed: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> EndTxnRequestValue: ...

EndTxnRequest: _EndTxnRequest

class EndTxnResponseValue(StructValue):
    """EndTxnResponse (api key 26), versions 0-5, flexible 3+."""

    throttle_time_ms: int
    error_code: int
    producer_id: int  # v5+
    producer_epoch: int  # v5+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        producer_id: int = -1,
        producer_epoch: int = -1,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _EndTxnResponse(Message[EndTxnResponseValue]):
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        producer_id: int = -1,
        producer_epoch: int = -1,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> EndTxnResponseValue: ...

EndTxnResponse: _EndTxnResponse

class InitProducerIdRequestValue(StructValue):
    """InitProducerIdRequest (api key 22), versions 0-6, flexible 2+."""

    transactional_id: str | None  # nullable v0+
    transaction_timeout_ms: int
    producer_id: int  # v3+
    producer_epoch: int  # v3+
    enable_2pc: bool  # v6+
    keep_prepared_txn: bool  # v6+
    def __init__(
        self,
        *,
        transactional_id: str | None = "",
        transaction_timeout_ms: int = 0,
        producer_id: int = -1,
        producer_epoch: int = -1,
        enable_2pc: bool = False,
        keep_prepared_txn: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _InitProducerIdRequest(Message[InitProducerIdRequestValue]):
    def __call__(
        self,
        *,
        transactional_id: str | None = "",
        transaction_timeout_ms: int = 0,
        producer_id: int = -1,
        producer_epoch: int = -1,
        enable_2pc: bool = False,
        keep_prepared_txn: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> InitProducerIdRequestValue: ...

InitProducerIdRequest: _InitProducerIdRequest

class InitProducerIdResponseValue(StructValue):
    """InitProducerIdResponse (api key 22), versions 0-6, flexible 2+."""

    throttle_time_ms: int
    error_code: int
    producer_id: int
    producer_epoch: int
    ongoing_txn_producer_id: int  # v6+
    ongoing_txn_producer_epoch: int  # v6+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        producer_id: int = -1,
        producer_epoch: int = 0,
        ongoing_txn_producer_id: int = -1,
        ongoing_txn_producer_epoch: int = -1,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _InitProducerIdResponse(Message[InitProducerIdResponseValue]):
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        producer_id: int = -1,
        producer_epoch: int = 0,
        ongoing_txn_producer_id: int = -1,
        ongoing_txn_producer_epoch: int = -1,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> InitProducerIdResponseValue: ...

InitProducerIdResponse: _InitProducerIdResponse

class ListTransactionsRequestValue(StructValue):
    """ListTransactionsRequest (api key 66), versions 0-2, flexible 0+."""

    state_filters: list[str]
    producer_id_filters: list[int]
    duration_filter: int  # v1+
    transactional_id_pattern: str | None  # v2+, nullable v2+
    def __init__(
        self,
        *,
        state_filters: list[str] = ...,
        producer_id_filters: list[int] = ...,
        duration_filter: int = -1,
        transactional_id_pattern: str | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListTransactionsRequest(Message[ListTransactionsRequestValue]):
    def __call__(
        self,
        *,
        state_filters: list[str] = ...,
        producer_id_filters: list[int] = ...,
        duration_filter: int = -1,
        transactional_id_pattern: str | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListTransactionsRequestValue: ...

ListTransactionsRequest: _ListTransactionsRequest

class ListTransactionsResponseValue(StructValue):
    """ListTransactionsResponse (api key 66), versions 0-2, flexible 0+."""

    class TransactionState(StructValue):
        transactional_id: str
        producer_id: int
        transaction_state: str
        def __init__(
            self,
            *,
            transactional_id: str = "",
            producer_id: int = 0,
            transaction_state: str = "",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int
    unknown_state_filters: list[str]
    transaction_states: list[TransactionState]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        unknown_state_filters: list[str] = ...,
        transaction_states: list[TransactionState] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListTransactionsResponse(Message[ListTransactionsResponseValue]):
    TransactionState: TypeAlias = ListTransactionsResponseValue.TransactionState
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        unknown_state_filters: list[str] = ...,
        transaction_states: list[TransactionState] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListTransactionsResponseValue: ...

ListTransactionsResponse: _ListTransactionsResponse

class TxnOffsetCommitRequestValue(StructValue):
    """TxnOffsetCommitRequest (api key 28), versions 0-6, flexible 3+."""

    class TxnOffsetCommitRequestTopic(StructValue):
        class TxnOffsetCommitRequestPartition(StructValue):
            partition_index: int
            committed_offset: int
            committed_leader_epoch: int  # v2+
            committed_metadata: str | None  # nullable v0+
            def __init__(
                self,
                *,
                partition_index: int = 0,
                committed_offset: int = 0,
                committed_leader_epoch: int = -1,
                committed_metadata: str | None = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str  # v0-5
        topic_id: bytes  # v6+
        partitions: list[TxnOffsetCommitRequestPartition]
        def __init__(
            self,
            *,
            name: str = "",
            topic_id: bytes = ...,
            partitions: list[TxnOffsetCommitRequestPartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    transactional_id: str
    group_id: str
    producer_id: int
    producer_epoch: int
    generation_id_or_member_epoch: int  # v3+
    member_id: str  # v3+
    group_instance_id: str | None  # v3+, nullable v3+
    topics: list[TxnOffsetCommitRequestTopic]
    def __init__(
        self,
        *,
        transactional_id: str = "",
        group_id: str = "",
        producer_id: int = 0,
        producer_epoch: int = 0,
        generation_id_or_member_epoch: int = -1,
        member_id: str = "",
        group_instance_id: str | None = None,
        topics: list[TxnOffsetCommitRequestTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _TxnOffsetCommitRequest(Message[TxnOffsetCommitRequestValue]):
    TxnOffsetCommitRequestTopic: TypeAlias = TxnOffsetCommitRequestValue.TxnOffsetCommitRequestTopic
    def __call__(
        self,
        *,
        transactional_id: str = "",
        group_id: str = "",
        producer_id: int = 0,
        producer_epoch: int = 0,
        generation_id_or_member_epoch: int = -1,
        member_id: str = "",
        group_instance_id: str | None = None,
        topics: list[TxnOffsetCommitRequestTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> TxnOffsetCommitRequestValue: ...

TxnOffsetCommitRequest: _TxnOffsetCommitRequest

class TxnOffsetCommitResponseValue(StructValue):
    """TxnOffsetCommitResponse (api key 28), versions 0-6, flexible 3+."""

    class TxnOffsetCommitResponseTopic(StructValue):
        class TxnOffsetCommitResponsePartition(StructValue):
            partition_index: int
            error_code: int
            def __init__(
                self, *, partition_index: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        name: str  # v0-5
        topic_id: bytes  # v6+
        partitions: list[TxnOffsetCommitResponsePartition]
        def __init__(
            self,
            *,
            name: str = "",
            topic_id: bytes = ...,
            partitions: list[TxnOffsetCommitResponsePartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    topics: list[TxnOffsetCommitResponseTopic]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[TxnOffsetCommitResponseTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _TxnOffsetCommitResponse(Message[TxnOffsetCommitResponseValue]):
    TxnOffsetCommitResponseTopic: TypeAlias = TxnOffsetCommitResponseValue.TxnOffsetCommitResponseTopic
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[TxnOffsetCommitResponseTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> TxnOffsetCommitResponseValue: ...

TxnOffsetCommitResponse: _TxnOffsetCommitResponse

class WriteTxnMarkersRequestValue(StructValue):
    """WriteTxnMarkersRequest (api key 27), versions 1-2, flexible 1+."""

    class WritableTxnMarker(StructValue):
        class WritableTxnMarkerTopic(StructValue):
            name: str
            partition_indexes: list[int]
            def __init__(
                self,
                *,
                name: str = "",
                partition_indexes: list[int] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        producer_id: int
        producer_epoch: int
        transaction_result: bool
        topics: list[WritableTxnMarkerTopic]
        coordinator_epoch: int
        transaction_version: int  # v2+
        def __init__(
            self,
            *,
            producer_id: int = 0,
            producer_epoch: int = 0,
            transaction_result: bool = False,
            topics: list[WritableTxnMarkerTopic] = ...,
            coordinator_epoch: int = 0,
            transaction_version: int = 0,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    markers: list[WritableTxnMarker]
    def __init__(
        self, *, markers: list[WritableTxnMarker] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _WriteTxnMarkersRequest(Message[WriteTxnMarkersRequestValue]):
    WritableTxnMarker: TypeAlias = WriteTxnMarkersRequestValue.WritableTxnMarker
    def __call__(
        self, *, markers: list[WritableTxnMarker] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> WriteTxnMarkersRequestValue: ...

WriteTxnMarkersRequest: _WriteTxnMarkersRequest

class WriteTxnMarkersResponseValue(StructValue):
    """WriteTxnMarkersResponse (api key 27), versions 1-2, flexible 1+."""

    class WritableTxnMarkerResult(StructValue):
        class WritableTxnMarkerTopicResult(StructValue):
            class WritableTxnMarkerPartitionResult(StructValue):
                partition_index: int
                error_code: int
                def __init__(
                    self, *, partition_index: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
                ) -> None: ...

            name: str
            partitions: list[WritableTxnMarkerPartitionResult]
            def __init__(
                self,
                *,
                name: str = "",
                partitions: list[WritableTxnMarkerPartitionResult] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        producer_id: int
        topics: list[WritableTxnMarkerTopicResult]
        def __init__(
            self,
            *,
            producer_id: int = 0,
            topics: list[WritableTxnMarkerTopicResult] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    markers: list[WritableTxnMarkerResult]
    def __init__(
        self, *, markers: list[WritableTxnMarkerResult] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _WriteTxnMarkersResponse(Message[WriteTxnMarkersResponseValue]):
    WritableTxnMarkerResult: TypeAlias = WriteTxnMarkersResponseValue.WritableTxnMarkerResult
    def __call__(
        self, *, markers: list[WritableTxnMarkerResult] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> WriteTxnMarkersResponseValue: ...

WriteTxnMarkersResponse: _WriteTxnMarkersResponse
