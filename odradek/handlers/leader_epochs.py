"""OffsetForLeaderEpoch (key 23), v2-v4: where a leader epoch ends in a partition's log.

Clients ask it after a leader change to learn whether the log they read was truncated (KIP-320).
Each partition is answered from its leader epoch cache (`odradek.storage.leader_epochs`, kept in
Kafka's ``leader-epoch-checkpoint`` file): the requested epoch's end, the highest lower epoch's
when it has no entry of its own, the log end offset for the current epoch, and -1/-1 for an
undefined epoch or one above ours.  The current leader epoch is checked first, as in a fetch:
newer than ours UNKNOWN_LEADER_EPOCH, older FENCED_LEADER_EPOCH; an unknown partition is
UNKNOWN_TOPIC_OR_PARTITION; a topic the principal may not DESCRIBE, TOPIC_AUTHORIZATION_FAILED.
``replica_id`` (v3+) changes nothing on a single node.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.offsets import (
    OffsetForLeaderEpochRequest,
    OffsetForLeaderEpochRequestValue,
    OffsetForLeaderEpochResponse,
    OffsetForLeaderEpochResponseValue,
)

_TopicResult = OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult
_EpochEndOffset = _TopicResult.EpochEndOffset


def _error(request: OffsetForLeaderEpochRequestValue, code: ErrorCode) -> OffsetForLeaderEpochResponseValue:
    return OffsetForLeaderEpochResponse(
        topics=[
            _TopicResult(
                topic=t.topic,
                partitions=[_EpochEndOffset(partition=p.partition, error_code=code) for p in t.partitions],
            )
            for t in request.topics
        ]
    )


@registry.api(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, "2-4", _error)
async def offset_for_leader_epoch(
    ctx: RequestContext, request: OffsetForLeaderEpochRequestValue
) -> OffsetForLeaderEpochResponseValue:
    topics = []
    for topic in request.topics:
        partitions = []
        allowed = ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, topic.topic)
        for p in topic.partitions:
            if not allowed:
                partitions.append(
                    _EpochEndOffset(partition=p.partition, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                )
                continue
            found = ctx.partitions.offset_for_leader_epoch(
                topic.topic, p.partition, p.current_leader_epoch, p.leader_epoch
            )
            partitions.append(
                _EpochEndOffset(
                    partition=p.partition,
                    error_code=found.error,
                    leader_epoch=found.leader_epoch,
                    end_offset=found.end_offset,
                )
            )
        topics.append(_TopicResult(topic=topic.topic, partitions=partitions))
    return OffsetForLeaderEpochResponse(topics=topics)
