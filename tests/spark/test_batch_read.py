"""Batch reads through Spark's Kafka source: offset bounds in every form Spark accepts, headers, nulls,
and ``minPartitions`` splitting a partition's offset range across tasks."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from tests.spark.helpers import Kafka, Record, unique_topic


def _read(spark: SparkSession, kafka: Kafka, topic: str, **options: str) -> DataFrame:
    reader = spark.read.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("subscribe", topic)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def _values(frame: DataFrame) -> list[tuple[int, int, bytes]]:
    return sorted((row.partition, row.offset, bytes(row.value)) for row in frame.collect())


def test_earliest_to_latest_reads_every_record_once(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=3)
    kafka.produce_values(topic, 3, 30)
    rows = _read(spark, kafka, topic, startingOffsets="earliest", endingOffsets="latest").collect()
    expected = kafka.read_all(topic, 3)
    assert sorted((r.partition, r.offset, bytes(r.key), bytes(r.value)) for r in rows) == expected
    assert len(expected) == 30
    assert {r.topic for r in rows} == {topic}


def test_per_partition_json_offsets_bound_the_range(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    kafka.produce_values(topic, 2, 20)  # 10 records per partition, offsets 0..9
    starting = json.dumps({topic: {"0": 3, "1": -2}})  # -2: earliest
    ending = json.dumps({topic: {"0": 7, "1": -1}})  # -1: latest
    got = _values(_read(spark, kafka, topic, startingOffsets=starting, endingOffsets=ending))
    assert [(p, o) for p, o, _ in got] == [(0, o) for o in range(3, 7)] + [(1, o) for o in range(10)]
    by_offset = {(p, o): v for p, o, v in got}
    assert by_offset[0, 3] == b"v6" and by_offset[1, 0] == b"v1"


def test_assign_reads_only_the_assigned_partition(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    kafka.produce_values(topic, 2, 10)
    frame = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", kafka.bootstrap)
        .option("assign", json.dumps({topic: [1]}))
        .load()
    )
    assert [(p, o) for p, o, _ in _values(frame)] == [(1, o) for o in range(5)]


def _timestamped(topic: str, kafka: Kafka) -> int:
    """Four records per partition at base + 0, 1000, 2000, 3000 ms; returns base."""
    base = (int(time.time()) - 3600) * 1000
    kafka.produce(topic, [Record(p, b"k", f"{p}-{i}".encode(), base + i * 1000) for p in range(2) for i in range(4)])
    return base


def test_starting_timestamp_finds_the_first_record_at_or_after_it(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    base = _timestamped(topic, kafka)
    frame = _read(spark, kafka, topic, startingTimestamp=str(base + 1500), endingTimestamp=str(base + 3000))
    assert sorted(bytes(r.value) for r in frame.collect()) == [b"0-2", b"1-2"]
    got = _read(spark, kafka, topic, startingTimestamp=str(base + 2000)).collect()
    assert sorted(bytes(r.value) for r in got) == [b"0-2", b"0-3", b"1-2", b"1-3"]
    assert {r.timestamp.timestamp() * 1000 for r in got} == {base + 2000, base + 3000}


def test_starting_offsets_by_timestamp_per_partition(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    base = _timestamped(topic, kafka)
    by_timestamp = json.dumps({topic: {"0": base + 3000, "1": base - 5000}})
    frame = _read(spark, kafka, topic, startingOffsetsByTimestamp=by_timestamp)
    assert sorted(bytes(r.value) for r in frame.collect()) == [b"0-3", b"1-0", b"1-1", b"1-2", b"1-3"]


def test_include_headers_keeps_order_duplicates_and_null_values(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=1)
    headers = (("a", b"1"), ("b", None), ("a", b"2"), ("", b""))
    kafka.produce(topic, [Record(0, b"k0", b"with", headers=headers), Record(0, b"k1", b"without")])
    rows = sorted(_read(spark, kafka, topic, includeHeaders="true").collect(), key=lambda r: r.offset)
    got: list[Any] = [[(h.key, None if h.value is None else bytes(h.value)) for h in r.headers or []] for r in rows]
    assert got == [list(headers), []]
    assert "headers" not in _read(spark, kafka, topic).columns


def test_null_keys_and_values_stay_null(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=1)
    kafka.produce(topic, [Record(0, None, b"v"), Record(0, b"k", None), Record(0, None, None), Record(0, b"", b"")])
    rows = sorted(_read(spark, kafka, topic).collect(), key=lambda r: r.offset)
    got = [(None if r.key is None else bytes(r.key), None if r.value is None else bytes(r.value)) for r in rows]
    assert got == [(None, b"v"), (b"k", None), (None, None), (b"", b"")]


def test_min_partitions_splits_ranges_without_losing_or_repeating(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    kafka.produce_values(topic, 2, 40)
    frame = _read(spark, kafka, topic, minPartitions="6")
    assert frame.rdd.getNumPartitions() >= 6
    got = _values(frame)
    assert len(got) == len(set(got)) == 40
    assert [(p, o) for p, o, _ in got] == [(p, o) for p in range(2) for o in range(20)]


def test_a_starting_timestamp_after_every_record_reads_nothing_or_fails(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    base = _timestamped(topic, kafka)
    later = json.dumps({topic: {"0": base + 10_000, "1": base + 3000}})
    frame = _read(spark, kafka, topic, startingOffsetsByTimestamp=later, startingOffsetsByTimestampStrategy="latest")
    assert sorted(bytes(r.value) for r in frame.collect()) == [b"1-3"]
    with pytest.raises(Exception, match="No offset matched"):
        _read(spark, kafka, topic, startingOffsetsByTimestamp=later).collect()


def test_read_committed_without_transactions_reads_up_to_the_high_watermark(spark: SparkSession, kafka: Kafka) -> None:
    # With no transaction open the last stable offset is the high watermark. (Aborted transactions
    # hidden from read_committed readers await transaction support in the broker.)
    topic = kafka.create_topic(unique_topic(), partitions=2)
    kafka.produce_values(topic, 2, 10)
    frame = _read(spark, kafka, topic, **{"kafka.isolation.level": "read_committed", "endingOffsets": "latest"})
    assert [(p, o) for p, o, _ in _values(frame)] == [(p, o) for p in range(2) for o in range(5)]
