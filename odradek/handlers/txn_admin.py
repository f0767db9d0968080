"""Transaction introspection: DescribeProducers (61) v0, DescribeTransactions (65) v0,
ListTransactions (66) v0-2.

- DescribeProducers: per requested partition (request order), the partition's producer state
  (`odradek.txn.producer_state`): epoch, last sequence, last timestamp, the coordinator epoch of
  its last marker and the start of its open transaction; producers in Kafka's hash map order.
  A topic the principal may not READ answers TOPIC_AUTHORIZATION_FAILED (with Kafka's message),
  a partition of an unknown topic UNKNOWN_TOPIC_OR_PARTITION.
- DescribeTransactions: the coordinator's view of each transactional id (request order); an
  unknown id answers TRANSACTIONAL_ID_NOT_FOUND, an empty one INVALID_REQUEST, one the principal
  may not DESCRIBE TRANSACTIONAL_ID_AUTHORIZATION_FAILED; topics it may not DESCRIBE are left out.
- ListTransactions: every transactional id matching all the filters given: states (unknown
  names are reported back), producer ids, a minimum duration (v1+) and a regular expression
  the whole id must match (v2+; an invalid one is INVALID_REGULAR_EXPRESSION); only the ids the
  principal may DESCRIBE.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.java_order import java_hash_order, java_long_hash
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.txn import (
    DescribeProducersRequest,
    DescribeProducersRequestValue,
    DescribeProducersResponse,
    DescribeProducersResponseValue,
    DescribeTransactionsRequest,
    DescribeTransactionsRequestValue,
    DescribeTransactionsResponse,
    DescribeTransactionsResponseValue,
    ListTransactionsRequest,
    ListTransactionsRequestValue,
    ListTransactionsResponse,
    ListTransactionsResponseValue,
)

_ProducersTopic = DescribeProducersResponse.TopicResponse
_ProducersPartition = _ProducersTopic.PartitionResponse
_ProducerState = _ProducersPartition.ProducerState
_Described = DescribeTransactionsResponse.TransactionState
_TopicData = _Described.TopicData
_Listed = ListTransactionsResponse.TransactionState


# ---------------------------------------------------------------- DescribeProducers


def _producers_error(request: DescribeProducersRequestValue, code: ErrorCode) -> DescribeProducersResponseValue:
    return DescribeProducersResponse(
        topics=[
            _ProducersTopic(
                name=t.name,
                partitions=[_ProducersPartition(partition_index=p, error_code=code) for p in t.partition_indexes],
            )
            for t in request.topics
        ]
    )


def _describe_partition(
    ctx: RequestContext, topic: str, partition: int
) -> DescribeProducersResponseValue.TopicResponse.PartitionResponse:
    info = ctx.topics.get(topic)
    if not ctx.authorize(AclOperation.READ, ResourceType.TOPIC, topic):
        return _ProducersPartition(
            partition_index=partition,
            error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            error_message="Topic authorization failed.",
        )
    if info is None or not 0 <= partition < info.partitions:
        return _ProducersPartition(partition_index=partition, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    error, producers = ctx.partitions.active_producers(topic, partition)
    by_id = {p.producer_id: p for p in producers}
    return _ProducersPartition(
        partition_index=partition,
        error_code=error,
        active_producers=[
            _ProducerState(
                producer_id=p.producer_id,
                producer_epoch=p.epoch,
                last_sequence=p.last_sequence,
                last_timestamp=p.last_timestamp,
                coordinator_epoch=p.coordinator_epoch,
                current_txn_start_offset=p.txn_first_offset,
            )
            for p in (by_id[i] for i in java_hash_order(by_id, java_long_hash))
        ],
    )


@registry.api(DescribeProducersRequest, DescribeProducersResponse, "0", _producers_error)
async def describe_producers(
    ctx: RequestContext, request: DescribeProducersRequestValue
) -> DescribeProducersResponseValue:
    return DescribeProducersResponse(
        topics=[
            _ProducersTopic(name=t.name, partitions=[_describe_partition(ctx, t.name, p) for p in t.partition_indexes])
            for t in request.topics
        ]
    )


# ------------------------------------------------------------- DescribeTransactions


def _describe_error(request: DescribeTransactionsRequestValue, code: ErrorCode) -> DescribeTransactionsResponseValue:
    return DescribeTransactionsResponse(
        transaction_states=[_Described(error_code=code, transactional_id=tid) for tid in request.transactional_ids]
    )


@registry.api(DescribeTransactionsRequest, DescribeTransactionsResponse, "0", _describe_error)
async def describe_transactions(
    ctx: RequestContext, request: DescribeTransactionsRequestValue
) -> DescribeTransactionsResponseValue:
    states = []
    for tid in request.transactional_ids:
        if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, tid):
            states.append(_Described(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, transactional_id=tid))
            continue
        found = ctx.transactions.describe(tid)
        states.append(
            _Described(
                error_code=found.error,
                transactional_id=tid,
                transaction_state=found.state,
                transaction_timeout_ms=found.timeout_ms,
                transaction_start_time_ms=found.start_timestamp_ms,
                producer_id=found.producer_id,
                producer_epoch=found.producer_epoch,
                topics=[
                    _TopicData(topic=topic, partitions=list(ids))
                    for topic, ids in found.topics
                    if ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, topic)
                ],
            )
        )
    return DescribeTransactionsResponse(transaction_states=states)


# ----------------------------------------------------------------- ListTransactions


def _list_error(request: ListTransactionsRequestValue, code: ErrorCode) -> ListTransactionsResponseValue:
    return ListTransactionsResponse(error_code=code)


@registry.api(ListTransactionsRequest, ListTransactionsResponse, "0-2", _list_error)
async def list_transactions(
    ctx: RequestContext, request: ListTransactionsRequestValue
) -> ListTransactionsResponseValue:
    listed = ctx.transactions.list_transactions(
        request.state_filters,
        request.producer_id_filters,
        request.duration_filter if ctx.version >= 1 else -1,
        request.transactional_id_pattern if ctx.version >= 2 else None,
    )
    return ListTransactionsResponse(
        error_code=listed.error,
        unknown_state_filters=list(listed.unknown_state_filters),
        transaction_states=[
            _Listed(
                transactional_id=t.transactional_id, producer_id=t.producer_id, transaction_state=t.state.display_name
            )
            for t in listed.transactions
            if ctx.authorize(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t.transactional_id)
        ],
    )
