"""Fetch answers written straight into the response frame, without a value object per partition.

The generic codec (`odradek.wire.codec`) encodes a `FetchResponse` value, which needs one
`PartitionData` (and its nested tagged structs) per partition: for a fetch of many partitions,
building those objects cost more than everything else the broker did for the request.  This
module writes the same answer from plain tuples, byte for byte what the generic codec writes for
the equivalent value (`tests/unit/wire/test_fetch_fast.py` checks that over every version).

`encode_fetch_answer` takes Fetch v4-v18 and writes the size prefix, the response header (v0, or
v1 from v12) and the body.  Record sets go through `Writer.payload`, so a large one or a file part
stays a part of its own (sent with sendfile), as the generic codec leaves it.  What the tuples
cannot say is never written: ``preferred_read_replica`` is -1 (v11+), the ``current_leader`` and
``snapshot_id`` tags stay at their defaults, ``node_endpoints`` (v16+) is empty; the
``diverging_epoch`` tag (v12+) is written when the partition carries one other than (-1, -1).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from odradek.wire.codegen import put_string, put_uvarint
from odradek.wire.primitives import Part, Writer

__all__ = [
    "FIRST_VERSION",
    "LAST_VERSION",
    "AbortedAnswer",
    "PartitionAnswer",
    "TopicAnswer",
    "encode_fetch_answer",
]

FIRST_VERSION = 4
LAST_VERSION = 18
_FIRST_SESSION = 7
_FIRST_LOG_START_OFFSET = 5
_FIRST_PREFERRED_REPLICA = 11
_FIRST_FLEXIBLE = 12
_FIRST_TOPIC_ID = 13

_I32 = struct.Struct(">i")
_FRAME_START = struct.Struct(">ii")  # size (patched last), correlation id
_TOP = struct.Struct(">ihi")  # throttle time, error code, session id (v7+)
_ABORTED = struct.Struct(">qq")  # producer id, first offset
_FIXED_V4 = struct.Struct(">ihqq")  # index, error, high watermark, last stable offset
_FIXED = struct.Struct(">ihqqq")  # ... and log start offset (v5+)
_DIVERGING_TAG = struct.Struct(">BBBiqB")  # one tag: tag 0, size 13, epoch, end offset, no tags
_NO_PREFERRED_REPLICA = b"\xff\xff\xff\xff"

AbortedAnswer = Sequence[tuple[int, int]] | None
"""A partition's aborted transactions as (producer id, first offset), or None for null."""
PartitionAnswer = tuple[int, int, int, int, int, AbortedAnswer, Part, tuple[int, int] | None]
"""Index, error code, high watermark, last stable offset, log start offset, aborted transactions,
the record set (never null), and the diverging epoch as (epoch, end offset) or None."""
TopicAnswer = tuple[str, bytes, Sequence[PartitionAnswer]]
"""A topic's name (written before v13), its id (written from v13), its partitions' answers."""


def encode_fetch_answer(
    version: int,
    correlation_id: int,
    throttle_time_ms: int,
    error_code: int,
    session_id: int,
    topics: Sequence[TopicAnswer],
) -> list[Part]:
    """The parts of the whole response frame (see the module docstring)."""
    head = bytearray(_FRAME_START.pack(0, correlation_id))
    w = Writer(head)
    buf = head
    flexible = version >= _FIRST_FLEXIBLE
    if flexible:
        buf.append(0)  # the response header's tags
    if version >= _FIRST_SESSION:
        buf += _TOP.pack(throttle_time_ms, error_code, session_id)
    else:
        buf += _I32.pack(throttle_time_ms)
    _put_count(buf, len(topics), flexible)
    by_id = version >= _FIRST_TOPIC_ID
    fixed = (_FIXED if version >= _FIRST_LOG_START_OFFSET else _FIXED_V4).pack
    five = version >= _FIRST_LOG_START_OFFSET
    preferred = version >= _FIRST_PREFERRED_REPLICA
    quiet_tail = _QUIET_TAILS[version]
    for name, topic_id, partitions in topics:
        if by_id:
            buf += topic_id
        else:
            put_string(buf, name, flexible)
        _put_count(buf, len(partitions), flexible)
        for index, error, high_watermark, last_stable, log_start, aborted, records, diverging in partitions:
            if five:
                buf += fixed(index, error, high_watermark, last_stable, log_start)
            else:
                buf += fixed(index, error, high_watermark, last_stable)
            size = len(records)  # once: a file part's len is a Python call
            if aborted is None and diverging is None and not size:
                buf += quiet_tail
                continue
            if aborted is None:
                buf += b"\x00" if flexible else b"\xff\xff\xff\xff"
            else:
                _put_count(buf, len(aborted), flexible)
                for producer_id, first_offset in aborted:
                    buf += _ABORTED.pack(producer_id, first_offset)
                    if flexible:
                        buf.append(0)
            if preferred:
                buf += _NO_PREFERRED_REPLICA
            _put_count(buf, size, flexible)  # the records' length: the same int32 / compact length as a count
            if size:
                w.payload(records)
                buf = w.buf
            if flexible:
                if diverging is None or diverging == (-1, -1):
                    buf.append(0)
                else:
                    buf += _DIVERGING_TAG.pack(1, 0, 13, diverging[0], diverging[1], 0)
        if flexible:
            buf.append(0)
    if flexible:
        buf.append(0)  # no node_endpoints (v16+), no other tags
    _I32.pack_into(head, 0, w.size() - 4)
    return w.parts()


def _quiet_tail(version: int) -> bytes:
    """What follows a partition's fixed fields when it has no aborted transactions (null), no
    records (empty) and no diverging epoch: the shape of most partitions in a fetch of many."""
    flexible = version >= _FIRST_FLEXIBLE
    tail = b"\x00" if flexible else b"\xff\xff\xff\xff"
    if version >= _FIRST_PREFERRED_REPLICA:
        tail += _NO_PREFERRED_REPLICA
    return tail + (b"\x01\x00" if flexible else b"\x00\x00\x00\x00")


_QUIET_TAILS = {version: _quiet_tail(version) for version in range(FIRST_VERSION, LAST_VERSION + 1)}


def _put_count(buf: bytearray, count: int, flexible: bool) -> None:
    if not flexible:
        buf += _I32.pack(count)
    elif count < 0x7F:
        buf.append(count + 1)
    else:
        put_uvarint(buf, count + 1)
