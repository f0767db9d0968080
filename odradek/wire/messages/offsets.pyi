"""Types of `odradek.wire.messages.offsets`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

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

class DeleteRecordsRequestValue(StructValue):
    """DeleteRecordsRequest (api key 21), versions 0-2, flexible 2+."""

    class DeleteRecordsTopic(StructValue):
        class DeleteRecordsPartition(StructValue):
            partition_index: int
            offset: int
            def __init__(
                self, *, partition_index: int = 0, offset: int = 0, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        name: str
        partitions: list[DeleteRecordsPartition]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[DeleteRecordsPartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    topics: list[DeleteRecordsTopic]
    timeout_ms: int
    def __init__(
        self,
        *,
        topics: list[DeleteRecordsTopic] = ...,
        timeout_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DeleteRecordsRequest(Message[DeleteRecordsRequestValue]):
    DeleteRecordsTopic: TypeAlias = DeleteRecordsRequestValue.DeleteRecordsTopic
    def __call__(
        self,
        *,
        topics: list[DeleteRecordsTopic] = ...,
        timeout_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DeleteRecordsRequestValue: ...

DeleteRecordsRequest: _DeleteRecordsRequest

class DeleteRecordsResponseValue(StructValue):
    """DeleteRecordsResponse (api key 21), versions 0-2, flexible 2+."""

    class DeleteRecordsTopicResult(StructValue):
        class DeleteRecordsPartitionResult(StructValue):
            partition_index: int
            low_watermark: int
            error_code: int
            def __init__(
                self,
                *,
                partition_index: int = 0,
                low_watermark: int = 0,
                error_code: int = 0,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str
        partitions: list[DeleteRecordsPartitionResult]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[DeleteRecordsPartitionResult] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    topics: list[DeleteRecordsTopicResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[DeleteRecordsTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DeleteRecordsResponse(Message[DeleteRecordsResponseValue]):
    DeleteRecordsTopicResult: TypeAlias = DeleteRecordsResponseValue.DeleteRecordsTopicResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[DeleteRecordsTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DeleteRecordsResponseValue: ...

DeleteRecordsResponse: _DeleteRecordsResponse

class OffsetCommitRequestValue(StructValue):
    """OffsetCommitRequest (api key 8), versions 2-10, flexible 8+."""

    class OffsetCommitRequestTopic(StructValue):
        class OffsetCommitRequestPartition(StructValue):
            partition_index: int
            committed_offset: int
            committed_leader_epoch: int  # v6+
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

        name: str  # v0-9
        topic_id: bytes  # v10+
        partitions: list[OffsetCommitRequestPartition]
        def __init__(
            self,
            *,
            name: str = "",
            topic_id: bytes = ...,
            partitions: list[OffsetCommitRequestPartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    group_id: str
    generation_id_or_member_epoch: int
    member_id: str
    group_instance_id: str | None  # v7+, nullable v7+
    retention_time_ms: int  # v2-4
    topics: list[OffsetCommitRequestTopic]
    def __init__(
        self,
        *,
        group_id: str = "",
        generation_id_or_member_epoch: int = -1,
        member_id: str = "",
        group_instance_id: str | None = None,
        retention_time_ms: int = -1,
        topics: list[OffsetCommitRequestTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _OffsetCommitRequest(Message[OffsetCommitRequestValue]):
    OffsetCommitRequestTopic: TypeAlias = OffsetCommitRequestValue.OffsetCommitRequestTopic
    def __call__(
        self,
        *,
        group_id: str = "",
        generation_id_or_member_epoch: int = -1,
        member_id: str = "",
        group_instance_id: str | None = None,
        retention_time_ms: int = -1,
        topics: list[OffsetCommitRequestTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> OffsetCommitRequestValue: ...

OffsetCommitRequest: _OffsetCommitRequest

class OffsetCommitResponseValue(StructValue):
    """OffsetCommitResponse (api key 8), versions 2-10, flexible 8+."""

    class OffsetCommitResponseTopic(StructValue):
        class OffsetCommitResponsePartition(StructValue):
            partition_index: int
            error_code: int
            def __init__(
                self, *, partition_index: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        name: str  # v0-9
        topic_id: bytes  # v10+
        partitions: list[OffsetCommitResponsePartition]
        def __init__(
            self,
            *,
            name: str = "",
            topic_id: bytes = ...,
            partitions: list[OffsetCommitResponsePartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v3+
    topics: list[OffsetCommitResponseTopic]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[OffsetCommitResponseTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _OffsetCommitResponse(Message[OffsetCommitResponseValue]):
    OffsetCommitResponseTopic: TypeAlias = OffsetCommitResponseValue.OffsetCommitResponseTopic
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[OffsetCommitResponseTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> OffsetCommitResponseValue: ...

OffsetCommitResponse: _OffsetCommitResponse

class OffsetDeleteRequestValue(StructValue):
    """OffsetDeleteRequest (api key 47), versions 0, flexible none."""

    class OffsetDeleteRequestTopic(StructValue):
        class OffsetDeleteRequestPartition(StructValue):
            partition_index: int
            def __init__(self, *, partition_index: int = 0, unknown_tags: dict[int, bytes] | None = None) -> None: ...

        name: str
        partitions: list[OffsetDeleteRequestPartition]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[OffsetDeleteRequestPartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    group_id: str
    topics: list[OffsetDeleteRequestTopic]
    def __init__(
        self,
        *,
        group_id: str = "",
        topics: list[OffsetDeleteRequestTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _OffsetDeleteRequest(Message[OffsetDeleteRequestValue]):
    OffsetDeleteRequestTopic: TypeAlias = OffsetDeleteRequestValue.OffsetDeleteRequestTopic
    def __call__(
        self,
        *,
        group_id: str = "",
        topics: list[OffsetDeleteRequestTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> OffsetDeleteRequestValue: ...

OffsetDeleteRequest: _OffsetDeleteRequest

class OffsetDeleteResponseValue(StructValue):
    """OffsetDeleteResponse (api key 47), versions 0, flexible none."""

    class OffsetDeleteResponseTopic(StructValue):
        class OffsetDeleteResponsePartition(StructValue):
            partition_index: int
            error_code: int
            def __init__(
                self, *, partition_index: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        name: str
        partitions: list[OffsetDeleteResponsePartition]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[OffsetDeleteResponsePartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    error_code: int
    throttle_time_ms: int
    topics: list[OffsetDeleteResponseTopic]
    def __init__(
        self,
        *,
        error_code: int = 0,
        throttle_time_ms: int = 0,
        topics: list[OffsetDeleteResponseTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _OffsetDeleteResponse(Message[OffsetDeleteResponseValue]):
    OffsetDeleteResponseTopic: TypeAlias = OffsetDeleteResponseValue.OffsetDeleteResponseTopic
    def __call__(
        self,
        *,
        error_code: int = 0,
        throttle_time_ms: int = 0,
        topics: list[OffsetDeleteResponseTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> OffsetDeleteResponseValue: ...

OffsetDeleteResponse: _OffsetDeleteResponse

class OffsetFetchRequestValue(StructValue):
    """OffsetFetchRequest (api key 9), versions 1-10, flexible 6+."""

    class OffsetFetchRequestTopic(StructValue):
        name: str  # v0-7
        partition_indexes: list[int]  # v0-7
        def __init__(
            self, *, name: str = "", partition_indexes: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    class OffsetFetchRequestGroup(StructValue):
        class OffsetFetchRequestTopics(StructValue):
            name: str  # v8-9
            topic_id: bytes  # v10+
            partition_indexes: list[int]  # v8+
            def __init__(
                self,
                *,
                name: str = "",
                topic_id: bytes = ...,
                partition_indexes: list[int] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        group_id: str  # v8+
        member_id: str | None  # v9+, nullable v9+
        member_epoch: int  # v9+
        topics: list[OffsetFetchRequestTopics] | None  # v8+, nullable v8+
        def __init__(
            self,
            *,
            group_id: str = "",
            member_id: str | None = None,
            member_epoch: int = -1,
            topics: list[OffsetFetchRequestTopics] | None = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    group_id: str  # v0-7
    topics: list[OffsetFetchRequestTopic] | None  # v0-7, nullable v2-7
    groups: list[OffsetFetchRequestGroup]  # v8+
    require_stable: bool  # v7+
    def __init__(
        self,
        *,
        group_id: str = "",
        topics: list[OffsetFetchRequestTopic] | None = ...,
        groups: list[OffsetFetchRequestGroup] = ...,
        require_stable: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _OffsetFetchRequest(Message[OffsetFetchRequestValue]):
    OffsetFetchRequestTopic: TypeAlias = OffsetFetchRequestValue.OffsetFetchRequestTopic
    OffsetFetchRequestGroup: TypeAlias = OffsetFetchRequestValue.OffsetFetchRequestGroup
    def __call__(
        self,
        *,
        group_id: str = "",
        topics: list[OffsetFetchRequestTopic] | None = ...,
        groups: list[OffsetFetchRequestGroup] = ...,
        require_stable: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> OffsetFetchRequestValue: ...

OffsetFetchRequest: _OffsetFetchRequest

class OffsetFetchResponseValue(StructValue):
    """OffsetFetchResponse (api key 9), versions 1-10, flexible 6+."""

    class OffsetFetchResponseTopic(StructValue):
        class OffsetFetchResponsePartition(StructValue):
            partition_index: int  # v0-7
            committed_offset: int  # v0-7
            committed_leader_epoch: int  # v5-7
            metadata: str | None  # v0-7, nullable v0-7
            error_code: int  # v0-7
            def __init__(
                self,
                *,
                partition_index: int = 0,
                committed_offset: int = 0,
                committed_leader_epoch: int = -1,
                metadata: str | None = "",
                error_code: int = 0,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str  # v0-7
        partitions: list[OffsetFetchResponsePartition]  # v0-7
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[OffsetFetchResponsePartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    class OffsetFetchResponseGroup(StructValue):
        class OffsetFetchResponseTopics(StructValue):
            class OffsetFetchResponsePartitions(StructValue):
                partition_index: int  # v8+
                committed_offset: int  # v8+
                committed_leader_epoch: int  # v8+
                metadata: str | None  # v8+, nullable v8+
                error_code: int  # v8+
                def __init__(
                    self,
                    *,
                    partition_index: int = 0,
                    committed_offset: int = 0,
                    committed_leader_epoch: int = -1,
                    metadata: str | None = "",
                    error_code: int = 0,
                    unknown_tags: dict[int, bytes] | None = None,
                ) -> None: ...

            name: str  # v8-9
            topic_id: bytes  # v10+
            partitions: list[OffsetFetchResponsePartitions]  # v8+
            def __init__(
                self,
                *,
                name: str = "",
                topic_id: bytes = ...,
                partitions: list[OffsetFetchResponsePartitions] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        group_id: str  # v8+
        topics: list[OffsetFetchResponseTopics]  # v8+
        error_code: int  # v8+
        def __init__(
            self,
            *,
            group_id: str = "",
            topics: list[OffsetFetchResponseTopics] = ...,
            error_code: int = 0,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v3+
    topics: list[OffsetFetchResponseTopic]  # v0-7
    error_code: int  # v2-7
    groups: list[OffsetFetchResponseGroup]  # v8+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[OffsetFetchResponseTopic] = ...,
        error_code: int = 0,
        groups: list[OffsetFetchResponseGroup] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _OffsetFetchResponse(Message[OffsetFetchResponseValue]):
    OffsetFetchResponseTopic: TypeAlias = OffsetFetchResponseValue.OffsetFetchResponseTopic
    OffsetFetchResponseGroup: TypeAlias = OffsetFetchResponseValue.OffsetFetchResponseGroup
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[OffsetFetchResponseTopic] = ...,
        error_code: int = 0,
        groups: list[OffsetFetchResponseGroup] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> OffsetFetchResponseValue: ...

OffsetFetchResponse: _OffsetFetchResponse

class OffsetForLeaderEpochRequestValue(StructValue):
    """OffsetForLeaderEpochRequest (api key 23), versions 2-4, flexible 4+."""

    class OffsetForLeaderTopic(StructValue):
        class OffsetForLeaderPartition(StructValue):
            partition: int
            current_leader_epoch: int
            leader_epoch: int
            def __init__(
                self,
                *,
                partition: int = 0,
                current_leader_epoch: int = -1,
                leader_epoch: int = 0,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        topic: str
        partitions: list[OffsetForLeaderPartition]
        def __init__(
            self,
            *,
            topic: str = "",
            partitions: list[OffsetForLeaderPartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    replica_id: int  # v3+
    topics: list[OffsetForLeaderTopic]
    def __init__(
        self,
        *,
        replica_id: int = -2,
        topics: list[OffsetForLeaderTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _OffsetForLeaderEpochRequest(Message[OffsetForLeaderEpochRequestValue]):
    OffsetForLeaderTopic: TypeAlias = OffsetForLeaderEpochRequestValue.OffsetForLeaderTopic
    def __call__(
        self,
        *,
        replica_id: int = -2,
        topics: list[OffsetForLeaderTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> OffsetForLeaderEpochRequestValue: ...

OffsetForLeaderEpochRequest: _OffsetForLeaderEpochRequest

class OffsetForLeaderEpochResponseValue(StructValue):
    """OffsetForLeaderEpochResponse (api key 23), versions 2-4, flexible 4+."""

    class OffsetForLeaderTopicResult(StructValue):
        class EpochEndOffset(StructValue):
            error_code: int
            partition: int
            leader_epoch: int
            end_offset: int
            def __init__(
                self,
                *,
                error_code: int = 0,
                partition: int = 0,
                leader_epoch: int = -1,
                end_offset: int = -1,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        topic: str
        partitions: list[EpochEndOffset]
        def __init__(
            self,
            *,
            topic: str = "",
            partitions: list[EpochEndOffset] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    topics: list[OffsetForLeaderTopicResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[OffsetForLeaderTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _OffsetForLeaderEpochResponse(Message[OffsetForLeaderEpochResponseValue]):
    OffsetForLeaderTopicResult: TypeAlias = OffsetForLeaderEpochResponseValue.OffsetForLeaderTopicResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[OffsetForLeaderTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> OffsetForLeaderEpochResponseValue: ...

OffsetForLeaderEpochResponse: _OffsetForLeaderEpochResponse
