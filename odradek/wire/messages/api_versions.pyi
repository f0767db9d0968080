"""Types of `odradek.wire.messages.api_versions`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = ["ApiVersionsRequest", "ApiVersionsResponse"]

class ApiVersionsRequestValue(StructValue):
    """ApiVersionsRequest (api key 18), versions 0-5, flexible 3+."""

    client_software_name: str  # v3+
    client_software_version: str  # v3+
    cluster_id: str | None  # v5+, nullable v5+
    node_id: int  # v5+
    def __init__(
        self,
        *,
        client_software_name: str = "",
        client_software_version: str = "",
        cluster_id: str | None = None,
        node_id: int = -1,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ApiVersionsRequest(Message[ApiVersionsRequestValue]):
    def __call__(
        self,
        *,
        client_software_name: str = "",
        client_software_version: str = "",
        cluster_id: str | None = None,
        node_id: int = -1,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ApiVersionsRequestValue: ...

ApiVersionsRequest: _ApiVersionsRequest

class ApiVersionsResponseValue(StructValue):
    """ApiVersionsResponse (api key 18), versions 0-5, flexible 3+."""

    class ApiVersion(StructValue):
        api_key: int
        min_version: int
        max_version: int
        def __init__(
            self,
            *,
            api_key: int = 0,
            min_version: int = 0,
            max_version: int = 0,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    class SupportedFeatureKey(StructValue):
        name: str  # v3+
        min_version: int  # v3+
        max_version: int  # v3+
        def __init__(
            self,
            *,
            name: str = "",
            min_version: int = 0,
            max_version: int = 0,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    class FinalizedFeatureKey(StructValue):
        name: str  # v3+
        max_version_level: int  # v3+
        min_version_level: int  # v3+
        def __init__(
            self,
            *,
            name: str = "",
            max_version_level: int = 0,
            min_version_level: int = 0,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    error_code: int
    api_keys: list[ApiVersion]
    throttle_time_ms: int  # v1+
    supported_features: list[SupportedFeatureKey]  # v3+, tag 0
    finalized_features_epoch: int  # v3+, tag 1
    finalized_features: list[FinalizedFeatureKey]  # v3+, tag 2
    zk_migration_ready: bool  # v3+, tag 3
    def __init__(
        self,
        *,
        error_code: int = 0,
        api_keys: list[ApiVersion] = ...,
        throttle_time_ms: int = 0,
        supported_features: list[SupportedFeatureKey] = ...,
        finalized_features_epoch: int = -1,
        finalized_features: list[FinalizedFeatureKey] = ...,
        zk_migration_ready: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ApiVersionsResponse(Message[ApiVersionsResponseValue]):
    ApiVersion: TypeAlias = ApiVersionsResponseValue.ApiVersion
    SupportedFeatureKey: TypeAlias = ApiVersionsResponseValue.SupportedFeatureKey
    FinalizedFeatureKey: TypeAlias = ApiVersionsResponseValue.FinalizedFeatureKey
    def __call__(
        self,
        *,
        error_code: int = 0,
        api_keys: list[ApiVersion] = ...,
        throttle_time_ms: int = 0,
        supported_features: list[SupportedFeatureKey] = ...,
        finalized_features_epoch: int = -1,
        finalized_features: list[FinalizedFeatureKey] = ...,
        zk_migration_ready: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ApiVersionsResponseValue: ...

ApiVersionsResponse: _ApiVersionsResponse
