"""DescribeAcls (key 29), CreateAcls (key 30), DeleteAcls (key 31), v1-3.

Without an authorizer each answers SECURITY_DISABLED, with Kafka's messages.  With one (Kafka's
StandardAuthorizer semantics, `odradek.security.authorizer`): describing needs DESCRIBE on the
cluster, creating and deleting ALTER (else CLUSTER_AUTHORIZATION_FAILED).  As Kafka 4.4.0 answers
(compat-tests/probes/secured.py): a filter with an unknown code, or a binding with an unknown
resource type, pattern type or permission, is a request Kafka cannot parse (the connection closes); a
binding to create is refused alone: INVALID_REQUEST for a CLUSTER resource not named
``kafka-cluster``, an empty name, an unknown operation or a principal without a colon,
UNKNOWN_SERVER_ERROR without a message for ANY or MATCH where a concrete value is needed (Kafka's
controller fails on them); the rest are stored durably and apply at once.
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
from odradek.wire.errors import ErrorCode, ProtocolViolation
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


def _needs(ctx: RequestContext, operation: str) -> str:
    """Kafka's message for a request refused on the cluster: it prints its request object, whose
    processor and connection ids are its own (the probes mask them)."""
    identity = ctx.identity
    return (
        f"Request Request(processor=0, connectionId={identity.host}-{ctx.connection.peer}-0-0, "
        f"session=org.apache.kafka.network.Session@0, listenerName=ListenerName({identity.listener}), "
        f"securityProtocol={identity.protocol}, buffer=null, envelope=Optional.empty) needs {operation} permission."
    )


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
        return DescribeAclsResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=_needs(ctx, "DESCRIBE")
        )
    wanted = _filter(request)
    unknown = wanted.unknown_field()
    if unknown is not None:
        raise ProtocolViolation(f"DescribeAcls filter with an unknown {unknown}")
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
    return DescribeAclsResponse(error_code=ErrorCode.NONE, error_message="", resources=resources)


def _create_error(request: CreateAclsRequestValue, code: ErrorCode) -> CreateAclsResponseValue:
    return CreateAclsResponse(
        results=[CreateAclsResponse.AclCreationResult(error_code=code) for _ in request.creations]
    )


def _invalid_binding(binding: AclBinding) -> tuple[ErrorCode, str | None] | None:
    """Kafka's refusal of a binding to create, or None (see the module docstring)."""
    if (
        binding.resource_type is ResourceType.UNKNOWN
        or binding.pattern_type is PatternType.UNKNOWN
        or binding.permission is Permission.UNKNOWN
    ):
        raise ProtocolViolation("CreateAcls binding with an unknown resource type, pattern type or permission")
    if (
        binding.resource_type is ResourceType.ANY
        or binding.pattern_type in (PatternType.ANY, PatternType.MATCH)
        or binding.operation is AclOperation.ANY
        or binding.permission is Permission.ANY
    ):
        return ErrorCode.UNKNOWN_SERVER_ERROR, None
    if binding.operation is AclOperation.UNKNOWN:
        return ErrorCode.INVALID_REQUEST, "Invalid operation UNKNOWN"
    if binding.resource_type is ResourceType.CLUSTER and binding.name != CLUSTER_NAME:
        return ErrorCode.INVALID_REQUEST, "The only valid name for the CLUSTER resource is kafka-cluster"
    if not binding.name:
        return ErrorCode.INVALID_REQUEST, "Invalid empty resource name"
    if ":" not in binding.principal:
        return (
            ErrorCode.INVALID_REQUEST,
            f"Could not parse principal from `{binding.principal}` "
            "(no colon is present separating the principal type from the principal name)",
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
            results.append(result(error_code=refusal[0], error_message=refusal[1]))
        else:
            accepted.append(binding)
            results.append(result(error_code=ErrorCode.NONE, error_message=""))
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
    for query in filters:
        unknown = query.unknown_field()
        if unknown is not None:
            raise ProtocolViolation(f"DeleteAcls filter with an unknown {unknown}")
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
