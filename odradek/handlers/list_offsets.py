"""ListOffsets (key 2), v1-v11.

Special timestamps: -1 latest (the high watermark; the last stable offset under
read_committed), -2 earliest (log start offset), -3 max timestamp (v7+: the offset of the record
with the largest timestamp), -4 earliest local (v8+: the log start offset, all data being local),
-5 latest tiered (v9+: -1, nothing is tiered).  Any other timestamp finds the first record
whose timestamp is at least the target; none -> offset -1 and timestamp -1 with no error.
Unknown topic or partition -> UNKNOWN_TOPIC_OR_PARTITION; a current leader epoch newer than
ours -> UNKNOWN_LEADER_EPOCH.  This broker's leader epoch is always 0.
"""

from __future__ import annotations

from typing import Any

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.storage.errors import StorageError
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.list_offsets import ListOffsetsRequest, ListOffsetsResponse

LATEST, EARLIEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED = -1, -2, -3, -4, -5

_TopicResponse = ListOffsetsResponse.ListOffsetsTopicResponse
_PartitionResponse = _TopicResponse.ListOffsetsPartitionResponse


def _error(request: Any, code: ErrorCode) -> Any:
    return ListOffsetsResponse(
        topics=[
            _TopicResponse(
                name=t.name,
                partitions=[
                    _PartitionResponse(partition_index=p.partition_index, error_code=code) for p in t.partitions
                ],
            )
            for t in request.topics
        ]
    )


def _lookup(ctx: RequestContext, topic: str, partition: Any) -> Any:
    index = partition.partition_index
    log = ctx.broker.partition_log(topic, index)
    if log is None:
        return _PartitionResponse(partition_index=index, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    if partition.current_leader_epoch > 0:
        return _PartitionResponse(partition_index=index, error_code=ErrorCode.UNKNOWN_LEADER_EPOCH)
    if log.offline:
        return _PartitionResponse(partition_index=index, error_code=ErrorCode.KAFKA_STORAGE_ERROR)
    target = partition.timestamp
    found: tuple[int, int, int] | None
    if target == LATEST:
        found = (-1, log.high_watermark, 0)  # no transactions yet: last stable offset == high watermark
    elif target in (EARLIEST, EARLIEST_LOCAL):
        found = (-1, log.log_start_offset, 0)
    elif target == LATEST_TIERED:
        found = (-1, -1, -1)
    else:
        try:
            hit = log.max_timestamp() if target == MAX_TIMESTAMP else log.offset_for_timestamp(target)
        except StorageError:
            return _PartitionResponse(partition_index=index, error_code=ErrorCode.KAFKA_STORAGE_ERROR)
        found = (hit.timestamp, hit.offset, hit.leader_epoch) if hit is not None else (-1, -1, -1)
    timestamp, offset, epoch = found
    if ctx.version < 4:
        epoch = -1  # the field exists from v4 on
    return _PartitionResponse(
        partition_index=index,
        error_code=ErrorCode.NONE,
        timestamp=timestamp,
        offset=offset,
        leader_epoch=epoch,
    )


@registry.api(ListOffsetsRequest, ListOffsetsResponse, "1-11", _error)
async def list_offsets(ctx: RequestContext, request: Any) -> Any:
    return ListOffsetsResponse(
        topics=[
            _TopicResponse(name=t.name, partitions=[_lookup(ctx, t.name, p) for p in t.partitions])
            for t in request.topics
        ]
    )
