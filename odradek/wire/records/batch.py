"""RecordBatch v2 (magic 2) header view: read and patch a batch without decoding its records.

Layout (big-endian), 61 bytes, followed by the records (compressed as a whole when the
batch has a compression codec)::

    RecordBatch =>
      baseOffset            int64   @0    not covered by the CRC
      batchLength           int32   @8    bytes after this field (total size - 12)
      partitionLeaderEpoch  int32   @12   not covered by the CRC
      magic                 int8    @16   always 2
      crc                   uint32  @17   CRC32C of attributes .. end of batch
      attributes            int16   @21   bits 0-2 compression, 3 timestamp type,
                                           4 transactional, 5 control, 6 delete horizon
      lastOffsetDelta       int32   @23
      baseTimestamp         int64   @27
      maxTimestamp          int64   @35
      producerId            int64   @43
      producerEpoch         int16   @51
      baseSequence          int32   @53
      recordsCount          int32   @57
      records               bytes   @61

Invariants:
- nothing here decodes records: the hot path reads the header, checks the CRC and patches the
  base offset and leader epoch in place (neither is covered by the CRC);
- every function taking ``pos`` treats ``pos`` as the first byte of a batch inside ``buf``;
- a malformed or short batch raises `CorruptBatchError`, never `struct.error` or `IndexError`.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator
from typing import NamedTuple

from odradek.wire.records.checksum import crc32c

__all__ = [
    "ATTRIBUTES_OFFSET",
    "BATCH_OVERHEAD",
    "COMPRESSION_MASK",
    "CONTROL_MASK",
    "CRC_OFFSET",
    "DELETE_HORIZON_MASK",
    "LENGTH_OFFSET",
    "LOG_OVERHEAD",
    "MAGIC",
    "MAGIC_OFFSET",
    "MAX_TIMESTAMP_OFFSET",
    "MIN_BATCH_LENGTH",
    "NO_PARTITION_LEADER_EPOCH",
    "NO_PRODUCER_EPOCH",
    "NO_PRODUCER_ID",
    "NO_SEQUENCE",
    "NO_TIMESTAMP",
    "PARTITION_LEADER_EPOCH_OFFSET",
    "RECORDS_OFFSET",
    "TIMESTAMP_TYPE_CREATE_TIME",
    "TIMESTAMP_TYPE_LOG_APPEND_TIME",
    "TIMESTAMP_TYPE_MASK",
    "TRANSACTIONAL_MASK",
    "BatchHeader",
    "Buffer",
    "CorruptBatchError",
    "WritableBuffer",
    "iter_batches",
    "read_header",
    "set_base_offset",
    "set_log_append_time",
    "set_partition_leader_epoch",
    "verify_batch",
    "write_header",
]

Buffer = bytes | bytearray | memoryview | mmap.mmap
WritableBuffer = bytearray | memoryview | mmap.mmap

BATCH_OVERHEAD = 61
LOG_OVERHEAD = 12
MIN_BATCH_LENGTH = BATCH_OVERHEAD - LOG_OVERHEAD
MAGIC = 2

LENGTH_OFFSET = 8
PARTITION_LEADER_EPOCH_OFFSET = 12
MAGIC_OFFSET = 16
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21
MAX_TIMESTAMP_OFFSET = 35
RECORDS_OFFSET = BATCH_OVERHEAD

COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
TRANSACTIONAL_MASK = 0x10
CONTROL_MASK = 0x20
DELETE_HORIZON_MASK = 0x40

TIMESTAMP_TYPE_CREATE_TIME = 0
TIMESTAMP_TYPE_LOG_APPEND_TIME = 1

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1
NO_TIMESTAMP = -1

_HEADER = struct.Struct(">qiibIhiqqqhii")
_LENGTH = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_INT32 = struct.Struct(">i")
_UINT32 = struct.Struct(">I")
_INT16 = struct.Struct(">h")

assert _HEADER.size == BATCH_OVERHEAD


class CorruptBatchError(ValueError):
    """A record batch is malformed; the message says why."""


class BatchHeader(NamedTuple):
    """The decoded 61-byte header of one v2 record batch; ``crc`` is unsigned.

    A named tuple rather than a frozen dataclass: a header is built for every batch a produce
    request carries (several times on the way to the log), and a tuple straight from
    ``struct.unpack_from`` (``BatchHeader._make``) costs a fraction of a frozen dataclass's
    thirteen ``object.__setattr__`` calls.
    """

    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int

    @property
    def total_size(self) -> int:
        """Bytes the whole batch occupies, base offset and length included."""
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def compression(self) -> int:
        """0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd (5-7 are invalid)."""
        return self.attributes & COMPRESSION_MASK

    @property
    def timestamp_type(self) -> int:
        """0 create time, 1 log append time."""
        return 1 if self.attributes & TIMESTAMP_TYPE_MASK else 0

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_MASK)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_MASK)

    @property
    def has_delete_horizon(self) -> bool:
        return bool(self.attributes & DELETE_HORIZON_MASK)


_make_header = BatchHeader._make


def read_header(buf: Buffer, pos: int = 0) -> BatchHeader:
    """Decode the header at ``pos`` without any validation beyond its presence.

    Raises `CorruptBatchError` when fewer than 61 bytes are available at ``pos``.
    """
    if pos < 0 or len(buf) - pos < BATCH_OVERHEAD:
        raise CorruptBatchError(f"record batch header needs {BATCH_OVERHEAD} bytes, {max(len(buf) - pos, 0)} available")
    return _make_header(_HEADER.unpack_from(buf, pos))


def iter_batches(buf: Buffer, pos: int = 0) -> Iterator[tuple[int, BatchHeader]]:
    """Yield ``(position, header)`` for each complete batch from ``pos`` on.

    Stops silently at an incomplete tail (a torn write: fewer bytes than the length field
    announces, or too few to read it).  Raises `CorruptBatchError` when a length field is
    smaller than a v2 header, since no batch boundary can follow it.  Neither the magic nor
    the CRC is checked: that is `verify_batch`'s job.
    """
    end = len(buf)
    while end - pos >= LOG_OVERHEAD:
        (batch_length,) = _LENGTH.unpack_from(buf, pos + LENGTH_OFFSET)
        if batch_length < MIN_BATCH_LENGTH:
            raise CorruptBatchError(f"record batch at position {pos} has length {batch_length} < {MIN_BATCH_LENGTH}")
        total = batch_length + LOG_OVERHEAD
        if end - pos < total:
            return
        yield pos, _make_header(_HEADER.unpack_from(buf, pos))
        pos += total


def verify_batch(buf: Buffer, pos: int = 0) -> BatchHeader:
    """Check the batch at ``pos`` fully and return its header.

    Checks: the header and the whole batch are present, batchLength >= 49, magic == 2,
    recordsCount >= 0, and the CRC32C over attributes..end matches.  Records are not decoded.
    """
    header = read_header(buf, pos)
    if header.batch_length < MIN_BATCH_LENGTH:
        raise CorruptBatchError(
            f"record batch length {header.batch_length} is smaller than the minimum {MIN_BATCH_LENGTH}"
        )
    if header.magic != MAGIC:
        raise CorruptBatchError(f"unsupported record batch magic {header.magic}, expected {MAGIC}")
    end = pos + header.batch_length + LOG_OVERHEAD
    if end > len(buf):
        raise CorruptBatchError(
            f"record batch needs {header.batch_length + LOG_OVERHEAD} bytes, {len(buf) - pos} available"
        )
    if header.records_count < 0:
        raise CorruptBatchError(f"record batch has a negative record count {header.records_count}")
    actual = crc32c(memoryview(buf)[pos + ATTRIBUTES_OFFSET : end])
    if actual != header.crc:
        raise CorruptBatchError(f"record batch CRC mismatch: stored {header.crc:#010x}, computed {actual:#010x}")
    return header


def set_base_offset(buf: WritableBuffer, pos: int, base_offset: int) -> None:
    """Overwrite the base offset in place; the CRC does not cover it."""
    _INT64.pack_into(buf, pos, base_offset)


def set_partition_leader_epoch(buf: WritableBuffer, pos: int, epoch: int) -> None:
    """Overwrite the partition leader epoch in place; the CRC does not cover it."""
    _INT32.pack_into(buf, pos + PARTITION_LEADER_EPOCH_OFFSET, epoch)


def set_log_append_time(buf: WritableBuffer, pos: int, timestamp_ms: int) -> None:
    """Mark the batch as log-append-time with ``timestamp_ms`` as its max timestamp.

    Sets the timestamp-type bit and maxTimestamp, then recomputes the CRC.  Record timestamps
    are left as they are: readers of a log-append-time batch use maxTimestamp for every record.
    The batch must be complete in ``buf`` (raises `CorruptBatchError` otherwise).
    """
    header = read_header(buf, pos)
    end = pos + header.batch_length + LOG_OVERHEAD
    if header.batch_length < MIN_BATCH_LENGTH or end > len(buf):
        raise CorruptBatchError("cannot set the log append time of an incomplete record batch")
    _INT16.pack_into(buf, pos + ATTRIBUTES_OFFSET, header.attributes | TIMESTAMP_TYPE_MASK)
    _INT64.pack_into(buf, pos + MAX_TIMESTAMP_OFFSET, timestamp_ms)
    _UINT32.pack_into(buf, pos + CRC_OFFSET, crc32c(memoryview(buf)[pos + ATTRIBUTES_OFFSET : end]))


def write_header(buf: WritableBuffer, pos: int, header: BatchHeader) -> int:
    """Write every field of ``header`` at ``pos``, then compute, store and return the CRC.

    ``header.crc`` is ignored.  The records must already be in place: the CRC covers
    attributes .. ``pos + header.total_size``.
    """
    end = pos + header.batch_length + LOG_OVERHEAD
    if header.batch_length < MIN_BATCH_LENGTH or end > len(buf):
        raise CorruptBatchError("cannot write the header of an incomplete record batch")
    _HEADER.pack_into(
        buf,
        pos,
        header.base_offset,
        header.batch_length,
        header.partition_leader_epoch,
        header.magic,
        0,
        header.attributes,
        header.last_offset_delta,
        header.base_timestamp,
        header.max_timestamp,
        header.producer_id,
        header.producer_epoch,
        header.base_sequence,
        header.records_count,
    )
    crc = crc32c(memoryview(buf)[pos + ATTRIBUTES_OFFSET : end])
    _UINT32.pack_into(buf, pos + CRC_OFFSET, crc)
    return crc
