"""The iteration orders of the hash tables Kafka builds its answers from.

Several of Kafka's answers list topics and partitions in the order a hash table iterates them,
not in request order: the topics of an AddPartitionsToTxn or WriteTxnMarkers result, the
partitions of a transaction in DescribeTransactions, the producers of DescribeProducers, the
topics of a Metadata answer (named ones and every topic).  To
answer entry for entry as Kafka does, odradek lists them in the same order.  Two tables matter:

- Java's ``HashMap``/``HashSet`` (and ``ConcurrentHashMap``, which spreads hashes the same way):
  a key goes to bucket ``(h ^ (h >>> 16)) & (capacity - 1)``; the capacity starts at 16 and
  doubles whenever the size exceeds three quarters of it; iteration goes bucket by bucket, and
  within a bucket in insertion order (resizing keeps that order).
- Scala 2.13's ``mutable.HashMap``: the same bucket index, but a bucket keeps its keys sorted by
  their spread hash (a signed int), and the table doubles as the size reaches three quarters.

- Scala 2.13's immutable ``Set`` (what ``toSet`` builds): up to four elements keep their first
  insertion order (``Set1`` .. ``Set4``); from five on it is a CHAMP trie keyed by the improved hash
  (``Hashing.improve``), five bits per level from the lowest: a node lists its own elements by
  their five bits, then its sub-nodes, each depth first, by theirs; keys whose 32-bit hashes are
  equal share a collision node at the bottom, in insertion order.

Hashes are Java's: ``String.hashCode`` (`odradek.java_hash`; `string_hash` takes null as 0, as
``Objects.hashCode`` does), ``Long.hashCode``, Kafka's ``TopicPartition.hashCode`` and
``Map.hashCode`` (`map_hash`, which a ``ClientQuotaEntity`` uses as its own).  Buckets that grow
past eight keys become trees in Java; with the handful of keys an answer holds that never
happens, and it is not modelled.  The security layer (SASL mechanisms, quota entities, SCRAM
users) and the transaction answers share this one module.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from operator import itemgetter
from typing import TypeVar

from odradek.java_hash import java_string_hash

__all__ = [
    "java_bucket_order_in_steps",
    "java_hash_capacity",
    "java_hash_order",
    "java_hash_set_copy_bucket",
    "java_hash_set_copy_capacity",
    "java_hash_set_copy_order",
    "java_long_hash",
    "map_hash",
    "scala_hash_set_order",
    "scala_immutable_set_order",
    "scala_immutable_set_order_in_steps",
    "scala_improved_hash",
    "scala_mutable_hash_capacity",
    "scala_mutable_hash_order",
    "scala_mutable_hash_order_in_steps",
    "string_hash",
    "topic_partition_hash",
]

K = TypeVar("K")

_MASK = 0xFFFFFFFF
_SIGN_BIT = 0x80000000


def _int32(value: int) -> int:
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


def topic_partition_hash(topic: str, partition: int) -> int:
    """Kafka's ``TopicPartition.hashCode``: ``31 * (31 + partition) + topic.hashCode()``."""
    return _int32(31 * (31 + partition) + java_string_hash(topic))


def string_hash(text: str | None) -> int:
    """``Objects.hashCode`` of a string: Java's ``String.hashCode``, 0 for null."""
    return 0 if text is None else java_string_hash(text)


def map_hash(entries: Mapping[str, str | None]) -> int:
    """Java's ``Map.hashCode`` of a map of strings: the sum of ``key.hashCode() ^ value.hashCode()``."""
    total = 0
    for key, value in entries.items():
        total += string_hash(key) ^ string_hash(value)
    return _int32(total)


def java_long_hash(value: int) -> int:
    """Java's ``Long.hashCode``: the two halves of the 64-bit value xored."""
    unsigned = value & 0xFFFFFFFFFFFFFFFF
    return _int32(unsigned ^ (unsigned >> 32))


def _spread(hash_code: int) -> int:
    h = hash_code & _MASK
    return _int32(h ^ (h >> 16))


def java_hash_capacity(size: int, initial_capacity: int = 16) -> int:
    """The table size of a Java ``HashMap``/``HashSet`` that received ``size`` distinct keys one by
    one: ``initial_capacity`` (16 by default; ``new HashMap<>(n)`` asks for n) rounded up to a power
    of two, doubled whenever the size exceeds three quarters of it (``new HashMap<>(2)`` holding two
    keys has 4 buckets)."""
    capacity = 1 << max(initial_capacity - 1, 0).bit_length()
    while size > capacity * 3 // 4:
        capacity *= 2
    return capacity


