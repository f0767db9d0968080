"""Produce requests read straight from the frame, and their answers written from pre-encoded pieces.

The generic codec (`odradek.wire.codec`) builds a value object for the request, each topic and
each partition, and the answer is built the same way before it is encoded.  For Produce, the
request the broker sees most, this module reads the frame into plain tuples and writes the
answer from per-version constants, byte for byte what the generic codec reads and writes for
the same message (`tests/unit/wire/test_produce_fast.py` checks that over every version).

`decode_produce` takes Produce v3-v13 with the request header; it answers None for anything
outside that shape, and the caller then uses the generic codec, which either decodes it the
same way or says why the frame is not valid.  Outside the shape: another API or version, any
tagged field (header, request, topic or partition), a null where the schema forbids one, a
length that runs past the frame, invalid UTF-8, trailing bytes, more partitions than the caller
allows.  Record sets stay opaque: each is a zero-copy view of the frame (the append patches
batch headers in place), or None for a null record set.

`encode_produce_answer` writes the whole response frame (size prefix, header v0/v1, body) from
the topic keys exactly as the request carried them (a topic name in the request's string
encoding, or a topic id from v13: the answer encodes them the same way at the same version) and
one outcome per partition.  Tagged fields: a partition's ``current_leader`` (v10+) is written
when it is not the default (-1, -1); ``node_endpoints`` is never written (always empty here).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from odradek.wire.codegen import put_string, put_uvarint, uvarint_tail

__all__ = [
    "FIRST_VERSION",
    "LAST_VERSION",
    "PartitionAnswer",
    "PartitionData",
    "PartitionOutcome",
    "ProduceRequestView",
    "TopicAnswer",
    "TopicData",
    "decode_produce",
    "encode_produce_answer",
]

FIRST_VERSION = 3
"""The first version read here (v0-v2 are refused per partition, by the generic path)."""
LAST_VERSION = 13
_FIRST_FLEXIBLE = 9
_FIRST_TOPIC_ID = 13
_FIRST_RECORD_ERRORS = 8
_FIRST_LOG_START_OFFSET = 5
_FIRST_CURRENT_LEADER = 10

_HEADER = struct.Struct(">hhih")  # api key, version, correlation id, client id length
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_ACKS_TIMEOUT = struct.Struct(">hi")
_UUID_BYTES = 16

PartitionData = tuple[int, memoryview | None]
"""A partition's index and its record set (a view of the frame), or None for a null one."""
TopicData = tuple[str | bytes, memoryview, list[PartitionData]]
"""A topic's name (v3-v12) or id (v13), its key as encoded in the frame, its partitions."""


class ProduceRequestView(NamedTuple):
    """A Produce request (header included) as `decode_produce` read it."""

    version: int
    correlation_id: int
    client_id: str | None
    transactional_id: str | None
    acks: int
    timeout_ms: int
    topics: list[TopicData]
    partition_count: int


def decode_produce(body: bytearray | memoryview, max_partitions: int) -> ProduceRequestView | None:
    """The Produce request in ``body`` (a whole frame without its size prefix), or None when it is
    outside the shape this module reads (see the module docstring)."""
    buf = body if isinstance(body, memoryview) else memoryview(body)
    try:
        return _decode(buf, max_partitions)
    except (IndexError, ValueError, struct.error):  # UnicodeDecodeError is a ValueError
        return None


def _decode(buf: memoryview, max_partitions: int) -> ProduceRequestView | None:
    end = len(buf)
    api_key, version, correlation_id, n = _HEADER.unpack_from(buf, 0)
    if api_key != 0 or not FIRST_VERSION <= version <= LAST_VERSION:
        return None
    pos = 10
    if n < 0:
        if n != -1:
            return None
        client_id = None
    else:
        if pos + n > end:
            return None
        client_id = str(buf[pos : pos + n], "utf-8")
        pos += n
    flexible = version >= _FIRST_FLEXIBLE
    if flexible:
        if buf[pos]:  # the header's tagged fields
            return None
        pos += 1
        n = buf[pos]
        pos += 1
        if n & 0x80:
            n, pos = uvarint_tail(buf, pos, n)
        n -= 1  # -1: null
    else:
        (n,) = _I16.unpack_from(buf, pos)
        pos += 2
        if n < -1:
            return None
    if n < 0:
        transactional_id = None
    else:
        if pos + n > end:
            return None
        transactional_id = str(buf[pos : pos + n], "utf-8")
        pos += n
    acks, timeout_ms = _ACKS_TIMEOUT.unpack_from(buf, pos)
    pos += 6
    by_id = version >= _FIRST_TOPIC_ID
    topics: list[TopicData] = []
    partition_count = 0
    topic_count, pos = _count(buf, pos, flexible)
    if topic_count < 0:
        return None
    for _ in range(topic_count):
        start = pos
        name: str | bytes
        if by_id:
            pos += _UUID_BYTES
            if pos > end:
                return None
            name = bytes(buf[start:pos])
        else:
            if flexible:
                n = buf[pos]
                pos += 1
                if n & 0x80:
                    n, pos = uvarint_tail(buf, pos, n)
                n -= 1
            else:
                (n,) = _I16.unpack_from(buf, pos)
                pos += 2
            if n < 0 or pos + n > end:
                return None
            name = str(buf[pos : pos + n], "utf-8")
            pos += n
        key = buf[start:pos]
        count, pos = _count(buf, pos, flexible)
        if count < 0:
            return None
        partition_count += count
        if partition_count > max_partitions:
            return None
        partitions: list[PartitionData] = []
        for _ in range(count):
            (index,) = _I32.unpack_from(buf, pos)
            pos += 4
            if flexible:
                n = buf[pos]
                pos += 1
                if n & 0x80:
                    n, pos = uvarint_tail(buf, pos, n)
                n -= 1
            else:
                (n,) = _I32.unpack_from(buf, pos)
                pos += 4
                if n < -1:
                    return None
            if n < 0:
                partitions.append((index, None))
            else:
                if pos + n > end:
                    return None
                partitions.append((index, buf[pos : pos + n]))
                pos += n
            if flexible:
                if buf[pos]:
                    return None
                pos += 1
        if flexible:
            if buf[pos]:
                return None
            pos += 1
        topics.append((name, key, partitions))
    if flexible:
        if buf[pos]:
            return None
        pos += 1
    if pos != end:
        return None
    return ProduceRequestView(
        version, correlation_id, client_id, transactional_id, acks, timeout_ms, topics, partition_count
    )


