"""ApiVersions (key 18), v0-v5.

The answer is computed from the handler registry, so it always says exactly what this broker
serves.  An ApiVersions request of a version we do not serve is answered by the dispatcher in
v0 with UNSUPPORTED_VERSION (see dispatch.py).

v3+ carries the feature versions of `odradek.cluster.features` (the cluster's): the supported
ranges (v3 only those whose minimum is at least 1, as Kafka does), the finalized levels and
their epoch.

v5 (KIP-1242) lets a client say which cluster and node it expects to reach.  As Kafka 4.4 does
(checked with compat-tests/probes, sequence versions.new_in_44): the two come together or not
at all (one without the other is INVALID_REQUEST); another cluster id or another node id is
REBOOTSTRAP_REQUIRED; either error comes without the API list.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import Registry, registry
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.api_versions import (
    ApiVersionsRequest,
    ApiVersionsRequestValue,
    ApiVersionsResponse,
    ApiVersionsResponseValue,
)

__all__ = ["supported_api_entries"]

_ApiVersion = ApiVersionsResponse.ApiVersion
_entries: dict[tuple[tuple[int, int, int], ...], tuple[ApiVersionsResponseValue.ApiVersion, ...]] = {}


def supported_api_entries(served: Registry) -> list[ApiVersionsResponseValue.ApiVersion]:
    """The API ranges of an answer: a new list, of entries built once per set of ranges (every
    client's first request is an ApiVersions, so a client that reconnects often costs this each
    time; nothing changes an entry once it is in an answer)."""
    supported = served.supported()
    entries = _entries.get(supported)
    if entries is None:
        entries = _entries[supported] = tuple(
            _ApiVersion(api_key=key, min_version=low, max_version=high) for key, low, high in supported
        )
    return list(entries)


def _error(request: ApiVersionsRequestValue, code: ErrorCode) -> ApiVersionsResponseValue:
    return ApiVersionsResponse(error_code=code)


def _expectation_error(ctx: RequestContext, request: ApiVersionsRequestValue) -> ErrorCode:
    """What a v5 request's expected cluster and node say about this broker (NONE below v5)."""
    cluster_id, node_id = request.cluster_id, request.node_id
    if cluster_id is None and node_id == -1:
        return ErrorCode.NONE
    if cluster_id is None or node_id == -1:
        return ErrorCode.INVALID_REQUEST
    if cluster_id != ctx.cluster.cluster_id or node_id != ctx.cluster.node_id:
        return ErrorCode.REBOOTSTRAP_REQUIRED
    return ErrorCode.NONE


@registry.api(ApiVersionsRequest, ApiVersionsResponse, "0-5", _error)
async def api_versions(ctx: RequestContext, request: ApiVersionsRequestValue) -> ApiVersionsResponseValue:
    error = _expectation_error(ctx, request)
    if error is not ErrorCode.NONE:
        return _error(request, error)
    features = ctx.cluster.features
    return ApiVersionsResponse(
        error_code=ErrorCode.NONE,
        api_keys=supported_api_entries(registry),
        supported_features=[
            ApiVersionsResponse.SupportedFeatureKey(name=name, min_version=r.min_version, max_version=r.max_version)
            for name, r in features.supported_for(ctx.version)
        ],
        finalized_features_epoch=features.epoch,
        finalized_features=[
            ApiVersionsResponse.FinalizedFeatureKey(name=name, max_version_level=level, min_version_level=level)
            for name, level in features.finalized.items()
        ],
    )
