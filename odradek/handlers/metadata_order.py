"""The order of the topics in Kafka's answer to a Metadata request that names them.

Kafka 4.4.0 (``KafkaApis.handleTopicMetadataRequest`` and ``getTopicMetadata``, checked against
the real broker with the probe sequence ``metadata.topic_order``) answers named topics so:

1. The requested names become a Scala 2.13 immutable ``Set``: request order up to four distinct
   names, the order of a CHAMP hash trie beyond (`odradek.java_order.scala_immutable_set_order`).
   The names the principal may describe (and, when the topic would be created, create) keep
   that set's order.
2. The existing topics among them are answered first, in that order.
3. The missing ones follow in the order of a ``java.util.HashSet`` copied from that whole set
   (existing names included) and then stripped of the existing names: the copy constructor
   sizes its table from the set's size, removals never shrink it, so each missing name's bucket
   is its spread ``String.hashCode`` masked by that table size, and names sharing a bucket keep
   the set's order (`missing_topics_order`).  When the request may create topics, Kafka hands
   that copy to its topic creation, which answers first the names it cannot create (an illegal
   name), in the copy's order, then the others in the order of a fresh ``java.util.HashMap``
   they are put into in the copy's order.

The table size is what Java 17's ``HashSet(Collection)`` picks, the runtime the probes start
Kafka on; later Java versions size that copy differently for some set sizes.
"""

from __future__ import annotations

from collections.abc import Callable

from odradek.cluster.topics import TopicError, validate_topic_name
from odradek.handlers.slices import LoopShare, run_in_slices
from odradek.java_order import (
    java_bucket_order_in_steps,
    java_hash_capacity,
    java_hash_order,
    java_hash_set_copy_capacity,
    java_hash_set_copy_order,
    string_hash,
)
from odradek.wire.codec import SLICE_ELEMENTS

__all__ = ["missing_topics_order", "missing_topics_order_in_slices"]


def missing_topics_order(
    missing: list[str | None],
    set_size: int,
    may_create: bool,
    hash_of: Callable[[str | None], int] = string_hash,
) -> list[str | None]:
    """The missing topics of a named Metadata request as Kafka lists them: ``missing`` are given
    in the order of the request's Scala set of names, ``set_size`` is that set's size (existing
    and missing names the principal may see), ``may_create`` whether the request creates them,
    ``hash_of`` a name's ``String.hashCode``."""
    copied = java_hash_set_copy_order(missing, hash_of, set_size)
    if not may_create:
        return copied
    creatable = [name for name in copied if _creatable(name)]
    return [name for name in copied if not _creatable(name)] + java_hash_order(creatable, hash_of)


async def missing_topics_order_in_slices(
    missing: list[tuple[str | None, int]], set_size: int, may_create: bool, share: LoopShare
) -> list[str | None]:
    """`missing_topics_order` sharing the loop (a request may name a hundred thousand missing
    topics): ``missing`` are the names with their ``String.hashCode``, and every pass over them
    goes a slice at a time (`odradek.java_order.java_bucket_order_in_steps`)."""
    if not missing:
        return []
    copy_capacity = java_hash_set_copy_capacity(set_size)
    if not may_create:
        return await run_in_slices(java_bucket_order_in_steps(missing, copy_capacity, SLICE_ELEMENTS), share)
    keyed: list[tuple[tuple[str | None, int], int]] = []  # the names keep their hashes through the copy
    for start in range(0, len(missing), SLICE_ELEMENTS):
        keyed += [(entry, entry[1]) for entry in missing[start : start + SLICE_ELEMENTS]]
        await share.share()
    copied = await run_in_slices(java_bucket_order_in_steps(keyed, copy_capacity, SLICE_ELEMENTS), share)
    illegal: list[str | None] = []
    creatable: list[tuple[str | None, int]] = []
    for start in range(0, len(copied), SLICE_ELEMENTS):
        for name, hash_code in copied[start : start + SLICE_ELEMENTS]:
            if _creatable(name):
                creatable.append((name, hash_code))
            else:
                illegal.append(name)
        await share.share()
    created = await run_in_slices(
        java_bucket_order_in_steps(creatable, java_hash_capacity(len(creatable)), SLICE_ELEMENTS), share
    )
    return illegal + created


def _creatable(name: str | None) -> bool:
    if name is None:
        return False
    try:
        validate_topic_name(name)
    except TopicError:
        return False
    return True
