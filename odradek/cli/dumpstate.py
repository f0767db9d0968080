"""What ``odradek dump-log`` shows of producer state: ``.snapshot`` files and ``__transaction_state`` records.

A producer snapshot is Kafka's ``<offset>.snapshot`` (`odradek.partition.producer_snapshot` writes
and reads them for the broker; its grammar is repeated here because the broker's reader keeps only
the fields idempotence needs, while a dump shows every field)::

    snapshot := version:int16 (=1) crc:uint32 count:int32 entry*count
    entry    := producer_id:int64 epoch:int16 last_sequence:int32 last_offset:int64
                offset_delta:int32 timestamp:int64 coordinator_epoch:int32
                current_txn_first_offset:int64

The header is checked by the broker's own `decode_snapshot` (version, size, CRC32C) before any
entry is shown.  ``last_offset`` -1 is a producer known by its epoch alone (no batch: the batch
fields are left out); ``current_txn_first_offset`` -1 means no open transaction (None).

A ``__transaction_state`` record is decoded with the transaction coordinator's own formats
(`odradek.txn.log_records`): the transactional id, the value version, and the persisted state,
or ``"tombstone"`` for a null value.
"""

from __future__ import annotations

import struct
from typing import Any

from odradek.partition.producer_snapshot import CorruptSnapshot, decode_snapshot
from odradek.txn.log_records import decode_record
from odradek.txn.txn_state import TxnState
from odradek.wire.primitives import DecodeError
from odradek.wire.records import Record

__all__ = ["CorruptSnapshot", "snapshot_entries", "transaction_record"]

_HEAD_SIZE = 10  # version int16, crc uint32, count int32
_ENTRY = struct.Struct(">qhiqiqiq")
_SEQUENCE_SPACE = 2**31
_VERSION = struct.Struct(">h")


def snapshot_entries(data: bytes) -> list[dict[str, Any]]:
    """Every entry of a snapshot file, in file order; raises `CorruptSnapshot` for a damaged file."""
    decode_snapshot(data)  # the header, the size and the CRC, checked as the broker checks them
    entries: list[dict[str, Any]] = []
    for fields in _ENTRY.iter_unpack(memoryview(data)[_HEAD_SIZE:]):
        producer_id, epoch, last_sequence, last_offset, delta, timestamp, coordinator_epoch, txn_first = fields
        entry: dict[str, Any] = {
            "producer_id": producer_id,
            "producer_epoch": epoch,
            "coordinator_epoch": coordinator_epoch,
            "current_txn_first_offset": None if txn_first < 0 else txn_first,
            "last_timestamp": timestamp,
        }
        if last_offset >= 0:
            entry |= {
                "first_sequence": (last_sequence - delta) % _SEQUENCE_SPACE,
                "last_sequence": last_sequence,
                "last_offset": last_offset,
                "offset_delta": delta,
                "timestamp": timestamp,
            }
        entries.append(entry)
    return entries


def transaction_record(record: Record) -> dict[str, Any]:
    """A ``__transaction_state`` record as the transaction coordinator reads it."""
    if record.key is None:
        return {"transaction_record": "no key"}
    try:
        decoded = decode_record(record.key, record.value)
    except DecodeError as exc:
        return {"transaction_record": f"undecodable: {exc}"}
    if decoded is None:
        return {"transaction_record": f"unknown key version {_VERSION.unpack_from(record.key)[0]}"}
    value = decoded.value
    if value is None:
        return {"transaction_state": {"transactional_id": decoded.transactional_id, "value": "tombstone"}}
    assert record.value is not None  # a value was decoded from it
    return {
        "transaction_state": {
            "transactional_id": decoded.transactional_id,
            "value_version": _VERSION.unpack_from(record.value)[0],
            "producer_id": value.producer_id,
            "previous_producer_id": value.previous_producer_id,
            "next_producer_id": value.next_producer_id,
            "producer_epoch": value.producer_epoch,
            "next_producer_epoch": value.next_producer_epoch,
            "timeout_ms": value.timeout_ms,
            "state": value.state.display_name,
            "partitions": None if value.state is TxnState.EMPTY else {t: list(ids) for t, ids in value.partitions},
            "last_update_timestamp_ms": value.last_update_timestamp_ms,
            "start_timestamp_ms": value.start_timestamp_ms,
            "client_transaction_version": value.client_transaction_version,
        }
    }
