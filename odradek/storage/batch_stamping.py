"""What a log does to the batches of an append before writing them: verify each batch (header
and CRC32C, records never decoded), then patch in place its base offset (the log end offset
onwards), its partition leader epoch and, when the topic uses it, the log append time.  Neither
the base offset nor the leader epoch is covered by the CRC; the log append time is, so stamping
it recomputes the CRC.  Verification comes first for every batch: a bad one leaves the buffer
untouched and nothing written.

`stamp_batches` handles any number of batches; `stamp_single` is the same for a buffer holding
exactly one batch whose header the caller read already (a client's produce: the produce checks
read it once and every later step shares it).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from odradek.storage.segment import AppendedBatch
from odradek.storage.time_index import NO_TIMESTAMP
from odradek.wire.records.batch import (
    ATTRIBUTES_OFFSET,
    LOG_OVERHEAD,
    MAGIC,
    MIN_BATCH_LENGTH,
    BatchHeader,
    CorruptBatchError,
    set_base_offset,
    set_log_append_time,
    set_partition_leader_epoch,
    verify_batch,
)
from odradek.wire.records.checksum import crc32c

__all__ = ["StampedBatches", "stamp_batches", "stamp_single", "verify_batches"]

_OFFSET_LENGTH_EPOCH = struct.Struct(">qii")
"""A batch's base offset, length and partition leader epoch (at 0, 8, 12): one pack patches the
offset and the epoch, writing the length back unchanged."""


class StampedBatches(NamedTuple):
    batches: list[AppendedBatch]
    """Where each batch sits in the buffer, its last offset and max timestamp (for the indexes)."""
    next_offset: int
    max_timestamp: int


def verify_batches(records: bytearray | memoryview) -> list[BatchHeader]:
    """The header of every batch of ``records``; raises `CorruptBatchError` when any batch is
    invalid, incomplete, or there is none."""
    size = len(records)
    headers: list[BatchHeader] = []
    position = 0
    while position < size:
        header = verify_batch(records, position)
        headers.append(header)
        position += header.total_size
    if not headers:
        raise CorruptBatchError("no record batch to append")
    return headers


def stamp_batches(
    records: bytearray | memoryview, headers: list[BatchHeader], first_offset: int, leader_epoch: int, append_time: int
) -> StampedBatches:
    """Patch the verified batches ``headers`` describe, numbered from ``first_offset``;
    ``append_time`` is the log append time, or `NO_TIMESTAMP` to keep the producer's."""
    offset = first_offset
    batches: list[AppendedBatch] = []
    max_timestamp = NO_TIMESTAMP
    position = 0
    for header in headers:
        set_base_offset(records, position, offset)
        set_partition_leader_epoch(records, position, leader_epoch)
        if append_time != NO_TIMESTAMP:
            set_log_append_time(records, position, append_time)
            batch_max_timestamp = append_time
        else:
            batch_max_timestamp = header.max_timestamp
        last_offset = offset + header.last_offset_delta
        batches.append(AppendedBatch(position, last_offset, batch_max_timestamp))
        max_timestamp = max(max_timestamp, batch_max_timestamp)
        offset = last_offset + 1
        position += header.total_size
    return StampedBatches(batches, offset, max_timestamp)


def stamp_single(
    records: bytearray | memoryview, header: BatchHeader, first_offset: int, leader_epoch: int, append_time: int
) -> int:
    """`verify_batches` and `stamp_batches` for a buffer that is exactly the batch ``header``
    describes (as the buffer holds it); returns the batch's max timestamp as stored."""
    if (
        header.magic != MAGIC
        or header.batch_length < MIN_BATCH_LENGTH
        or header.records_count < 0
        or crc32c(memoryview(records)[ATTRIBUTES_OFFSET : header.batch_length + LOG_OVERHEAD]) != header.crc
    ):
        verify_batch(records)  # raises the refusal with its reason
    _OFFSET_LENGTH_EPOCH.pack_into(records, 0, first_offset, header.batch_length, leader_epoch)
    if append_time == NO_TIMESTAMP:
        return header.max_timestamp
    set_log_append_time(records, 0, append_time)
    return append_time
