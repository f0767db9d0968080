"""Kafka RecordBatch v2: header view and in-place patches, records, codecs, batch building."""

from odradek.wire.records.batch import (
    BATCH_OVERHEAD,
    LOG_OVERHEAD,
    BatchHeader,
    CorruptBatchError,
    iter_batches,
    read_header,
    set_base_offset,
    set_log_append_time,
    set_partition_leader_epoch,
    verify_batch,
    write_header,
)
from odradek.wire.records.builder import (
    ControlRecord,
    ControlRecordType,
    build_batch,
    build_control_batch,
    decode_batch,
    parse_control_record,
)
from odradek.wire.records.compression import CompressionError, CompressionType, compress, decompress
from odradek.wire.records.record import Record

__all__ = [
    "BATCH_OVERHEAD",
    "LOG_OVERHEAD",
    "BatchHeader",
    "CompressionError",
    "CompressionType",
    "ControlRecord",
    "ControlRecordType",
    "CorruptBatchError",
    "Record",
    "build_batch",
    "build_control_batch",
    "compress",
    "decode_batch",
    "decompress",
    "iter_batches",
    "parse_control_record",
    "read_header",
    "set_base_offset",
    "set_log_append_time",
    "set_partition_leader_epoch",
    "verify_batch",
    "write_header",
]
