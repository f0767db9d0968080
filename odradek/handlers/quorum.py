"""The KRaft quorum of a single combined-mode node: DescribeQuorum (key 55) v0-2, AddRaftVoter
(80) v0-1, RemoveRaftVoter (81) v0, UnregisterController (94) v0 and UnregisterBroker (64) v0.

This node is the quorum's only, static voter (``kraft.version`` 0) and its leader; answers are
Kafka 4.4's (compat-tests/probes, sequence cluster.quorum):

- DescribeQuorum answers only exactly ``__cluster_metadata`` partition 0; any other partition
  named gets UNKNOWN_TOPIC_OR_PARTITION with leader 0 and epoch 0.  The leader epoch is the
  number of starts, the high watermark (and the voter's log end) how far the metadata has
  advanced, the voter's directory id all zeros (a static voter has none); from v1 the fetch
  and caught-up times are now, from v2 the node's endpoint under the CONTROLLER listener (this
  node serves the controller APIs on its one listener);
- voters cannot be added or removed while ``kraft.version`` is 0 (UNSUPPORTED_VERSION), after
  the cluster id check (INCONSISTENT_CLUSTER_ID);
- unregistering another broker or controller id is BROKER_ID_NOT_REGISTERED /
  CONTROLLER_ID_NOT_REGISTERED, and the active controller cannot unregister itself;
- this node unregistering itself as a broker succeeds and fences it until it restarts, as Kafka
  (sequence cluster.unregister_itself): no broker and no controller in Metadata and
  DescribeCluster, every partition leaderless one epoch up with its replica offline, produce,
  fetch and ListOffsets NOT_LEADER_OR_FOLLOWER, topic creation refused for want of a broker;
- DescribeQuorum needs DESCRIBE on the cluster, the others ALTER (else
  CLUSTER_AUTHORIZATION_FAILED: "Cluster authorization failed." from the quorum's APIs, the
  forwarded request's words from the unregister APIs, `odradek.handlers.forwarded`).
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.forwarded import needs_permission
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.quorum import (
    AddRaftVoterRequest,
    AddRaftVoterRequestValue,
    AddRaftVoterResponse,
    AddRaftVoterResponseValue,
    DescribeQuorumRequest,
    DescribeQuorumRequestValue,
    DescribeQuorumResponse,
    DescribeQuorumResponseValue,
    RemoveRaftVoterRequest,
    RemoveRaftVoterRequestValue,
    RemoveRaftVoterResponse,
    RemoveRaftVoterResponseValue,
    UnregisterBrokerRequest,
    UnregisterBrokerRequestValue,
    UnregisterBrokerResponse,
    UnregisterBrokerResponseValue,
    UnregisterControllerRequest,
    UnregisterControllerRequestValue,
    UnregisterControllerResponse,
    UnregisterControllerResponseValue,
)

METADATA_TOPIC = "__cluster_metadata"
CONTROLLER_LISTENER = "CONTROLLER"
_NOT_HOSTED = "This server does not host this topic-partition."
_NO_CLUSTER = "Cluster authorization failed."

_Topic = DescribeQuorumResponse.TopicData
_Partition = _Topic.PartitionData
_Replica = _Partition.ReplicaState
_Node = DescribeQuorumResponse.Node


def _quorum_error(request: DescribeQuorumRequestValue, code: ErrorCode) -> DescribeQuorumResponseValue:
    return DescribeQuorumResponse(error_code=code)


def _describe_partition(ctx: RequestContext) -> DescribeQuorumResponseValue.TopicData.PartitionData:
    cluster = ctx.cluster
    offset = cluster.metadata_offset
    now = ctx.clock.time_ms() if ctx.version >= 1 else -1
    voter = _Replica(
        replica_id=cluster.node_id, log_end_offset=offset, last_fetch_timestamp=now, last_caught_up_timestamp=now
    )
    return _Partition(
        partition_index=0,
        error_code=ErrorCode.NONE,
        leader_id=cluster.node_id,
        leader_epoch=cluster.quorum_epoch,
        high_watermark=offset,
        current_voters=[voter],
        observers=[],
    )


@registry.api(DescribeQuorumRequest, DescribeQuorumResponse, "0-2", _quorum_error)
async def describe_quorum(ctx: RequestContext, request: DescribeQuorumRequestValue) -> DescribeQuorumResponseValue:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        return DescribeQuorumResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=_NO_CLUSTER)
    valid = (
        len(request.topics) == 1
        and request.topics[0].topic_name == METADATA_TOPIC
        and [p.partition_index for p in request.topics[0].partitions] == [0]
    )
    if not valid:
        unknown = [
            _Topic(
                topic_name=t.topic_name,
                partitions=[
                    _Partition(
                        partition_index=p.partition_index,
                        error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                        error_message=_NOT_HOSTED,
                    )
                    for p in t.partitions
                ],
            )
            for t in request.topics
        ]
        return DescribeQuorumResponse(error_code=ErrorCode.NONE, topics=unknown)
    host, port = ctx.cluster.advertised
    node = _Node(
        node_id=ctx.cluster.node_id, listeners=[_Node.Listener(name=CONTROLLER_LISTENER, host=host, port=port)]
    )
    return DescribeQuorumResponse(
        error_code=ErrorCode.NONE,
        topics=[_Topic(topic_name=METADATA_TOPIC, partitions=[_describe_partition(ctx)])],
        nodes=[node] if ctx.version >= 2 else [],
    )


def _cluster_mismatch(ctx: RequestContext, cluster_id: str | None) -> str | None:
    if cluster_id is None or cluster_id == ctx.cluster.cluster_id:
        return None
    return f'The given id "{cluster_id}" doesn\'t match the cluster id "{ctx.cluster.cluster_id}"'


def _add_voter_error(request: AddRaftVoterRequestValue, code: ErrorCode) -> AddRaftVoterResponseValue:
    return AddRaftVoterResponse(error_code=code, error_message=None)


@registry.api(AddRaftVoterRequest, AddRaftVoterResponse, "0-1", _add_voter_error)
async def add_raft_voter(ctx: RequestContext, request: AddRaftVoterRequestValue) -> AddRaftVoterResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return AddRaftVoterResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=_NO_CLUSTER)
    mismatch = _cluster_mismatch(ctx, request.cluster_id)
    if mismatch is not None:
        return AddRaftVoterResponse(error_code=ErrorCode.INCONSISTENT_CLUSTER_ID, error_message=mismatch)
    return AddRaftVoterResponse(
        error_code=ErrorCode.UNSUPPORTED_VERSION,
        error_message="Cluster doesn't support adding voter because the kraft.version feature is 0",
    )


def _remove_voter_error(request: RemoveRaftVoterRequestValue, code: ErrorCode) -> RemoveRaftVoterResponseValue:
    return RemoveRaftVoterResponse(error_code=code, error_message=None)


@registry.api(RemoveRaftVoterRequest, RemoveRaftVoterResponse, "0", _remove_voter_error)
async def remove_raft_voter(ctx: RequestContext, request: RemoveRaftVoterRequestValue) -> RemoveRaftVoterResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return RemoveRaftVoterResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=_NO_CLUSTER)
    mismatch = _cluster_mismatch(ctx, request.cluster_id)
    if mismatch is not None:
        return RemoveRaftVoterResponse(error_code=ErrorCode.INCONSISTENT_CLUSTER_ID, error_message=mismatch)
    return RemoveRaftVoterResponse(
        error_code=ErrorCode.UNSUPPORTED_VERSION,
        error_message="Cluster doesn't support removing voter because the kraft.version feature is 0",
    )


def _unregister_controller_error(
    request: UnregisterControllerRequestValue, code: ErrorCode
) -> UnregisterControllerResponseValue:
    return UnregisterControllerResponse(error_code=code, error_message=None)


@registry.api(UnregisterControllerRequest, UnregisterControllerResponse, "0", _unregister_controller_error)
async def unregister_controller(
    ctx: RequestContext, request: UnregisterControllerRequestValue
) -> UnregisterControllerResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return UnregisterControllerResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=needs_permission(ctx, "ALTER")
        )
    if request.controller_id == ctx.cluster.node_id:
        return UnregisterControllerResponse(
            error_code=ErrorCode.INVALID_REQUEST,
            error_message="Controller cannot unregister itself while it is active.",
        )
    return UnregisterControllerResponse(
        error_code=ErrorCode.CONTROLLER_ID_NOT_REGISTERED,
        error_message=f"Controller ID {request.controller_id} is not currently registered.",
    )


def _unregister_broker_error(request: UnregisterBrokerRequestValue, code: ErrorCode) -> UnregisterBrokerResponseValue:
    return UnregisterBrokerResponse(error_code=code, error_message=None)


@registry.api(UnregisterBrokerRequest, UnregisterBrokerResponse, "0", _unregister_broker_error)
async def unregister_broker(
    ctx: RequestContext, request: UnregisterBrokerRequestValue
) -> UnregisterBrokerResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return UnregisterBrokerResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=needs_permission(ctx, "ALTER")
        )
    if request.broker_id == ctx.cluster.node_id and ctx.cluster.registered:
        ctx.cluster.unregister()
        return UnregisterBrokerResponse(error_code=ErrorCode.NONE, error_message="")
    return UnregisterBrokerResponse(
        error_code=ErrorCode.BROKER_ID_NOT_REGISTERED,
        error_message=f"Broker ID {request.broker_id} is not currently registered",
    )
