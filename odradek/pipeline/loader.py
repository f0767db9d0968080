"""Loading Kafka topics into Parquet with Spark, exactly once across killed and repeated runs.

A run:

1. ``check``: the broker answers, every named topic exists (or the pattern matches one), and each
   partition's earliest and latest offset is known. Nothing has been written yet.
2. Under the output directory's lock: sweep the debris of killed runs, then plan one range per
   partition, from where the last committed manifest left it (the log start offset the first time)
   up to the latest offset seen in step 1. Partitions with nothing new are left out.
3. For each topic, one Spark batch read through Spark's Kafka connector (or, with ``source="odradek"``,
   the ``odradek`` Python data source, which needs no connector jars) with per-partition
   ``startingOffsets``/``endingOffsets`` JSON, written as Parquet into ``run=<id>/`` partitioned by
   topic and (UTC) date. Columns: topic, partition, offset, timestamp, timestamp_type, key, value,
   headers.
4. The manifest naming the run's ranges and files is staged, then renamed into place: from that
   instant, and not before, the run counts (see :mod:`odradek.pipeline.manifest`).

A run killed anywhere leaves no committed trace, so the next run plans the same ranges again (and
possibly more): no row is lost or loaded twice. For tests, ``ODRADEK_SPARK_LOAD_CRASH_AT=<step>``
makes the process SIGKILL itself at one of :data:`CRASH_POINTS`.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from odradek.pipeline.manifest import RUN_PREFIX, LoadedRange, Manifest, OutputDirectory
from odradek.pipeline.offsets import OffsetBounds, offset_bounds, resolve_topics

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["CRASH_POINTS", "LoadRequest", "LoadResult", "check", "load", "read_committed"]

CRASH_ENV = "ODRADEK_SPARK_LOAD_CRASH_AT"
#: Where the crash hook can fire, in the order a run passes them.
CRASH_POINTS = ("planned", "topic-written", "files-written", "manifest-staged", "manifest-committed")

#: The committed data as a reader sees it; ``run`` is the partition column of the run directory.
COMMITTED_SCHEMA = (
    "partition INT, offset BIGINT, timestamp TIMESTAMP, timestamp_type INT, key BINARY, value BINARY, "
    "headers ARRAY<STRUCT<key: STRING, value: BINARY>>, run STRING, topic STRING, date DATE"
)


@dataclass(frozen=True, slots=True)
class LoadRequest:
    """What to load: ``topics`` by name and/or every topic matching ``pattern`` (a full match)."""

    bootstrap: str
    output: Path
    topics: tuple[str, ...] = ()
    pattern: str | None = None
    fail_on_data_loss: bool = True
    kafka_options: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = 30.0
    #: ``kafka`` (Spark's connector) or ``odradek`` (:mod:`odradek.pipeline.datasource`, registered
    #: in the session by the caller); both take the same options and give the same columns.
    source: str = "kafka"


@dataclass(frozen=True, slots=True)
class LoadResult:
    """``run`` is None when no partition had anything new (nothing was written)."""

    run: str | None
    ranges: tuple[LoadedRange, ...]
    files: tuple[str, ...]

    @property
    def offsets(self) -> int:
        return sum(r.end - r.start for r in self.ranges)


def check(request: LoadRequest) -> list[OffsetBounds]:
    """Step 1: the offset bounds of every partition to load; raises before anything is written."""
    if not request.topics and request.pattern is None:
        raise ValueError("name at least one topic or a pattern")
    topics = resolve_topics(request.bootstrap, request.topics, request.pattern, request.timeout_s)
    partitions = [(topic, partition) for topic, count in topics.items() for partition in range(count)]
    return offset_bounds(request.bootstrap, partitions, request.timeout_s)


def load(spark: SparkSession, request: LoadRequest, bounds: list[OffsetBounds] | None = None) -> LoadResult:
    """Steps 2-4 (and step 1 unless ``bounds`` from :func:`check` are given)."""
    bounds = check(request) if bounds is None else bounds
    output = OutputDirectory(request.output)
    with output.locked():
        output.sweep()
        ranges = _plan(output.next_offsets(), bounds)
        if not ranges:
            return LoadResult(None, (), ())
        sequence = output.next_sequence()
        run = f"{RUN_PREFIX}{sequence:08d}-{secrets.token_hex(4)}"
        _crash_point("planned")
        for topic in sorted({r.topic for r in ranges}):
            _write_topic(spark, request, [r for r in ranges if r.topic == topic], request.output / run)
            _crash_point("topic-written")
        _crash_point("files-written")
        manifest = Manifest(sequence, run, tuple(ranges), tuple(output.run_files(run)))
        staged = output.stage(manifest)
        _crash_point("manifest-staged")
        output.commit(staged)
        _crash_point("manifest-committed")
        return LoadResult(run, manifest.ranges, manifest.files)


def read_committed(spark: SparkSession, output: Path) -> DataFrame:
    """The committed rows of an output directory (files of committed manifests only), without ``run``."""
    files = OutputDirectory(output).committed_files()
    if not files:
        return spark.createDataFrame([], COMMITTED_SCHEMA).drop("run")
    reader = spark.read.schema(COMMITTED_SCHEMA).option("basePath", str(output))
    return reader.parquet(*(str(path) for path in files)).drop("run")


def _plan(next_offsets: Mapping[tuple[str, int], int], bounds: list[OffsetBounds]) -> list[LoadedRange]:
    ranges = []
    for bound in bounds:
        start = next_offsets.get((bound.topic, bound.partition), bound.earliest)
        if start > bound.latest:
            raise RuntimeError(
                f"{bound.topic}-{bound.partition} ends at offset {bound.latest} but offsets up to {start} "
                "were already loaded: was the topic deleted and created again?"
            )
        if start < bound.latest:
            ranges.append(LoadedRange(bound.topic, bound.partition, start, bound.latest))
    return ranges


def _write_topic(spark: SparkSession, request: LoadRequest, ranges: list[LoadedRange], run_dir: Path) -> None:
    from pyspark.sql import functions as f

    topic = ranges[0].topic
    reader = (
        spark.read.format(request.source)
        .option("kafka.bootstrap.servers", request.bootstrap)
        .option("assign", json.dumps({topic: [r.partition for r in ranges]}))
        .option("startingOffsets", json.dumps({topic: {str(r.partition): r.start for r in ranges}}))
        .option("endingOffsets", json.dumps({topic: {str(r.partition): r.end for r in ranges}}))
        .option("includeHeaders", "true")
        .option("failOnDataLoss", str(request.fail_on_data_loss).lower())
    )
    for key, value in request.kafka_options.items():
        reader = reader.option(f"kafka.{key}", value)
    rows = reader.load().select(
        "topic",
        "partition",
        "offset",
        "timestamp",
        f.col("timestampType").alias("timestamp_type"),
        "key",
        "value",
        "headers",
        f.to_date("timestamp").alias("date"),
    )
    rows.write.mode("append").partitionBy("topic", "date").parquet(str(run_dir))


def _crash_point(step: str) -> None:
    if os.environ.get(CRASH_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)
