"""Types of `odradek.wire.messages.topics`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "CreatePartitionsRequest",
    "CreatePartitionsResponse",
    "CreateTopicsRequest",
    "CreateTopicsResponse",
    "DeleteTopicsRequest",
    "DeleteTopicsResponse",
]

class CreatePartitionsRequestValue(StructValue):
    """CreatePartitionsRequest (api key 37), versions 0-3, flexible 2+."""

    class CreatePartitionsTopic(StructValue):
        class CreatePartitionsAssignment(StructValue):
            broker_ids: list[int]
            def __init__(
                self, *, broker_ids: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        name: str
        count: int
        assignments: list[CreatePartitionsAssignment] | None  # nullable v0+
        def __init__(
            self,
            *,
            name: str = "",
            count: int = 0,
            assignments: list[CreatePartitionsAssignment] | None = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    topics: list[CreatePartitionsTopic]
    timeout_ms: int
    validate_only: bool
    def __init__(
        self,
        *,
        topics: list[CreatePartitionsTopic] = ...,
        timeout_ms: int = 0,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _CreatePartitionsRequest(Message[CreatePartitionsRequestValue]):
    CreatePartitionsTopic: TypeAlias = CreatePartitionsRequestValue.CreatePartitionsTopic
    def __call__(
        self,
        *,
        topics: list[CreatePartitionsTopic] = ...,
        timeout_ms: int = 0,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> CreatePartitionsRequestValue: ...

CreatePartitionsRequest: _CreatePartitionsRequest

class CreatePartitionsResponseValue(StructValue):
    """CreatePartitionsResponse (api key 37), versions 0-3, flexible 2+."""

    class CreatePartitionsTopicResult(StructValue):
        name: str
        error_code: int
        error_message: str | None  # nullable v0+
        def __init__(
            self,
            *,
            name: str = "",
            error_code: int = 0,
            error_message: str | None = None,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    results: list[CreatePartitionsTopicResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[CreatePartitionsTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _CreatePartitionsResponse(Message[CreatePartitionsResponseValue]):
    CreatePartitionsTopicResult: TypeAlias = CreatePartitionsResponseValue.CreatePartitionsTopicResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[CreatePartitionsTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> CreatePartitionsResponseValue: ...

CreatePartitionsResponse: _CreatePartitionsResponse

class CreateTopicsRequestValue(StructValue):
    """CreateTopicsRequest (api key 19), versions 2-7, flexible 5+."""

    class CreatableTopic(StructValue):
        class CreatableReplicaAssignment(StructValue):
            partition_index: int
            broker_ids: list[int]
            def __init__(
                self,
                *,
                partition_index: int = 0,
                broker_ids: list[int] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        class CreatableTopicConfig(StructValue):
            name: str
            value: str | None  # nullable v0+
            def __init__(
                self, *, name: str = "", value: str | None = "", unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        name: str
        num_partitions: int
        replication_factor: int
        assignments: list[CreatableReplicaAssignment]
        configs: list[CreatableTopicConfig]
        def __init__(
            self,
            *,
            name: str = "",
            num_partitions: int = 0,
            replication_factor: int = 0,
            assignments: list[CreatableReplicaAssignment] = ...,
            configs: list[CreatableTopicConfig] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    topics: list[CreatableTopic]
    timeout_ms: int
    validate_only: bool
    def __init__(
        self,
        *,
        topics: list[CreatableTopic] = ...,
        timeout_ms: int = 60000,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _CreateTopicsRequest(Message[CreateTopicsRequestValue]):
    CreatableTopic: TypeAlias = CreateTopicsRequestValue.CreatableTopic
    def __call__(
        self,
        *,
        topics: list[CreatableTopic] = ...,
        timeout_ms: int = 60000,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> CreateTopicsRequestValue: ...

CreateTopicsRequest: _CreateTopicsRequest

class CreateTopicsResponseValue(StructValue):
    """CreateTopicsResponse (api key 19), versions 2-7, flexible 5+."""

    class CreatableTopicResult(StructValue):
        class CreatableTopicConfigs(StructValue):
            name: str  # v5+
            value: str | None  # v5+, nullable v5+
            read_only: bool  # v5+
            config_source: int  # v5+
            is_sensitive: bool  # v5+
            def __init__(
                self,
                *,
                name: str = "",
                value: str | None = "",
                read_only: bool = False,
                config_source: int = -1,
                is_sensitive: bool = False,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str
        topic_id: bytes  # v7+
        error_code: int
        error_message: str | None  # nullable v0+
        topic_config_error_code: int  # v5+, tag 0
        num_partitions: int  # v5+
        replication_factor: int  # v5+
        configs: list[CreatableTopicConfigs] | None  # v5+, nullable v5+
        def __init__(
            self,
            *,
            name: str = "",
            topic_id: bytes = ...,
            error_code: int = 0,
            error_message: str | None = "",
            topic_config_error_code: int = 0,
            num_partitions: int = -1,
            replication_factor: int = -1,
            configs: list[CreatableTopicConfigs] | None = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    topics: list[CreatableTopicResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[CreatableTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _CreateTopicsResponse(Message[CreateTopicsResponseValue]):
    CreatableTopicResult: TypeAlias = CreateTopicsResponseValue.CreatableTopicResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        topics: list[CreatableTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> CreateTopicsResponseValue: ...

CreateTopicsResponse: _CreateTopicsResponse

class DeleteTopicsRequestValue(StructValue):
    """DeleteTopicsRequest (api key 20), versions 1-6, flexible 4+."""

    class DeleteTopicState(StructValue):
        name: str | None  # v6+, nullable v6+
        topic_id: bytes  # v6+
        def __init__(
            self, *, name: str | None = None, topic_id: bytes = ..., unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    topics: list[DeleteTopicState]  # v6+
    topic_names: list[str]  # v0-5
    timeout_ms: int
    def __init__(
        self,
        *,
        topics: list[DeleteTopicState] = ...,
        topic_names: list[str] = ...,
        timeout_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DeleteTopicsRequest(Message[DeleteTopicsRequestValue]):
    DeleteTopicState: TypeAlias = DeleteTopicsRequestValue.DeleteTopicState
    def __call__(
        self,
        *,
        topics: list[DeleteTopicState] = ...,
        topic_names: list[str] = ...,
        timeout_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DeleteTopicsRequestValue: ...

DeleteTopicsRequest: _DeleteTopicsRequest

class DeleteTopicsResponseValue(StructValue):
    """DeleteTopicsResponse (api key 20), versions 1-6, flexible 4+."""

    class DeletableTopicResult(StructValue):
        name: str | None  # nullable v6+
        topic_id: bytes  # v6+
        error_code: int
        error_message: str | None  # v5+, nullable v5+
        def __init__(
            self,
            *,
            name: str | None = "",
            topic_id: bytes = ...,
            error_code: int = 0,
            error_message: str | None = None,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    responses: list[DeletableTopicResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        responses: list[DeletableTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DeleteTopicsResponse(Message[DeleteTopicsResponseValue]):
    DeletableTopicResult: TypeAlias = DeleteTopicsResponseValue.DeletableTopicResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        responses: list[DeletableTopicResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DeleteTopicsResponseValue: ...

DeleteTopicsResponse: _DeleteTopicsResponse
