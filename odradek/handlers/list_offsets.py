"""ListOffsets (key 2), v1-v11.

Special timestamps: -1 latest (the high watermark; the last stable offset under
read_committed), -2 earliest (log start offset), -3 max timestamp (v7+: the offset of the record
with the largest timestamp), -4 earliest local (v8+: the log start offset, all data being local),
-5 latest tiered (v9+: -1, nothing is tiered).  Any other timestamp finds the first record
whose timestamp is at least the target; none -> offset -1 and timestamp -1 with no error.
Unknown topic or partition -> UNKNOWN_TOPIC_OR_PARTITION; a current leader epoch newer than
ours -> UNKNOWN_LEADER_EPOCH.  The lookups and the leader epoch are the partitions service's
(`odradek.partition.service.Partitions.list_offset`); the epoch field exists from v4 on.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.list_offsets import (
    ListOffsetsRequest,
    ListOffsetsRequestValue,
    ListOffsetsResponse,
    ListOffsetsResponseValue,
)

_TopicResponse = ListOffsetsResponse.ListOffsetsTopicResponse
_PartitionResponse = _TopicResponse.ListOffsetsPartitionResponse


def _error(request: ListOffsetsRequestValue, code: ErrorCode) -> ListOffsetsResponseValue:
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


def _lookup(
    ctx: RequestContext, topic: str, partition: ListOffsetsRequestValue.ListOffsetsTopic.ListOffsetsPartition
) -> ListOffsetsResponseValue.ListOffsetsTopicResponse.ListOffsetsPartitionResponse:
    index = partition.partition_index
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, topic):
        return _PartitionResponse(partition_index=index, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    found = ctx.partitions.list_offset(topic, index, partition.timestamp, partition.current_leader_epoch)
    if found.error != ErrorCode.NONE:
        return _PartitionResponse(partition_index=index, error_code=found.error)
    return _PartitionResponse(
        partition_index=index,
        error_code=ErrorCode.NONE,
        timestamp=found.timestamp,
        offset=found.offset,
        leader_epoch=found.leader_epoch if ctx.version >= 4 else -1,
    )


@registry.api(ListOffsetsRequest, ListOffsetsResponse, "1-11", _error)
async def list_offsets(ctx: RequestContext, request: ListOffsetsRequestValue) -> ListOffsetsResponseValue:
    return ListOffsetsResponse(
        topics=[
            _TopicResponse(name=t.name, partitions=[_lookup(ctx, t.name, p) for p in t.partitions])
            for t in request.topics
        ]
    )
