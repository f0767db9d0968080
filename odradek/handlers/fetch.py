"""Fetch (key 1), v4-v18, for consumers (replica fetching comes with replication).

- Sessions (v7+, KIP-227): see `odradek.fetch_sessions`; unknown session ->
  FETCH_SESSION_ID_NOT_FOUND, wrong epoch -> INVALID_FETCH_SESSION_EPOCH, as top-level errors.
- Reads: a fetch offset inside a batch returns that whole batch (the client skips the records
  before its offset).  The first partition with data returns at least one whole batch even
  when it is larger than the limits (KIP-74); later partitions whose first batch does not fit
  get no records.  Otherwise a read is Kafka's byte slice: exactly ``partition_max_bytes`` (or
  what is left of ``max_bytes``), so its last batch may be cut short, as Kafka's is (checked
  byte for byte with compat-tests/probes); clients drop a partial last batch.
- A partition with nothing new answers with an empty, non-null record set.
- v12+: a ``last_fetched_epoch`` that ends before the fetch offset in our leader epoch cache
  answers with that epoch's end as ``diverging_epoch`` and no records (truncation detection).
- Long poll: when fewer than ``min_bytes`` are ready and no partition has an error, wait up to
  what is left of ``max_wait_ms`` for an append to any requested partition
  (`PartitionsView.wait_for_data`), then read again.  `begin_fetch` is everything before the
  first wait, without an await: a fetch it answers needs no coroutine (`odradek.handlers.fetch_now`
  answers such frames from the connection's read callback); a long poll goes on in `FetchWait`.
- read_committed reads stop at the last stable offset and report the aborted transactions of
  the range read (`odradek.storage.committed_reads`); read_uncommitted reports none (null).
- v13+ names topics by id: an unknown id gets UNKNOWN_TOPIC_ID.
- Reads, leader epoch checks and offsets are the partitions service's
  (`odradek.partition.service.Partitions.read`).
- Record sets are never decoded here.  One of ``SPILL_BYTES`` or more goes into the response as
  the segment's `FileRegion` (the connection sends it with sendfile when it can); a smaller one
  is read into bytes, which costs less than a syscall of its own.  Only the last read of the
  long-poll loop is answered, and nothing is awaited between it and the send.
- The answer (but for a top-level session error) is a `FetchAnswer`: one tuple per partition listed,
  written straight into the frame by `odradek.wire.fetch_fast`, or built into the message value
  when the dispatcher needs one (see `odradek.handlers.registry.PreparedAnswer`).
"""

from __future__ import annotations

from dataclasses import dataclass

from odradek.fetch_sessions import FINAL_EPOCH, INITIAL_EPOCH, FetchSession, SessionPartition
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import PreparedAnswer, registry
from odradek.security.acl import AclOperation, ResourceType
from odradek.storage.region import FileRegion
from odradek.storage.txn_index import AbortedTxn
from odradek.wire.errors import ErrorCode
from odradek.wire.fetch_fast import AbortedAnswer, PartitionAnswer, TopicAnswer, encode_fetch_answer
from odradek.wire.messages.fetch import FetchRequest, FetchRequestValue, FetchResponse, FetchResponseValue
from odradek.wire.primitives import SPILL_BYTES, Part
from odradek.wire.schema import ZERO_UUID

_TopicResponse = FetchResponse.FetchableTopicResponse
_PartitionData = _TopicResponse.PartitionData
_AbortedTransaction = _PartitionData.AbortedTransaction
READ_COMMITTED = 1
# The per-partition tagged fields at their defaults (which are not sent), one instance each shared by
# every value `FetchAnswer.value` builds and never mutated.
_NO_DIVERGENCE = _PartitionData.EpochEndOffset()
_NO_LEADER = _PartitionData.LeaderIdAndEpoch()
_NO_SNAPSHOT = _PartitionData.SnapshotId()


@dataclass(slots=True)
class _Read:
    """The outcome of reading one partition once."""

    part: SessionPartition
    error: ErrorCode
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: bytes | FileRegion = b""
    diverging_epoch: tuple[int, int] | None = None
    aborted: tuple[AbortedTxn, ...] = ()


def _error(request: FetchRequestValue, code: ErrorCode) -> FetchResponseValue:
    return FetchResponse(error_code=code, session_id=0)


def _requested_partitions(ctx: RequestContext, request: FetchRequestValue, version: int) -> list[SessionPartition]:
    catalog = ctx.topics
    parts = []
    for topic in request.topics:
        if version >= 13:
            info = catalog.by_id(topic.topic_id)
            name = info.name if info is not None else ""
            topic_id = topic.topic_id
        else:
            name = topic.topic
            info = catalog.get(name)
            topic_id = info.topic_id if info is not None else ZERO_UUID
        for p in topic.partitions:
            parts.append(
                SessionPartition(
                    name,
                    topic_id,
                    p.partition,
                    p.fetch_offset,
                    p.partition_max_bytes,
                    p.current_leader_epoch,
                    p.last_fetched_epoch,
                )
            )
    return parts


