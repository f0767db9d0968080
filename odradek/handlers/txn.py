"""The transaction coordinator's client APIs: InitProducerId (22) v0-5, AddPartitionsToTxn (24)
v0-5, AddOffsetsToTxn (25) v0-4, EndTxn (26) v0-5.

The rules are the coordinator's (`odradek.txn.coordinator`, run by
`odradek.transactions.runtime`); these handlers check topics and translate messages:

- InitProducerId: a null transactional id gets a fresh idempotent producer id; v6 (two-phase
  commit) is not advertised, as Kafka only does so with unstable APIs enabled.
- AddPartitionsToTxn v0-3 (a client's, one transaction) and v4+ (a broker's batch of
  transactions, verify-only or not): a partition of an unknown topic fails the whole
  transaction's request, UNKNOWN_TOPIC_OR_PARTITION for it and OPERATION_NOT_ATTEMPTED for the
  others.  v4 adds as transactions v1, v5 as transactions v2.
- EndTxn v5+ is transactions v2 (KIP-890): every end bumps the epoch and the answer carries
  the producer id and epoch to use next.
- PRODUCER_FENCED is told as INVALID_PRODUCER_EPOCH to clients older than KIP-588's versions.

With an authorizer, as Kafka: a transactional id needs WRITE (else
TRANSACTIONAL_ID_AUTHORIZATION_FAILED, for every partition of an AddPartitionsToTxn); an
idempotent InitProducerId needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic (else
CLUSTER_AUTHORIZATION_FAILED); AddPartitionsToTxn v4+ (a broker's) needs CLUSTER_ACTION, and a
topic without WRITE fails the transaction's request as an unknown one does, with
TOPIC_AUTHORIZATION_FAILED; AddOffsetsToTxn needs READ on the group.

Answers list topics and partitions in the order Kafka's hash maps give them
(`odradek.java_order`): topics by Java's ``HashMap`` of names; within a topic, verify-only
answers by Java's hash order, the errors of a request refused for unknown topics by Scala's,
and the coordinator's one error by the request's order (checked with compat-tests/probes).
"""

from __future__ import annotations

from collections.abc import Iterable

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.java_hash import java_string_hash
from odradek.java_order import java_hash_order, scala_mutable_hash_order, topic_partition_hash
from odradek.security.acl import AclOperation, ResourceType
from odradek.txn.client_errors import fenced_error_for_version
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.txn import (
    AddOffsetsToTxnRequest,
    AddOffsetsToTxnRequestValue,
    AddOffsetsToTxnResponse,
    AddOffsetsToTxnResponseValue,
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnRequestValue,
    AddPartitionsToTxnResponse,
    AddPartitionsToTxnResponseValue,
    EndTxnRequest,
    EndTxnRequestValue,
    EndTxnResponse,
    EndTxnResponseValue,
    InitProducerIdRequest,
    InitProducerIdRequestValue,
    InitProducerIdResponse,
    InitProducerIdResponseValue,
)

__all__ = ["by_topic_in_kafka_order"]

TopicPartition = tuple[str, int]
TRANSACTIONS_V2 = 2

_TopicResult = AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult
_PartitionResult = _TopicResult.AddPartitionsToTxnPartitionResult
_TxnResult = AddPartitionsToTxnResponse.AddPartitionsToTxnResult


def by_topic_in_kafka_order(
    errors: Iterable[tuple[TopicPartition, ErrorCode]],
) -> list[tuple[str, list[tuple[int, ErrorCode]]]]:
    """``(topic, [(partition, error)])`` with topics in Java ``HashMap`` order and each topic's
    partitions in the order given."""
    grouped: dict[str, list[tuple[int, ErrorCode]]] = {}
    for (topic, partition), error in errors:
        grouped.setdefault(topic, []).append((partition, error))
    return [(topic, grouped[topic]) for topic in java_hash_order(grouped, java_string_hash)]


def _may_write(ctx: RequestContext, transactional_id: str) -> bool:
    return ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id)


# -------------------------------------------------------------------- InitProducerId


def _init_error(request: InitProducerIdRequestValue, code: ErrorCode) -> InitProducerIdResponseValue:
    return InitProducerIdResponse(error_code=code, producer_id=-1, producer_epoch=-1)


