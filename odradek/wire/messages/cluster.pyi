"""Types of `odradek.wire.messages.cluster`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "AlterReplicaLogDirsRequest",
    "AlterReplicaLogDirsResponse",
    "DescribeClusterRequest",
    "DescribeClusterResponse",
    "DescribeLogDirsRequest",
    "DescribeLogDirsResponse",
    "SaslHandshakeRequest",
    "SaslHandshakeResponse",
]

class AlterReplicaLogDirsRequestValue(StructValue):
    """AlterReplicaLogDirsRequest (api key 34), versions 1-2, flexible 2+."""

    class AlterReplicaLogDir(StructValue):
        class AlterReplicaLogDirTopic(StructValue):
            name: str
            partitions: list[int]
            def __init__(
                self, *, name: str = "", partitions: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        path: str
        topics: list[AlterReplicaLogDirTopic]
        def __init__(
            self,
            *,
            path: str = "",
            topics: list[AlterReplicaLogDirTopic] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    dirs: list[AlterReplicaLogDir]
    def __init__(
        self, *, dirs: list[AlterReplicaLogDir] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _AlterReplicaLogDirsRequest(Message[AlterReplicaLogDirsRequestValue]):
    AlterReplicaLogDir: TypeAlias = AlterReplicaLogDirsRequestValue.AlterReplicaLogDir
    def __call__(
        self, *, dirs: list[AlterReplicaLogDir] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> AlterReplicaLogDirsRequestValue: ...

AlterReplicaLogDirsRequest: _AlterReplicaLogDirsRequest

class AlterReplicaLogDirsResponseValue(StructValue):
    """AlterReplicaLogDirsResponse (api key 34), versions 1-2, flexible 2+."""

    class AlterReplicaLogDirTopicResult(StructValue):
        class AlterReplicaLogDirPartitionResult(StructValue):
            partition_index: int
            error_code: int
            def __init__(
                self, *, partition_index: int = 0, error_code: int = 0, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        topic_name: str
        partitions: list[AlterReplicaLogDirPartitionResult]
        def __init__(
            self,
            *,
            topic_name: str = "",
            partitions: list[AlterReplicaLogDirPartitionResult] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    results: list[AlterReplicaLogDirTopicResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[AlterReplicaLogDirTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AlterReplicaLogDirsResponse(Message[AlterReplicaLogDirsResponseValue]):
    AlterReplicaLogDirTopicResult: TypeAlias = AlterReplicaLogDirsResponseValue.AlterReplicaLogDirTopicResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[AlterReplicaLogDirTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AlterReplicaLogDirsResponseValue: ...

AlterReplicaLogDirsResponse: _AlterReplicaLogDirsResponse

class DescribeClusterRequestValue(StructValue):
    """DescribeClusterRequest (api key 60), versions 0-2, flexible 0+."""

    include_cluster_authorized_operations: bool
    endpoint_type: int  # v1+
    include_fenced_brokers: bool  # v2+
    def __init__(
        self,
        *,
        include_cluster_authorized_operations: bool = False,
        endpoint_type: int = 1,
        include_fenced_brokers: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeClusterRequest(Message[DescribeClusterRequestValue]):
    def __call__(
        self,
        *,
        include_cluster_authorized_operations: bool = False,
        endpoint_type: int = 1,
        include_fenced_brokers: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeClusterRequestValue: ...

DescribeClusterRequest: _DescribeClusterRequest

class DescribeClusterResponseValue(StructValue):
    """DescribeClusterResponse (api key 60), versions 0-2, flexible 0+."""

    class DescribeClusterBroker(StructValue):
        broker_id: int
        host: str
        port: int
        rack: str | None  # nullable v0+
        is_fenced: bool  # v2+
        def __init__(
            self,
            *,
            broker_id: int = 0,
            host: str = "",
            port: int = 0,
            rack: str | None = None,
            is_fenced: bool = False,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    endpoint_type: int  # v1+
    cluster_id: str
    controller_id: int
    brokers: list[DescribeClusterBroker]
    cluster_authorized_operations: int
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = None,
        endpoint_type: int = 1,
        cluster_id: str = "",
        controller_id: int = -1,
        brokers: list[DescribeClusterBroker] = ...,
        cluster_authorized_operations: int = -2147483648,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeClusterResponse(Message[DescribeClusterResponseValue]):
    DescribeClusterBroker: TypeAlias = DescribeClusterResponseValue.DescribeClusterBroker
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = None,
        endpoint_type: int = 1,
        cluster_id: str = "",
        controller_id: int = -1,
        brokers: list[DescribeClusterBroker] = ...,
        cluster_authorized_operations: int = -2147483648,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeClusterResponseValue: ...

DescribeClusterResponse: _DescribeClusterResponse

class DescribeLogDirsRequestValue(StructValue):
    """DescribeLogDirsRequest (api key 35), versions 1-5, flexible 2+."""

    class DescribableLogDirTopic(StructValue):
        topic: str
        partitions: list[int]
        def __init__(
            self, *, topic: str = "", partitions: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    topics: list[DescribableLogDirTopic] | None  # nullable v0+
    def __init__(
        self, *, topics: list[DescribableLogDirTopic] | None = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _DescribeLogDirsRequest(Message[DescribeLogDirsRequestValue]):
    DescribableLogDirTopic: TypeAlias = DescribeLogDirsRequestValue.DescribableLogDirTopic
    def __call__(
        self, *, topics: list[DescribableLogDirTopic] | None = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> DescribeLogDirsRequestValue: ...

DescribeLogDirsRequest: _DescribeLogDirsRequest

class DescribeLogDirsResponseValue(StructValue):
    """DescribeLogDirsResponse (api key 35), versions 1-5, flexible 2+."""

    class DescribeLogDirsResult(StructValue):
        class DescribeLogDirsTopic(StructValue):
            class DescribeLogDirsPartition(StructValue):
                partition_index: int
                partition_size: int
                offset_lag: int
                is_future_key: bool
                def __init__(
                    self,
                    *,
                    partition_index: int = 0,
                    partition_size: int = 0,
                    offset_lag: int = 0,
                    is_future_key: bool = False,
                    unknown_tags: dict[int, bytes] | None = None,
                ) -> None: ...

            name: str
            partitions: list[DescribeLogDirsPartition]
            def __init__(
                self,
                *,
                name: str = "",
                partitions: list[DescribeLogDirsPartition] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        error_code: int
        log_dir: str
        topics: list[DescribeLogDirsTopic]
        total_bytes: int  # v4+
        usable_bytes: int  # v4+
        is_cordoned: bool  # v5+
        def __init__(
            self,
            *,
            error_code: int = 0,
            log_dir: str = "",
            topics: list[DescribeLogDirsTopic] = ...,
            total_bytes: int = -1,
            usable_bytes: int = -1,
            is_cordoned: bool = False,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int  # v3+
    results: list[DescribeLogDirsResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        results: list[DescribeLogDirsResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeLogDirsResponse(Message[DescribeLogDirsResponseValue]):
    DescribeLogDirsResult: TypeAlias = DescribeLogDirsResponseValue.DescribeLogDirsResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        results: list[DescribeLogDirsResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeLogDirsResponseValue: ...

DescribeLogDirsResponse: _DescribeLogDirsResponse

class SaslHandshakeRequestValue(StructValue):
    """SaslHandshakeRequest (api key 17), versions 0-1, flexible none."""

    mechanism: str
    def __init__(self, *, mechanism: str = "", unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _SaslHandshakeRequest(Message[SaslHandshakeRequestValue]):
    def __call__(
        self, *, mechanism: str = "", unknown_tags: dict[int, bytes] | None = None
    ) -> SaslHandshakeRequestValue: ...

SaslHandshakeRequest: _SaslHandshakeRequest

class SaslHandshakeResponseValue(StructValue):
    """SaslHandshakeResponse (api key 17), versions 0-1, flexible none."""

    error_code: int
    mechanisms: list[str]
    def __init__(
        self, *, error_code: int = 0, mechanisms: list[str] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _SaslHandshakeResponse(Message[SaslHandshakeResponseValue]):
    def __call__(
        self, *, error_code: int = 0, mechanisms: list[str] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> SaslHandshakeResponseValue: ...

SaslHandshakeResponse: _SaslHandshakeResponse
