"""Alternating runs: every case with a warm-up per broker until its figure stops rising (and a JVM's
JIT compiler has gone quiet), then measured pairs, broker A then broker B, each run long enough that
start-up does not decide it.

Kafka and odradek start once and serve every case, as brokers in service do; no case inherits another's
data, since every run's topic is deleted and its files are gone before the next run starts (a shared
prefilled log, W4's, is the exception its cases name). The in-memory peers start again for every case.
A broker that exits is started again and counted. Warm-up runs (``warmup`` = True, index 0, ``round``
0, 1, ...) go on until ``bench.method.warmed_up`` says the broker's per-run figure stopped improving
and the broker was not compiling; each is kept in the results and left out of every median.
Measured runs are sized from the rate of the broker's last run so they last at least the timing's
``measured_s``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.brokers import PEERS, Broker, launcher
from bench.method import COMPILER_BUSY_SHARE, PlannedCase, Share, Timing, records_for, share, warmed_up
from bench.metrics import Row
from bench.pinning import Pinning
from bench.vcpu_speed import BROKER_CORE_FIGURE
from bench.workloads import Case, Context, Scale, Setup

#: The set-up entry that names why a broker does not run a case (the summary's notes show it).
CANNOT_RUN = "cannot_run"


@dataclass
class RunRecord:
    """One run of one case on one broker."""

    broker: str
    index: int
    warmup: bool
    sample: dict[str, float] | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "broker": self.broker,
            "index": self.index,
            "warmup": self.warmup,
            "sample": self.sample,
            "error": self.error,
        }


@dataclass
class CaseRecord:
    """Everything measured for one case."""

    case: Row
    runs: list[RunRecord] = field(default_factory=list)
    setup: dict[str, Any] = field(default_factory=dict)


class BrokerPool:
    """Long-lived brokers, started on first use and again if one has exited."""

    def __init__(self, workdir: Path, pinning: Pinning) -> None:
        self._workdir = workdir
        self._pinning = pinning
        self._running: dict[str, tuple[ExitStack, Broker]] = {}
        self.restarts: dict[str, int] = {}
        self.versions: dict[str, str] = {}

    def get(self, name: str) -> Broker:
        current = self._running.get(name)
        if current is not None and current[1].proc.poll() is None:
            return current[1]
        if current is not None:
            self.restarts[name] = self.restarts.get(name, 0) + 1
            print(f"  {name} exited with {current[1].proc.returncode}; starting it again")
            with contextlib.suppress(Exception):
                current[0].close()
        stack = ExitStack()
        broker: Broker = stack.enter_context(launcher(name)(self._workdir, self._pinning))
        self._running[name] = (stack, broker)
        self.versions[name] = broker.version
        return broker

    def close(self) -> None:
        for stack, _ in self._running.values():
            stack.close()
        self._running.clear()

    def ready(self, names: Sequence[str]) -> None:
        """Start ``names`` for a case: a peer again, on an empty store (kfake and Tansu hold every record
        in memory); Kafka and odradek keep running from earlier cases, as brokers in service do (a JVM
        keeps what its JIT compiled; every run's topic is deleted and its files are gone before the next
        run starts). Returns once ``names`` are all running (start failures are left to ``get``)."""
        for name in [name for name in self._running if name in PEERS]:
            self._running.pop(name)[0].close()
        for name in names:
            with contextlib.suppress(Exception):
                self.get(name)


def _progress(case: Case, run: RunRecord, seconds: float) -> str:
    tag = f" (warm-up {run.sample.get('round', 0):.0f})" if run.warmup and run.sample else " (warm-up)" * run.warmup
    head = f"  {case.key:<18} {run.broker:<8} run {run.index}{tag:<13}"
    if run.error is not None:
        return f"{head} FAILED: {run.error.splitlines()[0][:160]}"
    sample = run.sample or {}
    names = ("mb_s", "rec_s", "p99_ms", "e2e_p99_ms", "mb_per_cpu_s", "dirty_mib")
    shown = [f"{name}={sample[name]:.3g}" for name in names if name in sample]
    shown.append(f"foreign={sample.get('foreign_cores', 0.0):.2f} steal={sample.get('steal_cores', 0.0):.2f}")
    if BROKER_CORE_FIGURE in sample:
        shown.append(f"canary={sample[BROKER_CORE_FIGURE]:.3f}ms")
    if sample.get("broker_compiler_share", 0.0) > 0:
        shown.append(f"jit={sample['broker_compiler_share']:.3f}")
    return f"{head} {' '.join(shown)} ({seconds:.1f}s)"


def case_brokers(case: Case, order: Sequence[str]) -> list[str]:
    """The brokers ``case`` runs on: every one in ``order``, but the peers only where ``case.peers``
    and where they can (``case.cannot_run``)."""
    return [name for name in order if (case.peers or name not in PEERS) and name not in case.cannot_run]


def planned(case: Case, order: Sequence[str], timing: Timing) -> PlannedCase:
    """``case`` as the estimate and the runner see it: its brokers, run length and the peers among them."""
    brokers = case_brokers(case, order)
    return PlannedCase(
        brokers,
        case.measured_s or timing.measured_s,
        case.java_client,
        case.run_extra_s,
        case.max_pairs,
        frozenset(PEERS).intersection(brokers),
    )


class _Runs:
    """Runs one case's runs on one broker and keeps the pace for sizing the next one."""

    def __init__(self, case: Case, ctx: Context, pool: BrokerPool, record: CaseRecord, setups: dict[str, Setup]):
        self.case, self.ctx, self.pool, self.record, self.setups = case, ctx, pool, record, setups
        self.rate: dict[str, float] = {}

    def scale(self, name: str, seconds: float) -> Scale:
        return Scale(records_for(self.rate.get(name, 0.0), seconds, self.case.records), seconds)

    def one(self, name: str, index: int, warmup: bool, seconds: float) -> RunRecord:
        run = RunRecord(name, index, warmup=warmup)
        if name not in self.setups:
            run.error = "set-up failed"
        else:
            try:
                label = f"{name}-{index}-{len(self.record.runs)}"
                broker = self.pool.get(name)
                run.sample = self.case.run(self.ctx, broker, self.setups[name], label, self.scale(name, seconds))
                rate = run.sample.get("rec_s", 0.0)
                if rate > 0:
                    self.rate[name] = rate
            except Exception as exc:
                run.error = f"{type(exc).__name__}: {exc}"
        self.record.runs.append(run)
        return run

    def warm_up(self, name: str, given: Share) -> None:
        """Warm-up runs until the pace figure stops improving and a JVM broker's JIT compiler has gone
        quiet, or ``given.max_warmups`` were spent (a failed run ends the warm-up)."""
        figures: list[float] = []
        while True:
            started = time.monotonic()
            run = self.one(name, 0, True, min(self.ctx.timing.warmup_s, given.measured_s))
            if run.sample is not None:
                run.sample["round"] = float(len(figures))
            print(_progress(self.case, run, time.monotonic() - started), flush=True)
            if run.sample is None or self.case.pace not in run.sample:
                return
            figures.append(run.sample[self.case.pace])
            compiling = run.sample.get("broker_compiler_share", 0.0) > COMPILER_BUSY_SHARE
            if warmed_up(figures, self.case.pace_higher_is_better, max_runs=given.max_warmups, compiling=compiling):
                return


