"""Build and fully decode v2 record batches, including transaction control batches.

The produce path never comes here (batches stay opaque, see `batch`); this is for batches
the broker writes itself (control markers, internal topics, recompression, compaction) and
for features that need the records.

Control record grammar (keys and values of the single record of a control batch)::

    ControlRecordKey => version int16 (0), type int16 (0 abort, 1 commit, 2.. KRaft types)
    EndTxnMarkerValue => version int16 (0), coordinatorEpoch int32

Invariants:
- ``decode_batch(build_batch(records, ...))`` returns the same records and header fields;
- `decode_batch` verifies the CRC, decompresses (into at most `MAX_DECOMPRESSED_BYTES` unless
  told otherwise), and requires exactly ``records_count`` records filling the records section,
  raising `CorruptBatchError` otherwise; `iter_records` yields the same records one at a time.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum

from odradek.wire.records.batch import (
    BATCH_OVERHEAD,
    COMPRESSION_MASK,
    CONTROL_MASK,
    DELETE_HORIZON_MASK,
    LOG_OVERHEAD,
    MAGIC,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    BatchHeader,
    Buffer,
    CorruptBatchError,
    verify_batch,
    write_header,
)
from odradek.wire.records.compression import CompressionError, CompressionType, compress, decompress
from odradek.wire.records.record import Record, decode_record, encode_record_into

__all__ = [
    "MAX_DECOMPRESSED_BYTES",
    "ControlRecord",
    "ControlRecordType",
    "build_batch",
    "build_batch_like",
    "build_control_batch",
    "decode_batch",
    "iter_records",
    "parse_control_record",
]

_CONTROL_KEY = struct.Struct(">hh")
_END_TXN_VALUE = struct.Struct(">hi")


class ControlRecordType(IntEnum):
    """The ``type`` of a control record key; UNKNOWN stands for any type not listed."""

    UNKNOWN = -1
    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6


@dataclass(frozen=True, slots=True)
class ControlRecord:
    """A parsed control record; ``coordinator_epoch`` is set for ABORT and COMMIT only."""

    type: ControlRecordType
    version: int
    coordinator_epoch: int | None


def build_batch(
    records: Sequence[Record],
    *,
    base_offset: int = 0,
    compression: int = 0,
    producer_id: int = NO_PRODUCER_ID,
    producer_epoch: int = NO_PRODUCER_EPOCH,
    base_sequence: int = NO_SEQUENCE,
    is_transactional: bool = False,
    is_control: bool = False,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
    base_timestamp: int | None = None,
    timestamp_type: int = 0,
    has_delete_horizon: bool = False,
    last_offset_delta: int | None = None,
    max_timestamp: int | None = None,
    compression_level: int | None = None,
) -> bytes:
    """Encode ``records`` as one batch.

    Record offset and timestamp deltas are written as given; offset deltas must increase.
    ``base_timestamp`` None means NO_TIMESTAMP (-1).  ``last_offset_delta`` defaults to the
    last record's offset delta (0 when empty); ``max_timestamp`` defaults to the base timestamp
    plus the largest timestamp delta (the base timestamp when empty).  Both overrides exist for
    compaction, which keeps a batch's offset range and timestamp when it drops records.  With
    ``has_delete_horizon`` the base timestamp is the delete horizon.
    """
    previous = -1
    for record in records:
        if record.offset_delta <= previous:
            raise ValueError(f"record offset deltas must increase: {record.offset_delta} after {previous}")
        previous = record.offset_delta
    if base_timestamp is None:
        base_timestamp = NO_TIMESTAMP
    if last_offset_delta is None:
        last_offset_delta = records[-1].offset_delta if records else 0
    if max_timestamp is None:
        max_timestamp = base_timestamp + max((r.timestamp_delta for r in records), default=0)
    if not 0 <= compression <= CompressionType.ZSTD:
        raise ValueError(f"unknown compression codec {compression}")
    attributes = compression & COMPRESSION_MASK
    if timestamp_type:
        attributes |= TIMESTAMP_TYPE_MASK
    if is_transactional:
        attributes |= TRANSACTIONAL_MASK
    if is_control:
        attributes |= CONTROL_MASK
    if has_delete_horizon:
        attributes |= DELETE_HORIZON_MASK

    buf = bytearray(BATCH_OVERHEAD)
    for record in records:
        encode_record_into(buf, record)
    if compression:
        compressed = compress(compression, memoryview(buf)[BATCH_OVERHEAD:], compression_level)
        del buf[BATCH_OVERHEAD:]
        buf += compressed
    header = BatchHeader(
        base_offset=base_offset,
        batch_length=len(buf) - LOG_OVERHEAD,
        partition_leader_epoch=partition_leader_epoch,
        magic=MAGIC,
        crc=0,
        attributes=attributes,
        last_offset_delta=last_offset_delta,
        base_timestamp=base_timestamp,
        max_timestamp=max_timestamp,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
        records_count=len(records),
    )
    write_header(buf, 0, header)
    return bytes(buf)


def build_batch_like(
    header: BatchHeader,
    records: Sequence[Record],
    *,
    base_timestamp: int | None = None,
    has_delete_horizon: bool | None = None,
) -> bytes:
    """``records`` in a batch shaped as ``header`` says: the same offsets (last offset delta
    included), producer fields, leader epoch, codec, timestamp type and max timestamp.  The base
    timestamp and the delete-horizon flag are the header's unless given."""
    return build_batch(
        records,
        base_offset=header.base_offset,
        compression=header.compression,
        producer_id=header.producer_id,
        producer_epoch=header.producer_epoch,
        base_sequence=header.base_sequence,
        is_transactional=header.is_transactional,
        is_control=header.is_control,
        partition_leader_epoch=header.partition_leader_epoch,
        base_timestamp=header.base_timestamp if base_timestamp is None else base_timestamp,
        timestamp_type=header.timestamp_type,
        has_delete_horizon=header.has_delete_horizon if has_delete_horizon is None else has_delete_horizon,
        last_offset_delta=header.last_offset_delta,
        max_timestamp=header.max_timestamp,
    )


MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024
"""The most a batch's records may decompress to (a compressed batch of 1 MiB could otherwise
claim tens of GiB); more is a corrupt batch."""


def decode_batch(
    buf: Buffer, pos: int = 0, max_decompressed_bytes: int = MAX_DECOMPRESSED_BYTES
) -> tuple[BatchHeader, list[Record]]:
    """Verify the batch at ``pos``, decompress it if needed and decode all its records."""
    header = verify_batch(buf, pos)
    return header, list(iter_records(buf, header, pos, max_decompressed_bytes))


def iter_records(
    buf: Buffer, header: BatchHeader, pos: int = 0, max_decompressed_bytes: int = MAX_DECOMPRESSED_BYTES
) -> Iterator[Record]:
    """The records of the verified batch at ``pos`` (whose header is ``header``), one at a time,
    so a reader that needs only some fields never holds them all; raises `CorruptBatchError`
    (possibly after yielding some) on a bad record, a wrong count or too much data."""
    section = memoryview(buf)[pos + BATCH_OVERHEAD : pos + header.total_size]
    try:
        data = decompress(header.compression, section, max_decompressed_bytes)
    except CompressionError as exc:
        raise CorruptBatchError(f"cannot decompress record batch: {exc}") from exc
    offset = 0
    end = len(data)
    for index in range(header.records_count):
        if offset >= end:
            raise CorruptBatchError(f"record batch declares {header.records_count} records but holds {index}")
        record, offset = decode_record(data, offset)
        yield record
    if offset != end:
        raise CorruptBatchError(f"{end - offset} bytes follow the {header.records_count} records of a batch")


def build_control_batch(
    commit: bool,
    producer_id: int,
    producer_epoch: int,
    coordinator_epoch: int,
    base_offset: int,
    timestamp: int,
    *,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
) -> bytes:
    """Build a transaction marker: a transactional control batch with one COMMIT or ABORT record."""
    control_type = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
    record = Record(
        offset_delta=0,
        timestamp_delta=0,
        key=_CONTROL_KEY.pack(0, control_type),
        value=_END_TXN_VALUE.pack(0, coordinator_epoch),
    )
    return build_batch(
        [record],
        base_offset=base_offset,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        is_transactional=True,
        is_control=True,
        partition_leader_epoch=partition_leader_epoch,
        base_timestamp=timestamp,
    )


def parse_control_record(record: Record) -> ControlRecord:
    """Parse a record of a control batch.

    Key versions above 0 and marker value versions above 0 are read as version 0 (their
    schemas may only grow); negative versions and short keys or values raise `CorruptBatchError`.
    """
    key = record.key
    if key is None or len(key) < _CONTROL_KEY.size:
        raise CorruptBatchError("control record key is shorter than 4 bytes")
    version, raw_type = _CONTROL_KEY.unpack_from(key)
    if version < 0:
        raise CorruptBatchError(f"invalid control record key version {version}")
    try:
        control_type = ControlRecordType(raw_type)
    except ValueError:
        control_type = ControlRecordType.UNKNOWN
    if control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        return ControlRecord(control_type, version, None)
    value = record.value
    if value is None or len(value) < _END_TXN_VALUE.size:
        raise CorruptBatchError("end transaction marker value is shorter than 6 bytes")
    value_version, coordinator_epoch = _END_TXN_VALUE.unpack_from(value)
    if value_version < 0:
        raise CorruptBatchError(f"invalid end transaction marker version {value_version}")
    return ControlRecord(control_type, version, coordinator_epoch)