def java_hash_set_copy_capacity(copied_size: int) -> int:
    """The table size of ``new java.util.HashSet<>(source)`` where ``source`` holds ``copied_size``
    keys: Java 17's copy constructor sizes it to ``max(size / 0.75 + 1, 16)`` rounded up to a power
    of two, which holds every copied key without growing; removing keys never shrinks it."""
    wanted = max(int(copied_size / 0.75) + 1, 16)
    return 1 << (wanted - 1).bit_length()


def java_hash_order(keys: Iterable[K], hash_of: Callable[[K], int], initial_capacity: int = 16) -> list[K]:
    """The order a Java ``HashMap``/``HashSet`` made for ``initial_capacity`` keys that received
    ``keys`` in this order iterates them (a repeated key keeps its first place)."""
    unique = list(dict.fromkeys(keys))
    entries = [(key, hash_of(key)) for key in unique]
    capacity = java_hash_capacity(len(unique), initial_capacity)
    return _exhaust(java_bucket_order_in_steps(entries, capacity, len(unique) + 1))


def java_hash_set_copy_bucket(hash_code: int, copied_size: int) -> int:
    """The bucket of a key of hash ``hash_code`` in ``new java.util.HashSet<>(source)`` where
    ``source`` holds ``copied_size`` keys (`java_hash_set_copy_capacity`)."""
    return _spread(hash_code) & (java_hash_set_copy_capacity(copied_size) - 1)


def java_hash_set_copy_order(remaining: Sequence[K], hash_of: Callable[[K], int], copied_size: int) -> list[K]:
    """The order ``new java.util.HashSet<>(source)`` iterates the keys still in it after some were
    removed: ``remaining`` are those keys, distinct, in ``source``'s iteration order, and
    ``copied_size`` is ``source``'s size (`java_hash_set_copy_capacity`)."""
    entries = [(key, hash_of(key)) for key in remaining]
    capacity = java_hash_set_copy_capacity(copied_size)
    return _exhaust(java_bucket_order_in_steps(entries, capacity, len(entries) + 1))


def java_bucket_order_in_steps(
    entries: Sequence[tuple[K, int]], capacity: int, step: int = 256
) -> Generator[None, None, list[K]]:
    """The order a Java hash table of ``capacity`` buckets (a power of two) iterates distinct keys
    given as (key, ``hashCode``) in the order they were put in: bucket by bucket, a bucket's keys
    in that order.  A generator that stops after every ``step`` keys (its value is the order)."""
    return _bucket_order_in_steps(entries, capacity, step, by_hash_within_bucket=False)


def scala_mutable_hash_capacity(size: int) -> int:
    """The table size of a Scala 2.13 ``mutable.HashMap``/``HashSet`` that received ``size``
    distinct keys one by one: 16, doubled before an added key would bring the size to three
    quarters of it."""
    capacity = 16
    while size >= capacity * 3 // 4:
        capacity *= 2
    return capacity


def scala_mutable_hash_order(keys: Iterable[K], hash_of: Callable[[K], int]) -> list[K]:
    """The order a Scala 2.13 ``mutable.HashMap`` (or ``HashSet``) holding ``keys`` iterates them."""
    unique = list(dict.fromkeys(keys))
    return _exhaust(scala_mutable_hash_order_in_steps([(key, hash_of(key)) for key in unique], len(unique) + 1))


def scala_mutable_hash_order_in_steps(
    entries: Sequence[tuple[K, int]], step: int = 256
) -> Generator[None, None, list[K]]:
    """`scala_mutable_hash_order` of distinct keys given as (key, ``hashCode``), as a generator
    that stops after every ``step`` keys (its value is the order)."""
    capacity = scala_mutable_hash_capacity(len(entries))
    return _bucket_order_in_steps(entries, capacity, step, by_hash_within_bucket=True)


_GROUP_BITS = 8
"""`_bucket_order_in_steps` files keys into 2**8 groups of neighbouring buckets."""


