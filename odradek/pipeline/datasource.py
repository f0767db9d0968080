"""``odradek``: a PySpark data source (Spark 4's ``pyspark.sql.datasource``) reading Kafka topics
over the Kafka protocol with confluent-kafka, for any Kafka broker, where Spark's JVM connector jars
cannot be had.

::

    from odradek.pipeline.datasource import register
    register(spark)
    frame = (spark.read.format("odradek")
             .option("kafka.bootstrap.servers", "127.0.0.1:9092")
             .option("subscribe", "orders")
             .load())
    stream = spark.readStream.format("odradek").option(...).load()

Columns and option names are those of Spark's Kafka source (``format("kafka")``, a name Spark
reserves for its connector); the options are listed in :mod:`.source_options`.

* Batch: the driver plans one input partition per topic-partition offset range
  (:func:`.source_plan.plan_batch`); each Spark task reads its range (:mod:`.range_reader`).
* Streaming: offsets are ``{"topic:partition": next_offset}``; each micro-batch reads, per partition,
  from the previous end to an end no further than the partition's latest offset (the last stable
  offset under read_committed), at most ``maxOffsetsPerTrigger`` offsets in all; ``availableNow``
  triggers stop at the offsets seen when the query starts.

Input errors (unknown topics, offsets out of range, an unreachable broker) are raised while Spark
plans the read on the driver, so no task has run and no output has been written when they surface.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from odradek.pipeline.range_reader import read_range
from odradek.pipeline.source_options import SourceOptionError, SourceOptions, parse_options, wants_headers
from odradek.pipeline.source_plan import (
    OffsetRange,
    SourcePlanError,
    Topology,
    limit_offsets,
    offset_key,
    parse_key,
    plan_batch,
    starting_offsets,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["FORMAT", "OdradekDataSource", "register", "source_schema"]

FORMAT = "odradek"

_COLUMNS = (
    ("key", BinaryType()),
    ("value", BinaryType()),
    ("topic", StringType()),
    ("partition", IntegerType()),
    ("offset", LongType()),
    ("timestamp", TimestampType()),
    ("timestampType", IntegerType()),
)
_HEADERS = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))


def source_schema(include_headers: bool) -> StructType:
    """Spark's Kafka source schema (every column nullable, as there), with the headers column when asked for."""
    fields = [StructField(name, kind) for name, kind in _COLUMNS]
    if include_headers:
        fields.append(StructField("headers", _HEADERS))
    return StructType(fields)


def register(spark: SparkSession) -> None:
    """Make ``format("odradek")`` available in ``spark``."""
    spark.dataSource.register(OdradekDataSource)


@dataclass(frozen=True)
class RangePartition(InputPartition):
    """One Spark task: one offset range of one partition."""

    span: OffsetRange


def _checked_schema(options: SourceOptions, schema: StructType) -> pa.Schema:
    expected = source_schema(options.include_headers)
    if schema != expected:
        raise SourceOptionError(f"the odradek source has a fixed schema ({expected.simpleString()}), got {schema}")
    return to_arrow_schema(schema, timezone="UTC")


def _read(options: SourceOptions, arrow: pa.Schema, partition: InputPartition) -> Iterator[pa.RecordBatch]:
    if isinstance(partition, RangePartition):
        yield from read_range(options, partition.span, arrow)


class OdradekDataSource(DataSource):
    """``format("odradek")``: Kafka topics as a batch or streaming DataFrame."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> StructType:
        return source_schema(wants_headers(self.options))

    def reader(self, schema: StructType) -> DataSourceReader:
        return BatchReader(parse_options(dict(self.options), streaming=False), schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return StreamReader(parse_options(dict(self.options), streaming=True), schema)


class BatchReader(DataSourceReader):
    """A batch read: the ranges are planned once, on the driver, when Spark plans the query."""

    def __init__(self, options: SourceOptions, schema: StructType) -> None:
        self.source = options
        self.arrow = _checked_schema(options, schema)

    def partitions(self) -> Sequence[InputPartition]:
        return [RangePartition(span) for span in plan_batch(self.source, Topology(self.source))]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(self.source, self.arrow, partition)


class StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """A streaming read with offsets ``{"topic:partition": next_offset}`` (see the module docstring).

    The instance Spark keeps on the driver asks the broker through a :class:`Topology` it creates on
    first use; copies sent to executors (pickled) carry only the options and schema."""

    def __init__(self, options: SourceOptions, schema: StructType) -> None:
        self.source = options
        self.arrow = _checked_schema(options, schema)
        self._topology: Topology | None = None
        self._target: dict[str, int] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"source": self.source, "arrow": self.arrow, "_topology": None, "_target": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _broker(self) -> Topology:
        if self._topology is None:
            self._topology = Topology(self.source)
        return self._topology

    def initialOffset(self) -> dict[str, int]:
        topology = self._broker()
        partitions = topology.partitions(streaming=True)
        starts = starting_offsets(self.source, partitions, topology.bounds(partitions))
        return {offset_key(t, p): offset for (t, p), offset in starts.items()}

    def _latest(self, start: dict[str, int]) -> dict[str, int]:
        """Per partition: its latest offset, or its log start offset for a partition new to ``start``."""
        topology = self._broker()
        partitions = topology.partitions(streaming=True)
        bounds = topology.bounds(partitions)
        latest = dict(start)
        for (topic, partition), bound in bounds.items():
            key = offset_key(topic, partition)
            if key not in start:
                latest[key] = bound.earliest
            elif bound.latest < start[key] and self.source.fail_on_data_loss:
                raise SourcePlanError(
                    f"{topic}-{partition} ends at offset {bound.latest} but the query has read up to {start[key]}: "
                    "was the topic deleted and created again? Set failOnDataLoss=false to go on from there"
                )
            else:
                latest[key] = max(bound.latest, start[key])
        return latest

    def prepareForTriggerAvailableNow(self) -> None:
        partitions = self._broker().partitions(streaming=True)
        bounds = self._broker().bounds(partitions)
        self._target = {offset_key(t, p): bound.latest for (t, p), bound in bounds.items()}

    def latestOffset(self, start: dict[str, int], limit: ReadLimit) -> dict[str, int]:
        latest = self._latest(start)
        if self._target is not None:
            for key, offset in list(latest.items()):
                if key in start:
                    latest[key] = min(offset, max(self._target.get(key, start[key]), start[key]))
                elif key not in self._target:
                    del latest[key]
        max_rows = limit.max_rows if isinstance(limit, ReadMaxRows) else None
        return limit_offsets(start, latest, max_rows)

    def getDefaultReadLimit(self) -> ReadLimit:
        if self.source.max_offsets_per_trigger is None:
            return ReadAllAvailable()
        return ReadMaxRows(self.source.max_offsets_per_trigger)

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> Sequence[InputPartition]:
        spans = []
        for key, stop in sorted(end.items()):
            begin = start.get(key, stop)
            if stop > begin:
                topic, partition = parse_key(key)
                spans.append(RangePartition(OffsetRange(topic, partition, begin, stop)))
        return spans

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(self.source, self.arrow, partition)

    def commit(self, end: dict[str, int]) -> None:
        """Nothing to do: the query's checkpoint, not the broker, records how far it has read."""
