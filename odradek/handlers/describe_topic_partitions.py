"""DescribeTopicPartitions (key 75) v0: the paginated topic description that Java admin
clients (3.8+) and Kafka's topic tool prefer to Metadata.

- An empty topic list means every topic; topics are answered in name order.
- At most ``min(response_partition_limit, 2000)`` partitions are returned (2000 is Kafka's
  ``max.request.partition.size.limit``); when more remain, ``next_cursor`` is the cursor
  to continue from.  A request cursor starts the answer at that topic and partition; with an
  explicit topic list the cursor's topic must be in it (INVALID_REQUEST otherwise).
- An unknown topic gets UNKNOWN_TOPIC_OR_PARTITION and no partitions.
- Leaders, epochs, replicas and ISR are what the partitions service says (one broker: itself,
  epoch 0); the eligible and last known leader replica lists (KIP-966) are empty.
"""

from __future__ import annotations

from odradek.cluster.topics import TopicInfo
from odradek.handlers.context import RequestContext
from odradek.handlers.metadata import topic_operations
from odradek.handlers.partition_leaders import leader_fields
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.metadata import (
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsRequestValue,
    DescribeTopicPartitionsResponse,
    DescribeTopicPartitionsResponseValue,
)
from odradek.wire.schema import ZERO_UUID

MAX_PARTITIONS_PER_RESPONSE = 2000

_Topic = DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic
_Partition = _Topic.DescribeTopicPartitionsResponsePartition


def _error(request: DescribeTopicPartitionsRequestValue, code: ErrorCode) -> DescribeTopicPartitionsResponseValue:
    return DescribeTopicPartitionsResponse(
        topics=[_Topic(error_code=code, name=t.name, topic_id=ZERO_UUID) for t in request.topics]
    )


def _partitions(
    ctx: RequestContext, info: TopicInfo, first: int, count: int
) -> list[
    DescribeTopicPartitionsResponseValue.DescribeTopicPartitionsResponseTopic.DescribeTopicPartitionsResponsePartition
]:
    leaders = ctx.partitions.topic_leadership(info.name, info.partitions).partitions[first : first + count]
    return [
        _Partition(**leader_fields(index, leader), eligible_leader_replicas=[], last_known_elr=[])
        for index, leader in enumerate(leaders, first)
    ]


@registry.api(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, "0", _error)
async def describe_topic_partitions(
    ctx: RequestContext, request: DescribeTopicPartitionsRequestValue
) -> DescribeTopicPartitionsResponseValue:
    catalog = ctx.topics
    explicit = bool(request.topics)
    names = sorted({t.name for t in request.topics}) if explicit else sorted(info.name for info in catalog)
    cursor = request.cursor
    if cursor is not None:
        if explicit and cursor.topic_name not in names:
            return _error(request, ErrorCode.INVALID_REQUEST)
        names = [name for name in names if name >= cursor.topic_name]
    budget = min(request.response_partition_limit, MAX_PARTITIONS_PER_RESPONSE)
    topics: list[DescribeTopicPartitionsResponseValue.DescribeTopicPartitionsResponseTopic] = []
    next_cursor = None
    for name in names:
        if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, name):
            if explicit:
                topics.append(_Topic(error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, name=name, topic_id=ZERO_UUID))
            continue
        info = catalog.get(name)
        if info is None:
            # Kafka 4.3.1 reports the operations even for a topic it does not know.
            topics.append(
                _Topic(
                    error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    name=name,
                    topic_id=ZERO_UUID,
                    topic_authorized_operations=topic_operations(ctx, name),
                )
            )
            continue
        first = cursor.partition_index if cursor is not None and name == cursor.topic_name else 0
        if budget <= 0:
            next_cursor = DescribeTopicPartitionsResponse.Cursor(topic_name=name, partition_index=first)
            break
        count = min(info.partitions - first, budget)
        budget -= count
        topics.append(
            _Topic(
                error_code=ErrorCode.NONE,
                name=name,
                topic_id=info.topic_id,
                is_internal=info.internal,
                partitions=_partitions(ctx, info, first, count),
                topic_authorized_operations=topic_operations(ctx, name),
            )
        )
        if first + count < info.partitions:
            next_cursor = DescribeTopicPartitionsResponse.Cursor(topic_name=name, partition_index=first + count)
            break
    return DescribeTopicPartitionsResponse(topics=topics, next_cursor=next_cursor)
