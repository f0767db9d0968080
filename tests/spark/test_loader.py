"""The loader's Python API and its bad-input errors, on the session's SparkSession."""

from __future__ import annotations

import re
import socket
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from odradek.cli.main import main
from odradek.pipeline.loader import LoadRequest, check, load, read_committed
from odradek.pipeline.manifest import OutputDirectory
from odradek.pipeline.offsets import BrokerQueryError
from tests.spark.committed import Row, committed_rows
from tests.spark.helpers import Kafka, Record, unique_topic


def topic_rows(kafka: Kafka, topic: str, partitions: int) -> list[Row]:
    return [(topic, p, o, k, v) for p, o, k, v in kafka.read_all(topic, partitions)]


def test_loads_only_what_is_new_and_every_record_exactly_once(
    spark: SparkSession, kafka: Kafka, tmp_path: Path
) -> None:
    a = kafka.create_topic(unique_topic(), partitions=2)
    b = kafka.create_topic(unique_topic(), partitions=1)
    kafka.produce_values(a, 2, 10)
    kafka.produce(b, [Record(0, None, b"x", headers=(("h", b"1"), ("n", None))), Record(0, b"k", None)])
    request = LoadRequest(kafka.bootstrap, tmp_path / "out", topics=(a, b))
    first = load(spark, request)
    assert first.run is not None and first.offsets == 12
    assert {(r.topic, r.partition, r.start, r.end) for r in first.ranges} == {(a, 0, 0, 5), (a, 1, 0, 5), (b, 0, 0, 2)}
    assert load(spark, request).run is None
    kafka.produce_values(a, 2, 6, start=10)
    second = load(spark, request)
    assert {(r.partition, r.start, r.end) for r in second.ranges} == {(0, 5, 8), (1, 5, 8)}
    assert committed_rows(request.output) == sorted(topic_rows(kafka, a, 2) + topic_rows(kafka, b, 1))
    assert all(name.startswith(f"{second.run}/topic={a}/date=") for name in second.files)

    frame = read_committed(spark, request.output)
    assert frame.columns == [
        "partition",
        "offset",
        "timestamp",
        "timestamp_type",
        "key",
        "value",
        "headers",
        "topic",
        "date",
    ]
    row = frame.where(f"topic = '{b}' AND offset = 0").collect()[0]
    assert [(h.key, h.value) for h in row.headers] == [("h", bytearray(b"1")), ("n", None)]
    assert row.key is None and row.timestamp_type == 0
    # PySpark hands timestamps back as naive local times; the date partition is the UTC date.
    assert row.date == datetime.fromtimestamp(row.timestamp.timestamp(), UTC).date()


def test_a_pattern_loads_every_matching_topic(spark: SparkSession, kafka: Kafka, tmp_path: Path) -> None:
    prefix = unique_topic("load")
    topics = [kafka.create_topic(f"{prefix}-{n}", partitions=1) for n in ("x", "y")]
    kafka.create_topic(f"other-{prefix}", partitions=1)
    for topic in topics:
        kafka.produce_values(topic, 1, 3)
    result = load(spark, LoadRequest(kafka.bootstrap, tmp_path / "out", pattern=f"{prefix}-.*"))
    assert sorted({r.topic for r in result.ranges}) == topics
    assert len(committed_rows(tmp_path / "out")) == 6


def test_an_unknown_topic_is_named_before_anything_is_written(kafka: Kafka, tmp_path: Path) -> None:
    known = kafka.create_topic(unique_topic(), partitions=1)
    with pytest.raises(
        BrokerQueryError, match=re.escape(f"topic 'no-such-topic' does not exist on the broker at {kafka.bootstrap}")
    ):
        check(LoadRequest(kafka.bootstrap, tmp_path / "out", topics=(known, "no-such-topic")))
    assert not (tmp_path / "out").exists()


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["spark-load", *argv])
    return code, capsys.readouterr().err


