"""InitProducerId (key 22), v0-v5, for idempotent producers.

Without a transactional id, every request gets a fresh producer id at epoch 0, as Kafka's
transaction coordinator does (it ignores the producer id and epoch an idempotent producer
sends).  Transactional ids are refused with INVALID_REQUEST until the transaction
coordinator exists; v6 (two-phase commit) is not advertised, as Kafka only does so with
unstable APIs enabled.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.txn import (
    InitProducerIdRequest,
    InitProducerIdRequestValue,
    InitProducerIdResponse,
    InitProducerIdResponseValue,
)


def _error(request: InitProducerIdRequestValue, code: ErrorCode) -> InitProducerIdResponseValue:
    return InitProducerIdResponse(error_code=code, producer_id=-1, producer_epoch=-1)


@registry.api(InitProducerIdRequest, InitProducerIdResponse, "0-5", _error)
async def init_producer_id(ctx: RequestContext, request: InitProducerIdRequestValue) -> InitProducerIdResponseValue:
    if request.transactional_id is not None:
        return _error(request, ErrorCode.INVALID_REQUEST)
    return InitProducerIdResponse(error_code=ErrorCode.NONE, producer_id=ctx.producer_ids.allocate(), producer_epoch=0)