def run_case(case: Case, ctx: Context, pool: BrokerPool, order: Sequence[str], pairs: int) -> CaseRecord:
    """The case's brokers ready (`BrokerPool.ready`); set up on each; warm each up; then alternating
    measured rounds, each broker taking part in as many as its ``bench.method.share`` of ``pairs``; tear
    down. A peer that cannot run the case gets its reason in the record's set-up instead of runs."""
    record = CaseRecord(case)
    for name in order:
        if name in case.cannot_run:
            record.setup[name] = {CANNOT_RUN: case.cannot_run[name]}
    plan = planned(case, order, ctx.timing)
    brokers = list(plan.brokers)
    shares = {name: share(plan, name, pairs) for name in brokers}
    pool.ready(brokers)
    setups: dict[str, Setup] = {}
    for name in brokers:
        try:
            setups[name] = case.setup(ctx, pool.get(name)) if case.setup is not None else {}
            record.setup[name] = setups[name]
        except Exception as exc:
            record.setup[name] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"  {case.key} set-up on {name} FAILED: {exc}")
    runs = _Runs(case, ctx, pool, record, setups)
    for name in brokers:
        runs.warm_up(name, shares[name])
    for index in range(1, max((given.runs for given in shares.values()), default=0) + 1):
        for name in brokers:
            if index > shares[name].runs:
                continue
            started = time.monotonic()
            run = runs.one(name, index, False, shares[name].measured_s)
            print(_progress(case, run, time.monotonic() - started), flush=True)
    if case.teardown is not None:
        for name, setup in setups.items():
            with contextlib.suppress(Exception):
                case.teardown(pool.get(name), setup)
    return record


def failed_runs(records: Sequence[CaseRecord]) -> tuple[int, int]:
    """(failed runs of Kafka and odradek, failed runs of the peers): only the first fails ``make bench``,
    since a peer's failure says something about the peer, not about the harness or odradek."""
    failed = [run.broker for record in records for run in record.runs if run.error]
    peers = sum(1 for name in failed if name in PEERS)
    return len(failed) - peers, peers