@registry.api(InitProducerIdRequest, InitProducerIdResponse, "0-5", _init_error)
async def init_producer_id(ctx: RequestContext, request: InitProducerIdRequestValue) -> InitProducerIdResponseValue:
    if request.transactional_id is not None:
        if not _may_write(ctx, request.transactional_id):
            return _init_error(request, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    elif not (
        ctx.authorize_cluster(AclOperation.IDEMPOTENT_WRITE)
        or ctx.authorize_any(AclOperation.WRITE, ResourceType.TOPIC)
    ):
        return _init_error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    producer_id = request.producer_id if ctx.version >= 3 else -1
    producer_epoch = request.producer_epoch if ctx.version >= 3 else -1
    result = ctx.transactions.init_producer_id(
        request.transactional_id, request.transaction_timeout_ms, producer_id, producer_epoch
    )
    error = fenced_error_for_version(ApiKey.INIT_PRODUCER_ID, ctx.version, result.error)
    return InitProducerIdResponse(
        error_code=error, producer_id=result.producer_id, producer_epoch=result.producer_epoch
    )


# ---------------------------------------------------------------- AddPartitionsToTxn


def _refused_partitions(ctx: RequestContext, partitions: list[TopicPartition]) -> dict[TopicPartition, ErrorCode]:
    """The partitions that fail the request: of a topic the principal may not WRITE, or unknown."""
    refused = {}
    for topic, partition in partitions:
        info = ctx.topics.get(topic)
        if not ctx.authorize(AclOperation.WRITE, ResourceType.TOPIC, topic):
            refused[(topic, partition)] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        elif info is None or not 0 <= partition < info.partitions:
            refused[(topic, partition)] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    return refused


def _add_one(
    ctx: RequestContext,
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    partitions: list[TopicPartition],
    verify_only: bool,
) -> list[tuple[TopicPartition, ErrorCode]]:
    """One transaction's partitions and their errors, in Kafka's order."""
    if ctx.version < 4 and not _may_write(ctx, transactional_id):
        ordered = java_hash_order(partitions, lambda tp: topic_partition_hash(*tp))
        return [(tp, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) for tp in ordered]
    errors = _refused_partitions(ctx, partitions)
    if errors:
        errors.update({tp: ErrorCode.OPERATION_NOT_ATTEMPTED for tp in partitions if tp not in errors})
        ordered = scala_mutable_hash_order(errors, lambda tp: topic_partition_hash(*tp))
        return [(tp, errors[tp]) for tp in ordered]
    if verify_only:
        found = ctx.transactions.verify_partitions(transactional_id, producer_id, producer_epoch, partitions)
        return [(tp, found[tp]) for tp in java_hash_order(partitions, lambda tp: topic_partition_hash(*tp))]
    version = TRANSACTIONS_V2 if ctx.version >= 5 else 0
    error = ctx.transactions.add_partitions(transactional_id, producer_id, producer_epoch, partitions, version)
    error = fenced_error_for_version(ApiKey.ADD_PARTITIONS_TO_TXN, ctx.version, error)
    return [(tp, error) for tp in dict.fromkeys(partitions)]


def _topic_results(
    errors: list[tuple[TopicPartition, ErrorCode]],
) -> list[AddPartitionsToTxnResponseValue.AddPartitionsToTxnTopicResult]:
    return [
        _TopicResult(
            name=topic,
            results_by_partition=[_PartitionResult(partition_index=p, partition_error_code=e) for p, e in parts],
        )
        for topic, parts in by_topic_in_kafka_order(errors)
    ]


def _add_partitions_error(request: AddPartitionsToTxnRequestValue, code: ErrorCode) -> AddPartitionsToTxnResponseValue:
    if request.transactions:
        return AddPartitionsToTxnResponse(error_code=code)
    errors = [((t.name, p), code) for t in request.v3_and_below_topics for p in t.partitions]
    return AddPartitionsToTxnResponse(results_by_topic_v3_and_below=_topic_results(errors))


@registry.api(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, "0-5", _add_partitions_error)
async def add_partitions_to_txn(
    ctx: RequestContext, request: AddPartitionsToTxnRequestValue
) -> AddPartitionsToTxnResponseValue:
    if ctx.version < 4:
        partitions = [(t.name, p) for t in request.v3_and_below_topics for p in t.partitions]
        errors = _add_one(
            ctx,
            request.v3_and_below_transactional_id,
            request.v3_and_below_producer_id,
            request.v3_and_below_producer_epoch,
            partitions,
            verify_only=False,
        )
        return AddPartitionsToTxnResponse(results_by_topic_v3_and_below=_topic_results(errors))
    if not ctx.authorize_cluster(AclOperation.CLUSTER_ACTION):
        return _add_partitions_error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    results = []
    for txn in request.transactions:
        partitions = [(t.name, p) for t in txn.topics for p in t.partitions]
        errors = _add_one(ctx, txn.transactional_id, txn.producer_id, txn.producer_epoch, partitions, txn.verify_only)
        results.append(_TxnResult(transactional_id=txn.transactional_id, topic_results=_topic_results(errors)))
    return AddPartitionsToTxnResponse(error_code=ErrorCode.NONE, results_by_transaction=results)


# ------------------------------------------------------------------ AddOffsetsToTxn


def _add_offsets_error(request: AddOffsetsToTxnRequestValue, code: ErrorCode) -> AddOffsetsToTxnResponseValue:
    return AddOffsetsToTxnResponse(error_code=code)


@registry.api(AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, "0-4", _add_offsets_error)
async def add_offsets_to_txn(ctx: RequestContext, request: AddOffsetsToTxnRequestValue) -> AddOffsetsToTxnResponseValue:
    if not _may_write(ctx, request.transactional_id):
        return AddOffsetsToTxnResponse(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return AddOffsetsToTxnResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    error = ctx.transactions.add_offsets(
        request.transactional_id, request.producer_id, request.producer_epoch, request.group_id
    )
    return AddOffsetsToTxnResponse(error_code=fenced_error_for_version(ApiKey.ADD_OFFSETS_TO_TXN, ctx.version, error))


# ----------------------------------------------------------------------------- EndTxn


def _end_error(request: EndTxnRequestValue, code: ErrorCode) -> EndTxnResponseValue:
    return EndTxnResponse(error_code=code)


@registry.api(EndTxnRequest, EndTxnResponse, "0-5", _end_error)
async def end_txn(ctx: RequestContext, request: EndTxnRequestValue) -> EndTxnResponseValue:
    if not _may_write(ctx, request.transactional_id):
        return EndTxnResponse(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    version = TRANSACTIONS_V2 if ctx.version >= 5 else 0
    result = ctx.transactions.end_txn(
        request.transactional_id, request.producer_id, request.producer_epoch, request.committed, version
    )
    error = fenced_error_for_version(ApiKey.END_TXN, ctx.version, result.error)
    if ctx.version >= 5:
        return EndTxnResponse(error_code=error, producer_id=result.producer_id, producer_epoch=result.producer_epoch)
    return EndTxnResponse(error_code=error)
