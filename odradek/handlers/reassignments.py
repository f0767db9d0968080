"""AlterPartitionReassignments (key 45) v0-v1 and ListPartitionReassignments (key 46) v0, as a
single Kafka 4.4 node answers them (compat-tests/probes, sequence
partitions.elections_and_reassignments).

This node is the only broker, so the one replica list a partition can be given is its own, and
no reassignment is ever in progress:

- a partition moved to ``[this node]`` succeeds and changes nothing (its leader epoch too);
- a null replica list (cancel) is NO_REASSIGNMENT_IN_PROGRESS;
- any other list is INVALID_REPLICA_ASSIGNMENT with Kafka's words (`replica_list_error`);
- an unknown topic or partition is UNKNOWN_TOPIC_OR_PARTITION ("Unable to find a topic named
  T." / "Unable to find partition T:P."), checked before the replicas;
- partitions are answered as named, duplicates included; ``allow_replication_factor_change``
  (v1) is echoed and cannot matter, every list that would change the factor naming an unknown
  broker;
- with no topics at all the top-level error message is the empty string, otherwise null.

ListPartitionReassignments always answers with no topics.  Altering needs ALTER on the cluster,
listing DESCRIBE (else CLUSTER_AUTHORIZATION_FAILED at the top, and on every named partition,
with the words of Kafka's controller, `odradek.handlers.forwarded`).
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.forwarded import needs_permission
from odradek.handlers.registry import registry
from odradek.handlers.replicas import replica_list_error
from odradek.security.acl import AclOperation
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.partitions import (
    AlterPartitionReassignmentsRequest,
    AlterPartitionReassignmentsRequestValue,
    AlterPartitionReassignmentsResponse,
    AlterPartitionReassignmentsResponseValue,
    ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsRequestValue,
    ListPartitionReassignmentsResponse,
    ListPartitionReassignmentsResponseValue,
)

_TopicResponse = AlterPartitionReassignmentsResponse.ReassignableTopicResponse
_PartitionResponse = _TopicResponse.ReassignablePartitionResponse


def _alter_error(
    request: AlterPartitionReassignmentsRequestValue, code: ErrorCode
) -> AlterPartitionReassignmentsResponseValue:
    return AlterPartitionReassignmentsResponse(
        allow_replication_factor_change=request.allow_replication_factor_change, error_code=code, error_message=None
    )


def _reassign(
    ctx: RequestContext, topic: str, partition: int, replicas: list[int] | None
) -> AlterPartitionReassignmentsResponseValue.ReassignableTopicResponse.ReassignablePartitionResponse:
    info = ctx.topics.get(topic)
    code, message = ErrorCode.NONE, None
    if info is None:
        code, message = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Unable to find a topic named {topic}."
    elif not 0 <= partition < info.partitions:
        code, message = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Unable to find partition {topic}:{partition}."
    elif replicas is None:
        code = ErrorCode.NO_REASSIGNMENT_IN_PROGRESS
    else:
        message = replica_list_error(replicas, ctx.cluster.node_id)
        if message is not None:
            code = ErrorCode.INVALID_REPLICA_ASSIGNMENT
    return _PartitionResponse(partition_index=partition, error_code=code, error_message=message)


@registry.api(AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, "0-1", _alter_error)
async def alter_partition_reassignments(
    ctx: RequestContext, request: AlterPartitionReassignmentsRequestValue
) -> AlterPartitionReassignmentsResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        message = needs_permission(ctx, "ALTER")
        code = ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        return AlterPartitionReassignmentsResponse(
            allow_replication_factor_change=request.allow_replication_factor_change,
            error_code=code,
            error_message=message,
            responses=[
                _TopicResponse(
                    name=t.name,
                    partitions=[
                        _PartitionResponse(partition_index=p.partition_index, error_code=code, error_message=message)
                        for p in t.partitions
                    ],
                )
                for t in request.topics
            ],
        )
    responses = [
        _TopicResponse(
            name=t.name, partitions=[_reassign(ctx, t.name, p.partition_index, p.replicas) for p in t.partitions]
        )
        for t in request.topics
    ]
    return AlterPartitionReassignmentsResponse(
        allow_replication_factor_change=request.allow_replication_factor_change,
        error_code=ErrorCode.NONE,
        error_message=None if request.topics else "",
        responses=responses,
    )


def _list_error(
    request: ListPartitionReassignmentsRequestValue, code: ErrorCode
) -> ListPartitionReassignmentsResponseValue:
    return ListPartitionReassignmentsResponse(error_code=code, error_message=None)


@registry.api(ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, "0", _list_error)
async def list_partition_reassignments(
    ctx: RequestContext, request: ListPartitionReassignmentsRequestValue
) -> ListPartitionReassignmentsResponseValue:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        return ListPartitionReassignmentsResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=needs_permission(ctx, "DESCRIBE")
        )
    return ListPartitionReassignmentsResponse(error_code=ErrorCode.NONE, error_message=None, topics=[])
