"""DeleteRecords (key 21), v0-v2: move partitions' log start offsets forward.

Per partition, in Kafka's order: unknown topic or partition (UNKNOWN_TOPIC_OR_PARTITION);
internal topic (INVALID_TOPIC_EXCEPTION); ``cleanup.policy`` without ``delete``
(POLICY_VIOLATION); offset -1 means the high watermark; a negative offset or one above the
high watermark gives OFFSET_OUT_OF_RANGE.  A success answers with the partition's low
watermark (its log start offset, there being one replica); every error with -1.

The checks and the move are the partitions service's
(`odradek.partition.service.Partitions.delete_records`).  The new log start offset is
checkpointed before the answer; whole segments below it are deleted by the next retention pass,
as Kafka does.  ``timeout_ms`` is moot on one replica.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.offsets import (
    DeleteRecordsRequest,
    DeleteRecordsRequestValue,
    DeleteRecordsResponse,
    DeleteRecordsResponseValue,
)

_TopicResult = DeleteRecordsResponse.DeleteRecordsTopicResult
_PartitionResult = _TopicResult.DeleteRecordsPartitionResult


def _error(request: DeleteRecordsRequestValue, code: ErrorCode) -> DeleteRecordsResponseValue:
    return DeleteRecordsResponse(
        topics=[
            _TopicResult(
                name=t.name,
                partitions=[
                    _PartitionResult(partition_index=p.partition_index, low_watermark=-1, error_code=code)
                    for p in t.partitions
                ],
            )
            for t in request.topics
        ]
    )


@registry.api(DeleteRecordsRequest, DeleteRecordsResponse, "0-2", _error)
async def delete_records(ctx: RequestContext, request: DeleteRecordsRequestValue) -> DeleteRecordsResponseValue:
    topics = []
    for topic in request.topics:
        partitions = []
        allowed = ctx.authorize(AclOperation.DELETE, ResourceType.TOPIC, topic.name)
        for p in topic.partitions:
            if allowed:
                code, low_watermark = ctx.partitions.delete_records(topic.name, p.partition_index, p.offset)
            else:
                code, low_watermark = ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1
            partitions.append(
                _PartitionResult(partition_index=p.partition_index, low_watermark=low_watermark, error_code=code)
            )
        topics.append(_TopicResult(name=topic.name, partitions=partitions))
    return DeleteRecordsResponse(topics=topics)
