"""Committed offsets: OffsetCommit (8) v2-10, OffsetFetch (9) v1-10, OffsetDelete (47) v0.

The rules are the coordinator's (`odradek.coordinator.offsets`); these handlers check topics
against the catalog and translate to and from the wire messages.

- OffsetCommit: an empty group id gives INVALID_GROUP_ID for every partition; a partition of an
  unknown topic UNKNOWN_TOPIC_OR_PARTITION (v10, by topic id: UNKNOWN_TOPIC_ID); v2-4 may set a
  retention time (the commit then carries an expire timestamp).  The answer comes after the
  commit is written to ``__consumer_offsets``.
- OffsetFetch: v1-7 for one group (v2+: null topics means every committed offset, with a
  top-level error), v8+ for a batch of groups; a partition without a committed offset answers
  offset -1, leader epoch -1, metadata "".  v10 names topics by id.
- OffsetDelete: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, or per partition GROUP_SUBSCRIBED_TO_TOPIC;
  answers in Kafka's order (refused partitions first, see `offset_delete`).
- Not implemented: ``require_stable`` has nothing to wait for until transactional offset
  commits exist (the transactions issue); it is accepted and has no effect.
"""

from __future__ import annotations

from odradek.coordinator.coordinator import CommitPartition
from odradek.coordinator.offsets import CommitIdentity
from odradek.coordinator.records import OffsetCommitValue
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestValue,
    OffsetCommitResponse,
    OffsetCommitResponseValue,
    OffsetDeleteRequest,
    OffsetDeleteRequestValue,
    OffsetDeleteResponse,
    OffsetDeleteResponseValue,
    OffsetFetchRequest,
    OffsetFetchRequestValue,
    OffsetFetchResponse,
    OffsetFetchResponseValue,
)
from odradek.wire.schema import ZERO_UUID

_CommitTopic = OffsetCommitResponse.OffsetCommitResponseTopic
_CommitPartition = _CommitTopic.OffsetCommitResponsePartition
_FetchTopic = OffsetFetchResponse.OffsetFetchResponseTopic
_FetchPartition = _FetchTopic.OffsetFetchResponsePartition
_FetchGroup = OffsetFetchResponse.OffsetFetchResponseGroup
_FetchTopics = _FetchGroup.OffsetFetchResponseTopics
_FetchPartitions = _FetchTopics.OffsetFetchResponsePartitions
_DeleteTopic = OffsetDeleteResponse.OffsetDeleteResponseTopic
_DeletePartition = _DeleteTopic.OffsetDeleteResponsePartition


def _topic_name(
    ctx: RequestContext,
    topic: OffsetCommitRequestValue.OffsetCommitRequestTopic
    | OffsetFetchRequestValue.OffsetFetchRequestGroup.OffsetFetchRequestTopics,
    by_id: bool,
) -> str | None:
    if by_id:
        info = ctx.topics.by_id(topic.topic_id)
        return info.name if info is not None else None
    return str(topic.name)


def _topic_id(ctx: RequestContext, name: str) -> bytes:
    info = ctx.topics.get(name)
    return info.topic_id if info is not None else ZERO_UUID


def _partition_exists(ctx: RequestContext, topic: str, partition: int) -> bool:
    info = ctx.topics.get(topic)
    return info is not None and 0 <= partition < info.partitions


# --------------------------------------------------------------------- OffsetCommit


def _commit_error(request: OffsetCommitRequestValue, code: ErrorCode) -> OffsetCommitResponseValue:
    return OffsetCommitResponse(
        topics=[
            _CommitTopic(
                name=t.name,
                topic_id=t.topic_id,
                partitions=[_CommitPartition(partition_index=p.partition_index, error_code=code) for p in t.partitions],
            )
            for t in request.topics
        ]
    )


