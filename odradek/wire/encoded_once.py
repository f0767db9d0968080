"""An array of structs that many answers share, encoded once per wire version.

Some answers repeat an array that does not change between requests: a large topic's partitions in
Metadata, asked for by every producer that starts (two hundred producers over one thousand
partitions in W6 of benchmarks/).  Building the structs once is not enough when encoding them is
most of the cost, so `EncodedOnce` also keeps the bytes: the generated encoder of an array of
structs (`odradek.wire.compiler`) writes an `EncodedOnce` by copying the bytes its element encoder
produced the first time, and encodes any other list element by element.

Invariants:
- an `EncodedOnce` is a ``list``: everything that reads an answer (interceptors, the journal, a
  release's emulation, tests) sees its elements as usual;
- neither the list nor its elements change once it is built (its owner shares it read-only): the
  kept bytes are what encoding the elements gives;
- the bytes are kept per element encoder, one per (struct, version, flexible), so versions never
  share them; the array's length prefix is written by the caller from ``len``, as for any list;
- only arrays whose elements never set a payload aside (no record sets) are kept: their encoding
  is one contiguous run of bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from odradek.wire.primitives import Writer

__all__ = ["EncodedOnce"]

T = TypeVar("T")

ElementEncoder = Callable[[Writer, Any], None]


class EncodedOnce(list[T]):
    """A read-only-by-contract list of structs whose encoding is kept per element encoder."""

    __slots__ = ("encodings",)

    def __init__(self, items: Iterable[T] = ()) -> None:
        super().__init__(items)
        self.encodings: dict[ElementEncoder, bytes] = {}

    def encoded(self, encode: ElementEncoder) -> bytes:
        """The elements encoded one after the other by ``encode``: the first time by encoding them,
        then from the kept bytes.  Two threads encoding the same list at once both compute it;
        either result is the same bytes."""
        data = self.encodings.get(encode)
        if data is None:
            w = Writer()
            for item in self:
                encode(w, item)
            data = self.encodings[encode] = bytes(w.buf)
        return data
