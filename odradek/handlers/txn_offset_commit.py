"""TxnOffsetCommit (key 28), v0-6: a consumer's offsets committed inside a transaction.

In Kafka's order: without WRITE on the transactional id every partition answers
TRANSACTIONAL_ID_AUTHORIZATION_FAILED, without READ on the group GROUP_AUTHORIZATION_FAILED; a
topic without READ answers TOPIC_AUTHORIZATION_FAILED, an unknown topic or partition
UNKNOWN_TOPIC_OR_PARTITION (v6, by topic id: UNKNOWN_TOPIC_ID), and these are left out and
listed first; an empty group id answers INVALID_GROUP_ID; no ``__consumer_offsets`` yet (no
FindCoordinator for a group so far) COORDINATOR_NOT_AVAILABLE; the group's partition is then
verified with the transaction coordinator (`odradek.handlers.txn_verification`: v0-3 must have
sent AddOffsetsToTxn, v5+ adds the partition itself, transactions v2); then the group
coordinator checks the group and member (an unknown group with a generation is
ILLEGAL_GENERATION, v0-2 carry no member) and appends the offsets in the producer's
transaction, where they stay pending until its marker (`odradek.coordinator.txn_offsets`).  One
error answers every partition the coordinator saw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from odradek.coordinator.placement import OFFSETS_TOPIC
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.handlers.txn_verification import txn_offset_commit_verification, verify_write
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.txn import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestValue,
    TxnOffsetCommitResponse,
    TxnOffsetCommitResponseValue,
)

if TYPE_CHECKING:
    from odradek.coordinator.messages import CommitPartition


_Topic = TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic
_Partition = _Topic.TxnOffsetCommitResponsePartition


def _respond(
    request: TxnOffsetCommitRequestValue, answered: list[tuple[tuple[int, int], ErrorCode]]
) -> TxnOffsetCommitResponseValue:
    """The answer with each topic where its first partition was answered, and each topic's
    partitions in the order they were (Kafka's response builder)."""
    by_topic: dict[
        int, list[TxnOffsetCommitResponseValue.TxnOffsetCommitResponseTopic.TxnOffsetCommitResponsePartition]
    ]
    by_topic = {}
    for (ti, pi), error in answered:
        partition = request.topics[ti].partitions[pi].partition_index
        by_topic.setdefault(ti, []).append(_Partition(partition_index=partition, error_code=error))
    return TxnOffsetCommitResponse(
        topics=[
            _Topic(name=request.topics[ti].name, topic_id=request.topics[ti].topic_id, partitions=partitions)
            for ti, partitions in by_topic.items()
        ]
    )


def _error(request: TxnOffsetCommitRequestValue, code: ErrorCode) -> TxnOffsetCommitResponseValue:
    return _respond(
        request, [((ti, pi), code) for ti, t in enumerate(request.topics) for pi in range(len(t.partitions))]
    )


@registry.api(TxnOffsetCommitRequest, TxnOffsetCommitResponse, "0-6", _error)
async def txn_offset_commit(ctx: RequestContext, request: TxnOffsetCommitRequestValue) -> TxnOffsetCommitResponseValue:
    from odradek.coordinator.messages import CommitPartition

    if not ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id):
        return _error(request, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return _error(request, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    answered: list[tuple[tuple[int, int], ErrorCode]] = []
    accepted: list[tuple[tuple[int, int], CommitPartition]] = []
    for ti, topic in enumerate(request.topics):
        if ctx.version >= 6:
            info = ctx.topics.by_id(topic.topic_id)
            missing = ErrorCode.UNKNOWN_TOPIC_ID
        else:
            info = ctx.topics.get(topic.name)
            missing = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        name = info.name if info is not None else topic.name
        refused = None
        if not ctx.authorize(AclOperation.READ, ResourceType.TOPIC, name):
            refused = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        elif info is None:
            refused = missing
        for pi, p in enumerate(topic.partitions):
            if refused is not None:
                answered.append(((ti, pi), refused))
            elif info is None or not 0 <= p.partition_index < info.partitions:
                answered.append(((ti, pi), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
            else:
                commit = CommitPartition(
                    info.name, p.partition_index, p.committed_offset, p.committed_leader_epoch, p.committed_metadata
                )
                accepted.append(((ti, pi), commit))
    if accepted:
        answered.extend(zip((slot for slot, _ in accepted), _commit(ctx, request, accepted), strict=True))
    return _respond(request, answered)


def _commit(
    ctx: RequestContext, request: TxnOffsetCommitRequestValue, accepted: list[tuple[tuple[int, int], CommitPartition]]
) -> list[ErrorCode]:
    from odradek.coordinator.messages import CommitIdentity

    if not request.group_id:
        return [ErrorCode.INVALID_GROUP_ID] * len(accepted)
    if ctx.topics.get(OFFSETS_TOPIC) is None:
        return [ErrorCode.COORDINATOR_NOT_AVAILABLE] * len(accepted)
    offsets_partition = (OFFSETS_TOPIC, ctx.groups.partition_for(request.group_id))
    refused = verify_write(
        ctx,
        request.transactional_id,
        request.producer_id,
        request.producer_epoch,
        [offsets_partition],
        txn_offset_commit_verification(ctx.version),
    )
    if refused.refused:
        return [refused.refused[offsets_partition]] * len(accepted)
    who = CommitIdentity(
        request.group_id,
        request.generation_id_or_member_epoch if ctx.version >= 3 else -1,
        request.member_id if ctx.version >= 3 else "",
        request.group_instance_id if ctx.version >= 3 else None,
    )
    return ctx.groups.commit_txn_offsets(
        who, request.producer_id, request.producer_epoch, [c for _, c in accepted], ctx.version
    )
