"""Types of `odradek.wire.messages.list_offsets`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = ["ListOffsetsRequest", "ListOffsetsResponse"]

class ListOffsetsRequestValue(StructValue):
    """ListOffsetsRequest (api key 2), versions 1-11, flexible 6+."""

    class ListOffsetsTopic(StructValue):
        class ListOffsetsPartition(StructValue):
            partition_index: int
            current_leader_epoch: int  # v4+
            timestamp: int
            def __init__(
                self,
                *,
                partition_index: int = 0,
                current_leader_epoch: int = -1,
                timestamp: int = 0,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str
        partitions: list[ListOffsetsPartition]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[ListOffsetsPartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    replica_id: int
    isolation_level: int  # v2+
    topics: list[ListOffsetsTopic]
    timeout_ms: int  # v10+
    def __init__(
        self,
        *,
        replica_id: int = 0,
        isolation_level: int = 0,
        topics: list[ListOffsetsTopic] = ...,
        timeout_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListOffsetsRequest(Message[ListOffsetsRequestValue]):
    ListOffsetsTopic: TypeAlias = ListOffsetsRequestValue.ListOffsetsTopic
    def __call__(
        self,
        *,
        replica_id: int = 0,
        isolation_level: int = 0,
        topics: list[ListOffsetsTopic] = ...,
        timeout_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListOffsetsRequestValue: ...

ListOffsetsRequest: _ListOffsetsRequest

class ListOffsetsResponseValue(StructValue):
    """ListOffsetsResponse (api key 2), versions 1-11, flexible 6+."""

    class ListOffsetsTopicResponse(StructValue):
        class ListOffsetsPartitionResponse(StructValue):
            partition_index: int
            error_code: int
            timestamp: int
            offset: int
            leader_epoch: int  # v4+
            def __init__(
                self,
                *,
                partition_index: int = 0,
                error_code: int = 0,
                timestamp: int = -1,
                offset: int = -1,
                leader_epoch: int = -1,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str
        partitions: list[ListOffsetsPartitionResponse]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[ListOffsetsPartitionResponse] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v2+
    topics: list[ListOffsetsTopicResponse]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[ListOffsetsTopicResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListOffsetsResponse(Message[ListOffsetsResponseValue]):
    ListOffsetsTopicResponse: TypeAlias = ListOffsetsResponseValue.ListOffsetsTopicResponse
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[ListOffsetsTopicResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListOffsetsResponseValue: ...

ListOffsetsResponse: _ListOffsetsResponse