def test_cli_names_an_unreachable_broker(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    out = tmp_path / "out"
    code, err = _cli(capsys, "--bootstrap-server", address, "--output", str(out), "--topic", "t", "--timeout", "2")
    assert code == 2
    assert f"cannot reach the Kafka broker at {address}" in err
    assert not out.exists()


def test_cli_names_a_missing_connector_jar(
    capsys: pytest.CaptureFixture[str], kafka: Kafka, connector_jars: list[Path], tmp_path: Path
) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=1)
    without_clients = ",".join(str(jar) for jar in connector_jars if not jar.name.startswith("kafka-clients-"))
    out = tmp_path / "out"
    argv = ["--bootstrap-server", kafka.bootstrap, "--output", str(out), "--topic", topic, "--jars", without_clients]
    code, err = _cli(capsys, *argv)
    assert code == 2
    assert "org.apache.kafka:kafka-clients" in err
    code, err = _cli(capsys, *argv[:-1], f"{without_clients},{tmp_path / 'kafka-clients-3.9.2.jar'}")
    assert code == 2
    assert f"connector jar {tmp_path / 'kafka-clients-3.9.2.jar'} does not exist" in err
    assert not out.exists()


def test_cli_names_an_unknown_topic(capsys: pytest.CaptureFixture[str], kafka: Kafka, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, err = _cli(capsys, "--bootstrap-server", kafka.bootstrap, "--output", str(out), "--topic", "missing-one")
    assert code == 2
    assert "topic 'missing-one' does not exist" in err
    assert not out.exists()


def test_records_deleted_before_a_run_fail_it_or_are_skipped(spark: SparkSession, kafka: Kafka, tmp_path: Path) -> None:
    topic = kafka.create_topic(unique_topic(), partitions=1)
    kafka.produce_values(topic, 1, 5)
    strict = LoadRequest(kafka.bootstrap, tmp_path / "out", topics=(topic,))
    load(spark, strict)
    kafka.produce_values(topic, 1, 10, start=5)
    kafka.delete_records_before(topic, 0, 8)
    with pytest.raises(Exception, match="Some data may have been lost"):
        load(spark, strict)
    assert [m.sequence for m in OutputDirectory(strict.output).manifests()] == [1]
    result = load(spark, LoadRequest(kafka.bootstrap, strict.output, topics=(topic,), fail_on_data_loss=False))
    assert [(r.start, r.end) for r in result.ranges] == [(5, 15)]
    assert [o for _, _, o, _, _ in committed_rows(strict.output)] == [*range(5), *range(8, 15)]
    assert sorted(p.name for p in strict.output.glob("run=*")) == [
        m.run for m in OutputDirectory(strict.output).manifests()
    ]


def test_the_odradek_source_loads_the_same_rows_and_names_lost_offsets(
    spark: SparkSession, kafka: Kafka, tmp_path: Path
) -> None:
    from odradek.pipeline.datasource import register

    register(spark)
    topic = kafka.create_topic(unique_topic(), partitions=2)
    kafka.produce(topic, [Record(0, None, b"x", headers=(("h", b"1"), ("n", None))), Record(1, b"k", None)])
    kafka.produce_values(topic, 2, 8)
    strict = LoadRequest(kafka.bootstrap, tmp_path / "out", topics=(topic,), source="odradek")
    assert load(spark, strict).offsets == 10
    kafka.produce_values(topic, 2, 10, start=8)
    everything = topic_rows(kafka, topic, 2)
    kafka.delete_records_before(topic, 0, 8)
    with pytest.raises(Exception, match=rf"offsets \[5, 8\) of {topic}-0 were deleted from the log"):
        load(spark, strict)
    assert [m.sequence for m in OutputDirectory(strict.output).manifests()] == [1]
    lenient = LoadRequest(kafka.bootstrap, strict.output, topics=(topic,), fail_on_data_loss=False, source="odradek")
    assert {(r.partition, r.start, r.end) for r in load(spark, lenient).ranges} == {(0, 5, 10), (1, 5, 10)}
    assert committed_rows(strict.output) == [row for row in everything if row[1] == 1 or not 5 <= row[2] < 8]
    row = read_committed(spark, strict.output).where("partition = 0 AND offset = 0").collect()[0]
    assert [(h.key, None if h.value is None else bytes(h.value)) for h in row.headers] == [("h", b"1"), ("n", None)]
