"""WriteTxnMarkers (key 27), v1-2: write COMMIT/ABORT markers, as the transaction coordinator does.

Kafka serves it on the client listener to whoever may CLUSTER_ACTION (everyone without an
authorizer; anyone else gets CLUSTER_AUTHORIZATION_FAILED for every partition).  Each marker
goes to each named partition through the partitions service (epoch checks of
`odradek.txn.producer_state`: an older producer epoch is refused, under transactions v2 (the
marker's ``transaction_version``) so is the current one unless it repeats the marker that
closed the transaction); a ``__consumer_offsets`` marker also ends the producer's pending
offsets.  An unknown topic or partition answers UNKNOWN_TOPIC_OR_PARTITION.

Answer order is Kafka's: per producer, topics in Java ``HashMap`` order of their names, and a
topic's partitions in the order of Kafka's ``ConcurrentHashMap`` of results, which holds the
refused-before-append partitions first (`odradek.java_order`).
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.handlers.txn import by_topic_in_kafka_order
from odradek.java_order import java_hash_order, topic_partition_hash
from odradek.security.acl import AclOperation
from odradek.txn.markers import Marker
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.txn import (
    WriteTxnMarkersRequest,
    WriteTxnMarkersRequestValue,
    WriteTxnMarkersResponse,
    WriteTxnMarkersResponseValue,
)

_Result = WriteTxnMarkersResponse.WritableTxnMarkerResult
_TopicResult = _Result.WritableTxnMarkerTopicResult
_PartitionResult = _TopicResult.WritableTxnMarkerPartitionResult

TopicPartition = tuple[str, int]


def _error(request: WriteTxnMarkersRequestValue, code: ErrorCode) -> WriteTxnMarkersResponseValue:
    markers = []
    for m in request.markers:
        partitions = [(t.name, p) for t in m.topics for p in t.partition_indexes]
        ordered = java_hash_order(partitions, lambda tp: topic_partition_hash(*tp))
        markers.append(_result(m.producer_id, [(tp, code) for tp in ordered]))
    return WriteTxnMarkersResponse(markers=markers)


def _result(
    producer_id: int, errors: list[tuple[TopicPartition, ErrorCode]]
) -> WriteTxnMarkersResponseValue.WritableTxnMarkerResult:
    return _Result(
        producer_id=producer_id,
        topics=[
            _TopicResult(name=topic, partitions=[_PartitionResult(partition_index=p, error_code=e) for p, e in parts])
            for topic, parts in by_topic_in_kafka_order(errors)
        ],
    )


@registry.api(WriteTxnMarkersRequest, WriteTxnMarkersResponse, "1-2", _error)
async def write_txn_markers(ctx: RequestContext, request: WriteTxnMarkersRequestValue) -> WriteTxnMarkersResponseValue:
    if not ctx.authorize_cluster(AclOperation.CLUSTER_ACTION):
        return _error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    results = []
    for entry in request.markers:
        marker = Marker(entry.transaction_result, entry.producer_id, entry.producer_epoch, entry.coordinator_epoch)
        version = entry.transaction_version if ctx.version >= 2 else 0
        refused: dict[TopicPartition, ErrorCode] = {}
        written: dict[TopicPartition, ErrorCode] = {}
        for topic in entry.topics:
            for partition in topic.partition_indexes:
                tp = (topic.name, partition)
                info = ctx.topics.get(topic.name)
                if info is None or not 0 <= partition < info.partitions:
                    refused[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    written[tp] = ctx.transactions.write_marker(topic.name, partition, marker, version)
        errors = {**refused, **written}
        ordered = java_hash_order(errors, lambda tp: topic_partition_hash(*tp))
        results.append(_result(entry.producer_id, [(tp, errors[tp]) for tp in ordered]))
    return WriteTxnMarkersResponse(markers=results)
