"""``odradek spark-load`` killed with SIGKILL at every step of a run, then run again: the committed
Parquet rows equal the topics' records, none lost and none twice.

Each run is a real ``python -m odradek spark-load`` process in its own session. The loader kills
itself at the step named by ODRADEK_SPARK_LOAD_CRASH_AT; the test then kills what is left of the
process group (Spark's JVM), as a crash of the machine would, before the next run starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from odradek.pipeline.loader import CRASH_ENV, CRASH_POINTS
from odradek.pipeline.manifest import OutputDirectory
from tests.spark.committed import committed_rows
from tests.spark.helpers import Kafka, unique_topic


def _group_alive(pgid: int) -> bool:
    """True while some process of the group is still running (zombies do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _run_loader(argv: list[str], crash_at: str | None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != CRASH_ENV}
    if crash_at is not None:
        env[CRASH_ENV] = crash_at
    process = subprocess.Popen(
        [sys.executable, "-m", "odradek", "spark-load", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=240)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while _group_alive(process.pid):
        assert time.monotonic() < deadline, "the loader's JVM outlived SIGKILL by 30 s"
        os.sched_yield()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def test_a_load_killed_at_any_step_and_run_again_neither_loses_nor_repeats(kafka: Kafka, tmp_path: Path) -> None:
    topics = [kafka.create_topic(unique_topic("crash"), partitions=2) for _ in range(2)]
    output = tmp_path / "out"
    argv = ["--bootstrap-server", kafka.bootstrap, "--output", str(output), "--master", "local[2]"]
    # C1 only: these JVMs live seconds, and six of them start on two cores.
    argv += [
        "--conf",
        "spark.sql.shuffle.partitions=2",
        "--conf",
        "spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1",
    ]
    for topic in topics:
        argv += ["--topic", topic]
    produced = 0
    for step in (*CRASH_POINTS, None):
        for topic in topics:
            kafka.produce_values(topic, 2, 6, start=produced)
        produced += 6
        result = _run_loader(argv, step)
        if step is None:
            assert result.returncode == 0, result.stderr[-3000:]
        else:
            assert result.returncode == -signal.SIGKILL, f"{step}: {result.returncode}\n{result.stderr[-3000:]}"
        rows = committed_rows(output)
        assert len(rows) == len(set(rows)), f"duplicate rows after a crash at {step}"
        committed = len(OutputDirectory(output).manifests())
        assert committed == (1 if step == "manifest-committed" else 2 if step is None else 0), step
    expected = sorted((t, p, o, k, v) for t in topics for p, o, k, v in kafka.read_all(t, 2))
    assert len(expected) == 2 * produced
    assert committed_rows(output) == expected
    assert sorted(p.name for p in output.glob("run=*")) == [m.run for m in OutputDirectory(output).manifests()]
