"""DescribeCluster (key 60) v0-2, DescribeLogDirs (key 35) v1-5, AlterReplicaLogDirs (key 34) v1-2.

DescribeCluster answers for the broker endpoints (endpoint type 1) with this single broker as
the only broker and as the controller id, as a KRaft broker does for its clients; asking a
broker for controller endpoints (type 2) gets MISMATCHED_ENDPOINT_TYPE, any other type
UNSUPPORTED_ENDPOINT_TYPE, both with Kafka 4.4's messages, no brokers and controller -1 (checked
with compat-tests/probes, sequence cluster.describe_cluster).

DescribeLogDirs reports every data directory (``log.dirs``) with the partitions it holds, the
real size of each one's segments and the filesystem's total and usable bytes (v4+); a null topic
list means every partition.

AlterReplicaLogDirs moves partitions between the data directories for real
(`odradek.partition.log_dirs`), answered before the copy finishes, as Kafka answers: a path that
is not one of the data directories (relative ones included) is LOG_DIR_NOT_FOUND, an unknown
topic or partition UNKNOWN_TOPIC_OR_PARTITION; a partition named for several directories goes to
the last one and is answered once (compat-tests/probes, sequence log_dirs.two_directories); a
principal that may not ALTER the cluster gets CLUSTER_AUTHORIZATION_FAILED on every partition.
"""

from __future__ import annotations

import os

from odradek.handlers.context import RequestContext
from odradek.handlers.metadata import AUTHORIZED_OPERATIONS_OMITTED, cluster_operations
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.cluster import (
    AlterReplicaLogDirsRequest,
    AlterReplicaLogDirsRequestValue,
    AlterReplicaLogDirsResponse,
    AlterReplicaLogDirsResponseValue,
    DescribeClusterRequest,
    DescribeClusterRequestValue,
    DescribeClusterResponse,
    DescribeClusterResponseValue,
    DescribeLogDirsRequest,
    DescribeLogDirsRequestValue,
    DescribeLogDirsResponse,
    DescribeLogDirsResponseValue,
)

BROKER_ENDPOINTS, CONTROLLER_ENDPOINTS = 1, 2


def _cluster_error(request: DescribeClusterRequestValue, code: ErrorCode) -> DescribeClusterResponseValue:
    return DescribeClusterResponse(error_code=code, cluster_id="")


@registry.api(DescribeClusterRequest, DescribeClusterResponse, "0-2", _cluster_error)
async def describe_cluster(ctx: RequestContext, request: DescribeClusterRequestValue) -> DescribeClusterResponseValue:
    cluster = ctx.cluster
    if request.endpoint_type != BROKER_ENDPOINTS:
        if request.endpoint_type == CONTROLLER_ENDPOINTS:
            code = ErrorCode.MISMATCHED_ENDPOINT_TYPE
            message = "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER"
        else:
            code, message = ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, f"Unsupported endpoint type {request.endpoint_type}"
        return DescribeClusterResponse(
            error_code=code, error_message=message, endpoint_type=BROKER_ENDPOINTS, cluster_id=cluster.cluster_id
        )
    host, port = ctx.advertised
    node = cluster.node_id
    registered = cluster.registered
    return DescribeClusterResponse(
        error_code=ErrorCode.NONE,
        endpoint_type=BROKER_ENDPOINTS,
        cluster_id=cluster.cluster_id,
        controller_id=node if registered else -1,
        brokers=[DescribeClusterResponse.DescribeClusterBroker(broker_id=node, host=host, port=port)]
        if registered
        else [],
        cluster_authorized_operations=(
            cluster_operations(ctx) if request.include_cluster_authorized_operations else AUTHORIZED_OPERATIONS_OMITTED
        ),
    )


_Result = DescribeLogDirsResponse.DescribeLogDirsResult
_Topic = _Result.DescribeLogDirsTopic


def _log_dirs_error(request: DescribeLogDirsRequestValue, code: ErrorCode) -> DescribeLogDirsResponseValue:
    return DescribeLogDirsResponse(error_code=code)


@registry.api(DescribeLogDirsRequest, DescribeLogDirsResponse, "1-5", _log_dirs_error)
async def describe_log_dirs(ctx: RequestContext, request: DescribeLogDirsRequestValue) -> DescribeLogDirsResponseValue:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        return DescribeLogDirsResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    wanted: dict[str, set[int]] | None = None
    if request.topics is not None:
        wanted = {t.topic: set(t.partitions) for t in request.topics}
    by_dir: dict[
        str,
        dict[
            str, list[DescribeLogDirsResponseValue.DescribeLogDirsResult.DescribeLogDirsTopic.DescribeLogDirsPartition]
        ],
    ] = {data_dir: {} for data_dir in ctx.log_dirs.data_dirs}
    for replica in ctx.log_dirs.replicas():
        if wanted is not None and replica.partition not in wanted.get(replica.topic, ()):
            continue
        by_dir.setdefault(replica.data_dir, {}).setdefault(replica.topic, []).append(
            _Topic.DescribeLogDirsPartition(partition_index=replica.partition, partition_size=replica.size)
        )
    results = []
    for data_dir, topics in by_dir.items():
        stats = os.statvfs(data_dir)
        results.append(
            _Result(
                error_code=ErrorCode.NONE,
                log_dir=data_dir,
                topics=[
                    _Topic(name=name, partitions=sorted(parts, key=lambda p: p.partition_index))
                    for name, parts in sorted(topics.items())
                ],
                total_bytes=stats.f_blocks * stats.f_frsize,
                usable_bytes=stats.f_bavail * stats.f_frsize,
            )
        )
    return DescribeLogDirsResponse(error_code=ErrorCode.NONE, results=results)


_MoveResult = AlterReplicaLogDirsResponse.AlterReplicaLogDirTopicResult


def _move_error(request: AlterReplicaLogDirsRequestValue, code: ErrorCode) -> AlterReplicaLogDirsResponseValue:
    topics: dict[str, dict[int, ErrorCode]] = {}
    for directory in request.dirs:
        for topic in directory.topics:
            topics.setdefault(topic.name, {}).update(dict.fromkeys(topic.partitions, code))
    return _move_results(topics)


def _move_results(topics: dict[str, dict[int, ErrorCode]]) -> AlterReplicaLogDirsResponseValue:
    return AlterReplicaLogDirsResponse(
        results=[
            _MoveResult(
                topic_name=name,
                partitions=[
                    _MoveResult.AlterReplicaLogDirPartitionResult(partition_index=p, error_code=code)
                    for p, code in partitions.items()
                ],
            )
            for name, partitions in topics.items()
        ]
    )


@registry.api(AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse, "1-2", _move_error)
async def alter_replica_log_dirs(
    ctx: RequestContext, request: AlterReplicaLogDirsRequestValue
) -> AlterReplicaLogDirsResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return _move_error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    destinations: dict[tuple[str, int], str] = {}
    for directory in request.dirs:
        for topic in directory.topics:
            for partition in topic.partitions:
                destinations[(topic.name, partition)] = directory.path
    topics: dict[str, dict[int, ErrorCode]] = {}
    for (name, partition), path in destinations.items():
        topics.setdefault(name, {})[partition] = ctx.log_dirs.move(name, partition, path)
    return _move_results(topics)
