"""What a client's produce must pass before its batch reaches a partition's append.

In Kafka's order (the producer state check comes after, inside `Partition.append`):
exactly one magic-2 batch (INVALID_RECORD with Kafka's message); larger than the topic's
``max.message.bytes`` (MESSAGE_TOO_LARGE); not even one whole batch (CORRUPT_MESSAGE); a
header Kafka's batch validation refuses (INVALID_RECORD with the log start offset, or
CORRUPT_MESSAGE when the CRC is wrong too, as Kafka checks the CRC first); the record
checks of `odradek.storage.validator` (INVALID_TIMESTAMP, INVALID_RECORD with the per-record
errors and the log start offset); then the topic's ``compression.type``, which may rewrite
the batch.  Only record checks carry a message; a refused batch answers with the code alone
(the detail goes to the debug log), as Kafka 4.3.1 does.

Topic settings come from the partition's typed `LogConfig`, built once per config change, so
no setting is looked up or parsed per batch.
"""

from __future__ import annotations

import logging

from odradek.partition.results import AppendResult
from odradek.storage.log_config import LONG_MAX, LogConfig, TimestampType, TopicCompression
from odradek.storage.validator import (
    RecordRefusal,
    Refusal,
    batch_shape_error,
    check_records,
    recompress,
    target_codec,
)
from odradek.wire.errors import ErrorCode
from odradek.wire.records.batch import (
    BATCH_OVERHEAD,
    CONTROL_MASK,
    LOG_OVERHEAD,
    MAGIC,
    MAGIC_OFFSET,
    MIN_BATCH_LENGTH,
    BatchHeader,
    CorruptBatchError,
    iter_batches,
    read_header,
    verify_batch,
)

__all__ = ["check_produce"]

log = logging.getLogger("odradek.partition")

_REFUSAL_ERRORS = {
    Refusal.INVALID_TIMESTAMP: ErrorCode.INVALID_TIMESTAMP,
    Refusal.INVALID_RECORD: ErrorCode.INVALID_RECORD,
}


def _single_batch(records: memoryview | None, version: int) -> tuple[BatchHeader | None, str | None]:
    """Kafka's ProduceRequest validation: exactly one batch, of magic 2.

    Returns the first batch's header (None when not even one whole batch is there) and the
    complaint, if any; the header is read once here and reused by the rest of the append.
    """
    if records is None or len(records) == 0:
        return None, f"Produce requests with version {version} must have at least one record batch per partition"
    if len(records) > MAGIC_OFFSET and records[MAGIC_OFFSET] != MAGIC:
        return None, (
            f"Produce requests with version {version} are only allowed to contain record batches with magic version 2"
        )
    batches = iter_batches(records)
    first = next(batches, None)
    if first is not None and next(batches, None) is not None:
        return first[1], (
            f"Produce requests with version {version} are only allowed to contain exactly one record batch per "
            "partition"
        )
    return (first[1] if first is not None else None), None


def _refused_batch(topic: str, index: int, code: ErrorCode, detail: str) -> AppendResult:
    log.debug("produce to %s-%d refused with %s: %s", topic, index, code.name, detail)
    return AppendResult(code)


def _record_refusal(refusal: RecordRefusal, log_start_offset: int) -> AppendResult:
    """A record-level refusal; Kafka reports the partition's log start offset with it."""
    return AppendResult(
        _REFUSAL_ERRORS[refusal.kind],
        log_start_offset=log_start_offset,
        message=refusal.message,
        record_errors=refusal.record_errors,
    )


def _level(config: LogConfig, codec: int) -> int | None:
    """The topic's level for ``codec`` (gzip 1, lz4 3, zstd 4), None for the codec's default."""
    level = {
        1: config.compression_gzip_level,
        3: config.compression_lz4_level,
        4: config.compression_zstd_level,
    }.get(codec, -1)
    return None if level == -1 else level


def _maybe_recompress(config: LogConfig, records: memoryview, header: BatchHeader) -> tuple[memoryview, BatchHeader]:
    """The batch as it is to be stored, and its header as it holds it (a rewritten batch keeps
    the producer's fields, offset delta and max timestamp; its length and CRC are new)."""
    codec = target_codec(config.compression_type)
    if codec is None or codec == header.compression or header.is_control:
        return records, header
    rewritten = memoryview(recompress(records, header, codec, _level(config, codec)))
    return rewritten, read_header(rewritten)