def _read_one(
    ctx: RequestContext, part: SessionPartition, limit: int, first: bool, committed: bool, permitted: bool
) -> _Read:
    if not permitted:
        return _Read(part, ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1, -1, -1)
    read = ctx.partitions.read(
        part.topic,
        part.partition,
        part.fetch_offset,
        limit,
        current_leader_epoch=part.current_leader_epoch,
        first=first,
        committed=committed,
        last_fetched_epoch=part.last_fetched_epoch,
    )
    error = read.error
    if error == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and ctx.version >= 13 and ctx.topics.get(part.topic) is None:
        error = ErrorCode.UNKNOWN_TOPIC_ID
    region = read.records
    diverging = read.diverging_epoch
    return _Read(
        part,
        error,
        read.high_watermark,
        read.last_stable_offset,
        read.log_start_offset,
        b"" if region is None else region if region.length >= SPILL_BYTES else region.read(),
        None if diverging is None else (diverging.leader_epoch, diverging.end_offset),
        read.aborted,
    )


def _read_all(
    ctx: RequestContext, parts: list[SessionPartition], max_bytes: int, committed: bool
) -> tuple[list[_Read], int, bool]:
    """Each partition read once, in order: (the reads, the record bytes read, whether any failed)."""
    results = []
    budget = max_bytes
    first = True
    ready = 0
    failed = False
    permitted: dict[str, bool] = {}  # READ on each topic, asked once per pass over the partitions
    for part in parts:
        topic = part.topic
        allowed = permitted.get(topic)
        if allowed is None:
            allowed = permitted[topic] = not topic or ctx.authorize(AclOperation.READ, ResourceType.TOPIC, topic)
        limit = min(part.max_bytes, budget)
        outcome = _read_one(ctx, part, limit, first, committed, allowed)
        size = len(outcome.records)
        if size:
            first = False
            ready += size
            budget = max(0, budget - size)
        if outcome.error:
            failed = True
        results.append(outcome)
    return results, ready, failed


def _resolve_session(
    ctx: RequestContext, request: FetchRequestValue, version: int
) -> tuple[FetchSession | None, ErrorCode, bool]:
    """(session or None for sessionless, top-level error, whether the response is full)."""
    if version < 7:
        return None, ErrorCode.NONE, True
    cache = ctx.fetch_sessions
    if request.session_id == 0:
        if request.session_epoch == INITIAL_EPOCH:
            return cache.create(), ErrorCode.NONE, True
        return None, ErrorCode.NONE, True
    if request.session_epoch == FINAL_EPOCH:
        cache.remove(request.session_id)
        return None, ErrorCode.NONE, True
    if request.session_epoch == INITIAL_EPOCH:
        # A full fetch naming a session closes it and opens a new one (Kafka 4.3.1 does this).
        cache.remove(request.session_id)
        return cache.create(), ErrorCode.NONE, True
    session = cache.get(request.session_id)
    if session is None:
        return None, ErrorCode.FETCH_SESSION_ID_NOT_FOUND, False
    if session.next_epoch != request.session_epoch:
        return None, ErrorCode.INVALID_FETCH_SESSION_EPOCH, False
    return session, ErrorCode.NONE, False


@registry.api(FetchRequest, FetchResponse, "4-18", _error)
async def fetch(
    ctx: RequestContext, request: FetchRequestValue
) -> FetchResponseValue | PreparedAnswer[FetchResponseValue]:
    outcome = begin_fetch(ctx, request)
    if isinstance(outcome, FetchWait):
        return await outcome.finish()
    return outcome


def begin_fetch(ctx: RequestContext, request: FetchRequestValue) -> FetchResponseValue | FetchAnswer | FetchWait:
    """Everything a fetch does before it may wait: the session's update (exactly once per request)
    and the first read of every partition.  Returns the answer when that read decides it, else a
    `FetchWait` whose `FetchWait.finish` waits and answers (dropping it unfinished is allowed: the
    connection is gone)."""
    version = ctx.version
    session, error, full = _resolve_session(ctx, request, version)
    if error != ErrorCode.NONE:
        return FetchResponse(error_code=error, session_id=0, responses=[])
    requested = _requested_partitions(ctx, request, version)
    if session is None:
        parts = requested
    else:
        for forgotten in request.forgotten_topics_data:
            name = _forgotten_name(ctx, forgotten)
            for partition in forgotten.partitions:
                session.forget(name, partition)
        for part in requested:
            session.upsert(part)
        if not full:
            session.advance_epoch()
        parts = list(session.partitions.values())
    committed = request.isolation_level == READ_COMMITTED
    max_bytes = request.max_bytes if version >= 3 else 2**31 - 1
    remaining_ms = max(request.max_wait_ms, 0)
    session_id = session.session_id if session is not None else 0
    results, ready, failed = _read_all(ctx, parts, max_bytes, committed)
    if ready >= request.min_bytes or failed or remaining_ms <= 0 or ctx.connection.closed:
        return FetchAnswer(version, session_id, _respond(results, full, committed))
    return FetchWait(ctx, parts, full, committed, max_bytes, request.min_bytes, session_id, remaining_ms)


