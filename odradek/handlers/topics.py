"""CreateTopics (key 19) v2-v7 and DeleteTopics (key 20) v1-v6.

CreateTopics, per topic, in Kafka's order of checks: name and collision
(INVALID_TOPIC_EXCEPTION), existence (TOPIC_ALREADY_EXISTS), partitions/assignments
(INVALID_PARTITIONS, INVALID_REQUEST, INVALID_REPLICA_ASSIGNMENT), replication factor above the
one broker (INVALID_REPLICATION_FACTOR), configs (INVALID_CONFIG).  A name given twice gets one
INVALID_REQUEST answer, listed after the other topics' answers, as Kafka's controller does.
``validate_only`` runs every check and creates nothing.  From v5 a success reports the partition
count, replication factor and every effective config with its source.

DeleteTopics deletes by name (v1-v5) or by name or id (v6+); unknown names get
UNKNOWN_TOPIC_OR_PARTITION, unknown ids UNKNOWN_TOPIC_ID; with ``delete.topic.enable=false``
every deletion gets TOPIC_DELETION_DISABLED.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import cast

from odradek.cluster.topics import TopicError
from odradek.config import InvalidConfig, topic_configs, validate
from odradek.handlers.context import RequestContext
from odradek.handlers.mutation_quota import mutation_quota, throttled
from odradek.handlers.registry import registry
from odradek.handlers.replicas import replica_list_error
from odradek.security.acl import AclOperation, ResourceType
from odradek.security.quotas import MutationQuota
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.topics import (
    CreateTopicsRequest,
    CreateTopicsRequestValue,
    CreateTopicsResponse,
    CreateTopicsResponseValue,
    DeleteTopicsRequest,
    DeleteTopicsRequestValue,
    DeleteTopicsResponse,
    DeleteTopicsResponseValue,
)
from odradek.wire.schema import ZERO_UUID

_Result = CreateTopicsResponse.CreatableTopicResult


class _Refused(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def _create_error(request: CreateTopicsRequestValue, code: ErrorCode) -> CreateTopicsResponseValue:
    return CreateTopicsResponse(
        topics=[_Result(name=t.name, error_code=code, error_message=None) for t in request.topics]
    )


def _check_assignments(
    ctx: RequestContext, assignments: list[CreateTopicsRequestValue.CreatableTopic.CreatableReplicaAssignment]
) -> int:
    """Kafka's checks of a manual assignment, partition by partition in its order; returns the
    replication factor."""
    node_id = ctx.cluster.node_id
    replication: int | None = None
    for expected, assignment in enumerate(assignments):
        if assignment.partition_index != expected:
            raise _Refused(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT, "partitions should be a consecutive 0-based integer sequence"
            )
        refusal = replica_list_error(assignment.broker_ids, node_id)
        if refusal is not None:
            raise _Refused(ErrorCode.INVALID_REPLICA_ASSIGNMENT, refusal)
        size = len(assignment.broker_ids)
        if replication is not None and size != replication:
            raise _Refused(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"The manual partition assignment includes a partition with {size} replica(s), but this is "
                f"not consistent with previous partitions, which have {replication} replica(s).",
            )
        replication = size
    assert replication is not None
    return replication


def _plan(ctx: RequestContext, topic: CreateTopicsRequestValue.CreatableTopic) -> tuple[int, int, dict[str, str]]:
    """Check one creatable topic; return (partitions, replication factor, configs) or raise _Refused."""
    config = ctx.cluster.config
    try:
        ctx.topics.check_new(topic.name, 1)
    except TopicError as exc:
        raise _Refused(ErrorCode[exc.code_name], str(exc)) from None
    if topic.assignments:
        if topic.replication_factor != -1:
            raise _Refused(
                ErrorCode.INVALID_REQUEST,
                "A manual partition assignment was specified, but replication factor was not set to -1.",
            )
        if topic.num_partitions != -1:
            raise _Refused(
                ErrorCode.INVALID_REQUEST,
                "A manual partition assignment was specified, but numPartitions was not set to -1.",
            )
        partitions = len(topic.assignments)
        replication = _check_assignments(ctx, topic.assignments)
    else:
        partitions = config.num_partitions if topic.num_partitions == -1 else topic.num_partitions
        replication = config.default_replication_factor if topic.replication_factor == -1 else topic.replication_factor
    if partitions <= 0:
        raise _Refused(ErrorCode.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.")
    if replication <= 0:
        raise _Refused(
            ErrorCode.INVALID_REPLICATION_FACTOR,
            "Replication factor must be larger than 0, or -1 to use the default value.",
        )
    if replication > 1:
        raise _Refused(
            ErrorCode.INVALID_REPLICATION_FACTOR,
            f"Unable to replicate the partition {replication} time(s): The target replication factor of "
            f"{replication} cannot be reached because only 1 broker(s) are registered or some brokers have all "
            "their log directories cordoned.",
        )
    if not ctx.cluster.registered:
        raise _Refused(
            ErrorCode.INVALID_REPLICATION_FACTOR,
            f"Unable to replicate the partition {replication} time(s): All brokers are currently fenced, or have "
            "all their log directories cordoned.",
        )
    configs: dict[str, str] = {}
    for entry in topic.configs:
        try:
            validate(entry.name, entry.value)
        except InvalidConfig as exc:
            raise _Refused(ErrorCode.INVALID_CONFIG, str(exc)) from None
        configs[entry.name] = cast(str, entry.value)  # validate() refuses a null value
    return partitions, replication, configs


@registry.api(CreateTopicsRequest, CreateTopicsResponse, "2-7", _create_error)
async def create_topics(ctx: RequestContext, request: CreateTopicsRequestValue) -> CreateTopicsResponseValue:
    counts = Counter(t.name for t in request.topics)
    results = []
    may_create_all = ctx.authorize_cluster(AclOperation.CREATE)
    quota = mutation_quota(ctx, strict_since=6)
    for topic in request.topics:
        if counts[topic.name] > 1:
            continue
        if not may_create_all and not ctx.authorize(AclOperation.CREATE, ResourceType.TOPIC, topic.name):
            results.append(
                _Result(name=topic.name, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, error_message=_DENIED)
            )
            continue
        try:
            partitions, replication, configs = _plan(ctx, topic)
        except _Refused as refused:
            results.append(_Result(name=topic.name, error_code=refused.code, error_message=str(refused)))
            continue
        if quota is not None and not quota.admit(partitions):
            results.append(_Result(name=topic.name, error_code=ErrorCode.THROTTLING_QUOTA_EXCEEDED, error_message=None))
            continue
        topic_id = ZERO_UUID
        if not request.validate_only:
            topic_id = ctx.topics.create(topic.name, partitions, configs).topic_id
        results.append(_success(ctx, topic.name, topic_id, partitions, replication, configs))
    results += [
        _Result(name=name, error_code=ErrorCode.INVALID_REQUEST, error_message="Duplicate topic name.")
        for name, count in counts.items()
        if count > 1
    ]
    return throttled(ctx, quota, CreateTopicsResponse(topics=results))


def _success(
    ctx: RequestContext,
    name: str,
    topic_id: bytes,
    partitions: int,
    replication: int,
    configs: dict[str, str],
) -> CreateTopicsResponseValue.CreatableTopicResult:
    described = [
        CreateTopicsResponse.CreatableTopicResult.CreatableTopicConfigs(
            name=definition.name,
            value=value,
            read_only=False,
            config_source=source.value,
            is_sensitive=False,
        )
        for definition, value, source in topic_configs(ctx.cluster.config, configs)
    ]
    return _Result(
        name=name,
        topic_id=topic_id,
        error_code=ErrorCode.NONE,
        error_message=None,
        num_partitions=partitions,
        replication_factor=replication,
        configs=described,
    )


_Deleted = DeleteTopicsResponse.DeletableTopicResult
#: Kafka's controller's message for a topic the principal may not create (deletion says "Topic
#: authorization failed.").
_DENIED = "Authorization failed."


def _delete_error(request: DeleteTopicsRequestValue, code: ErrorCode) -> DeleteTopicsResponseValue:
    names: Sequence[str | None] = request.topic_names or [t.name for t in request.topics]
    return DeleteTopicsResponse(responses=[_Deleted(name=name, error_code=code) for name in names])


@registry.api(DeleteTopicsRequest, DeleteTopicsResponse, "1-6", _delete_error)
async def delete_topics(ctx: RequestContext, request: DeleteTopicsRequestValue) -> DeleteTopicsResponseValue:
    if ctx.version >= 6:
        wanted = [(t.name, t.topic_id) for t in request.topics]
    else:
        wanted = [(name, ZERO_UUID) for name in request.topic_names]
    quota = mutation_quota(ctx, strict_since=5)
    responses = [_delete_one(ctx, name, topic_id, quota) for name, topic_id in wanted]
    return throttled(ctx, quota, DeleteTopicsResponse(responses=responses))


_UNKNOWN_MESSAGES = {
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION: "This server does not host this topic-partition.",
    ErrorCode.UNKNOWN_TOPIC_ID: "This server does not host this topic ID.",
}


def _delete_one(
    ctx: RequestContext, name: str | None, topic_id: bytes, quota: MutationQuota | None
) -> DeleteTopicsResponseValue.DeletableTopicResult:
    """One deletion; refusals carry Kafka 4.3.1's messages (checked with compat-tests/probes); the
    controller mutation quota takes the topic's partitions last."""
    if name is None and topic_id == ZERO_UUID:
        return _Deleted(
            name=None,
            topic_id=topic_id,
            error_code=ErrorCode.INVALID_REQUEST,
            error_message="Neither topic name nor id were specified.",
        )
    catalog = ctx.topics
    info = catalog.get(name) if name is not None else catalog.by_id(topic_id)
    checked = name if name is not None else info.name if info is not None else None
    if checked is not None and not (
        ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, checked)
        and ctx.authorize(AclOperation.DELETE, ResourceType.TOPIC, checked)
    ):
        return _Deleted(
            name=name,
            topic_id=topic_id,
            error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            error_message="Topic authorization failed.",
        )
    if info is None:
        code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION if name is not None else ErrorCode.UNKNOWN_TOPIC_ID
        return _Deleted(name=name, topic_id=topic_id, error_code=code, error_message=_UNKNOWN_MESSAGES[code])
    if not ctx.cluster.config.delete_topic_enable:
        return _Deleted(
            name=info.name,
            topic_id=info.topic_id,
            error_code=ErrorCode.TOPIC_DELETION_DISABLED,
            error_message=None,
        )
    if quota is not None and not quota.admit(info.partitions):
        code = ErrorCode.THROTTLING_QUOTA_EXCEEDED
        return _Deleted(name=info.name, topic_id=info.topic_id, error_code=code, error_message=None)
    ctx.topics.delete(info.name)
    return _Deleted(name=info.name, topic_id=info.topic_id, error_code=ErrorCode.NONE, error_message=None)
