"""Pairs run on vCPUs of different speeds (benchmarks/bench/analysis.py): when odradek's runs and
Kafka's ran their canary's fixed work at speeds more than 10% apart (pair by pair, at the median), the
case's timed figures are noisy and say which broker's vCPU was slower; sizes are not affected."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.analysis import figures, uneven_speed
from bench.metrics import MB_S, PEAK_RSS, finish
from bench.report import _notes
from bench.runner import CaseRecord, RunRecord
from bench.stored import StoredRow
from bench.vcpu_speed import CoreSpeeds

from tests.unit.bench_harness.runs import a_run


def _record(*pairs: tuple[float | None, float | None]) -> CaseRecord:
    """One pair of measured runs per (Kafka's canary ms, odradek's), equal throughput throughout."""
    record = CaseRecord(StoredRow("W6-rdkafka", "W6", "many partitions", "librdkafka", (MB_S, PEAK_RSS)))
    for index, canaries in enumerate(pairs, start=1):
        for broker, ms in zip(("kafka", "odradek"), canaries, strict=True):
            run = replace(a_run(cpu=2.0), speeds=CoreSpeeds(ms, None))
            record.runs.append(RunRecord(broker, index, False, finish(run, {"mb_s": 20.0}, 2e8, 10.0)))
    return record


def test_pairs_at_one_speed_are_even() -> None:
    assert uneven_speed(_record((0.30, 0.31), (0.20, 0.21), (0.25, 0.24))) is None


def test_a_pair_apart_is_outvoted_by_the_median() -> None:
    assert uneven_speed(_record((0.30, 0.31), (0.20, 0.32), (0.25, 0.24))) is None


def test_odradek_on_the_slower_vcpu_makes_timed_figures_noisy_and_says_so() -> None:
    record = _record((0.20, 0.30), (0.20, 0.26), (0.25, 0.25))
    assert uneven_speed(record) == 1.3
    throughput, rss = figures(record, ["kafka", "odradek"])
    assert throughput.noisy and throughput.uneven_speed == 1.3
    assert _notes(throughput, {}, {}) == "noisy; odradek's vCPU ran slower (fixed work odradek / Kafka 1.3)"
    assert not rss.noisy and rss.uneven_speed is None


def test_kafka_on_the_slower_vcpu_is_named() -> None:
    (throughput, _) = figures(_record((0.30, 0.20), (0.30, 0.20), (0.30, 0.20)), ["kafka", "odradek"])
    assert "Kafka's vCPU ran slower" in _notes(throughput, {}, {})


def test_runs_without_canaries_are_not_judged() -> None:
    record = _record((None, None), (None, None))
    assert uneven_speed(record) is None
    assert not figures(record, ["kafka", "odradek"])[0].noisy
