"""The Produce fast path: from the request frame to the answer frame without the generic codec's
value objects, the request context or the handler coroutine.

`ProduceFastPath.answer` takes the frames of the common shape: Produce v3-v13 read by
`odradek.wire.produce_fast` (no tagged fields), acks -1, 0 or 1, no transactional batch (the
attributes byte of each record set says so), every topic id known (v13).  For those, what
`odradek.handlers.produce.produce` does reduces to: WRITE on each topic (with an authorizer),
then each partition's append through the partitions service, translated as that handler
translates it, and the same answer encoded from pre-encoded pieces.  Anything else, and every
request while an interceptor, an emulated release or a client quota is in place, is `NOT_FAST`:
the dispatcher then takes the generic path, before anything was appended.  The dispatcher's
error policy holds here too: an exception while answering is logged and answered with
UNKNOWN_SERVER_ERROR for every partition.
"""

from __future__ import annotations

import logging
from typing import Final

from odradek.handlers.context import ClientConnection, Services
from odradek.handlers.slices import LARGE_REQUEST_BYTES
from odradek.partition.results import AppendResult
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.codec import SLICE_ELEMENTS
from odradek.wire.errors import ErrorCode
from odradek.wire.primitives import Part
from odradek.wire.produce_fast import (
    PartitionAnswer,
    ProduceRequestView,
    TopicAnswer,
    decode_produce,
    encode_produce_answer,
)
from odradek.wire.records.batch import ATTRIBUTES_OFFSET, BATCH_OVERHEAD, TRANSACTIONAL_MASK

__all__ = ["NOT_FAST", "NotFast", "ProduceFastPath"]

log = logging.getLogger("odradek.handlers")


class NotFast:
    """The type of `NOT_FAST`."""


NOT_FAST: Final = NotFast()
"""`ProduceFastPath.answer`'s word for "not this shape: take the generic path"."""

_NOT_LEADER_FIRST_VERSION = 10  # the answer tells the current leader from here on
_REFUSED_WRITE = AppendResult(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
_FAILED = AppendResult(ErrorCode.UNKNOWN_SERVER_ERROR)


class ProduceFastPath:
    """See the module docstring."""

    def __init__(self, services: Services) -> None:
        self._services = services

    def answer(self, body: bytearray, connection: ClientConnection) -> list[Part] | NotFast | None:
        """The response frame's parts, None (acks=0: no answer), or `NOT_FAST`."""
        # A large frame is decoded in slices by the generic path only when it has many partitions.
        limit = SLICE_ELEMENTS if len(body) >= LARGE_REQUEST_BYTES else len(body)
        request = decode_produce(body, limit)
        if request is None or request.acks not in (-1, 0, 1):
            return NOT_FAST
        names = self._names(request)
        if names is None:
            return NOT_FAST
        try:
            answers = self._append(request, names, connection)
        except Exception:
            log.exception("ProduceRequest v%d from %s failed", request.version, connection.peer)
            answers = [(key, [(index, _FAILED, None) for index, _ in data]) for _, key, data in request.topics]
        else:
            if request.acks == 0:
                return None
        return [encode_produce_answer(request.version, request.correlation_id, answers, 0)]

    def _names(self, request: ProduceRequestView) -> list[str] | None:
        """The request's topic names, or None when the request is not the fast path's: a
        transactional batch, or a topic id (v13) that names no topic."""
        names: list[str] = []
        topics = self._services.topics
        for name, _, partitions in request.topics:
            for _, records in partitions:
                if (
                    records is not None
                    and len(records) >= BATCH_OVERHEAD
                    and records[ATTRIBUTES_OFFSET + 1] & TRANSACTIONAL_MASK
                ):
                    return None
            if isinstance(name, bytes):
                info = topics.by_id(name)
                if info is None:
                    return None
                name = info.name
            names.append(name)
        return names

    def _append(self, request: ProduceRequestView, names: list[str], connection: ClientConnection) -> list[TopicAnswer]:
        """Each partition appended (or refused) in request order, as `produce.produce` does."""
        services = self._services
        partitions = services.partitions
        clock = services.clock
        authorizer = services.security.authorizer
        version = request.version
        tells_leader = version >= _NOT_LEADER_FIRST_VERSION
        answers: list[TopicAnswer] = []
        for name, (_, key, data) in zip(names, request.topics, strict=True):
            allowed = not authorizer.enabled or authorizer.authorize(
                connection.identity, AclOperation.WRITE, ResourceType.TOPIC, name
            )
            topic_answers: list[PartitionAnswer] = []
            for index, records in data:
                if not allowed:
                    topic_answers.append((index, _REFUSED_WRITE, None))
                    continue
                result = partitions.append(
                    name, index, records, version, clock.time_ms(), transaction_verified=True, verified_v2=False
                )
                leader = None
                if tells_leader and result.error is ErrorCode.NOT_LEADER_OR_FOLLOWER:
                    leadership = partitions.leadership(name, index)
                    leader = (leadership.leader_id, leadership.leader_epoch)
                topic_answers.append((index, result, leader))
            answers.append((key, topic_answers))
        return answers
