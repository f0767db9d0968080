"""The click-stream example end to end (examples/clickstream): page views produced, the streaming job
run through the odradek source, and the per-minute counts found exactly, in Parquet and in the topic.

A closing view three minutes after the last real one moves the watermark past every real minute, so
each of their counts is final and emitted once; the closing view's own minute is not final, so it
is not emitted.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq
from confluent_kafka import Consumer, TopicPartition
from pyspark.sql import SparkSession

from examples.clickstream.job import start, views_per_minute
from examples.clickstream.producer import MINUTE_MS, PageView, page_views, produce
from examples.clickstream.producer import views_per_minute as expected_counts
from odradek.pipeline.datasource import register
from tests.spark.helpers import LOG, Kafka, unique_topic


def _topic_counts(bootstrap: str, topic: str) -> Counter[tuple[int, str]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("g")}, logger=LOG)
    try:
        counts: Counter[tuple[int, str]] = Counter()
        end = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)[1]
        consumer.assign([TopicPartition(topic, 0, 0)])
        for _ in range(end):
            message = consumer.poll(30)
            assert message is not None and message.error() is None
            row = json.loads(message.value())
            assert message.key() == row["page"].encode()
            minute = int(datetime.fromisoformat(row["minute"]).timestamp() * 1000)
            assert (minute, row["page"]) not in counts, "a minute's count was emitted twice"
            counts[minute, row["page"]] = row["views"]
        return counts
    finally:
        consumer.close()


def test_views_per_minute_reach_parquet_and_the_topic_exactly(
    spark: SparkSession, kafka: Kafka, tmp_path: Path
) -> None:
    register(spark)
    clicks = kafka.create_topic(unique_topic("clicks"), partitions=1)
    output = kafka.create_topic(unique_topic("views"), partitions=1)
    now = int(time.time() * 1000)
    first_minute = now - now % MINUTE_MS - 10 * MINUTE_MS
    views = page_views(first_minute, minutes=3, per_minute=40)
    produce(kafka.bootstrap, clicks, [*views, PageView("u0", "/", first_minute + 6 * MINUTE_MS)])

    counts = views_per_minute(spark, kafka.bootstrap, clicks, source="odradek")
    query = start(counts, kafka.bootstrap, output, tmp_path / "parquet", tmp_path / "checkpoint", once=True)
    query.awaitTermination(180)
    assert not query.isActive and query.exception() is None, query.exception()

    expected = expected_counts(views)
    assert len(expected) > 10 and sum(expected.values()) == 120
    table = pq.read_table(tmp_path / "parquet").to_pydict()
    parquet = Counter(
        {
            (int(minute.replace(tzinfo=UTC).timestamp() * 1000), page): views
            for minute, page, views in zip(table["minute"], table["page"], table["views"], strict=True)
        }
    )
    assert len(table["page"]) == len(parquet), "a minute's count was written twice"
    assert parquet == expected
    assert _topic_counts(kafka.bootstrap, output) == expected
