"""DescribeAcls (key 29), CreateAcls (key 30), DeleteAcls (key 31), v1-3.

Without an authorizer each answers SECURITY_DISABLED, with Kafka's messages.  With one (Kafka's
StandardAuthorizer semantics, `odradek.security.authorizer`): describing needs DESCRIBE on the
cluster, creating and deleting ALTER (else CLUSTER_AUTHORIZATION_FAILED).  A binding to create is
checked as Kafka checks it (a CLUSTER resource is named ``kafka-cluster``, a name is not empty, the
pattern is LITERAL or PREFIXED, the operation and permission are concrete, the principal is
``Type:name``) and refused alone with INVALID_REQUEST; the rest are stored durably and apply at once.
Describe answers one resource per pattern, ordered by type, name and pattern type (Kafka's order
comes from hash sets and is not behaviour).
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import (
    CLUSTER_NAME,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
)
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.acls import (
    CreateAclsRequest,
    CreateAclsRequestValue,
    CreateAclsResponse,
    CreateAclsResponseValue,
    DeleteAclsRequest,
    DeleteAclsRequestValue,
    DeleteAclsResponse,
    DeleteAclsResponseValue,
    DescribeAclsRequest,
    DescribeAclsRequestValue,
    DescribeAclsResponse,
    DescribeAclsResponseValue,
)

_NO_AUTHORIZER = "No Authorizer is configured."
_Resource = DescribeAclsResponse.DescribeAclsResource
_Matching = DeleteAclsResponse.DeleteAclsFilterResult.DeleteAclsMatchingAcl


def _filter(f: DescribeAclsRequestValue | DeleteAclsRequestValue.DeleteAclsFilter) -> AclBindingFilter:
    return AclBindingFilter.of(
        f.resource_type_filter,
        f.resource_name_filter,
        f.pattern_type_filter,
        f.principal_filter,
        f.host_filter,
        f.operation,
        f.permission_type,
    )


def _describe_error(request: DescribeAclsRequestValue, code: ErrorCode) -> DescribeAclsResponseValue:
    return DescribeAclsResponse(error_code=code)


@registry.api(DescribeAclsRequest, DescribeAclsResponse, "1-3", _describe_error)
async def describe_acls(ctx: RequestContext, request: DescribeAclsRequestValue) -> DescribeAclsResponseValue:
    authorizer = ctx.security.authorizer
    if not authorizer.enabled:
        return DescribeAclsResponse(
            error_code=ErrorCode.SECURITY_DISABLED, error_message="No Authorizer is configured on the broker"
        )
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        return DescribeAclsResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    wanted = _filter(request)
    unknown = wanted.unknown_field()
    if unknown is not None:
        return DescribeAclsResponse(
            error_code=ErrorCode.INVALID_REQUEST, error_message=f"The filter has an unknown {unknown}"
        )
    grouped: dict[tuple[ResourceType, str, PatternType], list[AclBinding]] = {}
    for acl in authorizer.acls:
        if wanted.matches(acl):
            grouped.setdefault((acl.resource_type, acl.name, acl.pattern_type), []).append(acl)
    resources = [
        _Resource(
            resource_type=kind,
            resource_name=name,
            pattern_type=pattern,
            acls=[
                _Resource.AclDescription(
                    principal=a.principal, host=a.host, operation=a.operation, permission_type=a.permission
                )
                for a in sorted(acls, key=lambda a: (a.principal, a.host, a.operation, a.permission))
            ],
        )
        for (kind, name, pattern), acls in sorted(grouped.items())
    ]
    return DescribeAclsResponse(error_code=ErrorCode.NONE, resources=resources)


def _create_error(request: CreateAclsRequestValue, code: ErrorCode) -> CreateAclsResponseValue:
    return CreateAclsResponse(
        results=[CreateAclsResponse.AclCreationResult(error_code=code) for _ in request.creations]
    )


def _invalid_binding(binding: AclBinding) -> str | None:
    """Kafka's refusal of a binding to create, or None."""
    if binding.resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
        return f"Invalid resourceType {binding.resource_type.name}"
    if binding.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        return f"Invalid patternType {binding.pattern_type.name}"
    if binding.operation in (AclOperation.UNKNOWN, AclOperation.ANY):
        return f"Invalid operation {binding.operation.name}"
    if binding.permission not in (Permission.ALLOW, Permission.DENY):
        return f"Invalid permissionType {binding.permission.name}"
    if binding.resource_type is ResourceType.CLUSTER and binding.name != CLUSTER_NAME:
        return "The only valid name for the CLUSTER resource is kafka-cluster"
    if not binding.name:
        return "Invalid empty resource name specified"
    if ":" not in binding.principal:
        return (
            f"Could not parse principal from `{binding.principal}` "
            "(no colon is present separating the principal type from the principal name)"
        )
    return None


@registry.api(CreateAclsRequest, CreateAclsResponse, "1-3", _create_error)
async def create_acls(ctx: RequestContext, request: CreateAclsRequestValue) -> CreateAclsResponseValue:
    result = CreateAclsResponse.AclCreationResult
    authorizer = ctx.security.authorizer
    if not authorizer.enabled:
        return CreateAclsResponse(
            results=[
                result(error_code=ErrorCode.SECURITY_DISABLED, error_message=_NO_AUTHORIZER) for _ in request.creations
            ]
        )
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return _create_error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    results = []
    accepted: list[AclBinding] = []
    for creation in request.creations:
        binding = AclBinding.of(
            creation.resource_type,
            creation.resource_name,
            creation.resource_pattern_type,
            creation.principal,
            creation.host,
            creation.operation,
            creation.permission_type,
        )
        refusal = _invalid_binding(binding)
        if refusal is not None:
            results.append(result(error_code=ErrorCode.INVALID_REQUEST, error_message=refusal))
        else:
            accepted.append(binding)
            results.append(result(error_code=ErrorCode.NONE))
    if accepted:
        authorizer.add(accepted)
    return CreateAclsResponse(results=results)


def _delete_error(request: DeleteAclsRequestValue, code: ErrorCode) -> DeleteAclsResponseValue:
    return DeleteAclsResponse(
        filter_results=[DeleteAclsResponse.DeleteAclsFilterResult(error_code=code) for _ in request.filters]
    )


@registry.api(DeleteAclsRequest, DeleteAclsResponse, "1-3", _delete_error)
async def delete_acls(ctx: RequestContext, request: DeleteAclsRequestValue) -> DeleteAclsResponseValue:
    result = DeleteAclsResponse.DeleteAclsFilterResult
    authorizer = ctx.security.authorizer
    if not authorizer.enabled:
        return DeleteAclsResponse(
            filter_results=[
                result(error_code=ErrorCode.SECURITY_DISABLED, error_message=_NO_AUTHORIZER) for _ in request.filters
            ]
        )
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return _delete_error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    filters = [_filter(f) for f in request.filters]
    matched = authorizer.remove(filters)
    return DeleteAclsResponse(
        filter_results=[
            result(
                error_code=ErrorCode.NONE,
                matching_acls=[
                    _Matching(
                        error_code=ErrorCode.NONE,
                        resource_type=a.resource_type,
                        resource_name=a.name,
                        pattern_type=a.pattern_type,
                        principal=a.principal,
                        host=a.host,
                        operation=a.operation,
                        permission_type=a.permission,
                    )
                    for a in acls
                ],
            )
            for acls in matched
        ]
    )
