"""Types of `odradek.wire.messages.metadata`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = ["DescribeTopicPartitionsRequest", "DescribeTopicPartitionsResponse", "MetadataRequest", "MetadataResponse"]

class DescribeTopicPartitionsRequestValue(StructValue):
    """DescribeTopicPartitionsRequest (api key 75), versions 0, flexible 0+."""

    class TopicRequest(StructValue):
        name: str
        def __init__(self, *, name: str = "", unknown_tags: dict[int, bytes] | None = None) -> None: ...

    class Cursor(StructValue):
        topic_name: str
        partition_index: int
        def __init__(
            self, *, topic_name: str = "", partition_index: int = 0, unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    topics: list[TopicRequest]
    response_partition_limit: int
    cursor: Cursor | None  # nullable v0+
    def __init__(
        self,
        *,
        topics: list[TopicRequest] = ...,
        response_partition_limit: int = 2000,
        cursor: Cursor | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeTopicPartitionsRequest(Message[DescribeTopicPartitionsRequestValue]):
    TopicRequest: TypeAlias = DescribeTopicPartitionsRequestValue.TopicRequest
    Cursor: TypeAlias = DescribeTopicPartitionsRequestValue.Cursor
    def __call__(
        self,
        *,
        topics: list[TopicRequest] = ...,
        response_partition_limit: int = 2000,
        cursor: Cursor | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeTopicPartitionsRequestValue: ...

DescribeTopicPartitionsRequest: _DescribeTopicPartitionsRequest

class DescribeTopicPartitionsResponseValue(StructValue):
    """DescribeTopicPartitionsResponse (api key 75), versions 0, flexible 0+."""

    class DescribeTopicPartitionsResponseTopic(StructValue):
        class DescribeTopicPartitionsResponsePartition(StructValue):
            error_code: int
            partition_index: int
            leader_id: int
            leader_epoch: int
            replica_nodes: list[int]
            isr_nodes: list[int]
            eligible_leader_replicas: list[int] | None  # nullable v0+
            last_known_elr: list[int] | None  # nullable v0+
            offline_replicas: list[int]
            def __init__(
                self,
                *,
                error_code: int = 0,
                partition_index: int = 0,
                leader_id: int = 0,
                leader_epoch: int = -1,
                replica_nodes: list[int] = ...,
                isr_nodes: list[int] = ...,
                eligible_leader_replicas: list[int] | None = None,
                last_known_elr: list[int] | None = None,
                offline_replicas: list[int] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        error_code: int
        name: str | None  # nullable v0+
        topic_id: bytes
        is_internal: bool
        partitions: list[DescribeTopicPartitionsResponsePartition]
        topic_authorized_operations: int
        def __init__(
            self,
            *,
            error_code: int = 0,
            name: str | None = "",
            topic_id: bytes = ...,
            is_internal: bool = False,
            partitions: list[DescribeTopicPartitionsResponsePartition] = ...,
            topic_authorized_operations: int = -2147483648,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    Cursor: TypeAlias = DescribeTopicPartitionsRequestValue.Cursor
    throttle_time_ms: int
    topics: list[DescribeTopicPartitionsResponseTopic]
    next_cursor: Cursor | None  # nullable v0+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[DescribeTopicPartitionsResponseTopic] = ...,
        next_cursor: Cursor | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeTopicPartitionsResponse(Message[DescribeTopicPartitionsResponseValue]):
    DescribeTopicPartitionsResponseTopic: TypeAlias = (
        DescribeTopicPartitionsResponseValue.DescribeTopicPartitionsResponseTopic
    )
    Cursor: TypeAlias = DescribeTopicPartitionsRequestValue.Cursor
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[DescribeTopicPartitionsResponseTopic] = ...,
        next_cursor: Cursor | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeTopicPartitionsResponseValue: ...

DescribeTopicPartitionsResponse: _DescribeTopicPartitionsResponse

class MetadataRequestValue(StructValue):
    """MetadataRequest (api key 3), versions 0-13, flexible 9+."""

    class MetadataRequestTopic(StructValue):
        topic_id: bytes  # v10+
        name: str | None  # nullable v10+
        def __init__(
            self, *, topic_id: bytes = ..., name: str | None = "", unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    topics: list[MetadataRequestTopic] | None  # nullable v1+
    allow_auto_topic_creation: bool  # v4+
    include_cluster_authorized_operations: bool  # v8-10
    include_topic_authorized_operations: bool  # v8+
    def __init__(
        self,
        *,
        topics: list[MetadataRequestTopic] | None = ...,
        allow_auto_topic_creation: bool = True,
        include_cluster_authorized_operations: bool = False,
        include_topic_authorized_operations: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _MetadataRequest(Message[MetadataRequestValue]):
    MetadataRequestTopic: TypeAlias = MetadataRequestValue.MetadataRequestTopic
    def __call__(
        self,
        *,
        topics: list[MetadataRequestTopic] | None = ...,
        allow_auto_topic_creation: bool = True,
        include_cluster_authorized_operations: bool = False,
        include_topic_authorized_operations: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> MetadataRequestValue: ...

MetadataRequest: _MetadataRequest

class MetadataResponseValue(StructValue):
    """MetadataResponse (api key 3), versions 0-13, flexible 9+."""

    class MetadataResponseBroker(StructValue):
        node_id: int
        host: str
        port: int
        rack: str | None  # v1+, nullable v1+
        def __init__(
            self,
            *,
            node_id: int = 0,
            host: str = "",
            port: int = 0,
            rack: str | None = None,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    class MetadataResponseTopic(StructValue):
        class MetadataResponsePartition(StructValue):
            error_code: int
            partition_index: int
            leader_id: int
            leader_epoch: int  # v7+
            replica_nodes: list[int]
            isr_nodes: list[int]
            offline_replicas: list[int]  # v5+
            def __init__(
                self,
                *,
                error_code: int = 0,
                partition_index: int = 0,
                leader_id: int = 0,
                leader_epoch: int = -1,
                replica_nodes: list[int] = ...,
                isr_nodes: list[int] = ...,
                offline_replicas: list[int] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        error_code: int
        name: str | None  # nullable v12+
        topic_id: bytes  # v10+
        is_internal: bool  # v1+
        partitions: list[MetadataResponsePartition]
        topic_authorized_operations: int  # v8+
        def __init__(
            self,
            *,
            error_code: int = 0,
            name: str | None = "",
            topic_id: bytes = ...,
            is_internal: bool = False,
            partitions: list[MetadataResponsePartition] = ...,
            topic_authorized_operations: int = -2147483648,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v3+
    brokers: list[MetadataResponseBroker]
    cluster_id: str | None  # v2+, nullable v2+
    controller_id: int  # v1+
    topics: list[MetadataResponseTopic]
    cluster_authorized_operations: int  # v8-10
    error_code: int  # v13+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        brokers: list[MetadataResponseBroker] = ...,
        cluster_id: str | None = None,
        controller_id: int = -1,
        topics: list[MetadataResponseTopic] = ...,
        cluster_authorized_operations: int = -2147483648,
        error_code: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _MetadataResponse(Message[MetadataResponseValue]):
    MetadataResponseBroker: TypeAlias = MetadataResponseValue.MetadataResponseBroker
    MetadataResponseTopic: TypeAlias = MetadataResponseValue.MetadataResponseTopic
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        brokers: list[MetadataResponseBroker] = ...,
        cluster_id: str | None = None,
        controller_id: int = -1,
        topics: list[MetadataResponseTopic] = ...,
        cluster_authorized_operations: int = -2147483648,
        error_code: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> MetadataResponseValue: ...

MetadataResponse: _MetadataResponse
