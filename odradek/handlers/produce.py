"""Produce (key 0), v0-v13.  v0-v2 are advertised, as Kafka 4 does (KAFKA-18659: librdkafka
will not compress otherwise), but answered with UNSUPPORTED_VERSION per partition.

Per partition: v0-v2 (UNSUPPORTED_VERSION), acks other than -1, 0, 1 (INVALID_REQUIRED_ACKS),
an unknown topic id in v13 (UNKNOWN_TOPIC_ID); everything else is the partitions service's
answer (`odradek.partition.service.Partitions.append`: unknown topic or partition, internal
topic, Kafka's batch and record checks, compression.type, idempotence, the write), translated
field by field.  A refused partition writes nothing and does not affect the other partitions of
the request.

acks=0 sends no response; acks=1 and acks=-1 are the same on one replica.  With an authorizer, a
partition of a topic the principal may not WRITE is answered TOPIC_AUTHORIZATION_FAILED.
Not implemented yet: transactions.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.partition.results import AppendResult
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.produce import (
    ProduceRequest,
    ProduceRequestValue,
    ProduceResponse,
    ProduceResponseValue,
)

_TopicResponse = ProduceResponse.TopicProduceResponse
_PartitionResponse = _TopicResponse.PartitionProduceResponse


def _error(request: ProduceRequestValue, code: ErrorCode) -> ProduceResponseValue:
    return ProduceResponse(
        responses=[
            _TopicResponse(
                name=t.name,
                topic_id=t.topic_id,
                partition_responses=[_PartitionResponse(index=p.index, error_code=code) for p in t.partition_data],
            )
            for t in request.topic_data
        ]
    )


def _answer(index: int, result: AppendResult) -> ProduceResponseValue.TopicProduceResponse.PartitionProduceResponse:
    if result.error is ErrorCode.NONE:
        return _PartitionResponse(
            index=index,
            error_code=ErrorCode.NONE,
            base_offset=result.base_offset,
            log_append_time_ms=result.log_append_time_ms,
            log_start_offset=result.log_start_offset,
        )
    return _PartitionResponse(
        index=index,
        error_code=result.error,
        base_offset=result.base_offset,
        log_append_time_ms=result.log_append_time_ms,
        log_start_offset=result.log_start_offset,
        error_message=result.message,
        record_errors=[
            _PartitionResponse.BatchIndexAndErrorMessage(batch_index=i, batch_index_error_message=message)
            for i, message in result.record_errors
        ],
    )


@registry.api(ProduceRequest, ProduceResponse, "0-13", _error)
async def produce(ctx: RequestContext, request: ProduceRequestValue) -> ProduceResponseValue | None:
    responses = []
    acks_valid = request.acks in (-1, 0, 1)
    for topic_data in request.topic_data:
        name: str | None = topic_data.name
        if ctx.version >= 13:
            by_id = ctx.topics.by_id(topic_data.topic_id)
            name = by_id.name if by_id is not None else None
        partitions = []
        for data in topic_data.partition_data:
            if ctx.version < 3:
                result = AppendResult(ErrorCode.UNSUPPORTED_VERSION)
            elif not acks_valid:
                result = AppendResult(ErrorCode.INVALID_REQUIRED_ACKS)
            elif name is None:
                result = AppendResult(ErrorCode.UNKNOWN_TOPIC_ID)
            elif not ctx.authorize(AclOperation.WRITE, ResourceType.TOPIC, name):
                result = AppendResult(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
            else:
                records = data.records
                # The codec decodes a record set as a zero-copy view of the request frame.
                assert records is None or isinstance(records, memoryview), "a decoded record set is a memoryview"
                now_ms = ctx.clock.time_ms()
                result = ctx.partitions.append(name, data.index, records, ctx.version, now_ms)
            partitions.append(_answer(data.index, result))
        responses.append(
            _TopicResponse(name=topic_data.name, topic_id=topic_data.topic_id, partition_responses=partitions)
        )
    if request.acks == 0:
        return None
    return ProduceResponse(responses=responses)
