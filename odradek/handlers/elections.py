"""ElectLeaders (key 43), v0-v2, as a single Kafka 4.4 node answers it.

This node is the only replica of every partition and always leads it, so no election is ever
needed (checked with compat-tests/probes, sequence partitions.elections_and_reassignments):

- a principal that may not ALTER the cluster gets CLUSTER_AUTHORIZATION_FAILED at the top and on
  every named partition;
- an election type other than preferred (0) or unclean (1) is INVALID_REQUEST at the top and on
  every named partition ("Unknown election type N"); v0 always asks for preferred;
- a named partition is ELECTION_NOT_NEEDED, an unknown topic or partition
  UNKNOWN_TOPIC_OR_PARTITION, each with Kafka's message; topics and partitions are answered as
  named, duplicates included, internal topics like any other;
- a null topic list (every partition) lists every topic with no partition results, since
  Kafka leaves out the partitions that need no election.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.forwarded import needs_permission
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.partitions import (
    ElectLeadersRequest,
    ElectLeadersRequestValue,
    ElectLeadersResponse,
    ElectLeadersResponseValue,
)

_Result = ElectLeadersResponse.ReplicaElectionResult
_PartitionResult = _Result.PartitionResult
_ELECTION_TYPES = (0, 1)
_NOT_NEEDED = "Leader election not needed for topic partition."


def _error(request: ElectLeadersRequestValue, code: ErrorCode) -> ElectLeadersResponseValue:
    return ElectLeadersResponse(
        error_code=code,
        replica_election_results=[
            _Result(
                topic=t.topic,
                partition_result=[
                    _PartitionResult(partition_id=p, error_code=code, error_message=None) for p in t.partitions
                ],
            )
            for t in request.topic_partitions or []
        ],
    )


def _answer(
    ctx: RequestContext, topic: str, partition: int
) -> ElectLeadersResponseValue.ReplicaElectionResult.PartitionResult:
    info = ctx.topics.get(topic)
    if info is None:
        code, message = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {topic}"
    elif not 0 <= partition < info.partitions:
        code, message = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {topic}-{partition}"
    else:
        code, message = ErrorCode.ELECTION_NOT_NEEDED, _NOT_NEEDED
    return _PartitionResult(partition_id=partition, error_code=code, error_message=message)


def _refused_everywhere(
    request: ElectLeadersRequestValue, code: ErrorCode, message: str | None
) -> ElectLeadersResponseValue:
    """The whole request refused: ``code`` at the top and on every named partition."""
    return ElectLeadersResponse(
        error_code=code,
        replica_election_results=[
            _Result(
                topic=t.topic,
                partition_result=[
                    _PartitionResult(partition_id=p, error_code=code, error_message=message) for p in t.partitions
                ],
            )
            for t in request.topic_partitions or []
        ],
    )


@registry.api(ElectLeadersRequest, ElectLeadersResponse, "0-2", _error)
async def elect_leaders(ctx: RequestContext, request: ElectLeadersRequestValue) -> ElectLeadersResponseValue:
    election_type = request.election_type if ctx.version >= 1 else 0
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return _refused_everywhere(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, needs_permission(ctx, "ALTER"))
    if election_type not in _ELECTION_TYPES:
        return _refused_everywhere(request, ErrorCode.INVALID_REQUEST, f"Unknown election type {election_type}")
    if request.topic_partitions is None:
        results = [_Result(topic=info.name, partition_result=[]) for info in ctx.topics]
    else:
        results = [
            _Result(topic=t.topic, partition_result=[_answer(ctx, t.topic, p) for p in t.partitions])
            for t in request.topic_partitions
        ]
    return ElectLeadersResponse(error_code=ErrorCode.NONE, replica_election_results=results)