def _count(buf: memoryview, pos: int, flexible: bool) -> tuple[int, int]:
    """An array's element count (-1: null, or a count the frame cannot hold) and the position after it."""
    if flexible:
        n = buf[pos]
        pos += 1
        if n & 0x80:
            n, pos = uvarint_tail(buf, pos, n)
        n -= 1
    else:
        (n,) = _I32.unpack_from(buf, pos)
        pos += 4
    if n > len(buf) - pos:
        return -1, pos
    return n, pos


class PartitionOutcome(Protocol):
    """What the answer says of one partition (`odradek.partition.results.AppendResult` is one)."""

    @property
    def error(self) -> int: ...
    @property
    def base_offset(self) -> int: ...
    @property
    def log_append_time_ms(self) -> int: ...
    @property
    def log_start_offset(self) -> int: ...
    @property
    def message(self) -> str | None: ...
    @property
    def record_errors(self) -> tuple[tuple[int, str], ...]: ...


PartitionAnswer = tuple[int, PartitionOutcome, tuple[int, int] | None]
"""A partition's index, its outcome, and the current leader (id, epoch) to tell, or None."""
TopicAnswer = tuple[bytes | memoryview, Sequence[PartitionAnswer]]
"""A topic's key as the request encoded it, and its partitions' answers in request order."""


class _Layout:
    """The pre-encoded pieces of one answer version."""

    __slots__ = ("flexible", "header_tail", "leader", "partition", "plain_tail", "record_errors", "topic_tail")

    def __init__(self, version: int) -> None:
        self.flexible = version >= _FIRST_FLEXIBLE
        self.header_tail = b"\x00" if self.flexible else b""
        if version >= _FIRST_LOG_START_OFFSET:
            self.partition = struct.Struct(">ihqqq")
        else:
            self.partition = struct.Struct(">ihqq")
        self.record_errors = version >= _FIRST_RECORD_ERRORS
        self.leader = version >= _FIRST_CURRENT_LEADER
        # After the fixed fields of a partition with no record errors, no message, no leader.
        if self.flexible:
            self.plain_tail = b"\x01\x00\x00"  # empty record_errors, null message, no tags
        elif self.record_errors:
            self.plain_tail = b"\x00\x00\x00\x00\xff\xff"
        else:
            self.plain_tail = b""
        self.topic_tail = b"\x00" if self.flexible else b""


_LAYOUTS = {version: _Layout(version) for version in range(FIRST_VERSION, LAST_VERSION + 1)}
_FRAME_START = struct.Struct(">ii")  # size (patched last), correlation id
_LEADER_TAG = struct.Struct(">BBBiiB")  # one tag: tag 0, size 9, leader id, epoch, no tags


def encode_produce_answer(
    version: int, correlation_id: int, topics: Sequence[TopicAnswer], throttle_time_ms: int
) -> bytearray:
    """The whole response frame of a Produce answer (see the module docstring)."""
    layout = _LAYOUTS[version]
    flexible = layout.flexible
    buf = bytearray(_FRAME_START.pack(0, correlation_id))
    buf += layout.header_tail
    if flexible:
        put_uvarint(buf, len(topics) + 1)
    else:
        buf += _I32.pack(len(topics))
    fixed = layout.partition.pack
    five = layout.partition.size == 30
    for key, partitions in topics:
        buf += key
        if flexible:
            put_uvarint(buf, len(partitions) + 1)
        else:
            buf += _I32.pack(len(partitions))
        for index, outcome, leader in partitions:
            if five:
                buf += fixed(
                    index,
                    outcome.error,
                    outcome.base_offset,
                    outcome.log_append_time_ms,
                    outcome.log_start_offset,
                )
            else:
                buf += fixed(index, outcome.error, outcome.base_offset, outcome.log_append_time_ms)
            if outcome.message is None and not outcome.record_errors and leader is None:
                buf += layout.plain_tail
            elif layout.record_errors:
                _write_details(buf, layout, outcome, leader)
        buf += layout.topic_tail
    buf += _I32.pack(throttle_time_ms)
    if flexible:
        buf.append(0)  # no node_endpoints, no other tags
    _I32.pack_into(buf, 0, len(buf) - 4)
    return buf


def _write_details(buf: bytearray, layout: _Layout, outcome: PartitionOutcome, leader: tuple[int, int] | None) -> None:
    """A partition's record errors, message and tags (v8+)."""
    flexible = layout.flexible
    errors = outcome.record_errors
    if flexible:
        put_uvarint(buf, len(errors) + 1)
    else:
        buf += _I32.pack(len(errors))
    for batch_index, text in errors:
        buf += _I32.pack(batch_index)
        put_string(buf, text, flexible)
        if flexible:
            buf.append(0)
    put_string(buf, outcome.message, flexible)
    if flexible:
        if layout.leader and leader is not None and leader != (-1, -1):
            buf += _LEADER_TAG.pack(1, 0, 9, leader[0], leader[1], 0)
        else:
            buf.append(0)
