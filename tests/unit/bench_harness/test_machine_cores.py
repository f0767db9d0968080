"""The machine's busy and steal cores between two /proc/stat readings (bench.procstat.machine_cores),
as benchmarks/abuse.py and scale.py record them, and how their summaries print them
(bench.side_by_side.busy_cores_text)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.procstat import MachineTicks, machine_cores
from bench.side_by_side import busy_cores_text


def test_busy_and_steal_are_averaged_over_the_machines_cores() -> None:
    before = MachineTicks(busy_s=10.0, total_s=100.0, steal_s=1.0)
    after = MachineTicks(busy_s=25.0, total_s=120.0, steal_s=3.0)  # 10 s of wall on 2 cores
    cores = machine_cores(before, after, cores=2)
    assert cores is not None
    assert cores.busy == 1.5
    assert cores.steal == 0.2


def test_no_time_between_the_readings_gives_no_figure() -> None:
    ticks = MachineTicks(busy_s=10.0, total_s=100.0, steal_s=1.0)
    assert machine_cores(ticks, ticks, cores=2) is None


def test_steal_is_printed_where_a_run_recorded_it() -> None:
    runs = [
        {"broker": "kafka", "machine_busy_cores": 1.41, "machine_steal_cores": 0.12},
        {"broker": "odradek", "machine_busy_cores": 0.97},  # a run stored before steal was recorded
    ]
    assert busy_cores_text(runs) == "kafka 1.41 (steal 0.12), odradek 0.97"