@dataclass(slots=True)
class FetchWait:
    """A fetch whose first read found fewer than ``min_bytes`` (and no error) with time left: the
    long poll.  `finish` waits for an append to any of its partitions (at most the time left),
    reads them all again, and repeats until the read decides; only the last read is answered."""

    ctx: RequestContext
    parts: list[SessionPartition]
    full: bool
    committed: bool
    max_bytes: int
    min_bytes: int
    session_id: int
    remaining_ms: int

    async def finish(self) -> FetchAnswer:
        ctx, parts = self.ctx, self.parts
        watched = [(p.topic, p.partition) for p in parts if p.topic]
        remaining_ms = self.remaining_ms
        while True:
            remaining_ms = await ctx.partitions.wait_for_data(watched, remaining_ms)
            results, ready, failed = _read_all(ctx, parts, self.max_bytes, self.committed)
            if ready >= self.min_bytes or failed or remaining_ms <= 0 or ctx.connection.closed:
                return FetchAnswer(ctx.version, self.session_id, _respond(results, self.full, self.committed))


def _forgotten_name(ctx: RequestContext, forgotten: FetchRequestValue.ForgottenTopic) -> str:
    if ctx.version >= 13:
        info = ctx.topics.by_id(forgotten.topic_id)
        return info.name if info is not None else ""
    return forgotten.topic


_UNREAD = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID)


def _aborted(r: _Read, committed: bool) -> AbortedAnswer:
    """Kafka's aborted-transactions field: an empty list for a partition refused before any read
    (unknown topic or partition), the read's aborted transactions under read_committed, null for
    read_uncommitted reads and failed reads (checked against Kafka with compat-tests/probes)."""
    if r.error in _UNREAD:
        return []
    if not committed or r.error != ErrorCode.NONE:
        return None
    return [(t.producer_id, t.first_offset) for t in r.aborted]


def _respond(results: list[_Read], full: bool, committed: bool) -> list[TopicAnswer]:
    """The partitions the answer lists (all of a full answer; those with news in an incremental one),
    grouped by topic in the order they were read, each remembered as sent."""
    topics: dict[tuple[str, bytes], list[PartitionAnswer]] = {}
    for r in results:
        part = r.part
        error = r.error
        high_watermark, last_stable, log_start = r.high_watermark, r.last_stable_offset, r.log_start_offset
        quiet = not r.records and error == ErrorCode.NONE and r.diverging_epoch is None
        if not full and quiet and not part.changed(high_watermark, last_stable, log_start):
            continue
        part.remember(high_watermark, last_stable, log_start)
        key = (part.topic, part.topic_id)
        partitions = topics.get(key)
        if partitions is None:
            partitions = topics[key] = []
        partitions.append(
            (
                part.partition,
                error,
                high_watermark,
                last_stable,
                log_start,
                _aborted(r, committed),
                r.records,
                r.diverging_epoch,
            )
        )
    return [(name, topic_id, partitions) for (name, topic_id), partitions in topics.items()]


class FetchAnswer(PreparedAnswer[FetchResponseValue]):
    """An answer without a top-level error, kept as the partitions' tuples of
    `odradek.wire.fetch_fast`: `frame` writes them straight into the response; `value` builds the
    message value the generic codec encodes to the same bytes."""

    __slots__ = ("_session_id", "_topics", "_version")

    def __init__(self, version: int, session_id: int, topics: list[TopicAnswer]) -> None:
        self._version = version
        self._session_id = session_id
        self._topics = topics

    def frame(self, correlation_id: int) -> list[Part]:
        return encode_fetch_answer(self._version, correlation_id, 0, ErrorCode.NONE, self._session_id, self._topics)

    def value(self) -> FetchResponseValue:
        by_id = self._version >= 13
        return FetchResponse(
            error_code=ErrorCode.NONE,
            session_id=self._session_id,
            responses=[
                _TopicResponse(
                    topic="" if by_id else name,
                    topic_id=topic_id if by_id else ZERO_UUID,
                    partitions=[_partition_data(answer) for answer in partitions],
                )
                for name, topic_id, partitions in self._topics
            ],
        )


def _partition_data(answer: PartitionAnswer) -> FetchResponseValue.FetchableTopicResponse.PartitionData:
    index, error, high_watermark, last_stable, log_start, aborted, records, diverging = answer
    return _PartitionData(
        partition_index=index,
        error_code=error,
        high_watermark=high_watermark,
        last_stable_offset=last_stable,
        log_start_offset=log_start,
        aborted_transactions=None
        if aborted is None
        else [_AbortedTransaction(producer_id=producer_id, first_offset=first) for producer_id, first in aborted],
        records=records,
        diverging_epoch=_NO_DIVERGENCE
        if diverging is None
        else _PartitionData.EpochEndOffset(epoch=diverging[0], end_offset=diverging[1]),
        current_leader=_NO_LEADER,
        snapshot_id=_NO_SNAPSHOT,
    )
