"""The records of ``__transaction_state``, in Apache Kafka's key and value formats.

One record per transactional id (the topic is compacted); the key and the value each start
with an int16 version, then the struct of that version::

    key   => version int16 (0), TransactionalId string
    value => version int16 (0 or 1), then TransactionLogValue at that version (null: a tombstone)

    TransactionLogValue (v1 flexible: compact strings and arrays, tagged fields)
      ProducerId                        int64
      ProducerEpoch                     int16
      TransactionTimeoutMs              int32
      TransactionStatus                 int8    the `TxnState` byte
      TransactionPartitions             nullable [Topic string, PartitionIds [int32]]
      TransactionLastUpdateTimestampMs  int64
      TransactionStartTimestampMs       int64
      tag 0 PreviousProducerId          int64   (default -1; v1 only)
      tag 1 NextProducerId              int64   (default -1; v1 only)
      tag 2 ClientTransactionVersion    int16   (default 0;  v1 only)
      tag 3 NextProducerEpoch           int16   (default -1; v1 only, written by two-phase-commit
                                                 coordinators; read and kept, never set here)

Kafka writes value version 1 when the finalized ``transaction.version`` is 2 or more, else
version 0 (which cannot carry the tagged fields: they are dropped).  An Empty transaction is
written with null partitions; every other state with its partitions, grouped by topic (sorted
here, so the bytes are deterministic).  Decoding ignores the partitions of an Empty value.

Invariant: ``decode_record(*encode_record(r)) == r`` for every record whose value is None or
whose tagged fields hold their defaults or is written at version 1.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

from odradek.coordinator.placement import TRANSACTION_STATE_TOPIC
from odradek.txn.txn_state import TxnState
from odradek.wire.codec import decode, encode
from odradek.wire.primitives import DecodeError
from odradek.wire.schema import INT8, INT16, INT32, INT64, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "KEY_VERSION",
    "TRANSACTION_STATE_TOPIC",
    "TopicPartition",
    "TransactionLogRecord",
    "TransactionLogValue",
    "decode_record",
    "encode_key",
    "encode_record",
    "group_partitions",
    "value_version_for",
]

KEY_VERSION = 0

TopicPartition = tuple[str, int]

_VERSION = struct.Struct(">h")

_KEY = Message(
    "TransactionLogKey",
    api_key=0,
    kind=Kind.REQUEST,
    valid="0",
    flexible="none",
    fields=[Field("transactional_id", STRING, "0")],
)

_PARTITIONS = Struct(
    "PartitionsSchema",
    [Field("topic", STRING, "0+"), Field("partition_ids", ArrayOf(INT32), "0+")],
)

_VALUE = Message(
    "TransactionLogValue",
    api_key=0,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="1+",
    fields=[
        Field("producer_id", INT64, "0+"),
        Field("previous_producer_id", INT64, "1+", tag=0, default=-1, ignorable=True),
        Field("next_producer_id", INT64, "1+", tag=1, default=-1, ignorable=True),
        Field("producer_epoch", INT16, "0+"),
        Field("transaction_timeout_ms", INT32, "0+"),
        Field("transaction_status", INT8, "0+"),
        Field("transaction_partitions", ArrayOf(_PARTITIONS), "0+", nullable="0+"),
        Field("transaction_last_update_timestamp_ms", INT64, "0+"),
        Field("transaction_start_timestamp_ms", INT64, "0+"),
        Field("client_transaction_version", INT16, "1+", tag=2, default=0, ignorable=True),
        Field("next_producer_epoch", INT16, "1+", tag=3, default=-1, ignorable=True),
    ],
)


@dataclass(frozen=True, slots=True)
class TransactionLogValue:
    """One persisted state of a transactional id.

    ``partitions`` is sorted by topic, each topic's partitions ascending; it is empty for Empty.
    """

    producer_id: int
    producer_epoch: int
    timeout_ms: int
    state: TxnState
    partitions: tuple[tuple[str, tuple[int, ...]], ...]
    last_update_timestamp_ms: int
    start_timestamp_ms: int
    previous_producer_id: int = -1
    next_producer_id: int = -1
    client_transaction_version: int = 0
    next_producer_epoch: int = -1

    def topic_partitions(self) -> frozenset[TopicPartition]:
        return frozenset(self.topic_partition_list())

    def topic_partition_list(self) -> tuple[TopicPartition, ...]:
        """The partitions in the record's order."""
        return tuple((topic, p) for topic, ids in self.partitions for p in ids)


