"""DescribeCluster (key 60) v0-2 and DescribeLogDirs (key 35) v1-5.

DescribeCluster answers for the broker endpoints (endpoint type 1) with this single broker as
the only broker and as the controller id, as a KRaft broker does for its clients; asking a
broker for controller endpoints (type 2) gets MISMATCHED_ENDPOINT_TYPE, any other type
UNSUPPORTED_ENDPOINT_TYPE.  DescribeLogDirs reports the one data directory with the real size
of each partition's segments and the filesystem's total and usable bytes (v4+); a null topic
list means every partition.
"""

from __future__ import annotations

import os

from odradek.handlers.context import RequestContext
from odradek.handlers.metadata import AUTHORIZED_OPERATIONS_OMITTED, cluster_operations
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.cluster import (
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
        code = (
            ErrorCode.MISMATCHED_ENDPOINT_TYPE
            if request.endpoint_type == CONTROLLER_ENDPOINTS
            else ErrorCode.UNSUPPORTED_ENDPOINT_TYPE
        )
        return DescribeClusterResponse(
            error_code=code,
            error_message=f"The request was sent to an endpoint of type {BROKER_ENDPOINTS}, but we wanted an "
            f"endpoint of type {request.endpoint_type}",
            endpoint_type=request.endpoint_type,
            cluster_id=cluster.cluster_id,
        )
    host, port = ctx.advertised
    node = cluster.node_id
    return DescribeClusterResponse(
        error_code=ErrorCode.NONE,
        endpoint_type=BROKER_ENDPOINTS,
        cluster_id=cluster.cluster_id,
        controller_id=node,
        brokers=[DescribeClusterResponse.DescribeClusterBroker(broker_id=node, host=host, port=port)],
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
    sizes: dict[
        str, list[DescribeLogDirsResponseValue.DescribeLogDirsResult.DescribeLogDirsTopic.DescribeLogDirsPartition]
    ] = {}
    for topic, partition, size in ctx.partitions.partition_sizes():
        if wanted is not None and partition not in wanted.get(topic, ()):
            continue
        sizes.setdefault(topic, []).append(
            _Topic.DescribeLogDirsPartition(partition_index=partition, partition_size=size)
        )
    data_dir = os.path.abspath(ctx.partitions.log_dir)
    stats = os.statvfs(data_dir)
    return DescribeLogDirsResponse(
        error_code=ErrorCode.NONE,
        results=[
            _Result(
                error_code=ErrorCode.NONE,
                log_dir=data_dir,
                topics=[_Topic(name=name, partitions=parts) for name, parts in sorted(sizes.items())],
                total_bytes=stats.f_blocks * stats.f_frsize,
                usable_bytes=stats.f_bavail * stats.f_frsize,
            )
        ],
    )
