"""Producer state snapshot files: Kafka's ``<20-digit offset>.snapshot`` in a partition directory.

A snapshot named N holds the producer state of every batch below offset N.  The layout (Kafka's
ProducerStateManager, version 1; big-endian)::

    snapshot := version:int16 (=1) crc:uint32 count:int32 entry*count
    entry    := producer_id:int64 epoch:int16 last_sequence:int32 last_offset:int64
                offset_delta:int32 timestamp:int64 coordinator_epoch:int32
                current_txn_first_offset:int64

``crc`` is the CRC32C of everything after it.  ``offset_delta`` is the last offset minus the
first offset of the batch (equal to last minus first sequence); ``last_offset`` -1 means a
producer known without a cached batch; ``timestamp`` is the producer's last write;
``coordinator_epoch`` the epoch of the coordinator that wrote its last marker (-1: none);
``current_txn_first_offset`` the first offset of its open transaction (-1: none).

Kafka writes one entry per producer (its last batch).  We write one entry per cached batch,
each producer's oldest first: Kafka's reader keeps the last entry of a producer id, so it still
sees the newest batch, while `odradek.txn.producer_state.ProducerStateTable.restore` rebuilds
all five cached batches, so duplicates of any of them are still recognised after a restart.

Files are written with `write_file_atomic` (fsynced, then renamed); a file that a crash or a
disk fault left damaged fails its CRC and is reported as `CorruptSnapshot`.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator

from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic
from odradek.txn.producer_state import BatchMetadata, ProducerSnapshotRow
from odradek.wire.records.checksum import crc32c

__all__ = [
    "SNAPSHOT_SUFFIX",
    "CorruptSnapshot",
    "decode_snapshot",
    "delete_snapshot",
    "encode_snapshot",
    "list_snapshots",
    "parse_snapshot_name",
    "read_snapshot",
    "snapshot_name",
    "write_snapshot",
]

SNAPSHOT_SUFFIX = ".snapshot"
VERSION = 1
NO_OFFSET = -1
_SEQUENCE_SPACE = 2**31

_HEAD = struct.Struct(">hIi")  # version, crc, count
_CRC = struct.Struct(">I")
_ENTRY = struct.Struct(">qhiqiqiq")
_CRC_START = 6  # the CRC covers everything from the count on


class CorruptSnapshot(Exception):
    """A snapshot file that cannot be trusted (unknown version, short, bad CRC)."""


def snapshot_name(offset: int) -> str:
    return f"{offset:020d}{SNAPSHOT_SUFFIX}"


def parse_snapshot_name(name: str) -> int | None:
    """The offset of a ``<20 digits>.snapshot`` name, else None."""
    stem = name.removesuffix(SNAPSHOT_SUFFIX)
    if stem == name or len(stem) != 20 or not stem.isdigit():
        return None
    return int(stem)


def list_snapshots(fs: FileSystem, directory: str) -> list[int]:
    """The offsets of the snapshot files in ``directory``, ascending."""
    return sorted(offset for offset in map(parse_snapshot_name, fs.listdir(directory)) if offset is not None)


def encode_snapshot(entries: Iterable[ProducerSnapshotRow]) -> bytes:
    rows = list(entries)
    out = bytearray(_HEAD.size + _ENTRY.size * len(rows))
    position = _HEAD.size
    for row in rows:
        batch = row.batch
        if batch is None:
            sequence, last_offset, delta = -1, NO_OFFSET, 0
        else:
            sequence, last_offset, delta = (
                batch.last_sequence,
                batch.last_offset,
                batch.last_offset - batch.first_offset,
            )
        _ENTRY.pack_into(
            out,
            position,
            row.producer_id,
            row.epoch,
            sequence,
            last_offset,
            delta,
            row.last_timestamp,
            row.coordinator_epoch,
            row.txn_first_offset,
        )
        position += _ENTRY.size
    _HEAD.pack_into(out, 0, VERSION, 0, len(rows))
    _CRC.pack_into(out, 2, crc32c(memoryview(out)[_CRC_START:]))
    return bytes(out)


def decode_snapshot(data: bytes) -> Iterator[ProducerSnapshotRow]:
    """The entries of a snapshot, in file order; raises `CorruptSnapshot` before yielding any."""
    if len(data) < _HEAD.size:
        raise CorruptSnapshot(f"{len(data)} bytes is shorter than a snapshot header")
    version, crc, count = _HEAD.unpack_from(data)
    if version != VERSION:
        raise CorruptSnapshot(f"unknown snapshot version {version}")
    if count < 0 or len(data) != _HEAD.size + count * _ENTRY.size:
        raise CorruptSnapshot(f"{len(data)} bytes cannot hold {count} entries")
    if crc32c(memoryview(data)[_CRC_START:]) != crc:
        raise CorruptSnapshot("CRC mismatch")
    return _entries(data, count)


def _entries(data: bytes, count: int) -> Iterator[ProducerSnapshotRow]:
    for (
        producer_id,
        epoch,
        last_sequence,
        last_offset,
        delta,
        timestamp,
        coordinator_epoch,
        txn_first,
    ) in _ENTRY.iter_unpack(memoryview(data)[_HEAD.size : _HEAD.size + count * _ENTRY.size]):
        batch = None
        if last_offset >= 0 and last_sequence >= 0:
            first_sequence = (last_sequence - delta) % _SEQUENCE_SPACE
            batch = BatchMetadata(first_sequence, last_sequence, last_offset - delta, last_offset, timestamp)
        yield ProducerSnapshotRow(producer_id, epoch, batch, coordinator_epoch, txn_first, timestamp)


def write_snapshot(fs: FileSystem, directory: str, offset: int, data: bytes) -> None:
    """Write (durably) the snapshot of the state below ``offset``, ``data`` from `encode_snapshot`."""
    write_file_atomic(fs, f"{directory}/{snapshot_name(offset)}", data)


def read_snapshot(fs: FileSystem, directory: str, offset: int) -> list[ProducerSnapshotRow]:
    """The entries of the snapshot named ``offset``; raises `CorruptSnapshot` or `OSError`."""
    return list(decode_snapshot(read_file(fs, f"{directory}/{snapshot_name(offset)}")))


def delete_snapshot(fs: FileSystem, directory: str, offset: int) -> None:
    path = f"{directory}/{snapshot_name(offset)}"
    if fs.exists(path):
        fs.remove(path)