@dataclass(frozen=True, slots=True)
class TransactionLogRecord:
    """The state of ``transactional_id``; ``value`` None is a tombstone (the id expired)."""

    transactional_id: str
    value: TransactionLogValue | None


def value_version_for(transaction_version: int) -> int:
    """The value version Kafka writes under a finalized ``transaction.version`` feature level."""
    return 1 if transaction_version >= 2 else 0


def group_partitions(partitions: Iterable[TopicPartition]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Partitions grouped by topic, topics and partition ids sorted: the value's layout."""
    by_topic: dict[str, set[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, set()).add(partition)
    return tuple((topic, tuple(sorted(by_topic[topic]))) for topic in sorted(by_topic))


def encode_key(transactional_id: str) -> bytes:
    return _VERSION.pack(KEY_VERSION) + encode(_KEY, 0, _KEY(transactional_id=transactional_id))


def encode_record(record: TransactionLogRecord, value_version: int = 1) -> tuple[bytes, bytes | None]:
    """The (key, value) bytes of one record; the value is None for a tombstone."""
    key = encode_key(record.transactional_id)
    v = record.value
    if v is None:
        return key, None
    if value_version not in _VALUE.valid:
        raise ValueError(f"unknown TransactionLogValue version {value_version}")
    partitions = (
        None
        if v.state is TxnState.EMPTY
        else [_PARTITIONS.cls(topic=topic, partition_ids=list(ids)) for topic, ids in v.partitions]
    )
    value = _VALUE(
        producer_id=v.producer_id,
        previous_producer_id=v.previous_producer_id,
        next_producer_id=v.next_producer_id,
        producer_epoch=v.producer_epoch,
        transaction_timeout_ms=v.timeout_ms,
        transaction_status=int(v.state),
        transaction_partitions=partitions,
        transaction_last_update_timestamp_ms=v.last_update_timestamp_ms,
        transaction_start_timestamp_ms=v.start_timestamp_ms,
        client_transaction_version=v.client_transaction_version,
        next_producer_epoch=v.next_producer_epoch,
    )
    if value_version == 0:
        for f in ("previous_producer_id", "next_producer_id", "client_transaction_version", "next_producer_epoch"):
            setattr(value, f, _VALUE_DEFAULTS[f])
    return key, _VERSION.pack(value_version) + encode(_VALUE, value_version, value)


_VALUE_DEFAULTS = {f.name: f.default for f in _VALUE.struct.fields if f.tag is not None}


def _split(data: bytes) -> tuple[int, memoryview]:
    if len(data) < _VERSION.size:
        raise DecodeError("a transaction log record needs at least a version")
    return int(_VERSION.unpack_from(data)[0]), memoryview(data)[_VERSION.size :]


def decode_record(key: bytes, value: bytes | None) -> TransactionLogRecord | None:
    """Decode one record; None for a key version this coordinator does not know.

    Raises `DecodeError` for a malformed key or value, an unknown value version or state byte.
    """
    key_version, key_body = _split(key)
    if key_version != KEY_VERSION:
        return None
    transactional_id = decode(_KEY, 0, key_body).transactional_id
    if value is None:
        return TransactionLogRecord(transactional_id, None)
    version, body = _split(value)
    if version not in _VALUE.valid:
        raise DecodeError(f"unknown TransactionLogValue version {version}")
    v = decode(_VALUE, version, body)
    try:
        state = TxnState(v.transaction_status)
    except ValueError:
        raise DecodeError(f"unknown transaction state {v.transaction_status}") from None
    partitions = (
        ()
        if state is TxnState.EMPTY or v.transaction_partitions is None
        else group_partitions((p.topic, i) for p in v.transaction_partitions for i in p.partition_ids)
    )
    return TransactionLogRecord(
        transactional_id,
        TransactionLogValue(
            producer_id=v.producer_id,
            producer_epoch=v.producer_epoch,
            timeout_ms=v.transaction_timeout_ms,
            state=state,
            partitions=partitions,
            last_update_timestamp_ms=v.transaction_last_update_timestamp_ms,
            start_timestamp_ms=v.transaction_start_timestamp_ms,
            previous_producer_id=v.previous_producer_id,
            next_producer_id=v.next_producer_id,
            client_transaction_version=v.client_transaction_version,
            next_producer_epoch=v.next_producer_epoch,
        ),
    )
