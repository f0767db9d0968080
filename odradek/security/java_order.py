"""The iteration order of a ``java.util.HashMap``, which Kafka's answers sometimes show.

A HashMap of default capacity 16 doubles whenever it holds more than three quarters of its capacity;
it iterates bucket by bucket, a bucket being ``(h ^ (h >>> 16)) & (capacity - 1)`` of the key's
``hashCode``, and within a bucket in insertion order (short chains).  `map_hash` is Java's
``Map.hashCode`` (the sum of ``key.hashCode() ^ value.hashCode()``), which a ``ClientQuotaEntity``
uses as its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from odradek.java_hash import java_string_hash

__all__ = ["hashmap_order", "map_hash", "string_hash"]

K = TypeVar("K")


def string_hash(text: str | None) -> int:
    return 0 if text is None else java_string_hash(text)


def map_hash(entries: Mapping[str, str | None]) -> int:
    total = 0
    for key, value in entries.items():
        total = (total + (string_hash(key) ^ string_hash(value))) & 0xFFFFFFFF
    return total - (1 << 32) if total & 0x80000000 else total


def hashmap_order(keys: Iterable[K], hash_of: Callable[[K], int]) -> list[K]:
    """``keys`` (distinct, in insertion order) in the order a HashMap holding them iterates."""
    ordered = list(keys)
    capacity = 16
    while len(ordered) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: K) -> int:
        value = hash_of(key) & 0xFFFFFFFF
        return (value ^ (value >> 16)) & (capacity - 1)

    return sorted(ordered, key=bucket)
