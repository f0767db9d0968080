"""Structured Streaming through Spark's Kafka source: checkpointed restarts, pattern subscriptions that
pick up a topic created later, and ``failOnDataLoss`` when DeleteRecords moves the log start offset
under a query."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pyspark.errors import StreamingQueryException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import DataStreamReader

from tests.spark.helpers import Kafka, unique_topic


def _stream(spark: SparkSession, kafka: Kafka, **options: str) -> DataStreamReader:
    reader = spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader


def _to_parquet_until_caught_up(frame: DataFrame, out: Path, checkpoint: Path) -> None:
    """Run the query with an availableNow trigger: every offset available at start, then stop."""
    query = (
        frame.select("partition", "offset", "value")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    assert not query.isActive, "the availableNow query did not finish within 120 s"
    assert query.exception() is None, query.exception()


def _loaded(spark: SparkSession, out: Path) -> list[tuple[int, int, bytes]]:
    return sorted((r.partition, r.offset, bytes(r.value)) for r in spark.read.parquet(str(out)).collect())


def test_checkpointed_query_stopped_and_restarted_loses_and_repeats_nothing(
    spark: SparkSession, kafka: Kafka, tmp_path: Path
) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    kafka.produce_values(topic, 2, 20)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    source = _stream(spark, kafka, subscribe=topic, startingOffsets="earliest", maxOffsetsPerTrigger="7").load()
    query = (
        source.select("partition", "offset", "value")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="100 milliseconds")
        .start()
    )
    query.processAllAvailable()
    query.stop()
    assert len(_loaded(spark, out)) == 20
    kafka.produce_values(topic, 2, 20, start=20)
    # startingOffsets is ignored on restart: the checkpoint says where the query stopped.
    restarted = _stream(spark, kafka, subscribe=topic, startingOffsets="latest", maxOffsetsPerTrigger="7").load()
    _to_parquet_until_caught_up(restarted, out, checkpoint)
    expected = [(p, o, v) for p, o, _, v in kafka.read_all(topic, 2) if v is not None]
    assert _loaded(spark, out) == expected
    assert len(expected) == 40


def test_subscribe_pattern_picks_up_a_topic_created_later(spark: SparkSession, kafka: Kafka) -> None:
    prefix = unique_topic("pattern")
    first = kafka.create_topic(f"{prefix}-a", partitions=1)
    kafka.produce_values(first, 1, 3)
    source = _stream(spark, kafka, subscribePattern=f"{prefix}-.*", startingOffsets="earliest")
    name = prefix.replace("-", "_")
    query = (
        source.option("kafka.metadata.max.age.ms", "300")
        .load()
        .selectExpr("topic", "CAST(value AS STRING) AS value")
        .writeStream.format("memory")
        .queryName(name)
        .trigger(processingTime="100 milliseconds")
        .start()
    )
    try:
        query.processAllAvailable()
        assert sorted(r.value for r in spark.sql(f"SELECT value FROM {name}").collect()) == ["v0", "v1", "v2"]
        second = kafka.create_topic(f"{prefix}-b", partitions=2)
        kafka.produce_values(second, 2, 4, start=100)
        deadline = time.monotonic() + 90
        seen: list[str] = []
        while time.monotonic() < deadline and len(seen) < 4:
            query.awaitTermination(0.3)  # the query runs on; this only paces the polling of its sink
            seen = sorted(r.value for r in spark.sql(f"SELECT value FROM {name} WHERE topic = '{second}'").collect())
        assert seen == ["v100", "v101", "v102", "v103"]
    finally:
        query.stop()


def _deleted_under_the_query(spark: SparkSession, kafka: Kafka, tmp_path: Path, fail_on_data_loss: str) -> Path:
    """Offsets 0-9 loaded by a checkpointed query, 10-19 produced, 10-14 deleted; then the query runs again."""
    topic = kafka.create_topic(unique_topic(), partitions=1)
    kafka.produce_values(topic, 1, 10)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    options = {"subscribe": topic, "startingOffsets": "earliest", "failOnDataLoss": fail_on_data_loss}
    _to_parquet_until_caught_up(_stream(spark, kafka, **options).load(), out, checkpoint)
    kafka.produce_values(topic, 1, 10, start=10)
    kafka.delete_records_before(topic, 0, 15)
    _to_parquet_until_caught_up(_stream(spark, kafka, **options).load(), out, checkpoint)
    return out


def test_fail_on_data_loss_true_fails_the_query(spark: SparkSession, kafka: Kafka, tmp_path: Path) -> None:
    with pytest.raises(StreamingQueryException, match=r"Some data may have been lost(?s:.*)offset \[10, 20\)"):
        _deleted_under_the_query(spark, kafka, tmp_path, "true")


def test_fail_on_data_loss_false_skips_the_deleted_records(spark: SparkSession, kafka: Kafka, tmp_path: Path) -> None:
    out = _deleted_under_the_query(spark, kafka, tmp_path, "false")
    assert [o for _, o, _ in _loaded(spark, out)] == [*range(10), *range(15, 20)]
