"""The vCPU speed canary (benchmarks/bench/vcpu_speed.py): real canary processes on the pinned
cores, the median they report, and the figures a run's sample gets from it."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.metrics import finish
from bench.pinning import Pinning, plan
from bench.vcpu_speed import CanaryWatch, CoreSpeeds, median_ms

from tests.unit.bench_harness.runs import a_run


def test_the_median_counts_whole_lines_only() -> None:
    assert median_ms("0.5\n0.25\n0.75\n") == 0.5
    assert median_ms("0.5\n0.25\n0.75\n0.3") == 0.5  # "0.3" may be the start of "0.345"


def test_a_canary_that_printed_nothing_gives_no_figure() -> None:
    assert median_ms("") is None
    assert median_ms("0.31") is None


@pytest.mark.skipif(plan().broker_core is None, reason="needs two cores and taskset")
def test_canaries_on_both_pinned_cores_report_the_cpu_time_of_their_loop() -> None:
    watch = CanaryWatch(plan())
    watch.start()
    time.sleep(1.0)  # a real process must run its loop a few times; nothing here can be injected
    speeds = watch.stop()
    for ms in (speeds.broker_core_ms, speeds.client_core_ms):
        assert ms is not None
        assert 0.0 < ms < 100.0


def test_no_canary_where_nothing_is_pinned() -> None:
    watch = CanaryWatch(Pinning(None, None))
    watch.start()
    assert watch.stop() == CoreSpeeds(None, None)


def test_stopping_twice_ends_the_processes_once() -> None:
    watch = CanaryWatch(Pinning(None, os.sched_getaffinity(0).pop()))
    watch.start()
    watch.stop()
    assert watch.stop() == CoreSpeeds(None, None)


def test_a_run_reports_each_cores_canary_and_omits_a_missing_one() -> None:
    sample = finish(replace(a_run(cpu=2.0), speeds=CoreSpeeds(0.31, None)), {"mb_s": 1.0}, 1e9, 10.0)
    assert sample["broker_core_canary_ms"] == 0.31
    assert "client_core_canary_ms" not in sample


@pytest.mark.skipif(plan().broker_core is None, reason="needs two cores and taskset")
def test_leaving_the_with_block_by_an_exception_ends_the_canaries() -> None:
    started = []
    with pytest.raises(RuntimeError), CanaryWatch(plan()) as watch:
        started = list(watch._procs.values())
        raise RuntimeError("the client failed")
    assert len(started) == 2
    assert all(proc.poll() is not None for proc in started)
