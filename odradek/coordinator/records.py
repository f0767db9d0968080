"""The records of ``__consumer_offsets``, in Apache Kafka's key and value formats.

Every record key and value starts with an int16 version, then the struct of that version::

    key   => version int16, then
             0 or 1: OffsetCommitKey   => group string, topic string, partition int32
             2:      GroupMetadataKey  => group string
             3+:     records of the KIP-848/share/streams groups (not read here)
    value => version int16, then the value struct of that version (null value: a tombstone)

Kafka writes offset commit values at version 3 (version 1 for commits carrying an expire
timestamp: v2-4 OffsetCommit requests with a retention time) and group metadata values at
version 3; both formats are read at every version 0-4, so logs written by Kafka load here.

Invariant: ``decode_record(*encode_record(r)) == r`` for every record built here.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from odradek.wire.codec import decode, encode
from odradek.wire.primitives import DecodeError
from odradek.wire.schema import BYTES, INT32, INT64, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "CoordinatorRecord",
    "GroupMetadataRecord",
    "GroupMetadataValue",
    "MemberMetadata",
    "OffsetCommitRecord",
    "OffsetCommitValue",
    "decode_record",
    "encode_record",
]

_VERSION = struct.Struct(">h")

OFFSET_COMMIT_KEY_VERSION = 1
GROUP_METADATA_KEY_VERSION = 2
OFFSET_COMMIT_VALUE_VERSION = 3
GROUP_METADATA_VALUE_VERSION = 3

# The codec compiles Messages; the api key is the record type Kafka's JSON gives these structs,
# and the kind is irrelevant for data records.
_OFFSET_COMMIT_KEY = Message(
    "OffsetCommitKey",
    api_key=1,
    kind=Kind.REQUEST,
    valid="0",
    flexible="none",
    fields=[Field("group", STRING, "0"), Field("topic", STRING, "0"), Field("partition", INT32, "0")],
)

_OFFSET_COMMIT_VALUE = Message(
    "OffsetCommitValue",
    api_key=1,
    kind=Kind.REQUEST,
    valid="0-4",
    flexible="4+",
    fields=[
        Field("offset", INT64, "0+"),
        Field("leader_epoch", INT32, "3+", default=-1, ignorable=True),
        Field("metadata", STRING, "0+"),
        Field("commit_timestamp", INT64, "0+"),
        Field("expire_timestamp", INT64, "1", default=-1, ignorable=True),
    ],
)

_GROUP_METADATA_KEY = Message(
    "GroupMetadataKey", api_key=2, kind=Kind.REQUEST, valid="0", flexible="none", fields=[Field("group", STRING, "0")]
)

_MEMBER_METADATA = Struct(
    "MemberMetadata",
    [
        Field("member_id", STRING, "0+"),
        Field("group_instance_id", STRING, "3+", nullable="3+", default=None, ignorable=True),
        Field("client_id", STRING, "0+"),
        Field("client_host", STRING, "0+"),
        Field("rebalance_timeout", INT32, "1+", ignorable=True),
        Field("session_timeout", INT32, "0+"),
        Field("subscription", BYTES, "0+"),
        Field("assignment", BYTES, "0+"),
    ],
)

_GROUP_METADATA_VALUE = Message(
    "GroupMetadataValue",
    api_key=2,
    kind=Kind.REQUEST,
    valid="0-4",
    flexible="4+",
    fields=[
        Field("protocol_type", STRING, "0+"),
        Field("generation", INT32, "0+"),
        Field("protocol", STRING, "0+", nullable="0+"),
        Field("leader", STRING, "0+", nullable="0+"),
        Field("current_state_timestamp", INT64, "2+", default=-1, ignorable=True),
        Field("members", ArrayOf(_MEMBER_METADATA), "0+"),
    ],
)


@dataclass(frozen=True, slots=True)
class OffsetCommitValue:
    offset: int
    leader_epoch: int
    metadata: str
    commit_timestamp: int
    expire_timestamp: int = -1


@dataclass(frozen=True, slots=True)
class OffsetCommitRecord:
    """A committed offset of one partition; ``value`` None is a tombstone (offset deleted)."""

    group: str
    topic: str
    partition: int
    value: OffsetCommitValue | None


@dataclass(frozen=True, slots=True)
class MemberMetadata:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout: int
    session_timeout: int
    subscription: bytes
    assignment: bytes


@dataclass(frozen=True, slots=True)
class GroupMetadataValue:
    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    current_state_timestamp: int
    members: tuple[MemberMetadata, ...]


@dataclass(frozen=True, slots=True)
class GroupMetadataRecord:
    """A classic group's generation and assignment; ``value`` None is a tombstone (group deleted)."""

    group: str
    value: GroupMetadataValue | None