def check_produce(
    records: memoryview | None,
    *,
    topic: str,
    index: int,
    version: int,
    config: LogConfig,
    now_ms: int,
    log_start_offset: int,
) -> AppendResult | tuple[memoryview, BatchHeader]:
    """The refusal, or the batch to append (recompressed if the topic says so) and the header
    the producer sent (a rewritten batch keeps its producer id, epoch, sequences, offset delta
    and max timestamp, so the header still speaks for it in the idempotence check).
    ``config`` is the partition's topic config, ``version`` the Produce request's."""
    if records is not None and len(records) >= BATCH_OVERHEAD and records[MAGIC_OFFSET] == MAGIC:
        header = read_header(records)
        if _plain(header, len(records), config, now_ms):
            return records, header
    return _check_fully(records, topic, index, version, config, now_ms, log_start_offset)


def _plain(header: BatchHeader, size: int, config: LogConfig, now_ms: int) -> bool:
    """Whether the common case holds, where every check of `_check_fully` passes without
    reading more than the header: the buffer is exactly this one whole batch, within
    ``max.message.bytes``, of a shape Kafka accepts, with no record to decode (no
    ``message.timestamp.before.max.ms`` bound, not compacted, no timestamp too new) and no
    recompression.  False sends the batch through the full checks, which then say why."""
    last_offset_delta = header.last_offset_delta
    attributes = header.attributes
    return (
        header.batch_length + LOG_OVERHEAD == size
        and header.batch_length >= MIN_BATCH_LENGTH
        and size <= config.max_message_bytes
        and last_offset_delta >= 0
        and header.records_count == last_offset_delta + 1
        and (header.producer_id < 0 or header.base_sequence >= 0)
        and not attributes & CONTROL_MASK
        and config.message_timestamp_before_max_ms == LONG_MAX
        and (
            config.message_timestamp_type is TimestampType.LOG_APPEND_TIME
            or header.max_timestamp - now_ms <= config.message_timestamp_after_max_ms
        )
        and config.compression_type is TopicCompression.PRODUCER
        and "compact" not in config.cleanup_policy
    )


def _check_fully(
    records: memoryview | None,
    topic: str,
    index: int,
    version: int,
    config: LogConfig,
    now_ms: int,
    log_start_offset: int,
) -> AppendResult | tuple[memoryview, BatchHeader]:
    try:
        header, complaint = _single_batch(records, version)
    except CorruptBatchError as exc:
        return _refused_batch(topic, index, ErrorCode.CORRUPT_MESSAGE, str(exc))
    if complaint is not None:
        return AppendResult(ErrorCode.INVALID_RECORD, message=complaint)
    assert records is not None
    max_bytes = config.max_message_bytes
    if len(records) > max_bytes:
        return _refused_batch(
            topic,
            index,
            ErrorCode.MESSAGE_TOO_LARGE,
            f"The record batch size in the append to {topic}-{index} is {len(records)} bytes which "
            f"exceeds the maximum configured value of {max_bytes}.",
        )
    if header is None:
        return _refused_batch(topic, index, ErrorCode.CORRUPT_MESSAGE, "the record set ends inside its first batch")
    try:
        shape_error = batch_shape_error(header)
        if shape_error is not None:
            verify_batch(records)  # only a refused batch pays for this CRC pass; the log checks the rest
            log.debug("produce to %s-%d refused with INVALID_RECORD: %s", topic, index, shape_error)
            return AppendResult(ErrorCode.INVALID_RECORD, log_start_offset=log_start_offset)
        # Record checks and recompression decode records, so a bad CRC surfaces here too.
        refusal = check_records(
            records,
            header,
            now_ms=now_ms,
            create_time=not config.log_append_time,
            before_max_ms=config.message_timestamp_before_max_ms,
            after_max_ms=config.message_timestamp_after_max_ms,
            compacted=config.compact,
            partition_name=f"{topic}-{index}",
        )
        if refusal is not None:
            return _record_refusal(refusal, log_start_offset)
        return _maybe_recompress(config, records, header)
    except CorruptBatchError as exc:
        return _refused_batch(topic, index, ErrorCode.CORRUPT_MESSAGE, str(exc))
