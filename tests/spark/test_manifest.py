"""The output directory's commit protocol and the connector-jar checks, without Spark."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from odradek.pipeline.jars import ConnectorJarError, check_connector_jars, resolve_connector_jars
from odradek.pipeline.loader import _plan
from odradek.pipeline.manifest import LoadedRange, Manifest, OutputDirectory
from odradek.pipeline.offsets import OffsetBounds


def _committed(output: OutputDirectory, sequence: int, ranges: list[LoadedRange]) -> Manifest:
    run = f"run={sequence:08d}-test"
    data = output.root / run / "topic=t" / "date=2026-01-01"
    data.mkdir(parents=True)
    (data / "part-0.parquet").write_bytes(b"PAR1")
    manifest = Manifest(sequence, run, tuple(ranges), tuple(output.run_files(run)))
    output.commit(output.stage(manifest))
    return manifest


def test_only_committed_manifests_count_and_sweep_removes_the_rest(tmp_path: Path) -> None:
    output = OutputDirectory(tmp_path)
    assert output.manifests() == [] and output.next_sequence() == 1
    with output.locked():
        first = _committed(output, 1, [LoadedRange("t", 0, 0, 5), LoadedRange("t", 1, 0, 3)])
        second = _committed(output, 2, [LoadedRange("t", 0, 5, 9)])
    assert output.manifests() == [first, second]
    assert output.next_offsets() == {("t", 0): 9, ("t", 1): 3}
    assert output.next_sequence() == 3
    assert output.committed_files() == [tmp_path / f for f in (*first.files, *second.files)]

    killed = tmp_path / "run=00000003-dead" / "topic=t"
    killed.mkdir(parents=True)
    staged = output.stage(Manifest(3, "run=00000003-dead", (LoadedRange("t", 0, 9, 12),), ()))
    assert output.manifests() == [first, second], "a staged manifest is not committed"
    with output.locked():
        assert output.sweep() == [tmp_path / "run=00000003-dead", staged]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_manifests", first.run, second.run]
    assert json.loads((tmp_path / "_manifests" / "00000001.json").read_text())["ranges"][1] == {
        "topic": "t",
        "partition": 1,
        "from": 0,
        "to": 3,
    }


def test_one_loader_at_a_time(tmp_path: Path) -> None:
    output = OutputDirectory(tmp_path)
    with output.locked(), pytest.raises(RuntimeError, match="another loader is writing"), output.locked():
        pass


def test_plan_starts_where_the_last_commit_ended_and_skips_empty_partitions() -> None:
    bounds = [OffsetBounds("t", 0, 2, 10), OffsetBounds("t", 1, 0, 4), OffsetBounds("u", 0, 7, 7)]
    assert _plan({("t", 1): 4}, bounds) == [LoadedRange("t", 0, 2, 10)]
    assert _plan({("t", 0): 1}, bounds)[0] == LoadedRange("t", 0, 1, 10), "deleted offsets are Spark's to report"
    with pytest.raises(RuntimeError, match="t-0 ends at offset 10 but offsets up to 11 were already loaded"):
        _plan({("t", 0): 11}, bounds)


def test_a_missing_connector_artifact_is_named(tmp_path: Path) -> None:
    jars = []
    for name in (
        "spark-sql-kafka-0-10_2.13-4.2.0",
        "spark-token-provider-kafka-0-10_2.13-4.2.0",
        "commons-pool2-2.13.1",
    ):
        jars.append(tmp_path / f"{name}.jar")
        jars[-1].write_bytes(b"")
    with pytest.raises(ConnectorJarError, match=re.escape("needs org.apache.kafka:kafka-clients:")):
        check_connector_jars(jars, "4.2.0")
    with pytest.raises(ConnectorJarError, match=re.escape("needs org.apache.spark:spark-sql-kafka-0-10_2.13:4.1.0")):
        check_connector_jars(jars, "4.1.0")
    (tmp_path / "kafka-clients-3.9.2.jar").write_bytes(b"")
    assert check_connector_jars([*jars, tmp_path / "kafka-clients-3.9.2.jar"], "4.2.0")


def test_an_unpublished_connector_version_is_named(tmp_path: Path) -> None:
    with pytest.raises(
        ConnectorJarError, match=r"mvn could not resolve org\.apache\.spark:spark-sql-kafka-0-10_2\.13:0\.0\.1"
    ):
        resolve_connector_jars("0.0.1", cache=tmp_path)
    assert not (tmp_path / "spark-0.0.1" / ".complete").exists()
    assert not (tmp_path / "spark-0.0.1" / "jars").exists()