CoordinatorRecord = OffsetCommitRecord | GroupMetadataRecord


def _versioned(prefix: int, message: Message, schema_version: int, value: object) -> bytes:
    """The record version ``prefix`` followed by ``value`` encoded at ``schema_version``."""
    return _VERSION.pack(prefix) + encode(message, schema_version, value)


def encode_record(record: CoordinatorRecord) -> tuple[bytes, bytes | None]:
    """The (key, value) bytes of one record; the value is None for a tombstone."""
    if isinstance(record, OffsetCommitRecord):
        key = _versioned(
            OFFSET_COMMIT_KEY_VERSION,
            _OFFSET_COMMIT_KEY,
            0,
            _OFFSET_COMMIT_KEY(group=record.group, topic=record.topic, partition=record.partition),
        )
        if record.value is None:
            return key, None
        v = record.value
        value = _OFFSET_COMMIT_VALUE(
            offset=v.offset, leader_epoch=v.leader_epoch, metadata=v.metadata, commit_timestamp=v.commit_timestamp
        )
        version = OFFSET_COMMIT_VALUE_VERSION if v.expire_timestamp == -1 else 1
        value.expire_timestamp = v.expire_timestamp
        return key, _versioned(version, _OFFSET_COMMIT_VALUE, version, value)
    key = _versioned(GROUP_METADATA_KEY_VERSION, _GROUP_METADATA_KEY, 0, _GROUP_METADATA_KEY(group=record.group))
    if record.value is None:
        return key, None
    g = record.value
    members = [
        _MEMBER_METADATA.cls(
            member_id=m.member_id,
            group_instance_id=m.group_instance_id,
            client_id=m.client_id,
            client_host=m.client_host,
            rebalance_timeout=m.rebalance_timeout,
            session_timeout=m.session_timeout,
            subscription=m.subscription,
            assignment=m.assignment,
        )
        for m in g.members
    ]
    value = _GROUP_METADATA_VALUE(
        protocol_type=g.protocol_type,
        generation=g.generation,
        protocol=g.protocol,
        leader=g.leader,
        current_state_timestamp=g.current_state_timestamp,
        members=members,
    )
    return key, _versioned(GROUP_METADATA_VALUE_VERSION, _GROUP_METADATA_VALUE, GROUP_METADATA_VALUE_VERSION, value)


def _split(data: bytes) -> tuple[int, memoryview]:
    if len(data) < _VERSION.size:
        raise DecodeError("a coordinator record needs at least a version")
    return int(_VERSION.unpack_from(data)[0]), memoryview(data)[_VERSION.size :]


def _value_version(message: Message, data: bytes) -> tuple[int, memoryview]:
    version, body = _split(data)
    if version not in message.valid:
        raise DecodeError(f"unknown {message.name} version {version}")
    return version, body


def decode_record(key: bytes, value: bytes | None) -> CoordinatorRecord | None:
    """Decode one record; None for record types this coordinator does not keep.

    Raises `DecodeError` for a malformed key or value of a known type.
    """
    key_version, key_body = _split(key)
    if key_version in (0, OFFSET_COMMIT_KEY_VERSION):
        k = decode(_OFFSET_COMMIT_KEY, 0, key_body)
        if value is None:
            return OffsetCommitRecord(k.group, k.topic, k.partition, None)
        version, body = _value_version(_OFFSET_COMMIT_VALUE, value)
        v = decode(_OFFSET_COMMIT_VALUE, version, body)
        return OffsetCommitRecord(
            k.group,
            k.topic,
            k.partition,
            OffsetCommitValue(v.offset, v.leader_epoch, v.metadata, v.commit_timestamp, v.expire_timestamp),
        )
    if key_version == GROUP_METADATA_KEY_VERSION:
        group = decode(_GROUP_METADATA_KEY, 0, key_body).group
        if value is None:
            return GroupMetadataRecord(group, None)
        version, body = _value_version(_GROUP_METADATA_VALUE, value)
        g = decode(_GROUP_METADATA_VALUE, version, body)
        members = tuple(
            MemberMetadata(
                m.member_id,
                m.group_instance_id,
                m.client_id,
                m.client_host,
                m.rebalance_timeout if version >= 1 else -1,
                m.session_timeout,
                m.subscription,
                m.assignment,
            )
            for m in g.members
        )
        return GroupMetadataRecord(
            group,
            GroupMetadataValue(g.protocol_type, g.generation, g.protocol, g.leader, g.current_state_timestamp, members),
        )
    return None
