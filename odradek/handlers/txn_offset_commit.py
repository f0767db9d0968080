"""TxnOffsetCommit (key 28), v0-6: a consumer's offsets committed inside a transaction.

In Kafka's order: a partition of an unknown topic answers UNKNOWN_TOPIC_OR_PARTITION (v6, by
topic id: UNKNOWN_TOPIC_ID) and is left out; an empty group id answers INVALID_GROUP_ID; the
group's ``__consumer_offsets`` partition is then verified with the transaction coordinator
(`odradek.handlers.txn_verification`: v0-3 must have sent AddOffsetsToTxn, v5+ adds the
partition itself, transactions v2); then the group coordinator checks the group and member
(an unknown group with a generation is ILLEGAL_GENERATION, v0-2 carry no member) and appends
the offsets in the producer's transaction, where they stay pending until its marker
(`odradek.coordinator.txn_offsets`).  One error answers every partition the coordinator saw.
"""

from __future__ import annotations

from odradek.coordinator.coordinator import CommitPartition
from odradek.coordinator.offsets import CommitIdentity
from odradek.coordinator.placement import OFFSETS_TOPIC
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.handlers.txn_verification import txn_offset_commit_verification, verify_write
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.txn import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestValue,
    TxnOffsetCommitResponse,
    TxnOffsetCommitResponseValue,
)

_Topic = TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic
_Partition = _Topic.TxnOffsetCommitResponsePartition


def _respond(
    request: TxnOffsetCommitRequestValue, errors: dict[tuple[int, int], ErrorCode]
) -> TxnOffsetCommitResponseValue:
    return TxnOffsetCommitResponse(
        topics=[
            _Topic(
                name=t.name,
                topic_id=t.topic_id,
                partitions=[
                    _Partition(partition_index=p.partition_index, error_code=errors[(ti, pi)])
                    for pi, p in enumerate(t.partitions)
                ],
            )
            for ti, t in enumerate(request.topics)
        ]
    )


def _error(request: TxnOffsetCommitRequestValue, code: ErrorCode) -> TxnOffsetCommitResponseValue:
    return _respond(request, {(ti, pi): code for ti, t in enumerate(request.topics) for pi in range(len(t.partitions))})


@registry.api(TxnOffsetCommitRequest, TxnOffsetCommitResponse, "0-6", _error)
async def txn_offset_commit(ctx: RequestContext, request: TxnOffsetCommitRequestValue) -> TxnOffsetCommitResponseValue:
    errors: dict[tuple[int, int], ErrorCode] = {}
    accepted: list[tuple[tuple[int, int], CommitPartition]] = []
    for ti, topic in enumerate(request.topics):
        if ctx.version >= 6:
            info = ctx.topics.by_id(topic.topic_id)
            missing = ErrorCode.UNKNOWN_TOPIC_ID
        else:
            info = ctx.topics.get(topic.name)
            missing = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        for pi, p in enumerate(topic.partitions):
            if info is None or not 0 <= p.partition_index < info.partitions:
                errors[(ti, pi)] = missing if info is None else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            commit = CommitPartition(
                info.name, p.partition_index, p.committed_offset, p.committed_leader_epoch, p.committed_metadata
            )
            accepted.append(((ti, pi), commit))
    if accepted:
        for slot, error in zip((slot for slot, _ in accepted), _commit(ctx, request, accepted), strict=True):
            errors[slot] = error
    return _respond(request, errors)


def _commit(
    ctx: RequestContext, request: TxnOffsetCommitRequestValue, accepted: list[tuple[tuple[int, int], CommitPartition]]
) -> list[ErrorCode]:
    if not request.group_id:
        return [ErrorCode.INVALID_GROUP_ID] * len(accepted)
    ctx.groups.ensure_topic()
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
