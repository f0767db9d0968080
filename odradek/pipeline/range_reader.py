"""Reading one partition's offset range into Arrow record batches, for one Spark task of the
``odradek`` data source.

A confluent-kafka consumer is assigned the partition at the range's start (no group is joined and
nothing is committed) and reads until it has passed the range's end: a record at or past ``end``,
or librdkafka's end-of-partition event at or past ``end``, closes the range. Offsets inside the
range that carry no record (transaction markers, aborted records under read_committed, compacted
records) are simply absent from the output, as with Spark's own connector.

Failures name the partition and offset: a start offset no longer in the log raises
:class:`RangeReadError` unless the read skips lost data (``failOnDataLoss=false``, the consumer
then resets to the log start offset); a read that makes no progress for the source's timeout raises
too, rather than hanging the task.

Columns are Spark's Kafka source's: key, value, topic, partition, offset, timestamp (microseconds,
UTC), timestampType (0 CreateTime, 1 LogAppendTime) and, with includeHeaders, headers as a list of
(key, value) structs in record order (null for a record without headers, as there).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from confluent_kafka import TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME, Consumer, KafkaError, TopicPartition

from odradek.pipeline.source_options import SourceOptions
from odradek.pipeline.source_plan import OffsetRange

__all__ = ["RangeReadError", "consumer_config", "read_range"]

log = logging.getLogger("odradek.pipeline.source")

#: Rows per Arrow batch handed to Spark.
BATCH_ROWS = 8192
#: Messages taken from librdkafka's queue per call.
CONSUME_CHUNK = 2048

_TIMESTAMP_TYPES = {TIMESTAMP_CREATE_TIME: 0, TIMESTAMP_LOG_APPEND_TIME: 1}


class RangeReadError(RuntimeError):
    """A partition's range could not be read; the message names the partition and offset."""


def consumer_config(options: SourceOptions) -> dict[str, Any]:
    """The consumer settings of a range read: the user's ``kafka.*`` settings, then the source's own."""
    config: dict[str, Any] = dict(options.consumer_config)
    config.update(
        {
            "bootstrap.servers": options.bootstrap,
            "group.id": "odradek-spark-source",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "error" if options.fail_on_data_loss else "earliest",
            "isolation.level": "read_committed" if options.read_committed else "read_uncommitted",
        }
    )
    return config


class _Columns:
    """Column lists of the rows read so far, emptied into one Arrow batch at a time."""

    def __init__(self, schema: pa.Schema, headers: bool) -> None:
        self.schema = schema
        self.headers = headers
        self.clear()

    def clear(self) -> None:
        self.keys: list[bytes | None] = []
        self.values: list[bytes | None] = []
        self.offsets: list[int] = []
        self.timestamps: list[int | None] = []
        self.timestamp_types: list[int] = []
        self.header_lists: list[list[dict[str, Any]] | None] = []

    def __len__(self) -> int:
        return len(self.offsets)

    def add(self, message: Any) -> None:
        self.keys.append(message.key())
        self.values.append(message.value())
        self.offsets.append(message.offset())
        kind, millis = message.timestamp()
        self.timestamps.append(millis * 1000 if kind in _TIMESTAMP_TYPES else None)
        self.timestamp_types.append(_TIMESTAMP_TYPES.get(kind, -1))
        if self.headers:
            headers = message.headers()
            self.header_lists.append(None if headers is None else [{"key": k, "value": v} for k, v in headers])

    def batch(self, topic: str, partition: int) -> pa.RecordBatch:
        count = len(self)
        fields = self.schema
        arrays = [
            pa.array(self.keys, fields.field("key").type),
            pa.array(self.values, fields.field("value").type),
            pa.array([topic] * count, fields.field("topic").type),
            pa.array([partition] * count, fields.field("partition").type),
            pa.array(self.offsets, fields.field("offset").type),
            pa.array(self.timestamps, fields.field("timestamp").type),
            pa.array(self.timestamp_types, fields.field("timestampType").type),
        ]
        if self.headers:
            arrays.append(pa.array(self.header_lists, fields.field("headers").type))
        batch = pa.RecordBatch.from_arrays(arrays, schema=self.schema)
        self.clear()
        return batch


def read_range(options: SourceOptions, span: OffsetRange, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The records of ``span`` as Arrow batches of ``schema`` (Spark's Kafka columns), in offset order."""
    consumer = Consumer(consumer_config(options), logger=log)
    columns = _Columns(schema, options.include_headers)
    timeout_s = options.timeout_ms / 1000
    position = span.start
    try:
        consumer.assign([TopicPartition(span.topic, span.partition, span.start)])
        deadline = time.monotonic() + timeout_s
        done = False
        while not done:
            # consume() returns only once it has num_messages or its timeout passed: never ask for more
            # than the offsets left, or the end of every range would wait out the timeout.
            wanted = max(1, min(CONSUME_CHUNK, span.end - position))
            messages = consumer.consume(num_messages=wanted, timeout=min(1.0, timeout_s))
            if not messages:
                if time.monotonic() > deadline:
                    raise RangeReadError(
                        f"reading {span.name} stalled at offset {position} (range [{span.start}, {span.end})): "
                        f"nothing received from {options.bootstrap} within {options.timeout_ms} ms"
                    )
                continue
            deadline = time.monotonic() + timeout_s
            for message in messages:
                error = message.error()
                offset = message.offset()
                if error is not None:
                    if error.code() != KafkaError._PARTITION_EOF or offset is None:
                        raise _read_error(span, position, error)
                    position = max(position, offset)
                    done = offset >= span.end
                    if done:
                        break
                    continue
                assert offset is not None, "a record always has an offset"
                if offset >= span.end:
                    done = True
                    break
                columns.add(message)
                position = offset + 1
                if len(columns) >= BATCH_ROWS:
                    yield columns.batch(span.topic, span.partition)
                if position >= span.end:
                    done = True
                    break
        if len(columns):
            yield columns.batch(span.topic, span.partition)
    finally:
        consumer.close()


def _read_error(span: OffsetRange, position: int, error: KafkaError) -> RangeReadError:
    if error.code() in (KafkaError._AUTO_OFFSET_RESET, KafkaError.OFFSET_OUT_OF_RANGE):
        return RangeReadError(
            f"offset {position} of {span.name} is no longer in the log (offsets [{position}, {span.end}) were to be "
            f"read; some data may have been lost): {error.str()}; set failOnDataLoss=false to skip lost offsets"
        )
    return RangeReadError(f"reading {span.name} at offset {position} failed: {error.str()}")
