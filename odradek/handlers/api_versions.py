"""ApiVersions (key 18), v0-v5.

The answer is computed from the handler registry, so it always says exactly what this broker
serves.  An ApiVersions request of a version we do not serve is answered by the dispatcher in
v0 with UNSUPPORTED_VERSION (see dispatch.py).  No features are advertised (no KRaft
feature levels apply to a single embedded broker yet).
"""

from __future__ import annotations

from typing import Any

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import Registry, registry
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.api_versions import ApiVersionsRequest, ApiVersionsResponse

__all__ = ["supported_api_entries"]


def supported_api_entries(served: Registry) -> list[Any]:
    return [
        ApiVersionsResponse.ApiVersion(api_key=key, min_version=low, max_version=high)
        for key, low, high in served.supported()
    ]


def _error(request: Any, code: ErrorCode) -> Any:
    return ApiVersionsResponse(error_code=code)


@registry.api(ApiVersionsRequest, ApiVersionsResponse, "0-4", _error)
async def api_versions(ctx: RequestContext, request: Any) -> Any:
    return ApiVersionsResponse(error_code=ErrorCode.NONE, api_keys=supported_api_entries(ctx.broker.registry))
