"""Produce (key 0), v0-v13.  v0-v2 are advertised, as Kafka 4 does (KAFKA-18659: librdkafka
will not compress otherwise), but answered with UNSUPPORTED_VERSION per partition.

Per partition, in Kafka's order: unknown topic (UNKNOWN_TOPIC_OR_PARTITION, or UNKNOWN_TOPIC_ID
by id in v13) or partition; internal topic (INVALID_TOPIC_EXCEPTION); exactly one magic-2 batch
(INVALID_RECORD); batch larger than ``max.message.bytes`` (MESSAGE_TOO_LARGE); bad CRC or
header (CORRUPT_MESSAGE); larger than a segment (RECORD_LIST_TOO_LARGE); then the record checks
of `odradek.storage.validator` (INVALID_TIMESTAMP, INVALID_RECORD with Kafka's per-record
errors and the log start offset) and the topic's compression.type.  A refused partition writes
nothing and does not affect the other partitions of the request.  As in Kafka, only record
checks carry an error message; a refused batch answers with the code alone.

The batch stays opaque: the storage layer checks its CRC and patches offsets in place; no record
is decoded here.  acks=0 sends no response; acks=1 and acks=-1 are the same on one replica.
Idempotent batches are checked against the partition's producer state first (see
`odradek.txn.producer_state`): a duplicate returns the original offsets without writing.
Not implemented yet: transactions.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from odradek.config import effective_value
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.storage.errors import RecordBatchTooLarge, StorageError
from odradek.storage.validator import RecordRefusal, Refusal, check_records, recompress, target_codec
from odradek.txn.producer_state import SequenceVerdict, Verdict
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.produce import ProduceRequest, ProduceResponse
from odradek.wire.records.batch import (
    MAGIC,
    MAGIC_OFFSET,
    BatchHeader,
    CorruptBatchError,
    iter_batches,
    verify_batch,
)

if TYPE_CHECKING:
    from odradek.broker import Broker

log = logging.getLogger("odradek.produce")

_TopicResponse = ProduceResponse.TopicProduceResponse
_PartitionResponse = _TopicResponse.PartitionProduceResponse


def _error(request: Any, code: ErrorCode) -> Any:
    return ProduceResponse(
        responses=[
            _TopicResponse(
                name=t.name,
                topic_id=t.topic_id,
                partition_responses=[_PartitionResponse(index=p.index, error_code=code) for p in t.partition_data],
            )
            for t in request.topic_data
        ]
    )


def _failed(index: int, code: ErrorCode, message: str | None = None) -> Any:
    return _PartitionResponse(index=index, error_code=code, base_offset=-1, error_message=message)


def _refused_batch(topic: str, index: int, code: ErrorCode, detail: str) -> Any:
    """A refusal of the whole batch (corrupt, too large, storage failure): Kafka's answer
    carries the code and no message (checked against Kafka 4.3.1), so the detail goes to the
    debug log only."""
    log.debug("produce to %s-%d refused with %s: %s", topic, index, code.name, detail)
    return _failed(index, code)


def _check_single_batch(records: memoryview | None, version: int) -> tuple[BatchHeader | None, str | None]:
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


_SEQUENCE_ERRORS = {
    Verdict.INVALID_PRODUCER_EPOCH: ErrorCode.INVALID_PRODUCER_EPOCH,
    Verdict.OUT_OF_ORDER_SEQUENCE: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
}


def _sequence_refusal(topic: str, index: int, verdict: SequenceVerdict, log_start_offset: int) -> Any:
    """A batch the idempotence check did not let through, answered as Kafka 4.3.1 answers it
    (compat-tests/probes/idempotence.py): a duplicate gets the original offsets and, in the
    log-append-time field, the original batch's max timestamp; a sequence or epoch error gets
    the log start offset and no message (the explanation goes to the debug log)."""
    if verdict.duplicate_of is not None:
        return _PartitionResponse(
            index=index,
            error_code=ErrorCode.NONE,
            base_offset=verdict.duplicate_of.first_offset,
            log_append_time_ms=verdict.duplicate_of.timestamp,
            log_start_offset=log_start_offset,
        )
    code = _SEQUENCE_ERRORS[verdict.verdict]
    log.debug("produce to %s-%d refused with %s: %s", topic, index, code.name, verdict.message)
    return _PartitionResponse(index=index, error_code=code, base_offset=-1, log_start_offset=log_start_offset)


_REFUSAL_ERRORS = {
    Refusal.INVALID_TIMESTAMP: ErrorCode.INVALID_TIMESTAMP,
    Refusal.INVALID_RECORD: ErrorCode.INVALID_RECORD,
}


def _validate_records(
    broker: Broker, configs: dict[str, str], records: memoryview, header: BatchHeader, partition_name: str
) -> RecordRefusal | None:
    def setting(name: str) -> str:
        return effective_value(broker.config, configs, name)

    return check_records(
        records,
        header,
        now_ms=broker.clock.time_ms(),
        create_time=setting("message.timestamp.type") == "CreateTime",
        before_max_ms=int(setting("message.timestamp.before.max.ms")),
        after_max_ms=int(setting("message.timestamp.after.max.ms")),
        compacted="compact" in setting("cleanup.policy"),
        partition_name=partition_name,
    )


def _maybe_recompress(broker: Broker, configs: dict[str, str], records: memoryview, header: BatchHeader) -> memoryview:
    codec = target_codec(effective_value(broker.config, configs, "compression.type"))
    if codec is None or codec == header.compression or header.is_control:
        return records
    level_setting = {1: "compression.gzip.level", 3: "compression.lz4.level", 4: "compression.zstd.level"}.get(codec)
    level = int(effective_value(broker.config, configs, level_setting)) if level_setting else None
    return memoryview(recompress(records, header, codec, None if level == -1 else level))


def _refused(index: int, refusal: RecordRefusal, log_start_offset: int) -> Any:
    """A record-level refusal; Kafka reports the partition's log start offset with it."""
    return _PartitionResponse(
        index=index,
        error_code=_REFUSAL_ERRORS[refusal.kind],
        base_offset=-1,
        log_start_offset=log_start_offset,
        error_message=refusal.message,
        record_errors=[
            _PartitionResponse.BatchIndexAndErrorMessage(batch_index=i, batch_index_error_message=message)
            for i, message in refusal.record_errors
        ],
    )


