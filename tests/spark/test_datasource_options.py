"""The ``odradek`` source's options that find offsets or shape tasks, against Spark's own connector on
the same topics: timestamps (``startingTimestamp``, ``endingTimestamp``, ``...OffsetsByTimestamp``,
``startingOffsetsByTimestampStrategy``), ``minPartitions``/``maxRecordsPerPartition``,
``subscribePattern`` against Java's regular expressions, and a stream whose topic is deleted and
created again under ``failOnDataLoss=false``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.errors import IllegalArgumentException
from pyspark.sql import DataFrame, SparkSession

from odradek.pipeline.datasource import register
from odradek.pipeline.topic_pattern import TopicPatternError, compile_topic_pattern
from tests.spark.helpers import Kafka, Record, unique_topic

FORMATS = ("kafka", "odradek")


@pytest.fixture(scope="module", autouse=True)
def _registered(spark: SparkSession) -> None:
    register(spark)


def _read(spark: SparkSession, fmt: str, bootstrap: str, **options: Any) -> DataFrame:
    reader = spark.read.format(fmt).option("kafka.bootstrap.servers", bootstrap)
    for key, value in options.items():
        reader = reader.option(key, value if isinstance(value, str) else json.dumps(value))
    return reader.load()


def _values(frame: DataFrame) -> list[tuple[str, int, int, bytes]]:
    return sorted((r.topic, r.partition, r.offset, bytes(r.value)) for r in frame.collect())


def _timestamped(kafka: Kafka, partitions: int) -> tuple[str, int]:
    """A topic whose partitions hold four records each, at base + 0, 1000, 2000, 3000 ms; (topic, base)."""
    topic = kafka.create_topic(unique_topic("ts"), partitions=partitions)
    base = (int(time.time()) - 3600) * 1000
    kafka.produce(topic, [Record(p, b"k", f"{p}-{i}".encode(), base + i * 1000) for p in range(2) for i in range(4)])
    return topic, base


def test_timestamps_find_the_offsets_the_connector_finds(spark: SparkSession, kafka: Kafka) -> None:
    topic, base = _timestamped(kafka, 2)
    cases: list[tuple[dict[str, Any], list[bytes]]] = [
        # startingTimestamp wins over startingOffsets, as in Spark.
        (
            {"startingTimestamp": str(base + 1500), "startingOffsets": "earliest", "endingTimestamp": str(base + 3000)},
            [b"0-2", b"1-2"],
        ),
        # Partition 0 has no record that late: with the latest strategy it starts at its end; an ending
        # timestamp no record reaches ends at the latest offset.
        (
            {
                "startingOffsetsByTimestamp": {topic: {"0": base + 10_000, "1": base + 1000}},
                "startingOffsetsByTimestampStrategy": "latest",
                "endingOffsetsByTimestamp": {topic: {"0": base + 99_000, "1": base + 3000}},
            },
            [b"1-1", b"1-2"],
        ),
    ]
    for options, expected in cases:
        ours = _values(_read(spark, "odradek", kafka.bootstrap, subscribe=topic, **options))
        assert ours == _values(_read(spark, "kafka", kafka.bootstrap, subscribe=topic, **options)), options
        assert sorted(value for *_, value in ours) == expected, options
    # The connector's own failure here is checked in test_batch_read.
    too_late = {"subscribe": topic, "startingTimestamp": str(base + 10_000)}
    with pytest.raises(Exception, match=rf"no offset of {topic}-0 matched the starting timestamp {base + 10_000}"):
        _read(spark, "odradek", kafka.bootstrap, **too_late).collect()


def test_a_stream_starts_at_a_timestamp(spark: SparkSession, kafka: Kafka) -> None:
    topic, base = _timestamped(kafka, 2)
    name = f"ts_{topic.replace('-', '_')}"
    query = (
        spark.readStream.format("odradek")
        .option("kafka.bootstrap.servers", kafka.bootstrap)
        .option("subscribe", topic)
        .option("startingOffsetsByTimestamp", json.dumps({topic: {"0": base + 2000, "1": base + 3000}}))
        .load()
        .select("partition", "offset", "value")
        .writeStream.format("memory")
        .queryName(name)
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    assert not query.isActive and query.exception() is None, query.exception()
    found = sorted((r.partition, r.offset, bytes(r.value)) for r in spark.table(name).collect())
    assert found == [(0, 2, b"0-2"), (0, 3, b"0-3"), (1, 3, b"1-3")]


def _tasks(frame: DataFrame) -> tuple[list[tuple[int, int, int, int]], list[tuple[int, int, bytes]]]:
    """Each non-empty Spark task of a read as (partition, first offset, last offset + 1, records),
    and every record read as (partition, offset, value)."""
    tasks = []
    records = []
    for rows in frame.select("partition", "offset", "value").rdd.glom().collect():
        if rows:
            offsets = sorted(r.offset for r in rows)
            assert len({r.partition for r in rows}) == 1, "a task reads one Kafka partition"
            tasks.append((rows[0].partition, offsets[0], offsets[-1] + 1, len(rows)))
            records += [(r.partition, r.offset, bytes(r.value)) for r in rows]
    return sorted(tasks), sorted(records)


def test_min_partitions_and_max_records_split_tasks_as_the_connector_does(spark: SparkSession, kafka: Kafka) -> None:
    topic = kafka.create_topic(unique_topic("split"), partitions=3)
    kafka.produce(topic, [Record(0, None, f"a{i}".encode()) for i in range(30)])
    kafka.produce(topic, [Record(1, None, f"b{i}".encode()) for i in range(5)])  # partition 2 stays empty
    every = [(0, o, f"a{o}".encode()) for o in range(30)] + [(1, o, f"b{o}".encode()) for o in range(5)]
    cases: list[tuple[dict[str, Any], list[tuple[int, int, int, int]]]] = [
        ({"minPartitions": "5"}, [(0, 0, 7, 7), (0, 7, 14, 7), (0, 14, 22, 8), (0, 22, 30, 8), (1, 0, 5, 5)]),
        # From earliest to latest the connector plans sizes of 1 (-1 - -2), so maxRecordsPerPartition
        # alone splits nothing; with explicit ending offsets it splits, then minPartitions splits further.
        ({"maxRecordsPerPartition": "7"}, [(0, 0, 30, 30), (1, 0, 5, 5)]),
        (
            {"minPartitions": "9", "maxRecordsPerPartition": "12", "endingOffsets": {topic: {"0": 30, "1": 5, "2": 0}}},
            [
                (0, s, s + n, n)
                for s, n in ((0, 3), (3, 3), (6, 4), (10, 3), (13, 3), (16, 4), (20, 3), (23, 3), (26, 4))
            ]
            + [(1, 0, 5, 5)],
        ),
    ]
    for options, expected in cases:
        tasks, records = _tasks(_read(spark, "odradek", kafka.bootstrap, subscribe=topic, **options))
        assert tasks == _tasks(_read(spark, "kafka", kafka.bootstrap, subscribe=topic, **options))[0], options
        assert tasks == expected, options
        assert records == every, options


#: Patterns in both dialects' syntax, and in each one's alone, with the topic names they are tried on.
PATTERNS = (
    "orders-.*", "orders-[0-9]+", r"orders-\d", r"[\w.-]+", "(?i)ORDERS-X", "a|ab", "(a|b)+", "a++", "(?>a|ab)",
    "(?=o).*", "(?!o).*", "(?<=a)b", ".*(?<!b)", "(?s).", "[^a]+", "[]a]", "[^]a]+", "a{2}", "a{1,}", "a{1,2}",
    r"\Aab\Z", "^a$", r"a\b", r"\x61", r"\u0061", r"\N{LATIN SMALL LETTER A}", r"\.", "[a-]", "[-a]", "[.]+",
    "[a-b[k]]", "[a-z&&[^b]]", "[[:alpha:]]+", r"\141", r"\0141", r"(a)\1", "(?x)a b", "(?x)[ a]", "a{,3}", "a{b",
    "(?P<n>a)", "(?#c)a", "(a)?(?(1)b|c)", "(?a)a", r"\p{Alpha}+", r"\Qa.b\E", "(?<n>a)b", r"\h", r"\x{61}",
    "a(?i)b", r"\cA", r"\e", "(?U)a", "[!--]+", "[a||b]+", "a{2}{3}", r"\U00000061", r"\v", r"[^\v]+", r"\z",
)  # fmt: skip
TOPIC_NAMES = ("a", "b", "k", "ab", "aa", "abc", "aaa", "orders-1", "orders-x", "ORDERS-X", "x_y", "a.b", "a-b", "-")


def test_subscribe_pattern_selects_what_java_would_or_is_refused(spark: SparkSession) -> None:
    java_pattern = spark.sparkContext._jvm.java.util.regex.Pattern  # type: ignore[union-attr]
    accepted = 0
    for pattern in PATTERNS:
        try:
            compiled = java_pattern.compile(pattern)
            java: set[str] | None = {name for name in TOPIC_NAMES if compiled.matcher(name).matches()}
        except (Py4JJavaError, IllegalArgumentException):  # PySpark converts PatternSyntaxException
            java = None
        try:
            ours = compile_topic_pattern(pattern)
        except TopicPatternError:
            continue
        accepted += 1
        assert java is not None, f"{pattern!r} is accepted here but Java refuses it"
        assert {name for name in TOPIC_NAMES if ours.fullmatch(name)} == java, pattern
    assert accepted == 31


def test_a_pattern_java_reads_otherwise_fails_the_read_where_the_connector_reads(
    spark: SparkSession, kafka: Kafka
) -> None:
    prefix = unique_topic("rx")
    for suffix in ("a", "b", "k"):
        topic = kafka.create_topic(f"{prefix}-{suffix}", partitions=1)
        kafka.produce(topic, [Record(0, None, suffix.encode())])
    common = f"{prefix}-[ak]"
    ours = _values(_read(spark, "odradek", kafka.bootstrap, subscribePattern=common))
    assert ours == _values(_read(spark, "kafka", kafka.bootstrap, subscribePattern=common))
    assert [value for *_, value in ours] == [b"a", b"k"]
    union = f"{prefix}-[a-b[k]]"  # Java: a, b or k; Python would read '[' as a character
    assert sorted(bytes(r.value) for r in _read(spark, "kafka", kafka.bootstrap, subscribePattern=union).collect()) == [
        b"a",
        b"b",
        b"k",
    ]
    with pytest.raises(Exception, match=r"subscribePattern .* is refused: '\[' inside a character class"):
        _read(spark, "odradek", kafka.bootstrap, subscribePattern=union).collect()


def _available_now(frame: DataFrame, out: Path, checkpoint: Path) -> None:
    query = (
        frame.select("partition", "offset", "value")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    assert not query.isActive and query.exception() is None, query.exception()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_stream_whose_topic_is_created_again_goes_on_from_its_new_end(
    spark: SparkSession, kafka: Kafka, tmp_path: Path, fmt: str
) -> None:
    topic = kafka.create_topic(unique_topic("again"), partitions=1)
    kafka.produce_values(topic, 1, 10)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    source = (
        spark.readStream.format(fmt)
        .option("kafka.bootstrap.servers", kafka.bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("failOnDataLoss", "false")
    )
    _available_now(source.load(), out, checkpoint)
    kafka.recreate_topic(topic, 1)
    kafka.produce_values(topic, 1, 3, start=100)  # offsets 0-2 of the new log, below the query's offset 10
    _available_now(source.load(), out, checkpoint)
    kafka.produce_values(topic, 1, 2, start=103)
    _available_now(source.load(), out, checkpoint)
    loaded = sorted((r.offset, bytes(r.value)) for r in spark.read.parquet(str(out)).collect())
    # The connector's behaviour: the micro-batch after the topic came back ends at the new log's end
    # (offset 3) having read nothing of it; the next one reads on from there.
    assert loaded == sorted([(o, f"v{o}".encode()) for o in range(10)] + [(3, b"v103"), (4, b"v104")])
