"""The ``odradek`` Python data source: the same rows as Spark's own Kafka connector on the same topic,
one Spark task per offset range, input errors raised before anything is written, and streaming with
``{"topic:partition": offset}`` offsets across a checkpointed restart."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from odradek.pipeline.datasource import register
from tests.spark.helpers import Kafka, Record, unique_topic


@pytest.fixture(scope="module", autouse=True)
def _registered(spark: SparkSession) -> None:
    register(spark)


def _read(spark: SparkSession, fmt: str, bootstrap: str, **options: str) -> DataFrame:
    reader = spark.read.format(fmt).option("kafka.bootstrap.servers", bootstrap)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def _plain(value: Any) -> Any:
    """A row value with bytes-like values as bytes and rows as tuples, so that both sources compare."""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    return value


def _rows(frame: DataFrame) -> list[tuple[Any, ...]]:
    return sorted((_plain(tuple(row)) for row in frame.collect()), key=lambda r: (r[2], r[3], r[4]))


def test_batch_reads_equal_the_jvm_connector(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=3)
    base = (int(time.time()) - 3600) * 1000
    kafka.produce_values(topic, 3, 24)
    headers = (("a", b"1"), ("b", None), ("a", b"2"), ("", b""))
    kafka.produce(topic, [Record(0, None, None, base, headers), Record(1, b"", b"", base + 1), Record(2, b"k", None)])
    cases: list[dict[str, str]] = [
        {"subscribe": topic, "includeHeaders": "true"},
        {
            "subscribe": topic,
            "startingOffsets": json.dumps({topic: {"0": 2, "1": -2, "2": 9}}),
            "endingOffsets": json.dumps({topic: {"0": 6, "1": -1, "2": 9}}),
        },
        {"assign": json.dumps({topic: [2, 0]}), "startingOffsets": json.dumps({topic: {"0": 8, "2": 3}})},
    ]
    found = []
    for options in cases:
        ours = _read(spark, "odradek", kafka.bootstrap, **options)
        theirs = _read(spark, "kafka", kafka.bootstrap, **options)
        assert ours.schema == theirs.schema
        found.append(_rows(ours))
        assert found[-1] == _rows(theirs), options
    full = found[0]
    assert len(full) == 27 and [len(rows) for rows in found[1:]] == [4 + 9 + 0, 1 + 6]
    null_row = next(r for r in full if r[3] == 0 and r[4] == 8)
    assert null_row[0] is None and null_row[1] is None and null_row[7] == [_plain(h) for h in headers]
    # One task per non-empty offset range: partition 2's range [9, 9) is empty.
    assert _read(spark, "odradek", kafka.bootstrap, **cases[1]).rdd.getNumPartitions() == 2


def _fails_before_writing(frame: DataFrame, out: Path, message: str) -> None:
    """The write fails with ``message`` and leaves no file (Spark's writer may have made the empty directory)."""
    with pytest.raises(Exception, match=message):
        frame.write.mode("append").parquet(str(out))
    assert [path for path in out.rglob("*") if path.is_file()] == []


def test_bad_input_is_named_before_anything_is_written(spark: SparkSession, kafka: Kafka, tmp_path: Path) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=2)
    kafka.produce_values(topic, 2, 10)
    kafka.delete_records_before(topic, 1, 2)
    out = tmp_path / "out"
    read = _read(spark, "odradek", kafka.bootstrap, subscribe="no-such-topic")
    _fails_before_writing(read, out, "subscribed topic 'no-such-topic' does not exist")
    read = _read(spark, "odradek", kafka.bootstrap, assign=json.dumps({topic: [2]}))
    _fails_before_writing(read, out, rf"assigned partition {topic}-2 does not exist")
    past_end = json.dumps({topic: {"0": 6, "1": 0}})
    read = _read(spark, "odradek", kafka.bootstrap, subscribe=topic, startingOffsets=past_end)
    _fails_before_writing(read, out, rf"starting offset 6 of {topic}-0 is past its end \(latest offset 5\)")
    deleted = json.dumps({topic: {"0": 0, "1": 0}})
    read = _read(spark, "odradek", kafka.bootstrap, subscribe=topic, startingOffsets=deleted)
    _fails_before_writing(read, out, rf"offsets \[0, 2\) of {topic}-1 were deleted from the log")
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        nowhere = f"127.0.0.1:{unused.getsockname()[1]}"
        read = _read(spark, "odradek", nowhere, subscribe=topic, **{"kafka.default.api.timeout.ms": "1500"})
        _fails_before_writing(read, out, f"cannot reach the Kafka broker at {nowhere}")
    skipping = _read(
        spark, "odradek", kafka.bootstrap, subscribe=topic, startingOffsets=deleted, failOnDataLoss="false"
    )
    assert sorted((r.partition, r.offset) for r in skipping.collect()) == [(0, o) for o in range(5)] + [
        (1, o) for o in range(2, 5)
    ]


def test_stream_resumes_from_topic_partition_offsets_and_picks_up_new_topics(
    spark: SparkSession, kafka: Kafka, tmp_path: Path
) -> None:
    prefix = unique_topic("dsstream")
    first = kafka.create_topic(f"{prefix}-a", partitions=2)
    kafka.produce_values(first, 2, 20)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"

    def run() -> None:
        source = (
            spark.readStream.format("odradek")
            .option("kafka.bootstrap.servers", kafka.bootstrap)
            .option("subscribePattern", f"{prefix}-.*")
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", "7")
            .load()
        )
        query = (
            source.select("topic", "partition", "offset", "value")
            .writeStream.format("parquet")
            .option("path", str(out))
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(120)
        assert not query.isActive and query.exception() is None, query.exception()

    run()
    batches = sorted((checkpoint / "offsets").glob("[0-9]*"), key=lambda p: int(p.name))
    assert len(batches) == 3  # 20 offsets, at most 7 per micro-batch
    last = json.loads(batches[-1].read_text().splitlines()[-1])
    assert last == {f"{first}:0": 10, f"{first}:1": 10}
    kafka.produce_values(first, 2, 4, start=20)
    second = kafka.create_topic(f"{prefix}-b", partitions=1)
    kafka.produce_values(second, 1, 3, start=100)
    run()
    loaded = sorted((r.topic, r.partition, r.offset, bytes(r.value)) for r in spark.read.parquet(str(out)).collect())
    expected = [(first, p, o, v) for p, o, _, v in kafka.read_all(first, 2)]
    expected += [(second, p, o, v) for p, o, _, v in kafka.read_all(second, 1)]
    assert loaded == sorted(expected)
    assert len(loaded) == 27
