"""The benchmark harness's pure rules (benchmarks/bench/method.py): warm-up end, run sizing, dirty
bytes, and the ``make bench`` time budget."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.method import (
    BUDGET_S,
    COLD_STARTS_MEASURED,
    FULL_TIMING,
    MAX_WARMUP_RUNS,
    PEER_LONG_RUN_S,
    PEER_MAX_RUNS,
    PLAN_S,
    START_S,
    PlannedCase,
    Timing,
    cold_start_rounds,
    dirty_mib,
    estimate_seconds,
    pairs_within,
    records_for,
    share,
    warmed_up,
)
from bench.runner import planned
from bench.workloads import FULL, cases


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
    doubling = [2.0**n for n in range(MAX_WARMUP_RUNS)]
    assert warmed_up(doubling)
    assert not warmed_up(doubling[:-1])
    assert warmed_up(doubling[:3], max_runs=3)


def test_warm_up_goes_on_while_a_jvm_is_still_compiling() -> None:
    # Kafka's W2-rdkafka warm-up on one core: flat figures while its JIT still took 11-38% of its CPU.
    assert not warmed_up([62.5, 62.0], compiling=True)
    assert not warmed_up([62.5, 62.0, 61.7, 56.6], compiling=True)
    assert warmed_up([62.5, 62.0, 61.7, 56.6], compiling=False)


def test_a_jvm_that_never_stops_compiling_still_ends_its_warm_up() -> None:
    assert warmed_up([1.0] * MAX_WARMUP_RUNS, compiling=True)
    assert not warmed_up([1.0] * (MAX_WARMUP_RUNS - 1), compiling=True)


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


def test_kafka_and_odradek_start_once_and_a_peer_once_per_case() -> None:
    pair = PlannedCase(["kafka", "odradek"], 10.0, False)
    one = estimate_seconds([pair], 3, FULL_TIMING)
    two = estimate_seconds([pair, pair], 3, FULL_TIMING)
    assert two == pytest.approx(2 * one - START_S["kafka"] - START_S["odradek"])
    with_peer = PlannedCase(["odradek", "kfake"], 10.0, False, peers=frozenset({"kfake"}))
    once = estimate_seconds([with_peer], 3, FULL_TIMING)
    assert estimate_seconds([with_peer, with_peer], 3, FULL_TIMING) == pytest.approx(2 * once - START_S["odradek"])


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


def test_the_peers_get_fewer_runs_and_one_warm_up() -> None:
    case = PlannedCase(["kafka", "odradek", "kfake"], 10.0, False, peers=frozenset({"kfake"}))
    assert share(case, "odradek", 3).runs == share(case, "kafka", 3).runs == 3
    assert share(case, "odradek", 3).max_warmups == MAX_WARMUP_RUNS
    peer = share(case, "kfake", 3)
    assert (peer.runs, peer.measured_s, peer.max_warmups) == (PEER_MAX_RUNS, 10.0, 1)
    assert share(case, "kfake", 1).runs == 1  # never more than the others


def test_a_peer_runs_a_long_case_once_and_shorter_but_never_under_ten_seconds() -> None:
    long = PlannedCase(["odradek", "tansu"], 60.0, False, run_extra_s=4.0, max_pairs=2, peers=frozenset({"tansu"}))
    assert (share(long, "odradek", 3).runs, share(long, "odradek", 3).measured_s) == (2, 60.0)
    assert (share(long, "tansu", 3).runs, share(long, "tansu", 3).measured_s) == (1, PEER_LONG_RUN_S)
    assert FULL_TIMING.measured_s <= PEER_LONG_RUN_S
    with_peer = estimate_seconds([long], 3, FULL_TIMING)
    as_subject = estimate_seconds([PlannedCase(["odradek", "tansu"], 60.0, False, 4.0, 2)], 3, FULL_TIMING)
    assert with_peer < as_subject


def test_cold_starts_are_in_the_estimate() -> None:
    assert cold_start_rounds(3, peer=False) == 1 + COLD_STARTS_MEASURED == 6
    assert cold_start_rounds(7, peer=False) == 8
    assert cold_start_rounds(3, peer=True) == 1 + PEER_MAX_RUNS
    none = estimate_seconds([], 3, FULL_TIMING)
    assert none == 0
    assert estimate_seconds([], 3, FULL_TIMING, {"kafka": 4}) > estimate_seconds([], 3, FULL_TIMING, {"kfake": 4})


def test_the_default_make_bench_plans_three_pairs_of_every_workload_within_the_plan() -> None:
    order = ["kafka", "odradek", "kfake", "tansu"]
    every = cases(FULL)
    assert {case.workload for case in every} == {"W1", "W2", "W3", "W4", "W5", "W6", "W8"}
    plans = [planned(case, order, FULL_TIMING) for case in every]
    cold = [(name, name in ("kfake", "tansu")) for name in order]
    pairs = pairs_within(plans, FULL_TIMING, PLAN_S, most=5, least=3, cold_starts=cold)
    rounds = {name: cold_start_rounds(pairs, peer) for name, peer in cold}
    assert pairs == 3
    assert estimate_seconds(plans, pairs, FULL_TIMING, rounds) <= PLAN_S < BUDGET_S
    for plan in plans:
        for broker in plan.brokers:
            assert share(plan, broker, pairs).measured_s >= FULL_TIMING.measured_s
