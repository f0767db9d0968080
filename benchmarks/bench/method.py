"""The rules of a fair run, as pure functions: when warm-up is over, how big a run must be to last
long enough, what the page cache held when a run began, and what a whole ``make bench`` will cost.

Issue 19's method: every measured run lasts at least ``Timing.measured_s`` (10 s by default) after a
warm-up that goes on until the broker's per-run figure stops improving (Kafka's JIT needs several
runs); between runs the harness calls ``sync`` and pauses so one run's write-back does not land in the
next, and records the dirty page-cache bytes at the start of every run. Each run's topic is deleted
after it, and the next run starts only once the broker's files are gone, on Kafka as on odradek
(``brokers.KAFKA_BENCH_CONFIG``): which broker ran before must not decide whether a run writes into
memory just freed or into memory the host has taken back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: A warm-up run counts as "still rising" while it beats every earlier one by more than this.
WARMUP_TOLERANCE = 0.05
#: A JVM broker is still compiling while its JIT compiler threads used more than this share of its
#: CPU in a warm-up run (``procstat.compiler_seconds``); its warm-up goes on meanwhile, whatever its
#: figure did: pinned to one core, Kafka compiles in what its request threads leave over, and its
#: figure can stay flat for runs before the compiled code arrives.
COMPILER_BUSY_SHARE = 0.05
MIN_WARMUP_RUNS = 2
MAX_WARMUP_RUNS = 8
#: ``make bench`` must stay under this on a 2-core machine (issue 19).
BUDGET_S = 45 * 60
#: The plan is made to fit this, leaving the budget's rest for what the estimate leaves out
#: (broker shutdowns between cases, W4's prefill, W6's topic creation).
PLAN_S = 43 * 60


@dataclass(frozen=True, slots=True)
class Timing:
    """How long runs last and how long the harness waits between them."""

    warmup_s: float  # target length of each warm-up run after the first
    measured_s: float  # every measured run lasts at least this long
    pause_s: float  # after ``sync``, before the next run starts


FULL_TIMING = Timing(warmup_s=3.0, measured_s=10.0, pause_s=0.5)
QUICK_TIMING = Timing(warmup_s=1.0, measured_s=2.0, pause_s=0.5)


def warmed_up(
    figures: Sequence[float],
    higher_is_better: bool = True,
    tolerance: float = WARMUP_TOLERANCE,
    min_runs: int = MIN_WARMUP_RUNS,
    max_runs: int = MAX_WARMUP_RUNS,
    compiling: bool = False,
) -> bool:
    """True once the last warm-up figure no longer improves on the best earlier one by more than
    ``tolerance`` and the broker was not ``compiling`` in the last run (or ``max_runs`` were spent).
    ``figures`` are the warm-up runs so far, oldest first."""
    if len(figures) >= max_runs:
        return True
    if compiling or len(figures) < max(2, min_runs):
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
    """What the estimate (and the runner) need to know about one case."""

    brokers: Sequence[str]
    measured_s: float  # this case's measured run length
    java_client: bool  # each run starts a JVM tool (about 2 s more per run)
    run_extra_s: float = 0.0  # fixed time each run spends outside the measured part (W8's group forming)
    max_pairs: int | None = None  # at most this many measured runs per broker (W8's 60 s runs)
    peers: frozenset[str] = frozenset()  # those of ``brokers`` that get the peers' share (``share``)


#: What the look-alike peers (kfake, Tansu) get, so that all four brokers fit the budget: they keep
#: records in memory and have no JIT, so one warm-up run (which also sizes their measured runs); at
#: most ``PEER_MAX_RUNS`` measured runs in a case; in a case with runs longer than ``PEER_LONG_RUN_S``
#: (W8's 60 s), one measured run of ``PEER_LONG_RUN_S``; and W7 cold starts to match (one warm-up
#: start, then ``PEER_MAX_RUNS``). Which cases they run at all is each case's ``peers`` flag.
PEER_WARMUP_RUNS = 1
PEER_MAX_RUNS = 2
PEER_LONG_RUN_S = 20.0


@dataclass(frozen=True, slots=True)
class Share:
    """What one broker gets of one case: how many measured runs, how long each, and the most warm-up runs."""

    runs: int
    measured_s: float
    max_warmups: int


def share(case: PlannedCase, broker: str, pairs: int) -> Share:
    """``broker``'s share of ``case`` in a run of ``pairs`` pairs: Kafka and odradek get every pair
    (up to the case's ``max_pairs``) and warm up until their figure stops rising; a peer gets less."""
    runs = pairs if case.max_pairs is None else min(pairs, case.max_pairs)
    if broker not in case.peers:
        return Share(runs, case.measured_s, MAX_WARMUP_RUNS)
    if case.measured_s > PEER_LONG_RUN_S:
        return Share(min(runs, 1), PEER_LONG_RUN_S, PEER_WARMUP_RUNS)
    return Share(min(runs, PEER_MAX_RUNS), case.measured_s, PEER_WARMUP_RUNS)


#: Rough cost of starting each broker on a fresh data directory (Kafka formats storage first); Kafka
#: and odradek start once per ``make bench``, a peer once per case (``runner.BrokerPool.ready``).
START_S = {"kafka": 12.0, "odradek": 2.0, "odradek-pure": 2.0, "odradek-base": 2.0, "kfake": 1.0, "tansu": 1.0}
#: Expected warm-up runs per broker: Kafka's JIT needs more than the others' minimum.
EXPECTED_WARMUPS = {"kafka": 6.0}
RUN_OVERHEAD_S = 1.0  # topic create/delete, client start, result parsing (0.2-0.7 s measured)
JAVA_START_S = 2.0
#: W7 reads a broker's idle RSS this long after it answered.
IDLE_SETTLE_S = 2.0
STOP_S = 1.0  # a broker's shutdown after a W7 cold start


#: W7's measured cold starts of Kafka and odradek, whatever the pairs: a cold start costs seconds, and
#: with five the interquartile range (`stats.summarise`) leaves out the fastest and the slowest start;
#: with three it is half their whole range, so one slow start alone marked W7 noisy.
COLD_STARTS_MEASURED = 5


def cold_start_rounds(pairs: int, peer: bool) -> int:
    """W7's cold starts of one broker: a warm-up start, then `COLD_STARTS_MEASURED` or one per
    measured pair if there are more (a peer: its share)."""
    return PEER_WARMUP_RUNS + min(pairs, PEER_MAX_RUNS) if peer else 1 + max(pairs, COLD_STARTS_MEASURED)


def estimate_seconds(
    cases: Sequence[PlannedCase], pairs: int, timing: Timing, cold_starts: Mapping[str, int] | None = None
) -> float:
    """A planning estimate of a whole run: broker starts (a peer's in every case it runs, another
    broker's once), warm-ups and each broker's share of ``pairs`` measured runs per case, then W7's
    cold starts (``cold_starts``: how many of each broker)."""
    total = 0.0
    started: set[str] = set()
    for case in cases:
        per_run = RUN_OVERHEAD_S + timing.pause_s + case.run_extra_s + (JAVA_START_S if case.java_client else 0.0)
        for broker in case.brokers:
            given = share(case, broker, pairs)
            warmups = min(EXPECTED_WARMUPS.get(broker, float(MIN_WARMUP_RUNS)), given.max_warmups)
            if broker in case.peers or broker not in started:
                total += START_S.get(broker, 5.0)
                started.add(broker)
            total += warmups * (min(timing.warmup_s, given.measured_s) + per_run)
            total += given.runs * (given.measured_s + per_run)
    for broker, rounds in (cold_starts or {}).items():
        total += rounds * (START_S.get(broker, 5.0) + IDLE_SETTLE_S + STOP_S)
    return total


def pairs_within(
    cases: Sequence[PlannedCase],
    timing: Timing,
    budget_s: float,
    most: int,
    least: int,
    cold_starts: Sequence[tuple[str, bool]] = (),
) -> int:
    """The most measured pairs (between ``least`` and ``most``) whose estimate fits ``budget_s``;
    ``cold_starts``: W7's brokers, each with whether it is a peer."""
    for pairs in range(most, least - 1, -1):
        rounds = {name: cold_start_rounds(pairs, peer) for name, peer in cold_starts}
        if estimate_seconds(cases, pairs, timing, rounds) <= budget_s:
            return pairs
    return least
