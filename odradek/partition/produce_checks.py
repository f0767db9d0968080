"""What a client's produce must pass before its batch reaches a partition's append.

In Kafka's order (the producer state check comes after, inside `Partition.append`):
exactly one magic-2 batch (INVALID_RECORD with Kafka's message); larger than the topic's
``max.message.bytes`` (MESSAGE_TOO_LARGE); not even one whole batch (CORRUPT_MESSAGE); the
record checks of `odradek.storage.validator` (INVALID_TIMESTAMP, INVALID_RECORD with the
per-record errors and the log start offset); then the topic's ``compression.type``, which may
rewrite the batch.  Only record checks carry a message; a refused batch answers with the code
alone (the detail goes to the debug log), as Kafka 4.3.1 does.

Topic settings are read with ``effective_value(broker config, topic overrides, name)``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from odradek.config import BrokerConfig
from odradek.partition.results import AppendResult
from odradek.storage.validator import RecordRefusal, Refusal, check_records, recompress, target_codec
from odradek.topic_config import effective_value
from odradek.wire.errors import ErrorCode
from odradek.wire.records.batch import MAGIC, MAGIC_OFFSET, BatchHeader, CorruptBatchError, iter_batches

__all__ = ["ProduceChecks", "check_produce"]

log = logging.getLogger("odradek.partition")

_REFUSAL_ERRORS = {
    Refusal.INVALID_TIMESTAMP: ErrorCode.INVALID_TIMESTAMP,
    Refusal.INVALID_RECORD: ErrorCode.INVALID_RECORD,
}
_LEVEL_SETTINGS = {1: "compression.gzip.level", 3: "compression.lz4.level", 4: "compression.zstd.level"}


@dataclass(frozen=True, slots=True)
class ProduceChecks:
    """What the checks need to know besides the batch."""

    topic: str
    index: int
    version: int
    config: BrokerConfig
    topic_configs: Mapping[str, str]
    now_ms: int
    log_start_offset: int

    def setting(self, name: str) -> str:
        return effective_value(self.config, self.topic_configs, name)


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


def _refused_batch(checks: ProduceChecks, code: ErrorCode, detail: str) -> AppendResult:
    log.debug("produce to %s-%d refused with %s: %s", checks.topic, checks.index, code.name, detail)
    return AppendResult(code)


def _record_refusal(refusal: RecordRefusal, log_start_offset: int) -> AppendResult:
    """A record-level refusal; Kafka reports the partition's log start offset with it."""
    return AppendResult(
        _REFUSAL_ERRORS[refusal.kind],
        log_start_offset=log_start_offset,
        message=refusal.message,
        record_errors=refusal.record_errors,
    )


def _maybe_recompress(checks: ProduceChecks, records: memoryview, header: BatchHeader) -> memoryview:
    codec = target_codec(checks.setting("compression.type"))
    if codec is None or codec == header.compression or header.is_control:
        return records
    level_setting = _LEVEL_SETTINGS.get(codec)
    level = int(checks.setting(level_setting)) if level_setting else None
    return memoryview(recompress(records, header, codec, None if level == -1 else level))


def check_produce(records: memoryview | None, checks: ProduceChecks) -> AppendResult | memoryview:
    """The refusal, or the batch to append (recompressed if the topic says so; a rewritten
    batch keeps the producer id, epoch, sequences, offset delta and max timestamp)."""
    try:
        header, complaint = _single_batch(records, checks.version)
    except CorruptBatchError as exc:
        return _refused_batch(checks, ErrorCode.CORRUPT_MESSAGE, str(exc))
    if complaint is not None:
        return AppendResult(ErrorCode.INVALID_RECORD, message=complaint)
    assert records is not None
    max_bytes = int(checks.setting("max.message.bytes"))
    if len(records) > max_bytes:
        return _refused_batch(
            checks,
            ErrorCode.MESSAGE_TOO_LARGE,
            f"The record batch size in the append to {checks.topic}-{checks.index} is {len(records)} bytes which "
            f"exceeds the maximum configured value of {max_bytes}.",
        )
    if header is None:
        return _refused_batch(checks, ErrorCode.CORRUPT_MESSAGE, "the record set ends inside its first batch")
    try:
        # Record checks and recompression decode records, so a bad CRC surfaces here too.
        refusal = check_records(
            records,
            header,
            now_ms=checks.now_ms,
            create_time=checks.setting("message.timestamp.type") == "CreateTime",
            before_max_ms=int(checks.setting("message.timestamp.before.max.ms")),
            after_max_ms=int(checks.setting("message.timestamp.after.max.ms")),
            compacted="compact" in checks.setting("cleanup.policy"),
            partition_name=f"{checks.topic}-{checks.index}",
        )
        if refusal is not None:
            return _record_refusal(refusal, checks.log_start_offset)
        return _maybe_recompress(checks, records, header)
    except CorruptBatchError as exc:
        return _refused_batch(checks, ErrorCode.CORRUPT_MESSAGE, str(exc))
