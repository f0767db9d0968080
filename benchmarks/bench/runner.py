"""Alternating runs: every case, pair by pair, broker A then broker B, with one warm-up pair first.

The brokers for W1-W6 stay up across cases (started once, fresh topic per run); a broker that died
is started again before its next run and the restart is recorded. Run 0 of every case is the
warm-up pair and is kept in the results but left out of every median.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.brokers import Broker, launcher
from bench.metrics import Row
from bench.pinning import Pinning
from bench.workloads import Case, Context, Setup


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


def _progress(case: Case, run: RunRecord, seconds: float) -> str:
    head = f"  {case.key:<18} {run.broker:<8} run {run.index}{' (warm-up)' if run.warmup else '':<10}"
    if run.error is not None:
        return f"{head} FAILED: {run.error.splitlines()[0][:160]}"
    sample = run.sample or {}
    shown = [f"{name}={sample[name]:.3g}" for name in ("mb_s", "rec_s", "p99_ms", "mb_per_cpu_s") if name in sample]
    shown.append(f"foreign={sample.get('foreign_cores', 0.0):.2f}")
    return f"{head} {' '.join(shown)} ({seconds:.1f}s)"


def run_case(case: Case, ctx: Context, pool: BrokerPool, order: Sequence[str], pairs: int) -> CaseRecord:
    """Set up on every broker, then ``pairs`` + 1 alternating rounds, then tear down."""
    record = CaseRecord(case)
    setups: dict[str, Setup] = {}
    for name in order:
        try:
            setups[name] = case.setup(ctx, pool.get(name)) if case.setup is not None else {}
            record.setup[name] = setups[name]
        except Exception as exc:
            record.setup[name] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"  {case.key} set-up on {name} FAILED: {exc}")
    for index in range(pairs + 1):
        for name in order:
            run = RunRecord(name, index, warmup=index == 0)
            started = time.monotonic()
            if name not in setups:
                run.error = "set-up failed"
            else:
                try:
                    run.sample = case.run(ctx, pool.get(name), setups[name], f"{name}-{index}")
                except Exception as exc:
                    run.error = f"{type(exc).__name__}: {exc}"
            record.runs.append(run)
            print(_progress(case, run, time.monotonic() - started), flush=True)
    if case.teardown is not None:
        for name, setup in setups.items():
            with contextlib.suppress(Exception):
                case.teardown(pool.get(name), setup)
    return record
