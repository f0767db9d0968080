"""Java's ``String.hashCode``, which Kafka's observable orders and placements depend on.

The hash runs over UTF-16 code units, so a character outside the Basic Multilingual Plane
counts as its two surrogates, and wraps at 32 bits: ``s[0]*31^(n-1) + ... + s[n-1]``.

That sum is a number written in base 31 with the units as its digits.  An ASCII unit ``c`` is
below 128, so it is ``31 * (c // 31) + c % 31`` with both parts valid base-31 digits: the hash
of an ASCII string is ``31 * Q + R`` (mod 2**32), where ``Q`` and ``R`` are the base-31 numbers
whose digits are the units' quotients and remainders.  ``bytes.translate`` writes those two
digit strings and ``int(..., 31)`` reads them, both in C: about a third of the time of a Python
loop over the characters (a Metadata request may name 100,000 topics).  Other strings, and names
longer than `_DIGITS_AT_MOST`, take the loop over their UTF-16 units.
"""

from __future__ import annotations

__all__ = ["java_string_hash"]

_BASE31 = b"0123456789abcdefghijklmnopqrstu"
_QUOTIENT = bytes(_BASE31[min(unit // 31, 30)] for unit in range(256))
"""An ASCII unit's base-31 quotient digit (the entries past 127 are never used)."""
_REMAINDER = bytes(_BASE31[unit % 31] for unit in range(256))
"""An ASCII unit's base-31 remainder digit."""
_DIGITS_AT_MOST = 4000
"""The longest string read as base-31 digits: ``int()`` refuses more than 4,300 of them."""


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` of ``text`` as a signed 32-bit int."""
    if text.isascii() and 0 < len(text) <= _DIGITS_AT_MOST:
        units = text.encode("ascii")
        h = (31 * int(units.translate(_QUOTIENT), 31) + int(units.translate(_REMAINDER), 31)) & 0xFFFFFFFF
    else:
        h = _utf16_hash(text)
    return h - (1 << 32) if h & 0x80000000 else h


def _utf16_hash(text: str) -> int:
    """The hash as an unsigned 32-bit int, unit by unit."""
    units = text.encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + ((units[i] << 8) | units[i + 1])) & 0xFFFFFFFF
    return h
