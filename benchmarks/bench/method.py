"""The rules of a fair run, as pure functions: when warm-up is over, how big a run must be to last
long enough, what the page cache held when a run began, and what a whole ``make bench`` will cost.

Issue 19's method: every measured run lasts at least ``Timing.measured_s`` (10 s by default) after a
warm-up that goes on until the broker's per-run figure stops improving (Kafka's JIT needs several
runs); between runs the harness calls ``sync`` and pauses so one run's write-back does not land in the
next, and records the dirty page-cache bytes at the start of every run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: A warm-up run counts as "still rising" while it beats every earlier one by more than this.
WARMUP_TOLERANCE = 0.05
MIN_WARMUP_RUNS = 2
MAX_WARMUP_RUNS = 6
#: ``make bench`` must stay under this on a 2-core machine (issue 19).
BUDGET_S = 45 * 60


@dataclass(frozen=True, slots=True)
class Timing:
    """How long runs last and how long the harness waits between them."""

    warmup_s: float  # target length of each warm-up run after the first
    measured_s: float  # every measured run lasts at least this long
    pause_s: float  # after ``sync``, before the next run starts


FULL_TIMING = Timing(warmup_s=3.0, measured_s=10.0, pause_s=1.0)
QUICK_TIMING = Timing(warmup_s=1.0, measured_s=2.0, pause_s=0.5)


def warmed_up(
    figures: Sequence[float],
    higher_is_better: bool = True,
    tolerance: float = WARMUP_TOLERANCE,
    min_runs: int = MIN_WARMUP_RUNS,
    max_runs: int = MAX_WARMUP_RUNS,
) -> bool:
    """True once the last warm-up figure no longer improves on the best earlier one by more than
    ``tolerance`` (or ``max_runs`` were spent). ``figures`` are the warm-up runs so far, oldest first."""
    if len(figures) >= max_runs:
        return True
    if len(figures) < max(2, min_runs):
        return False
    *earlier, last = figures
    if higher_is_better:
        return last <= max(earlier) * (1 + tolerance)
    return last >= min(earlier) * (1 - tolerance)


def records_for(rate_per_s: float, seconds: float, floor: int, ceiling: int = 50_000_000) -> int:
    """How many records make a run of at least ``seconds`` at ``rate_per_s`` (10% headroom), never
    fewer than ``floor``; a rate of zero or an unknown rate keeps ``floor``."""
    if not rate_per_s > 0 or math.isinf(rate_per_s):
        return floor
    return max(floor, min(ceiling, math.ceil(round(rate_per_s * seconds * 1.1, 6))))


def dirty_mib(meminfo: str) -> float:
    """The ``Dirty:`` line of /proc/meminfo (page cache waiting for write-back), in MiB."""
    for line in meminfo.splitlines():
        if line.startswith("Dirty:"):
            return int(line.split()[1]) / 1024
    raise ValueError("no Dirty: line in meminfo")


@dataclass(frozen=True, slots=True)
class PlannedCase:
    """What the estimate needs to know about one case."""

    brokers: Sequence[str]
    measured_s: float  # this case's measured run length
    java_client: bool  # each run starts a JVM tool (about 2 s more per run)
    run_extra_s: float = 0.0  # fixed time each run spends outside the measured part (W8's group forming)
    max_pairs: int | None = None  # at most this many measured runs per broker (W8's 60 s runs)


#: Rough cost of starting each broker on a fresh data directory (Kafka formats storage first).
START_S = {"kafka": 12.0, "odradek": 2.0, "odradek-base": 2.0, "kfake": 1.0, "tansu": 1.0}
#: Expected warm-up runs per broker: Kafka's JIT needs more than the others' minimum.
EXPECTED_WARMUPS = {"kafka": 3.5}
RUN_OVERHEAD_S = 1.0  # topic create/delete, client start, result parsing (0.2-0.7 s measured)
JAVA_START_S = 2.0


def estimate_seconds(cases: Sequence[PlannedCase], pairs: int, timing: Timing) -> float:
    """A planning estimate of a whole run: broker starts, warm-ups and ``pairs`` measured runs per broker."""
    total = 0.0
    for case in cases:
        per_run = RUN_OVERHEAD_S + timing.pause_s + case.run_extra_s + (JAVA_START_S if case.java_client else 0.0)
        measured = pairs if case.max_pairs is None else min(pairs, case.max_pairs)
        for broker in case.brokers:
            warmups = EXPECTED_WARMUPS.get(broker, float(MIN_WARMUP_RUNS))
            total += START_S.get(broker, 5.0)
            total += warmups * (min(timing.warmup_s, case.measured_s) + per_run)
            total += measured * (case.measured_s + per_run)
    return total


def pairs_within(cases: Sequence[PlannedCase], timing: Timing, budget_s: float, most: int, least: int) -> int:
    """The most measured pairs (between ``least`` and ``most``) whose estimate fits ``budget_s``."""
    for pairs in range(most, least - 1, -1):
        if estimate_seconds(cases, pairs, timing) <= budget_s:
            return pairs
    return least