@registry.api(OffsetCommitRequest, OffsetCommitResponse, "2-10", _commit_error)
async def offset_commit(ctx: RequestContext, request: OffsetCommitRequestValue) -> OffsetCommitResponseValue:
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return _commit_error(request, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if not request.group_id:
        return _commit_error(request, ErrorCode.INVALID_GROUP_ID)
    by_id = ctx.version >= 10
    errors: dict[tuple[int, int], ErrorCode] = {}
    accepted: list[tuple[tuple[int, int], CommitPartition]] = []
    for t_index, topic in enumerate(request.topics):
        name = _topic_name(ctx, topic, by_id)
        for p_index, p in enumerate(topic.partitions):
            slot = (t_index, p_index)
            if name is None:
                errors[slot] = ErrorCode.UNKNOWN_TOPIC_ID
            elif not ctx.authorize(AclOperation.READ, ResourceType.TOPIC, name):
                errors[slot] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            elif not _partition_exists(ctx, name, p.partition_index):
                errors[slot] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            else:
                commit = CommitPartition(
                    name, p.partition_index, p.committed_offset, p.committed_leader_epoch, p.committed_metadata
                )
                accepted.append((slot, commit))
    if accepted:
        who = CommitIdentity(
            request.group_id, request.generation_id_or_member_epoch, request.member_id, request.group_instance_id
        )
        retention = request.retention_time_ms if ctx.version <= 4 else -1
        results = ctx.groups.commit_offsets(who, [c for _, c in accepted], ctx.version, retention)
        for (slot, _), error in zip(accepted, results, strict=True):
            errors[slot] = error
    return OffsetCommitResponse(
        topics=[
            _CommitTopic(
                name=t.name,
                topic_id=t.topic_id,
                partitions=[
                    _CommitPartition(partition_index=p.partition_index, error_code=errors[(ti, pi)])
                    for pi, p in enumerate(t.partitions)
                ],
            )
            for ti, t in enumerate(request.topics)
        ]
    )


# ---------------------------------------------------------------------- OffsetFetch


def _fetch_error(request: OffsetFetchRequestValue, code: ErrorCode) -> OffsetFetchResponseValue:
    if request.groups:
        return OffsetFetchResponse(groups=[_FetchGroup(group_id=g.group_id, error_code=code) for g in request.groups])
    return OffsetFetchResponse(error_code=code)


def _committed(value: OffsetCommitValue | None) -> tuple[int, int, str]:
    if value is None:
        return -1, -1, ""
    return value.offset, value.leader_epoch, value.metadata


def _fetch_group(
    ctx: RequestContext, group_id: str, wanted: list[tuple[str | None, bytes, int]] | None
) -> tuple[ErrorCode, list[tuple[str | None, bytes, int, OffsetCommitValue | None, ErrorCode]]]:
    """(group error, [(topic, topic id, partition, committed, error)]) for one group.

    ``wanted`` None means every committed offset; a None topic name is an unknown topic id.
    """
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
        return ErrorCode.GROUP_AUTHORIZATION_FAILED, []
    coordinator = ctx.groups.coordinator
    known = None if wanted is None else [(t, p) for t, _, p in wanted if t is not None]
    error, found = coordinator.fetch_offsets(group_id, known)
    if error is not ErrorCode.NONE:
        return error, []

    def described(topic: str) -> bool:
        return ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, topic)

    if wanted is None:
        return ErrorCode.NONE, [(t, _topic_id(ctx, t), p, v, ErrorCode.NONE) for t, p, v in found if described(t)]
    values = {(t, p): v for t, p, v in found}
    rows: list[tuple[str | None, bytes, int, OffsetCommitValue | None, ErrorCode]] = []
    for topic, topic_id, partition in wanted:
        if topic is None:
            rows.append((None, topic_id, partition, None, ErrorCode.UNKNOWN_TOPIC_ID))
        elif not described(topic):
            rows.append((topic, topic_id, partition, None, ErrorCode.TOPIC_AUTHORIZATION_FAILED))
        else:
            rows.append((topic, topic_id, partition, values.get((topic, partition)), ErrorCode.NONE))
    return ErrorCode.NONE, rows


def _single_group(ctx: RequestContext, request: OffsetFetchRequestValue) -> OffsetFetchResponseValue:
    wanted: list[tuple[str | None, bytes, int]] | None = None
    if request.topics is not None:
        wanted = [(t.name, ZERO_UUID, p) for t in request.topics for p in t.partition_indexes]
    error, rows = _fetch_group(ctx, request.group_id, wanted)
    if error is not ErrorCode.NONE and ctx.version < 2:
        rows = [(t, i, p, None, error) for t, i, p in wanted or []]
    topics: dict[str, list[OffsetFetchResponseValue.OffsetFetchResponseTopic.OffsetFetchResponsePartition]] = {}
    for topic, _, partition, value, p_error in rows:
        offset, epoch, metadata = _committed(value)
        topics.setdefault(topic or "", []).append(
            _FetchPartition(
                partition_index=partition,
                committed_offset=offset,
                committed_leader_epoch=epoch,
                metadata=metadata,
                error_code=p_error,
            )
        )
    return OffsetFetchResponse(
        topics=[_FetchTopic(name=name, partitions=parts) for name, parts in topics.items()],
        error_code=error if ctx.version >= 2 else ErrorCode.NONE,
    )