async def _produce_partition(ctx: RequestContext, topic: str, index: int, records: memoryview | None) -> Any:
    broker = ctx.broker
    info = broker.catalog.get(topic)
    log = broker.partition_log(topic, index)
    if info is None or log is None:
        return _failed(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    if info.internal:
        return _failed(index, ErrorCode.INVALID_TOPIC_EXCEPTION, f"Cannot append to internal topic {topic}")
    try:
        header, complaint = _check_single_batch(records, ctx.version)
    except CorruptBatchError as exc:
        return _refused_batch(topic, index, ErrorCode.CORRUPT_MESSAGE, str(exc))
    if complaint is not None:
        return _failed(index, ErrorCode.INVALID_RECORD, complaint)
    assert records is not None
    max_bytes = int(effective_value(broker.config, info.configs, "max.message.bytes"))
    if len(records) > max_bytes:
        return _refused_batch(
            topic,
            index,
            ErrorCode.MESSAGE_TOO_LARGE,
            f"The record batch size in the append to {topic}-{index} is {len(records)} bytes which exceeds "
            f"the maximum configured value of {max_bytes}.",
        )
    if header is None:
        return _refused_batch(topic, index, ErrorCode.CORRUPT_MESSAGE, "the record set ends inside its first batch")
    idempotent = header.producer_id >= 0 and header.base_sequence >= 0
    producers = broker.producer_state(log) if idempotent else None
    try:
        # Record checks and recompression decode records, so a bad CRC surfaces here too.
        refusal = _validate_records(broker, info.configs, records, header, f"{topic}-{index}")
        if refusal is not None:
            return _refused(index, refusal, log.log_start_offset)
        records = _maybe_recompress(broker, info.configs, records, header)
        if producers is not None:
            verdict = producers.check(header)
            if verdict.verdict is not Verdict.APPEND:
                verify_batch(records)
                return _sequence_refusal(topic, index, verdict, log.log_start_offset)
        appended = log.append(records, leader_epoch=0, now_ms=broker.clock.time_ms())
    except CorruptBatchError as exc:
        return _refused_batch(topic, index, ErrorCode.CORRUPT_MESSAGE, str(exc))
    except RecordBatchTooLarge as exc:
        return _refused_batch(topic, index, ErrorCode.RECORD_LIST_TOO_LARGE, str(exc))
    except StorageError as exc:
        return _refused_batch(topic, index, ErrorCode.KAFKA_STORAGE_ERROR, str(exc))
    if producers is not None:
        producers.record(header, appended.base_offset, header.max_timestamp)
    return _PartitionResponse(
        index=index,
        error_code=ErrorCode.NONE,
        base_offset=appended.base_offset,
        log_append_time_ms=appended.log_append_time_ms,
        log_start_offset=appended.log_start_offset,
    )


@registry.api(ProduceRequest, ProduceResponse, "0-13", _error)
async def produce(ctx: RequestContext, request: Any) -> Any:
    broker = ctx.broker
    responses = []
    acks_valid = request.acks in (-1, 0, 1)
    for topic_data in request.topic_data:
        name = topic_data.name
        if ctx.version >= 13:
            by_id = broker.catalog.by_id(topic_data.topic_id)
            name = by_id.name if by_id is not None else None
        partitions = []
        for data in topic_data.partition_data:
            if ctx.version < 3:
                partitions.append(_failed(data.index, ErrorCode.UNSUPPORTED_VERSION))
            elif not acks_valid:
                partitions.append(_failed(data.index, ErrorCode.INVALID_REQUIRED_ACKS))
            elif name is None:
                partitions.append(_failed(data.index, ErrorCode.UNKNOWN_TOPIC_ID))
            else:
                partitions.append(await _produce_partition(ctx, name, data.index, data.records))
        responses.append(
            _TopicResponse(name=topic_data.name, topic_id=topic_data.topic_id, partition_responses=partitions)
        )
    if request.acks == 0:
        return None
    return ProduceResponse(responses=responses)
