"""Spark's Kafka sink writing into odradek, batch and streaming, with an idempotent producer."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

from tests.spark.helpers import Kafka, Record, unique_topic

IDEMPOTENT = {"kafka.enable.idempotence": "true", "kafka.acks": "all"}


def test_batch_write_lands_every_row_with_nulls_and_headers(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    rows = [(f"k{i}".encode() if i % 3 else None, f"v{i}".encode(), i % 2, [("h", f"{i}".encode())]) for i in range(30)]
    frame = spark.createDataFrame(
        rows, "key BINARY, value BINARY, partition INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>"
    )
    writer = frame.write.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("topic", topic)
    writer.options(**IDEMPOTENT).save()
    got = [(p, k, v) for p, _, k, v in kafka.read_all(topic, 2)]
    assert sorted(got, key=lambda r: r[2]) == sorted([(p, k, v) for k, v, p, _ in rows], key=lambda r: r[2])
    read_back = spark.read.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("subscribe", topic)
    headers = {
        bytes(r.value): [(h.key, bytes(h.value)) for h in r.headers]
        for r in read_back.option("includeHeaders", "true").load().collect()
    }
    assert headers[b"v7"] == [("h", b"7")]


def test_write_stream_copies_a_topic_exactly_once(spark: SparkSession, kafka: Kafka, tmp_path: Path) -> None:
    source_topic = kafka.create_topic(unique_topic(), partitions=3)
    sink_topic = kafka.create_topic(unique_topic(), partitions=3)
    kafka.produce(
        source_topic, [Record(i % 3, f"k{i}".encode(), f"v{i}".encode(), headers=(("n", b"x"),)) for i in range(30)]
    )
    source = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", kafka.bootstrap)
        .option("subscribe", source_topic)
        .option("startingOffsets", "earliest")
        .option("includeHeaders", "true")
        .option("maxOffsetsPerTrigger", "10")
        .load()
    )
    query = (
        source.select("key", "value", "partition", "headers")
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", kafka.bootstrap)
        .option("topic", sink_topic)
        .options(**IDEMPOTENT)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    assert not query.isActive and query.exception() is None
    copied = [(p, k, v) for p, _, k, v in kafka.read_all(sink_topic, 3)]
    original = [(p, k, v) for p, _, k, v in kafka.read_all(source_topic, 3)]
    assert copied == original
    assert len(copied) == 30