def _many_groups(ctx: RequestContext, request: OffsetFetchRequestValue) -> OffsetFetchResponseValue:
    by_id = ctx.version >= 10
    groups = []
    for group in request.groups:
        wanted = None
        if group.topics is not None:
            wanted = [
                (_topic_name(ctx, t, by_id), t.topic_id if by_id else ZERO_UUID, p)
                for t in group.topics
                for p in t.partition_indexes
            ]
        error, rows = _fetch_group(ctx, group.group_id, wanted)
        topics: dict[
            tuple[str | None, bytes],
            list[
                OffsetFetchResponseValue.OffsetFetchResponseGroup.OffsetFetchResponseTopics.OffsetFetchResponsePartitions
            ],
        ] = {}
        for topic, topic_id, partition, value, p_error in rows:
            offset, epoch, metadata = _committed(value)
            topics.setdefault((topic, topic_id), []).append(
                _FetchPartitions(
                    partition_index=partition,
                    committed_offset=offset,
                    committed_leader_epoch=epoch,
                    metadata=metadata,
                    error_code=p_error,
                )
            )
        groups.append(
            _FetchGroup(
                group_id=group.group_id,
                error_code=error,
                topics=[
                    _FetchTopics(name=name or "", topic_id=topic_id if by_id else ZERO_UUID, partitions=parts)
                    for (name, topic_id), parts in topics.items()
                ],
            )
        )
    return OffsetFetchResponse(groups=groups)


@registry.api(OffsetFetchRequest, OffsetFetchResponse, "1-10", _fetch_error)
async def offset_fetch(ctx: RequestContext, request: OffsetFetchRequestValue) -> OffsetFetchResponseValue:
    if ctx.version >= 8:
        return _many_groups(ctx, request)
    return _single_group(ctx, request)


# --------------------------------------------------------------------- OffsetDelete


def _delete_error(request: OffsetDeleteRequestValue, code: ErrorCode) -> OffsetDeleteResponseValue:
    return OffsetDeleteResponse(error_code=code)


@registry.api(OffsetDeleteRequest, OffsetDeleteResponse, "0", _delete_error)
async def offset_delete(ctx: RequestContext, request: OffsetDeleteRequestValue) -> OffsetDeleteResponseValue:
    if not ctx.authorize(AclOperation.DELETE, ResourceType.GROUP, request.group_id):
        return _delete_error(request, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if not request.group_id:
        return _delete_error(request, ErrorCode.INVALID_GROUP_ID)
    # Kafka answers in the order it learns: the partitions it refuses itself (unknown topic or
    # partition), topic by topic, then the coordinator's answers appended to their topic's entry
    # (a topic with no refused partition is first named there, so it comes after).
    answered: dict[str, list[OffsetDeleteResponseValue.OffsetDeleteResponseTopic.OffsetDeleteResponsePartition]] = {}
    known: list[tuple[str, int]] = []
    for topic in request.topics:
        readable = ctx.authorize(AclOperation.READ, ResourceType.TOPIC, topic.name)
        for p in topic.partitions:
            if not readable:
                answered.setdefault(topic.name, []).append(
                    _DeletePartition(partition_index=p.partition_index, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                )
            elif _partition_exists(ctx, topic.name, p.partition_index):
                known.append((topic.name, p.partition_index))
            else:
                answered.setdefault(topic.name, []).append(
                    _DeletePartition(partition_index=p.partition_index, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                )
    error, results = ctx.groups.delete_offsets(request.group_id, known)
    if error is not ErrorCode.NONE:
        return _delete_error(request, error)
    for (name, partition), code in zip(known, results, strict=True):
        answered.setdefault(name, []).append(_DeletePartition(partition_index=partition, error_code=code))
    return OffsetDeleteResponse(
        error_code=ErrorCode.NONE,
        topics=[_DeleteTopic(name=name, partitions=partitions) for name, partitions in answered.items()],
    )
