"""ListConfigResources (key 74) v0-v1 (KIP-1142): which config resources exist.

v0 (once ListClientMetricsResources) lists client-metrics subscriptions only: none here.  v1
lists the requested resource types, every supported type when none is named: each topic
(internal ones too), this broker for BROKER and BROKER_LOGGER, no client-metrics subscriptions,
and each group with config overrides.  A type Kafka does not list (UNKNOWN, or any other code) answers
UNSUPPORTED_VERSION with nothing listed (checked with compat-tests/probes, sequence
cluster.config_resources).  A principal that may not DESCRIBE_CONFIGS the cluster gets
CLUSTER_AUTHORIZATION_FAILED (secured.admin_refusals).
"""

from __future__ import annotations

from odradek.handlers.configs import ResourceType
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.configs import (
    ListConfigResourcesRequest,
    ListConfigResourcesRequestValue,
    ListConfigResourcesResponse,
    ListConfigResourcesResponseValue,
)

_Resource = ListConfigResourcesResponse.ConfigResource
LISTED_TYPES = (
    ResourceType.TOPIC,
    ResourceType.BROKER,
    ResourceType.BROKER_LOGGER,
    ResourceType.CLIENT_METRICS,
    ResourceType.GROUP,
)


def _error(request: ListConfigResourcesRequestValue, code: ErrorCode) -> ListConfigResourcesResponseValue:
    return ListConfigResourcesResponse(error_code=code)


def _names(ctx: RequestContext, kind: ResourceType) -> list[str]:
    if kind == ResourceType.TOPIC:
        return sorted(info.name for info in ctx.topics)
    if kind in (ResourceType.BROKER, ResourceType.BROKER_LOGGER):
        return [str(ctx.cluster.node_id)]
    if kind == ResourceType.GROUP:
        return ctx.cluster.configured_groups()
    return []


@registry.api(ListConfigResourcesRequest, ListConfigResourcesResponse, "0-1", _error)
async def list_config_resources(
    ctx: RequestContext, request: ListConfigResourcesRequestValue
) -> ListConfigResourcesResponseValue:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE_CONFIGS):
        return _error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if ctx.version == 0:
        return ListConfigResourcesResponse(error_code=ErrorCode.NONE, config_resources=[])
    wanted = list(dict.fromkeys(request.resource_types)) or list(LISTED_TYPES)
    if any(kind not in LISTED_TYPES for kind in wanted):
        return _error(request, ErrorCode.UNSUPPORTED_VERSION)
    resources = [
        _Resource(resource_name=name, resource_type=kind)
        for kind in sorted(wanted)
        for name in _names(ctx, ResourceType(kind))
    ]
    return ListConfigResourcesResponse(error_code=ErrorCode.NONE, config_resources=resources)