def _bucket_order_in_steps(
    entries: Sequence[tuple[K, int]], capacity: int, step: int, *, by_hash_within_bucket: bool
) -> Generator[None, None, list[K]]:
    """Bucket by bucket (``capacity`` a power of two, a key's bucket its spread hash masked by it);
    within a bucket by the spread hash as a signed int (Scala) or in the order the keys were put
    in (Java).  Stops after every ``step`` keys; its value is the order.

    One sort of a hundred thousand keys would hold its caller for tens of milliseconds at once;
    the keys are filed into 256 groups of neighbouring buckets instead, a step at a time, and each
    group is sorted on its own (the sort is stable: keys sharing a bucket and, for Scala, a spread
    hash keep their order)."""
    mask = capacity - 1
    shift = max(mask.bit_length() - _GROUP_BITS, 0)
    groups: list[list[tuple[int, int, K]]] = [[] for _ in range((mask >> shift) + 1)]
    for start in range(0, len(entries), step):
        for key, hash_code in entries[start : start + step]:
            unsigned = hash_code & _MASK
            spread = unsigned ^ (unsigned >> 16)
            bucket = spread & mask
            # the spread hash with its sign bit flipped sorts as the signed int it is in Scala
            groups[bucket >> shift].append((bucket, spread ^ _SIGN_BIT if by_hash_within_bucket else 0, key))
        yield
    order: list[K] = []
    since_stop = 0
    by_position = itemgetter(0, 1)
    for group in groups:
        if shift or by_hash_within_bucket:
            group.sort(key=by_position)
        order += [key for _, _, key in group]
        since_stop += len(group)
        group.clear()  # freed a group at a time, not all at once when the generator ends
        if since_stop >= step:
            since_stop = 0
            yield
    return order


def _improve(hash_code: int) -> int:
    """Scala 2.13's ``Hashing.improve``, on 32-bit ints."""
    h = (hash_code + ~(hash_code << 9)) & _MASK
    h ^= h >> 14
    h = (h + (h << 4)) & _MASK
    return h ^ (h >> 10)


def scala_immutable_set_order(keys: Iterable[K], hash_of: Callable[[K], int]) -> list[K]:
    """The order a Scala 2.13 immutable ``Set`` built from ``keys`` (``toSet``) iterates them."""
    unique = list(dict.fromkeys(keys))
    return _exhaust(scala_immutable_set_order_in_steps([(key, scala_improved_hash(hash_of(key))) for key in unique]))


def scala_immutable_set_order_in_steps(
    improved: list[tuple[K, int]], step: int = 256
) -> Generator[None, None, list[K]]:
    """`scala_immutable_set_order` of distinct keys given with their `scala_improved_hash`, in the
    order they were added, as a generator that stops each time it has filed about ``step`` more
    keys into the trie's nodes, so that a caller can pause during a large set (its value is the order)."""
    if len(improved) <= 4:
        return [key for key, _ in improved]
    return (yield from _champ_order(improved, step))


def scala_hash_set_order(keys: Iterable[K], hash_of: Callable[[K], int]) -> list[K]:
    """The order a Scala 2.13 immutable ``HashSet`` (a CHAMP trie, whatever its size: what a set
    of more than four elements and the sets taken from it, e.g. by ``diff``, are) iterates ``keys``."""
    unique = list(dict.fromkeys(keys))
    return _exhaust(_champ_order([(key, scala_improved_hash(hash_of(key))) for key in unique], 256))


def scala_improved_hash(hash_code: int) -> int:
    """The hash a Scala 2.13 ``HashSet`` files a key under: ``Hashing.improve`` of its hash code."""
    return _improve(hash_code & _MASK)


def _champ_order(entries: list[tuple[K, int]], step: int) -> Generator[None, None, list[K]]:
    """The order of a CHAMP trie holding ``entries`` (key, improved hash, in the order they were
    added), depth first: a node lists the elements alone in their five-bit slot, by slot, then
    each slot shared by several (a sub-node), by slot.  Keys whose 32-bit hashes are all equal end
    in a collision node, in the order they were added.  Stops after every ``step`` keys filed."""
    order: list[K] = []
    nodes = [(entries, 0)]  # the nodes still to list, the next one last
    filed = 0
    while nodes:
        held, shift = nodes.pop()
        if shift >= 32:
            order.extend(key for key, _ in held)
            continue
        slots: dict[int, list[tuple[K, int]]] = {}
        for start in range(0, len(held), step):
            for entry in held[start : start + step]:
                slots.setdefault((entry[1] >> shift) & 31, []).append(entry)
            filed += min(step, len(held) - start)
            if filed >= step:
                filed = 0
                yield
        ordered = sorted(slots)
        order.extend(slots[slot][0][0] for slot in ordered if len(slots[slot]) == 1)
        nodes.extend((slots[slot], shift + 5) for slot in reversed(ordered) if len(slots[slot]) > 1)
    return order


def _exhaust(steps: Generator[None, None, list[K]]) -> list[K]:
    """A stepped order's value, without pausing."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: list[K] = done.value
            return result
