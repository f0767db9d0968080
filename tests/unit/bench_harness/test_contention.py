"""Which runs count as contended (benchmarks/bench/analysis.py): CPU taken by other processes in the
machine and CPU the hypervisor gave to other guests (steal) both count, and they add up."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.analysis import contended_runs, contention
from bench.metrics import MB_S, finish
from bench.runner import CaseRecord, RunRecord
from bench.stored import StoredRow

from tests.unit.bench_harness.runs import a_run


def _record(*taken: tuple[float, float]) -> CaseRecord:
    """One measured run per (foreign cores, steal cores), after a warm-up that lost a whole core."""
    record = CaseRecord(StoredRow("W2-rdkafka", "W2", "small records", "librdkafka", (MB_S,)))
    warm_up = finish(a_run(cpu=2.0, foreign=1.0), {"mb_s": 100.0}, 1e9, 10.0)
    record.runs.append(RunRecord("kafka", 0, True, warm_up))
    for index, (foreign, steal) in enumerate(taken, start=1):
        sample = finish(a_run(cpu=2.0, foreign=foreign, steal=steal), {"mb_s": 100.0}, 1e9, 10.0)
        record.runs.append(RunRecord("kafka", index, False, sample))
    return record


def test_steal_counts_towards_a_contended_run_as_other_processes_do() -> None:
    assert contended_runs(_record((0.0, 0.0), (0.3, 0.0), (0.0, 0.3))) == (2, 3)


def test_other_processes_and_steal_add_up() -> None:
    assert contended_runs(_record((0.1, 0.1))) == (1, 1)
    assert contention(_record((0.1, 0.1), (0.0, 0.05), (0.05, 0.05))) == 0.1
