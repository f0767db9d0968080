"""CreatePartitions (key 37) v0-v3: growing topics.

Per topic, in the order Kafka 4.4's controller checks (compat-tests/probes, sequence
partitions.create): an unknown or invalid name is UNKNOWN_TOPIC_OR_PARTITION with no message
(an internal topic grows like any other, as on Kafka); a count not above the current one is
INVALID_PARTITIONS ("Topic already has N partition(s)." when equal); more than 10000 new
partitions is POLICY_VIOLATION; manual
assignments must number exactly the new partitions and each name only this broker, once
(INVALID_REPLICA_ASSIGNMENT).  A name given twice gets one INVALID_REQUEST answer and is not
applied; the other topics are.  ``validate_only`` runs every check and changes nothing.

A topic the principal may not ALTER is TOPIC_AUTHORIZATION_FAILED before any other check but
the duplicate one.

A topic that grows gets its new partition directories at once (made durable off the event loop,
like a new topic's) and its new count in the catalog, so the next Metadata lists them to
producers and consumers.
"""

from __future__ import annotations

from collections import Counter

from odradek.handlers.context import RequestContext
from odradek.handlers.mutation_quota import mutation_quota, throttled
from odradek.handlers.registry import registry
from odradek.handlers.replicas import replica_list_error
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.topics import (
    CreatePartitionsRequest,
    CreatePartitionsRequestValue,
    CreatePartitionsResponse,
    CreatePartitionsResponseValue,
)

__all__ = ["MAX_NEW_PARTITIONS"]

MAX_NEW_PARTITIONS = 10_000
"""Kafka's controller refuses to create more partitions than this in one request per topic."""

_Result = CreatePartitionsResponse.CreatePartitionsTopicResult


def _error(request: CreatePartitionsRequestValue, code: ErrorCode) -> CreatePartitionsResponseValue:
    return CreatePartitionsResponse(results=[_Result(name=t.name, error_code=code) for t in request.topics])


def _refusal(
    ctx: RequestContext, topic: CreatePartitionsRequestValue.CreatePartitionsTopic
) -> CreatePartitionsResponseValue.CreatePartitionsTopicResult | None:
    """Kafka's answer refusing one topic's growth, or None when it may grow."""
    info = ctx.topics.get(topic.name)
    if info is None:
        return _Result(name=topic.name, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    current = info.partitions
    message: str | None = None
    code = ErrorCode.INVALID_PARTITIONS
    if topic.count == current:
        message = f"Topic already has {current} partition(s)."
    elif topic.count < current:
        message = (
            f"The topic {topic.name} currently has {current} partition(s); {topic.count} would not be an increase."
        )
    elif topic.count - current > MAX_NEW_PARTITIONS:
        code, message = ErrorCode.POLICY_VIOLATION, "Excessively large number of additional partitions per request."
    elif topic.assignments is not None:
        code = ErrorCode.INVALID_REPLICA_ASSIGNMENT
        added = topic.count - current
        if len(topic.assignments) != added:
            message = (
                f"Attempted to add {added} additional partition(s), but only {len(topic.assignments)} "
                "assignment(s) were specified."
            )
        for assignment in topic.assignments if message is None else ():
            message = replica_list_error(assignment.broker_ids, ctx.cluster.node_id)
            if message is not None:
                break
    if message is None:
        return None
    return _Result(name=topic.name, error_code=code, error_message=message)


@registry.api(CreatePartitionsRequest, CreatePartitionsResponse, "0-3", _error)
async def create_partitions(
    ctx: RequestContext, request: CreatePartitionsRequestValue
) -> CreatePartitionsResponseValue:
    counts = Counter(t.name for t in request.topics)
    results = [
        _Result(name=name, error_code=ErrorCode.INVALID_REQUEST, error_message="Duplicate topic name.")
        for name, count in counts.items()
        if count > 1
    ]
    quota = mutation_quota(ctx, strict_since=3)
    for topic in request.topics:
        if counts[topic.name] > 1:
            continue
        if not ctx.authorize(AclOperation.ALTER, ResourceType.TOPIC, topic.name):
            results.append(
                _Result(name=topic.name, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, error_message=None)
            )
            continue
        refused = _refusal(ctx, topic)
        if refused is not None:
            results.append(refused)
            continue
        info = ctx.topics.get(topic.name)
        added = topic.count - (info.partitions if info is not None else 0)
        if quota is not None and not quota.admit(added):
            results.append(_Result(name=topic.name, error_code=ErrorCode.THROTTLING_QUOTA_EXCEEDED, error_message=None))
            continue
        if not request.validate_only:
            ctx.topics.add_partitions(topic.name, topic.count)
        results.append(_Result(name=topic.name, error_code=ErrorCode.NONE))
    return throttled(ctx, quota, CreatePartitionsResponse(results=results))
