"""Metadata (key 3), v0-v13.

- A null topic list (v1+), or an empty one in v0, means every topic, internal ones included, in
  the hash order of the Scala set Kafka gathers their names in (`_every_topic`).
- A requested topic that does not exist is created when the request allows it (v4+ field,
  implied before v4) and ``auto.create.topics.enable`` is on; like Kafka 4.3.1 (checked with
  raw requests), that first answer carries UNKNOWN_TOPIC_OR_PARTITION and no partitions, and
  the client asks again; the next answer lists the topic.  Otherwise
  UNKNOWN_TOPIC_OR_PARTITION; an illegal name gets INVALID_TOPIC_EXCEPTION; an unknown topic id
  (v10+) gets UNKNOWN_TOPIC_ID.  When any requested topic carries an id, the names in the
  request are ignored, as Kafka does.
- Leaders, epochs and replicas are what the partitions service says (today: this broker leads
  every partition at leader epoch 0, with itself as the only replica).
- Authorized operations are reported only when asked for, also for a named topic answered with an
  error; they are the operations the authorizer allows this principal (everything without one).
- With an authorizer, as Kafka: a topic the principal may not DESCRIBE is left out of an "every
  topic" answer and answered TOPIC_AUTHORIZATION_FAILED when named (its existence is not disclosed);
  a missing topic it may describe but not CREATE (on the cluster or the topic) is answered
  TOPIC_AUTHORIZATION_FAILED instead of being created.
- Named topics are answered once each: existing ones first, in request order up to four names and
  beyond that in the order of Kafka's Scala hash set of the names; then the missing ones, in the
  order of the Java hash set Kafka copies them into (`odradek.handlers.metadata_order`); then those
  refused creation, then those refused description (`_by_names`).
- A request naming many topics, or an "every topic" answer over many, shares the event loop with
  the other connections while it is answered (`odradek.handlers.slices`); an "every topic"
  answer still lists the topics of one state of the catalog (`_every_topic`).
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from odradek.cluster.topics import TopicError, TopicInfo, validate_topic_name
from odradek.handlers.context import RequestContext
from odradek.handlers.metadata_order import missing_topics_order_in_slices
from odradek.handlers.partition_leaders import leader_fields
from odradek.handlers.registry import registry
from odradek.handlers.slices import LoopShare, empty_in_slices, run_in_slices
from odradek.java_order import (
    scala_immutable_set_order_in_steps,
    scala_improved_hash,
    scala_mutable_hash_order_in_steps,
    string_hash,
)
from odradek.partition.results import SHARED_LEADERSHIP_PARTITIONS, TopicLeadership
from odradek.security.acl import AclOperation, ResourceType
from odradek.wire.codec import SLICE_ELEMENTS
from odradek.wire.encoded_once import EncodedOnce
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.metadata import (
    MetadataRequest,
    MetadataRequestValue,
    MetadataResponse,
    MetadataResponseValue,
)
from odradek.wire.schema import ZERO_UUID

__all__ = ["topic_metadata"]

AUTHORIZED_OPERATIONS_OMITTED = -(2**31)
# READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS as AclOperation bits.
TOPIC_OPERATIONS = tuple(AclOperation(op) for op in (3, 4, 5, 6, 7, 8, 10, 11))
ALL_TOPIC_OPERATIONS = sum(1 << op for op in TOPIC_OPERATIONS)
# CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE: what
# Kafka 4.3.1 without an authorizer reports for the cluster (8096; no token operations).
CLUSTER_OPERATIONS = tuple(AclOperation(op) for op in (5, 7, 8, 9, 10, 11, 12))
ALL_CLUSTER_OPERATIONS = sum(1 << op for op in CLUSTER_OPERATIONS)
_Topic = MetadataResponse.MetadataResponseTopic
_NAME_SHARDS = 64
"""The sets of a request's names seen so far: one set of a hundred thousand names would grow by
copying itself whole (milliseconds at once), 64 grow a little at a time."""
_Partition = MetadataResponse.MetadataResponseTopic.MetadataResponsePartition
_EVERY_TOPIC_ATTEMPTS = 3


def _name_shards(names: int) -> int:
    """How many sets to file ``names`` names in: `_NAME_SHARDS` beyond a slice of names, else one
    (a set of a few names costs less than making and emptying 64)."""
    return _NAME_SHARDS if names > SLICE_ELEMENTS else 1


def cluster_operations(ctx: RequestContext) -> int:
    """The cluster operations this request's principal may do, as Kafka's bitfield."""
    return ctx.authorized_operations(ResourceType.CLUSTER, "kafka-cluster", CLUSTER_OPERATIONS)


def topic_operations(ctx: RequestContext, name: str) -> int:
    return ctx.authorized_operations(ResourceType.TOPIC, name, TOPIC_OPERATIONS)


def _error(request: MetadataRequestValue, code: ErrorCode) -> MetadataResponseValue:
    return MetadataResponse(error_code=code)


def topic_metadata(
    ctx: RequestContext, info: TopicInfo, with_operations: bool
) -> MetadataResponseValue.MetadataResponseTopic:
    return _Topic(
        error_code=ErrorCode.NONE,
        name=info.name,
        topic_id=info.topic_id,
        is_internal=info.internal,
        partitions=_partitions(ctx.partitions.topic_leadership(info.name, info.partitions)),
        topic_authorized_operations=topic_operations(ctx, info.name)
        if with_operations
        else AUTHORIZED_OPERATIONS_OMITTED,
    )


_ANSWERED_PARTITIONS: WeakKeyDictionary[
    TopicLeadership, list[MetadataResponseValue.MetadataResponseTopic.MetadataResponsePartition]
] = WeakKeyDictionary()
"""A large topic's partitions as answered, while its `TopicLeadership` stands: two hundred producers
starting at once each ask for the same thousand partitions (W6 of benchmarks/).  Every answer that
lists the topic shares the list, and each version's encoding of it (`EncodedOnce`); nothing changes
an answer's partitions after they are built (the encoder only reads them).  A topic of fewer than
`SHARED_LEADERSHIP_PARTITIONS` is built per answer."""


def _partitions(
    leadership: TopicLeadership,
) -> list[MetadataResponseValue.MetadataResponseTopic.MetadataResponsePartition]:
    shared = len(leadership.partitions) >= SHARED_LEADERSHIP_PARTITIONS
    answered = _ANSWERED_PARTITIONS.get(leadership) if shared else None
    if answered is None:
        built = (_Partition(**leader_fields(index, leader)) for index, leader in enumerate(leadership.partitions))
        if not shared:
            return list(built)
        answered = _ANSWERED_PARTITIONS[leadership] = EncodedOnce(built)
    return answered


def _missing(
    ctx: RequestContext, name: str | None, code: ErrorCode, with_ops: bool, topic_id: bytes = ZERO_UUID
) -> MetadataResponseValue.MetadataResponseTopic:
    """A topic answered with an error; like Kafka 4.3.1, a named one still carries the topic
    operations when they were asked for (checked with compat-tests/probes/versions.py).  The
    other fields keep the schema's defaults (zero id, not internal, no partitions, operations
    omitted): a request may name a hundred thousand missing topics, and each keyword passed costs."""
    if with_ops and name is not None:
        ops = topic_operations(ctx, name)
        return _Topic(error_code=code, name=name, topic_id=topic_id, topic_authorized_operations=ops)
    if topic_id is ZERO_UUID:
        return _Topic(error_code=code, name=name)
    return _Topic(error_code=code, name=name, topic_id=topic_id)


@registry.api(MetadataRequest, MetadataResponse, "0-13", _error)
async def metadata(ctx: RequestContext, request: MetadataRequestValue) -> MetadataResponseValue:
    cluster = ctx.cluster
    version = ctx.version
    with_ops = bool(request.include_topic_authorized_operations)
    allow_create = (request.allow_auto_topic_creation if version >= 4 else True) and (
        cluster.config.auto_create_topics_enable
    )
    topics: list[MetadataResponseValue.MetadataResponseTopic] = []
    share = LoopShare()
    try:
        if request.topics is None or (version == 0 and not request.topics):
            topics = await _every_topic(ctx, with_ops, share)
        elif version >= 10 and await _any_topic_id(request.topics, share):
            topics = await _by_ids(ctx, request.topics, with_ops, share)
        else:
            topics = await _by_names(ctx, request.topics, allow_create, with_ops, share)
    finally:
        share.done()  # the set order's slices may have paused the collector
    host, port = ctx.advertised
    registered = cluster.registered
    return MetadataResponse(
        brokers=[MetadataResponse.MetadataResponseBroker(node_id=cluster.node_id, host=host, port=port)]
        if registered
        else [],
        cluster_id=cluster.cluster_id,
        controller_id=cluster.node_id if registered else -1,
        topics=topics,
        cluster_authorized_operations=(
            cluster_operations(ctx) if request.include_cluster_authorized_operations else AUTHORIZED_OPERATIONS_OMITTED
        ),
        error_code=ErrorCode.NONE,
    )


async def _every_topic(
    ctx: RequestContext, with_ops: bool, share: LoopShare
) -> list[MetadataResponseValue.MetadataResponseTopic]:
    """Every topic the principal may describe, as of one state of the catalog, as Kafka answers
    from one metadata image: in the order of the Scala ``mutable.HashSet`` Kafka's handler
    gathers the described names in (`scala_mutable_hash_order_in_steps` of their
    ``String.hashCode``: a hash order of the described names; checked against Kafka 4.4.0 with
    31 topics and at the table's doublings, probe metadata.every_topic_order).  Names that share
    their whole hash keep the order Kafka's metadata image iterates them in, newest first
    (there a topic whose partitions change also moves to the front of its few namesakes by hash;
    odradek keeps creation order for them).  The answer is built a slice of topics at a time,
    and when the catalog changed meanwhile (its metadata offset moved: a topic created, deleted,
    grown or reconfigured) it is built again, up to `_EVERY_TOPIC_ATTEMPTS` times (then the last
    one stands: a catalog that changes during every attempt cannot hold the answer back forever)."""
    topics: list[MetadataResponseValue.MetadataResponseTopic] = []
    for _ in range(_EVERY_TOPIC_ATTEMPTS):
        offset = ctx.cluster.metadata_offset
        await empty_in_slices(share, topics)
        every = list(ctx.topics)
        every.reverse()  # newest first: where names share a hash, Kafka lists the newest first
        described: list[tuple[TopicInfo, int]] = []
        for start in range(0, len(every), SLICE_ELEMENTS):
            described += [
                (info, string_hash(info.name))
                for info in every[start : start + SLICE_ELEMENTS]
                if ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, info.name)
            ]
            await share.share()
        await empty_in_slices(share, every)
        ordered = await run_in_slices(scala_mutable_hash_order_in_steps(described, SLICE_ELEMENTS), share)
        await empty_in_slices(share, described)
        for start in range(0, len(ordered), SLICE_ELEMENTS):
            topics += [topic_metadata(ctx, info, with_ops) for info in ordered[start : start + SLICE_ELEMENTS]]
            await share.share()
        await empty_in_slices(share, ordered)
        if ctx.cluster.metadata_offset == offset:
            break
    return topics


async def _by_names(
    ctx: RequestContext,
    requested: list[MetadataRequestValue.MetadataRequestTopic],
    allow_create: bool,
    with_ops: bool,
    share: LoopShare,
) -> list[MetadataResponseValue.MetadataResponseTopic]:
    """Named topics as Kafka answers them: once per name, in the order of the Scala set the names
    make (request order up to four names, a hash order beyond: `scala_immutable_set_order`); the
    existing topics first, then the missing ones, then those refused creation, then those refused
    description (checked against Kafka 4.4.0 without an authorizer, probe metadata.topic_order).
    The missing ones follow in the order of the Java hash set Kafka copies the names into
    (`odradek.handlers.metadata_order`).  No topic id is in the request (else `_by_ids`), so a
    topic's answer depends on its name only.

    Each name's ``String.hashCode`` is computed once and travels with it through both orders.
    Whether a name exists is looked up once, when the names are sorted into existing and missing:
    the answer is what the catalog held then, also if a topic is created while it is answered.
    Every pass over the names goes a slice of names at a time, and the lists and the sets built
    here are emptied the same way before it returns: each is a hundred thousand entries long for
    a request naming as many topics, and one pass (or one free) over them at once would hold the
    loop for milliseconds (`odradek.handlers.slices`)."""
    shards = _name_shards(len(requested))
    seen: list[set[str | None]] = [set() for _ in range(shards)]
    improved: list[tuple[tuple[str | None, int], int]] = []
    for start in range(0, len(requested), SLICE_ELEMENTS):
        for wanted in requested[start : start + SLICE_ELEMENTS]:
            name = wanted.name
            shard = seen[hash(name) % shards]
            if name not in shard:
                shard.add(name)
                hash_code = string_hash(name)
                improved.append(((name, hash_code), scala_improved_hash(hash_code)))
        await share.share()
    order = await run_in_slices(scala_immutable_set_order_in_steps(improved, SLICE_ELEMENTS), share)
    may_create_all = ctx.authorize_cluster(AclOperation.CREATE)
    catalog = ctx.topics
    known: list[TopicInfo | None] = []
    missing: list[tuple[str | None, int]] = []
    refused_create: list[MetadataResponseValue.MetadataResponseTopic] = []
    refused_describe: list[MetadataResponseValue.MetadataResponseTopic] = []
    for start in range(0, len(order), SLICE_ELEMENTS):
        for entry in order[start : start + SLICE_ELEMENTS]:
            name = entry[0]
            if name is None:
                known.append(None)
                continue
            info = catalog.get(name)
            if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, name):
                refused_describe.append(_refused(name))
            elif (
                allow_create
                and info is None
                and not may_create_all
                and not ctx.authorize(AclOperation.CREATE, ResourceType.TOPIC, name)
            ):
                refused_create.append(_refused(name))
            elif info is not None:
                known.append(info)
            else:
                missing.append(entry)
        await share.share()
    answered: list[MetadataResponseValue.MetadataResponseTopic] = []
    for start in range(0, len(known), SLICE_ELEMENTS):
        answered += [
            _missing(ctx, None, ErrorCode.UNKNOWN_TOPIC_ID, with_ops)
            if info is None
            else topic_metadata(ctx, info, with_ops)
            for info in known[start : start + SLICE_ELEMENTS]
        ]
        await share.share()
    missing_names = await missing_topics_order_in_slices(missing, len(known) + len(missing), allow_create, share)
    for start in range(0, len(missing_names), SLICE_ELEMENTS):
        if allow_create:
            answered += [_created(ctx, name, with_ops) for name in missing_names[start : start + SLICE_ELEMENTS]]
        else:
            answered += [_not_found(ctx, name, with_ops) for name in missing_names[start : start + SLICE_ELEMENTS]]
        await share.share()
    await empty_in_slices(share, improved, order, known, missing, missing_names, *seen)
    answered += refused_create
    answered += refused_describe
    return answered


async def _any_topic_id(requested: list[MetadataRequestValue.MetadataRequestTopic], share: LoopShare) -> bool:
    """Whether any requested topic carries a topic id."""
    for start in range(0, len(requested), SLICE_ELEMENTS):
        if any(wanted.topic_id != ZERO_UUID for wanted in requested[start : start + SLICE_ELEMENTS]):
            return True
        await share.share()
    return False


def _refused(name: str) -> MetadataResponseValue.MetadataResponseTopic:
    return _Topic(
        error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        name=name,
        topic_id=ZERO_UUID,
        is_internal=False,
        partitions=[],
        topic_authorized_operations=AUTHORIZED_OPERATIONS_OMITTED,
    )


async def _by_ids(
    ctx: RequestContext,
    requested: list[MetadataRequestValue.MetadataRequestTopic],
    with_ops: bool,
    share: LoopShare,
) -> list[MetadataResponseValue.MetadataResponseTopic]:
    """Kafka's answer when any requested topic has an id: names in the request are ignored (and
    so are entries without an id), each id is answered once: the unknown ones first
    (UNKNOWN_TOPIC_ID, no name), then those the principal may not describe, then the known ones,
    each group in request order.  A slice of ids at a time, as `_by_names`."""
    catalog = ctx.topics
    shards = _name_shards(len(requested))
    seen: list[set[bytes]] = [set() for _ in range(shards)]
    unknown: list[MetadataResponseValue.MetadataResponseTopic] = []
    refused: list[MetadataResponseValue.MetadataResponseTopic] = []
    known: list[MetadataResponseValue.MetadataResponseTopic] = []
    for start in range(0, len(requested), SLICE_ELEMENTS):
        for wanted in requested[start : start + SLICE_ELEMENTS]:
            topic_id = wanted.topic_id
            shard = seen[hash(topic_id) % shards]
            if topic_id == ZERO_UUID or topic_id in shard:
                continue
            shard.add(topic_id)
            info = catalog.by_id(topic_id)
            if info is None:
                unknown.append(_missing(ctx, None, ErrorCode.UNKNOWN_TOPIC_ID, with_ops, topic_id))
            elif not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, info.name):
                refused.append(_missing(ctx, None, ErrorCode.TOPIC_AUTHORIZATION_FAILED, False, topic_id))
            else:
                known.append(topic_metadata(ctx, info, with_ops))
        await share.share()
    await empty_in_slices(share, *seen)
    unknown += refused
    unknown += known
    return unknown


def _not_found(ctx: RequestContext, name: str | None, with_ops: bool) -> MetadataResponseValue.MetadataResponseTopic:
    """A named topic that does not exist, when the request does not create it."""
    if name is None:
        return _missing(ctx, None, ErrorCode.UNKNOWN_TOPIC_ID, with_ops)
    try:
        validate_topic_name(name)
    except TopicError:
        return _missing(ctx, name, ErrorCode.INVALID_TOPIC_EXCEPTION, with_ops)
    return _missing(ctx, name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, with_ops)


def _created(ctx: RequestContext, name: str | None, with_ops: bool) -> MetadataResponseValue.MetadataResponseTopic:
    """A named topic that did not exist, when the request creates it: created now and, as Kafka
    answers the request that created it, still UNKNOWN_TOPIC_OR_PARTITION."""
    if name is None:
        return _missing(ctx, None, ErrorCode.UNKNOWN_TOPIC_ID, with_ops)
    info = ctx.topics.get(name)
    if info is not None:  # created meanwhile, by another request
        return topic_metadata(ctx, info, with_ops)
    try:
        validate_topic_name(name)
    except TopicError:
        return _missing(ctx, name, ErrorCode.INVALID_TOPIC_EXCEPTION, with_ops)
    try:
        ctx.topics.create(name, ctx.cluster.config.num_partitions, {})
    except TopicError as exc:
        return _missing(ctx, name, ErrorCode[exc.code_name], with_ops)
    return _missing(ctx, name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, with_ops)
