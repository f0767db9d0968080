"""FindCoordinator (key 10), v0-v6.

- v0 looks up one group; v1-3 one key of a given type; v4+ a batch of keys, one answer each.
- This broker coordinates every group: a GROUP key is answered with this node and its
  advertised address.  As in Kafka, the lookup that finds no ``__consumer_offsets`` creates it
  and answers COORDINATOR_NOT_AVAILABLE; the client's retry then finds the coordinator.
- v1-3 carry Kafka's error message for the code: "NONE" on success (Kafka sends the enum
  name), the coordinator text otherwise; v4+ keys carry an empty message, as Kafka's do.
- Not implemented here: TRANSACTION and SHARE keys get COORDINATOR_NOT_AVAILABLE (the
  transaction coordinator is another issue); an unknown key type gets INVALID_REQUEST.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.coordinator import (
    FindCoordinatorRequest,
    FindCoordinatorRequestValue,
    FindCoordinatorResponse,
    FindCoordinatorResponseValue,
)

_Coordinator = FindCoordinatorResponse.Coordinator

GROUP, TRANSACTION, SHARE = 0, 1, 2

_MESSAGES = {
    ErrorCode.NONE: "NONE",
    ErrorCode.COORDINATOR_NOT_AVAILABLE: "The coordinator is not available.",
    ErrorCode.GROUP_AUTHORIZATION_FAILED: "Group authorization failed.",
    ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "Transactional Id authorization failed.",
}


def _error(request: FindCoordinatorRequestValue, code: ErrorCode) -> FindCoordinatorResponseValue:
    keys = request.coordinator_keys or []
    return FindCoordinatorResponse(
        error_code=code,
        node_id=-1,
        host="",
        port=-1,
        coordinators=[_Coordinator(key=k, node_id=-1, host="", port=-1, error_code=code) for k in keys],
    )


def _lookup(ctx: RequestContext, key_type: int, key: str) -> tuple[ErrorCode, int, str, int]:
    """(error, node id, host, port) for a key of ``key_type``; DESCRIBE on the group or
    transactional id is needed first (else Kafka's authorization error)."""
    if key_type == GROUP and not ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, key):
        return ErrorCode.GROUP_AUTHORIZATION_FAILED, -1, "", -1
    if key_type == TRANSACTION and not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key):
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, "", -1
    if key_type == GROUP:
        if not ctx.groups.ensure_topic():
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, "", -1
        host, port = ctx.advertised
        return ErrorCode.NONE, ctx.cluster.node_id, host, port
    if key_type in (TRANSACTION, SHARE):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, "", -1
    return ErrorCode.INVALID_REQUEST, -1, "", -1


@registry.api(FindCoordinatorRequest, FindCoordinatorResponse, "0-6", _error)
async def find_coordinator(ctx: RequestContext, request: FindCoordinatorRequestValue) -> FindCoordinatorResponseValue:
    key_type = request.key_type if ctx.version >= 1 else GROUP
    if ctx.version >= 4:
        coordinators = []
        for key in request.coordinator_keys:
            error, node, host, port = _lookup(ctx, key_type, key)
            coordinators.append(_Coordinator(key=key, node_id=node, host=host, port=port, error_code=error))
        return FindCoordinatorResponse(coordinators=coordinators)
    error, node, host, port = _lookup(ctx, key_type, request.key)
    return FindCoordinatorResponse(
        error_code=error, error_message=_MESSAGES.get(error), node_id=node, host=host, port=port
    )
