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

Transactions (Kafka's ``handleProduceRequest`` and ``handleProduceAppend``): a request holding a
transactional batch without a transactional id, or with one the principal may not WRITE, is
refused whole with TRANSACTIONAL_ID_AUTHORIZATION_FAILED; transactional batches of more than
one producer, with INVALID_PRODUCER_ID_MAPPING.  Before appending, each partition (that may be
written) where the producer has no transaction open is verified with the transaction
coordinator (`odradek.handlers.txn_verification`; v12+ adds the partition itself, transactions
v2).  A refused partition is told as Kafka tells it: INVALID_TXN_STATE with "Partition was not
added to the transaction"; a coordinator that cannot answer (CONCURRENT_TRANSACTIONS, loading,
not available, not the coordinator) as NOT_ENOUGH_REPLICAS, which clients retry; other errors
as they are.  Nothing is awaited between the verification and the append.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.handlers.txn_verification import Verified, produce_verification, verify_write
from odradek.partition.results import AppendResult
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.produce import (
    ProduceRequest,
    ProduceRequestValue,
    ProduceResponse,
    ProduceResponseValue,
)
from odradek.wire.records.batch import (
    ATTRIBUTES_OFFSET,
    BATCH_OVERHEAD,
    TRANSACTIONAL_MASK,
    CorruptBatchError,
    read_header,
)

_TopicResponse = ProduceResponse.TopicProduceResponse
_PartitionResponse = _TopicResponse.PartitionProduceResponse


def _error(request: ProduceRequestValue, code: ErrorCode) -> ProduceResponseValue:
    return ProduceResponse(
        responses=[
            _TopicResponse(
                name=t.name,
                topic_id=t.topic_id,
                partition_responses=[
                    _PartitionResponse(index=p.index, error_code=code, base_offset=-1, log_append_time_ms=-1)
                    for p in t.partition_data
                ],
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


_UNVERIFIABLE = frozenset(
    {
        ErrorCode.CONCURRENT_TRANSACTIONS,
        ErrorCode.NETWORK_EXCEPTION,
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR,
    }
)

TopicPartition = tuple[str, int]


def _transactional_producer(records: object) -> tuple[int, int] | None:
    """``(producer id, epoch)`` of a transactional data batch at the start of ``records``."""
    if not isinstance(records, memoryview | bytes | bytearray) or len(records) < BATCH_OVERHEAD:
        return None
    if not records[ATTRIBUTES_OFFSET + 1] & TRANSACTIONAL_MASK:
        return None  # the common case, decided from one byte without building the header
    try:
        header = read_header(records)
    except CorruptBatchError:
        return None
    if header.is_transactional and header.producer_id >= 0 and not header.is_control:
        return header.producer_id, header.producer_epoch
    return None


def _verification_refusal(error: ErrorCode) -> AppendResult:
    if error is ErrorCode.INVALID_TXN_STATE:
        return AppendResult(error, message="Partition was not added to the transaction")
    if error in _UNVERIFIABLE:
        return AppendResult(
            ErrorCode.NOT_ENOUGH_REPLICAS,
            message=f"Unable to verify the partition has been added to the transaction. Underlying error: {error.name}",
        )
    return AppendResult(error)


def _names(ctx: RequestContext, request: ProduceRequestValue) -> list[str | None]:
    if ctx.version < 13:
        return [t.name for t in request.topic_data]
    found = [ctx.topics.by_id(t.topic_id) for t in request.topic_data]
    return [info.name if info is not None else None for info in found]


def _verify(ctx: RequestContext, request: ProduceRequestValue, names: list[str | None]) -> Verified | ErrorCode:
    """What the transaction coordinator said of the request's partitions, or an error for the
    whole request."""
    producers: set[tuple[int, int]] = set()
    written: list[TopicPartition] = []
    for name, topic_data in zip(names, request.topic_data, strict=True):
        for data in topic_data.partition_data:
            producer = _transactional_producer(data.records)
            if producer is not None:
                producers.add(producer)
                if name is not None:
                    written.append((name, data.index))
    if not producers:
        return Verified()
    if request.transactional_id is None or not ctx.authorize(
        AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id
    ):
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    if len(producers) > 1:
        return ErrorCode.INVALID_PRODUCER_ID_MAPPING
    ((producer_id, producer_epoch),) = producers
    known = [
        tp
        for tp in written
        if ctx.topics.get(tp[0]) is not None and ctx.authorize(AclOperation.WRITE, ResourceType.TOPIC, tp[0])
    ]
    return verify_write(
        ctx, request.transactional_id, producer_id, producer_epoch, known, produce_verification(ctx.version)
    )


@registry.api(ProduceRequest, ProduceResponse, "0-13", _error)
async def produce(ctx: RequestContext, request: ProduceRequestValue) -> ProduceResponseValue | None:
    responses = []
    acks_valid = request.acks in (-1, 0, 1)
    names = _names(ctx, request)
    verified = Verified()
    if ctx.version >= 3 and acks_valid:
        found = _verify(ctx, request, names)
        if isinstance(found, ErrorCode):
            return _error(request, found)
        verified = found
    for name, topic_data in zip(names, request.topic_data, strict=True):
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
            elif verified.refused and (name, data.index) in verified.refused:
                result = _verification_refusal(verified.refused[(name, data.index)])
            else:
                records = data.records
                # The codec decodes a record set as a zero-copy view of the request frame.
                assert records is None or isinstance(records, memoryview), "a decoded record set is a memoryview"
                now_ms = ctx.clock.time_ms()
                result = ctx.partitions.append(
                    name,
                    data.index,
                    records,
                    ctx.version,
                    now_ms,
                    transaction_verified=True,
                    verified_v2=bool(verified.added) and (name, data.index) in verified.added,
                )
            answer = _answer(data.index, result)
            if result.error is ErrorCode.NOT_LEADER_OR_FOLLOWER and name is not None and ctx.version >= 10:
                leader = ctx.partitions.leadership(name, data.index)
                answer.current_leader = _PartitionResponse.LeaderIdAndEpoch(
                    leader_id=leader.leader_id, leader_epoch=leader.leader_epoch
                )
            partitions.append(answer)
        responses.append(
            _TopicResponse(name=topic_data.name, topic_id=topic_data.topic_id, partition_responses=partitions)
        )
    if request.acks == 0:
        return None
    return ProduceResponse(responses=responses)
