"""The benchmark harness's pure rules (benchmarks/bench/method.py): warm-up end, run sizing, dirty
bytes, and the ``make bench`` time budget."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.method import (
    BUDGET_S,
    FULL_TIMING,
    PlannedCase,
    Timing,
    dirty_mib,
    estimate_seconds,
    pairs_within,
    records_for,
    warmed_up,
)


def test_warm_up_goes_on_while_the_figure_rises() -> None:
    # Kafka's W3 figures from a loaded run: each run beats the best before it by more than 5%.
    assert not warmed_up([296.0])
    assert not warmed_up([296.0, 731.0])
    assert not warmed_up([296.0, 731.0, 873.0, 995.0])


def test_warm_up_ends_when_the_figure_stops_rising() -> None:
    assert warmed_up([5790.0, 5810.0])  # within 5% of the best earlier run
    assert warmed_up([10_000.0, 9_000.0])  # fell: not rising any more


def test_warm_up_for_a_latency_figure_waits_for_it_to_stop_falling() -> None:
    assert not warmed_up([9.0, 4.0], higher_is_better=False)
    assert warmed_up([9.0, 4.0, 3.9], higher_is_better=False)


def test_warm_up_is_bounded() -> None:
    assert warmed_up([1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    assert not warmed_up([1.0, 2.0, 4.0, 8.0, 16.0], max_runs=6)


def test_a_run_is_sized_to_last_at_least_the_wanted_seconds() -> None:
    assert records_for(5_000.0, 10.0, floor=1_000) == 55_000  # 10% headroom
    assert records_for(5_000.0, 10.0, floor=1_000) / 5_000.0 >= 10.0


def test_an_unknown_rate_keeps_the_floor() -> None:
    assert records_for(0.0, 10.0, floor=1_234) == 1_234
    assert records_for(float("nan"), 10.0, floor=1_234) == 1_234
    assert records_for(10.0, 1.0, floor=1_234) == 1_234


def test_dirty_bytes_come_from_meminfo() -> None:
    meminfo = "MemTotal:       24000000 kB\nDirty:              2048 kB\nWriteback:             0 kB\n"
    assert dirty_mib(meminfo) == 2.0
    with pytest.raises(ValueError):
        dirty_mib("MemTotal: 1 kB\n")


def test_the_estimate_grows_with_pairs_brokers_and_java_tools() -> None:
    one = [PlannedCase(["odradek"], 10.0, False)]
    assert estimate_seconds(one, 3, FULL_TIMING) > estimate_seconds(one, 2, FULL_TIMING)
    assert estimate_seconds([PlannedCase(["kafka", "odradek"], 10.0, False)], 2, FULL_TIMING) > estimate_seconds(
        one, 2, FULL_TIMING
    )
    assert estimate_seconds([PlannedCase(["odradek"], 10.0, True)], 2, FULL_TIMING) > estimate_seconds(
        one, 2, FULL_TIMING
    )
    # every measured run is paid in full
    assert estimate_seconds(one, 1, FULL_TIMING) >= FULL_TIMING.measured_s


def test_pairs_are_the_most_that_fit_the_budget() -> None:
    timing = Timing(warmup_s=1.0, measured_s=10.0, pause_s=0.0)
    cases = [PlannedCase(["odradek"], 10.0, False)] * 10
    most = pairs_within(cases, timing, BUDGET_S, most=5, least=3)
    assert most == 5
    tight = estimate_seconds(cases, 4, timing)
    assert pairs_within(cases, timing, tight, most=5, least=3) == 4
    assert pairs_within(cases, timing, 1.0, most=5, least=3) == 3


def test_a_capped_case_pays_only_its_capped_runs() -> None:
    timing = Timing(warmup_s=1.0, measured_s=10.0, pause_s=0.0)
    capped = PlannedCase(["odradek"], 60.0, False, run_extra_s=4.0, max_pairs=2)
    assert estimate_seconds([capped], 5, timing) == estimate_seconds([capped], 2, timing)
    assert estimate_seconds([capped], 1, timing) < estimate_seconds([capped], 2, timing)
