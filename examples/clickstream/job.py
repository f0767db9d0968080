"""The click-stream job: per-minute page views with a watermark, written to a topic and to Parquet.

Structured Streaming reads the page-view events (:mod:`.producer`) from a Kafka topic, through
Spark's own Kafka connector (``--source kafka``) or odradek's Python data source (``--source
odradek``, no connector jars needed to read), and counts views per page in one-minute event-time
windows. The watermark (default one minute behind the latest event time seen) decides when a
minute is final: only then is its count emitted (append mode), once, and a view arriving after its
minute was final may be dropped. One query writes each micro-batch of final counts (:func:`write_batch`):

* to Parquet (``minute`` TIMESTAMP, ``page``, ``views``) under ``batch=<micro-batch id>/``;
* to a topic, one record per (minute, page), keyed by page, the value
  ``{"minute": "<ISO-8601, UTC>", "page": ..., "views": n}``.

The query keeps its checkpoint in ``--checkpoint``: stopped and started again, it goes on where it
stopped.

    python -m examples.clickstream.job --bootstrap-server 127.0.0.1:9092 --input clicks \\
        --output views-per-minute --parquet /tmp/clicks/parquet --checkpoint /tmp/clicks/checkpoint
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as f
from pyspark.sql.streaming import StreamingQuery

VIEW_SCHEMA = "user STRING, page STRING, ts BIGINT"


def views_per_minute(
    spark: SparkSession,
    bootstrap: str,
    topic: str,
    source: str = "kafka",
    watermark: str = "1 minute",
    max_offsets_per_trigger: int | None = None,
) -> DataFrame:
    """The streaming DataFrame of final per-minute counts: minute, page, views."""
    reader = (
        spark.readStream.format(source)
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
    )
    if max_offsets_per_trigger is not None:
        reader = reader.option("maxOffsetsPerTrigger", str(max_offsets_per_trigger))
    views = (
        reader.load()
        .select(f.from_json(f.col("value").cast("string"), VIEW_SCHEMA).alias("view"))
        .select("view.page", f.timestamp_millis("view.ts").alias("event_time"))
        .where(f.col("page").isNotNull() & f.col("event_time").isNotNull())
    )
    counts = views.withWatermark("event_time", watermark).groupBy(f.window("event_time", "1 minute"), "page").count()
    return counts.select(f.col("window.start").alias("minute"), "page", f.col("count").alias("views"))


def write_batch(batch: DataFrame, batch_id: int, bootstrap: str, output_topic: str, parquet: Path) -> None:
    """Write one micro-batch of final counts to Parquet, then to the topic.

    The Parquet files of micro-batch N go to ``batch=N/``, replaced as a whole: a micro-batch run
    again after a crash (Spark replays the last one whose commit was not recorded) rewrites the same
    directory, so the Parquet side holds each count once. The topic side is at-least-once, like
    Spark's Kafka sink: a replayed micro-batch may write its records again."""
    batch.persist()
    try:
        batch.write.mode("overwrite").parquet(str(parquet / f"batch={batch_id}"))
        records = batch.select(
            f.col("page").cast("binary").alias("key"),
            f.to_json(f.struct(f.date_format("minute", "yyyy-MM-dd'T'HH:mm:ssXXX").alias("minute"), "page", "views"))
            .cast("binary")
            .alias("value"),
        )
        (
            records.write.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("topic", output_topic)
            .option("kafka.enable.idempotence", "true")
            .option("kafka.acks", "all")
            .save()
        )
    finally:
        batch.unpersist()


def start(
    counts: DataFrame, bootstrap: str, output_topic: str, parquet: Path, checkpoint: Path, once: bool = False
) -> StreamingQuery:
    """Start the query; ``once`` processes what is in the topic now, then stops."""
    writer = (
        counts.writeStream.outputMode("append")
        .option("checkpointLocation", str(checkpoint))
        .foreachBatch(lambda batch, batch_id: write_batch(batch, batch_id, bootstrap, output_topic, parquet))
    )
    writer = writer.trigger(availableNow=True) if once else writer.trigger(processingTime="10 seconds")
    return writer.start()


def main() -> None:
    from odradek.pipeline.datasource import register
    from odradek.pipeline.jars import resolve_connector_jars
    from odradek.pipeline.session import build_session, spark_version

    parser = argparse.ArgumentParser(description="per-minute page views from a click stream")
    parser.add_argument("--bootstrap-server", default="127.0.0.1:9092")
    parser.add_argument("--input", default="clicks", help="topic of page-view events")
    parser.add_argument("--output", default="views-per-minute", help="topic the counts are written to")
    parser.add_argument("--parquet", type=Path, required=True, help="directory of the Parquet counts")
    parser.add_argument("--checkpoint", type=Path, required=True, help="the query's checkpoint directory")
    parser.add_argument("--source", choices=("kafka", "odradek"), default="kafka")
    parser.add_argument("--watermark", default="1 minute")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--once", action="store_true", help="process what is in the topic now, then stop")
    args = parser.parse_args()
    spark = build_session(args.master, resolve_connector_jars(spark_version()), "clickstream")
    register(spark)
    counts = views_per_minute(spark, args.bootstrap_server, args.input, args.source, args.watermark)
    query = start(counts, args.bootstrap_server, args.output, args.parquet, args.checkpoint, args.once)
    try:
        query.awaitTermination()
    finally:
        query.stop()
        spark.stop()


if __name__ == "__main__":
    main()
