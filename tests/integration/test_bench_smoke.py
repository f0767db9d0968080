"""The benchmark harness keeps working: ``benchmarks/run.py --smoke`` runs one short W1 against odradek
(the mypyc build ``make run`` runs, built first when stale: about a minute), and
``benchmarks/loop_lag.py`` one second of connection churn; ``run.py --report`` renders a kept results
file again in place; a W7 cold start (``bench.startup``) reports its figures and the canaries'.

Only what the harness produced is checked (every record delivered, the broker's CPU and memory
were read, the results files exist); no figure is compared with a time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
LOOP_LAG = RUN.with_name("loop_lag.py")


def test_smoke_run_writes_results(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(RUN), "--smoke", "--out", str(tmp_path), "--workdir", str(tmp_path / "work")],
        capture_output=True,
        text=True,
        timeout=270,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    [results] = list(tmp_path.glob("*.json"))
    document = json.loads(results.read_text())
    assert document["order"] == ["odradek"]
    assert document["brokers"]["odradek"].endswith("(hot path compiled with mypyc)"), document["brokers"]
    [case] = document["cases"]
    assert case["key"] == "W1-rdkafka-acks1"
    measured = [run for run in case["runs"] if not run["warmup"]]
    assert measured, case["runs"]
    warmups = [run for run in case["runs"] if run["warmup"]]
    assert len(warmups) >= 2, "warm-up goes on until the figure stops rising, at least two runs"
    for run in case["runs"]:
        assert run["error"] is None
        sample = run["sample"]
        assert sample["records"] == sample["requested"] > 0
        assert sample["broker_cpu_s"] > 0
        assert sample["peak_rss_mib"] > 0
        assert sample["dirty_mib"] >= 0
        if _pinned():
            assert sample["broker_core_canary_ms"] > 0
            assert sample["client_core_canary_ms"] > 0
    summary = (tmp_path / "summary.md").read_text()
    assert "| W1-rdkafka-acks1 | librdkafka | throughput (MB/s) |" in summary
    assert not (tmp_path / "work").exists() or not any((tmp_path / "work").iterdir())
    _rerender_in_place(results, tmp_path / "kept")


def _pinned() -> bool:
    """Whether run.py pins broker and client to cores of their own (bench.pinning.plan), and so runs
    the vCPU canaries."""
    return len(os.sched_getaffinity(0)) >= 2 and shutil.which("taskset") is not None


def _rerender_in_place(results: Path, kept: Path) -> None:
    """``--report`` on a results JSON kept under another name writes that file and the summary beside
    it, and no ``<date>.json`` that would replace a standing run's."""
    kept.mkdir()
    copy = kept / "kept-run.json"
    shutil.copyfile(results, copy)
    before = copy.stat().st_mtime_ns
    result = subprocess.run(
        [sys.executable, str(RUN), "--report", str(copy)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(path.name for path in kept.glob("*.json")) == ["kept-run.json"]
    assert copy.stat().st_mtime_ns > before
    assert "| W1-rdkafka-acks1 | librdkafka | throughput (MB/s) |" in (kept / "summary.md").read_text()


def test_a_cold_start_reports_its_time_its_memory_and_the_vcpu_speed_around_it(tmp_path: Path) -> None:
    sys.path.insert(0, str(RUN.parent))
    from bench.pinning import plan
    from bench.startup import cold_start

    started = cold_start("odradek-pure", tmp_path, plan())
    assert started.version.endswith("(pure Python)"), started.version
    sample = started.sample
    assert 0 < sample["start_s"] < 60
    assert sample["start_cpu_s"] > 0
    assert sample["idle_rss_mib"] > 0
    if _pinned():
        assert sample["broker_core_canary_ms"] > 0
        assert sample["client_core_canary_ms"] > 0


def test_loop_lag_reports_the_probe_the_abuser_and_the_stalls() -> None:
    result = subprocess.run(
        [sys.executable, str(LOOP_LAG), "--kind", "churn", "--seconds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    probe = json.loads(lines[0].split(" probe ", 1)[1])
    assert probe["metadata_ms"]["count"] > 0
    assert probe["produce_ms"]["count"] > 0
    abused = json.loads(lines[1].removeprefix("abuser: "))
    assert abused["churn_connections"] > 0
    assert any(line.startswith("stalls > 2.0 ms: ") for line in lines), result.stdout
