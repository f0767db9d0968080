"""Types of `odradek.wire.messages.configs`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "AlterConfigsRequest",
    "AlterConfigsResponse",
    "DescribeConfigsRequest",
    "DescribeConfigsResponse",
    "IncrementalAlterConfigsRequest",
    "IncrementalAlterConfigsResponse",
    "ListConfigResourcesRequest",
    "ListConfigResourcesResponse",
]

class AlterConfigsRequestValue(StructValue):
    """AlterConfigsRequest (api key 33), versions 0-2, flexible 2+."""

    class AlterConfigsResource(StructValue):
        class AlterableConfig(StructValue):
            name: str
            value: str | None  # nullable v0+
            def __init__(
                self, *, name: str = "", value: str | None = "", unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        resource_type: int
        resource_name: str
        configs: list[AlterableConfig]
        def __init__(
            self,
            *,
            resource_type: int = 0,
            resource_name: str = "",
            configs: list[AlterableConfig] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    resources: list[AlterConfigsResource]
    validate_only: bool
    def __init__(
        self,
        *,
        resources: list[AlterConfigsResource] = ...,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AlterConfigsRequest(Message[AlterConfigsRequestValue]):
    AlterConfigsResource: TypeAlias = AlterConfigsRequestValue.AlterConfigsResource
    def __call__(
        self,
        *,
        resources: list[AlterConfigsResource] = ...,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AlterConfigsRequestValue: ...

AlterConfigsRequest: _AlterConfigsRequest

class AlterConfigsResponseValue(StructValue):
    """AlterConfigsResponse (api key 33), versions 0-2, flexible 2+."""

    class AlterConfigsResourceResponse(StructValue):
        error_code: int
        error_message: str | None  # nullable v0+
        resource_type: int
        resource_name: str
        def __init__(
            self,
            *,
            error_code: int = 0,
            error_message: str | None = "",
            resource_type: int = 0,
            resource_name: str = "",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    responses: list[AlterConfigsResourceResponse]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        responses: list[AlterConfigsResourceResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AlterConfigsResponse(Message[AlterConfigsResponseValue]):
    AlterConfigsResourceResponse: TypeAlias = AlterConfigsResponseValue.AlterConfigsResourceResponse
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        responses: list[AlterConfigsResourceResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AlterConfigsResponseValue: ...

AlterConfigsResponse: _AlterConfigsResponse

class DescribeConfigsRequestValue(StructValue):
    """DescribeConfigsRequest (api key 32), versions 1-4, flexible 4+."""

    class DescribeConfigsResource(StructValue):
        resource_type: int
        resource_name: str
        configuration_keys: list[str] | None  # nullable v0+
        def __init__(
            self,
            *,
            resource_type: int = 0,
            resource_name: str = "",
            configuration_keys: list[str] | None = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    resources: list[DescribeConfigsResource]
    include_synonyms: bool
    include_documentation: bool  # v3+
    def __init__(
        self,
        *,
        resources: list[DescribeConfigsResource] = ...,
        include_synonyms: bool = False,
        include_documentation: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeConfigsRequest(Message[DescribeConfigsRequestValue]):
    DescribeConfigsResource: TypeAlias = DescribeConfigsRequestValue.DescribeConfigsResource
    def __call__(
        self,
        *,
        resources: list[DescribeConfigsResource] = ...,
        include_synonyms: bool = False,
        include_documentation: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeConfigsRequestValue: ...

DescribeConfigsRequest: _DescribeConfigsRequest

class DescribeConfigsResponseValue(StructValue):
    """DescribeConfigsResponse (api key 32), versions 1-4, flexible 4+."""

    class DescribeConfigsResult(StructValue):
        class DescribeConfigsResourceResult(StructValue):
            class DescribeConfigsSynonym(StructValue):
                name: str
                value: str | None  # nullable v0+
                source: int
                def __init__(
                    self,
                    *,
                    name: str = "",
                    value: str | None = "",
                    source: int = 0,
                    unknown_tags: dict[int, bytes] | None = None,
                ) -> None: ...

            name: str
            value: str | None  # nullable v0+
            read_only: bool
            config_source: int
            is_sensitive: bool
            synonyms: list[DescribeConfigsSynonym]
            config_type: int  # v3+
            documentation: str | None  # v3+, nullable v0+
            def __init__(
                self,
                *,
                name: str = "",
                value: str | None = "",
                read_only: bool = False,
                config_source: int = -1,
                is_sensitive: bool = False,
                synonyms: list[DescribeConfigsSynonym] = ...,
                config_type: int = 0,
                documentation: str | None = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        error_code: int
        error_message: str | None  # nullable v0+
        resource_type: int
        resource_name: str
        configs: list[DescribeConfigsResourceResult]
        def __init__(
            self,
            *,
            error_code: int = 0,
            error_message: str | None = "",
            resource_type: int = 0,
            resource_name: str = "",
            configs: list[DescribeConfigsResourceResult] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    results: list[DescribeConfigsResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[DescribeConfigsResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeConfigsResponse(Message[DescribeConfigsResponseValue]):
    DescribeConfigsResult: TypeAlias = DescribeConfigsResponseValue.DescribeConfigsResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[DescribeConfigsResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeConfigsResponseValue: ...

DescribeConfigsResponse: _DescribeConfigsResponse

class IncrementalAlterConfigsRequestValue(StructValue):
    """IncrementalAlterConfigsRequest (api key 44), versions 0-1, flexible 1+."""

    class AlterConfigsResource(StructValue):
        class AlterableConfig(StructValue):
            name: str
            config_operation: int
            value: str | None  # nullable v0+
            def __init__(
                self,
                *,
                name: str = "",
                config_operation: int = 0,
                value: str | None = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        resource_type: int
        resource_name: str
        configs: list[AlterableConfig]
        def __init__(
            self,
            *,
            resource_type: int = 0,
            resource_name: str = "",
            configs: list[AlterableConfig] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    resources: list[AlterConfigsResource]
    validate_only: bool
    def __init__(
        self,
        *,
        resources: list[AlterConfigsResource] = ...,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _IncrementalAlterConfigsRequest(Message[IncrementalAlterConfigsRequestValue]):
    AlterConfigsResource: TypeAlias = IncrementalAlterConfigsRequestValue.AlterConfigsResource
    def __call__(
        self,
        *,
        resources: list[AlterConfigsResource] = ...,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> IncrementalAlterConfigsRequestValue: ...

IncrementalAlterConfigsRequest: _IncrementalAlterConfigsRequest

class IncrementalAlterConfigsResponseValue(StructValue):
    """IncrementalAlterConfigsResponse (api key 44), versions 0-1, flexible 1+."""

    class AlterConfigsResourceResponse(StructValue):
        error_code: int
        error_message: str | None  # nullable v0+
        resource_type: int
        resource_name: str
        def __init__(
            self,
            *,
            error_code: int = 0,
            error_message: str | None = "",
            resource_type: int = 0,
            resource_name: str = "",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    responses: list[AlterConfigsResourceResponse]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        responses: list[AlterConfigsResourceResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _IncrementalAlterConfigsResponse(Message[IncrementalAlterConfigsResponseValue]):
    AlterConfigsResourceResponse: TypeAlias = IncrementalAlterConfigsResponseValue.AlterConfigsResourceResponse
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        responses: list[AlterConfigsResourceResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> IncrementalAlterConfigsResponseValue: ...

IncrementalAlterConfigsResponse: _IncrementalAlterConfigsResponse

class ListConfigResourcesRequestValue(StructValue):
    """ListConfigResourcesRequest (api key 74), versions 0-1, flexible 0+."""

    resource_types: list[int]  # v1+
    def __init__(self, *, resource_types: list[int] = ..., unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _ListConfigResourcesRequest(Message[ListConfigResourcesRequestValue]):
    def __call__(
        self, *, resource_types: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> ListConfigResourcesRequestValue: ...

ListConfigResourcesRequest: _ListConfigResourcesRequest

class ListConfigResourcesResponseValue(StructValue):
    """ListConfigResourcesResponse (api key 74), versions 0-1, flexible 0+."""

    class ConfigResource(StructValue):
        resource_name: str
        resource_type: int  # v1+
        def __init__(
            self, *, resource_name: str = "", resource_type: int = 16, unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    throttle_time_ms: int
    error_code: int
    config_resources: list[ConfigResource]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        config_resources: list[ConfigResource] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListConfigResourcesResponse(Message[ListConfigResourcesResponseValue]):
    ConfigResource: TypeAlias = ListConfigResourcesResponseValue.ConfigResource
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        config_resources: list[ConfigResource] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListConfigResourcesResponseValue: ...

ListConfigResourcesResponse: _ListConfigResourcesResponse
