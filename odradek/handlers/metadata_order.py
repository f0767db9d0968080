"""The order of the topics in Kafka's answer to a Metadata request that names them.

Kafka 4.4.0 (``KafkaApis.handleTopicMetadataRequest`` and ``getTopicMetadata``, checked against
the real broker with the probe sequence ``metadata.topic_order``) answers named topics so:

1. The requested names become a Scala 2.13 immutable ``Set``: request order up to four distinct
   names, the order of a CHAMP hash trie beyond (`odradek.java_order.iter_scala_immutable_set_order`).
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
from odradek.java_order import java_hash_order, java_hash_set_copy_order, string_hash

__all__ = ["missing_topics_order"]


def missing_topics_order(
    missing: list[str | None],
    set_size: int,
    may_create: bool,
    hash_of: Callable[[str | None], int] = string_hash,
) -> list[str | None]:
    """The missing topics of a named Metadata request as Kafka lists them: ``missing`` are given
    in the order of the request's Scala set of names, ``set_size`` is that set's size (existing
    and missing names the principal may see), ``may_create`` whether the request creates them.
    ``hash_of`` gives a name's ``String.hashCode``; a caller that has them at hand already (a
    huge request hashes its names a slice at a time) passes a lookup."""
    copied = java_hash_set_copy_order(missing, hash_of, set_size)
    if not may_create:
        return copied
    creatable = [name for name in copied if _creatable(name)]
    return [name for name in copied if not _creatable(name)] + java_hash_order(creatable, hash_of)


def _creatable(name: str | None) -> bool:
    if name is None:
        return False
    try:
        validate_topic_name(name)
    except TopicError:
        return False
    return True
