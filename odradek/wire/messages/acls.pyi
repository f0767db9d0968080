"""Types of `odradek.wire.messages.acls`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "CreateAclsRequest",
    "CreateAclsResponse",
    "DeleteAclsRequest",
    "DeleteAclsResponse",
    "DescribeAclsRequest",
    "DescribeAclsResponse",
]

class CreateAclsRequestValue(StructValue):
    """CreateAclsRequest (api key 30), versions 1-3, flexible 2+."""

    class AclCreation(StructValue):
        resource_type: int
        resource_name: str
        resource_pattern_type: int
        principal: str
        host: str
        operation: int
        permission_type: int
        def __init__(
            self,
            *,
            resource_type: int = 0,
            resource_name: str = "",
            resource_pattern_type: int = 3,
            principal: str = "",
            host: str = "",
            operation: int = 0,
            permission_type: int = 0,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    creations: list[AclCreation]
    def __init__(self, *, creations: list[AclCreation] = ..., unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _CreateAclsRequest(Message[CreateAclsRequestValue]):
    AclCreation: TypeAlias = CreateAclsRequestValue.AclCreation
    def __call__(
        self, *, creations: list[AclCreation] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> CreateAclsRequestValue: ...

CreateAclsRequest: _CreateAclsRequest

class CreateAclsResponseValue(StructValue):
    """CreateAclsResponse (api key 30), versions 1-3, flexible 2+."""

    class AclCreationResult(StructValue):
        error_code: int
        error_message: str | None  # nullable v0+
        def __init__(
            self, *, error_code: int = 0, error_message: str | None = None, unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    throttle_time_ms: int
    results: list[AclCreationResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[AclCreationResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _CreateAclsResponse(Message[CreateAclsResponseValue]):
    AclCreationResult: TypeAlias = CreateAclsResponseValue.AclCreationResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[AclCreationResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> CreateAclsResponseValue: ...

CreateAclsResponse: _CreateAclsResponse

class DeleteAclsRequestValue(StructValue):
    """DeleteAclsRequest (api key 31), versions 1-3, flexible 2+."""

    class DeleteAclsFilter(StructValue):
        resource_type_filter: int
        resource_name_filter: str | None  # nullable v0+
        pattern_type_filter: int
        principal_filter: str | None  # nullable v0+
        host_filter: str | None  # nullable v0+
        operation: int
        permission_type: int
        def __init__(
            self,
            *,
            resource_type_filter: int = 0,
            resource_name_filter: str | None = "",
            pattern_type_filter: int = 3,
            principal_filter: str | None = "",
            host_filter: str | None = "",
            operation: int = 0,
            permission_type: int = 0,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    filters: list[DeleteAclsFilter]
    def __init__(
        self, *, filters: list[DeleteAclsFilter] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _DeleteAclsRequest(Message[DeleteAclsRequestValue]):
    DeleteAclsFilter: TypeAlias = DeleteAclsRequestValue.DeleteAclsFilter
    def __call__(
        self, *, filters: list[DeleteAclsFilter] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> DeleteAclsRequestValue: ...

DeleteAclsRequest: _DeleteAclsRequest

class DeleteAclsResponseValue(StructValue):
    """DeleteAclsResponse (api key 31), versions 1-3, flexible 2+."""

    class DeleteAclsFilterResult(StructValue):
        class DeleteAclsMatchingAcl(StructValue):
            error_code: int
            error_message: str | None  # nullable v0+
            resource_type: int
            resource_name: str
            pattern_type: int
            principal: str
            host: str
            operation: int
            permission_type: int
            def __init__(
                self,
                *,
                error_code: int = 0,
                error_message: str | None = None,
                resource_type: int = 0,
                resource_name: str = "",
                pattern_type: int = 3,
                principal: str = "",
                host: str = "",
                operation: int = 0,
                permission_type: int = 0,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        error_code: int
        error_message: str | None  # nullable v0+
        matching_acls: list[DeleteAclsMatchingAcl]
        def __init__(
            self,
            *,
            error_code: int = 0,
            error_message: str | None = None,
            matching_acls: list[DeleteAclsMatchingAcl] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    filter_results: list[DeleteAclsFilterResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        filter_results: list[DeleteAclsFilterResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DeleteAclsResponse(Message[DeleteAclsResponseValue]):
    DeleteAclsFilterResult: TypeAlias = DeleteAclsResponseValue.DeleteAclsFilterResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        filter_results: list[DeleteAclsFilterResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DeleteAclsResponseValue: ...

DeleteAclsResponse: _DeleteAclsResponse

class DescribeAclsRequestValue(StructValue):
    """DescribeAclsRequest (api key 29), versions 1-3, flexible 2+."""

    resource_type_filter: int
    resource_name_filter: str | None  # nullable v0+
    pattern_type_filter: int
    principal_filter: str | None  # nullable v0+
    host_filter: str | None  # nullable v0+
    operation: int
    permission_type: int
    def __init__(
        self,
        *,
        resource_type_filter: int = 0,
        resource_name_filter: str | None = "",
        pattern_type_filter: int = 3,
        principal_filter: str | None = "",
        host_filter: str | None = "",
        operation: int = 0,
        permission_type: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeAclsRequest(Message[DescribeAclsRequestValue]):
    def __call__(
        self,
        *,
        resource_type_filter: int = 0,
        resource_name_filter: str | None = "",
        pattern_type_filter: int = 3,
        principal_filter: str | None = "",
        host_filter: str | None = "",
        operation: int = 0,
        permission_type: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeAclsRequestValue: ...

DescribeAclsRequest: _DescribeAclsRequest

class DescribeAclsResponseValue(StructValue):
    """DescribeAclsResponse (api key 29), versions 1-3, flexible 2+."""

    class DescribeAclsResource(StructValue):
        class AclDescription(StructValue):
            principal: str
            host: str
            operation: int
            permission_type: int
            def __init__(
                self,
                *,
                principal: str = "",
                host: str = "",
                operation: int = 0,
                permission_type: int = 0,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        resource_type: int
        resource_name: str
        pattern_type: int
        acls: list[AclDescription]
        def __init__(
            self,
            *,
            resource_type: int = 0,
            resource_name: str = "",
            pattern_type: int = 3,
            acls: list[AclDescription] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    resources: list[DescribeAclsResource]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = None,
        resources: list[DescribeAclsResource] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeAclsResponse(Message[DescribeAclsResponseValue]):
    DescribeAclsResource: TypeAlias = DescribeAclsResponseValue.DescribeAclsResource
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = None,
        resources: list[DescribeAclsResource] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeAclsResponseValue: ...

DescribeAclsResponse: _DescribeAclsResponse
