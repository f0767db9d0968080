"""Types of `odradek.wire.messages.txn`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "AddOffsetsToTxnRequest",
    "AddOffsetsToTxnResponse",
    "AddPartitionsToTxnRequest",
    "AddPartitionsToTxnResponse",
    "EndTxnRequest",
    "EndTxnResponse",
    "InitProducerIdRequest",
    "InitProducerIdResponse",
    "TxnOffsetCommitRequest",
    "TxnOffsetCommitResponse",
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
