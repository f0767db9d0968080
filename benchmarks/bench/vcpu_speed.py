"""How fast each pinned core ran during a run: a canary that repeats one fixed piece of work.

On a virtual machine the hypervisor can give a vCPU less than a whole host core without any steal
time being counted (a sibling hardware thread busy with another guest, a lower clock): on the
benchmark machine a fixed loop of additions took anywhere from 1.6 to 3.4 ms of its own CPU time
within a few seconds while both cores were otherwise idle, and a broker's figures move with it.
``foreign_cores`` and ``steal_cores`` cannot see this; the canary can.

One canary process per pinned core (`Pinning`) runs for the length of a run: every
`CANARY_INTERVAL_S` it adds up `CANARY_ITERATIONS` integers and prints the CPU time that took
(its thread's CPU clock, so time the scheduler gave the broker instead is not counted). A run's
figure is the median of those samples in milliseconds: higher means the core ran slower. The
canary costs about 0.3% of each core (0.2-0.4 ms of work every 100 ms); it runs beside every
broker alike.

Invariant: `CanaryWatch.stop` always ends its processes (leaving its ``with`` block stops it); a
canary that printed nothing gives no figure (None), never a made-up one.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from bench.pinning import Pinning

CANARY_ITERATIONS = 2000
CANARY_INTERVAL_S = 0.1
#: The names of a run's canary figures in its sample (`bench.metrics` reports them).
BROKER_CORE_FIGURE = "broker_core_canary_ms"
CLIENT_CORE_FIGURE = "client_core_canary_ms"

#: The canary: argv[1] iterations of the loop, then a sleep of argv[2] seconds, forever; one line per
#: loop with the milliseconds of thread CPU time it took.
CANARY_SOURCE = """\
import sys, time
iterations, interval = int(sys.argv[1]), float(sys.argv[2])
while True:
    started = time.thread_time_ns()
    total = 0
    for k in range(iterations):
        total += k
    print((time.thread_time_ns() - started) / 1e6, flush=True)
    time.sleep(interval)
"""


@dataclass(frozen=True, slots=True)
class CoreSpeeds:
    """Median canary milliseconds during one run, per pinned core (None: no sample)."""

    broker_core_ms: float | None
    client_core_ms: float | None


def median_ms(output: str) -> float | None:
    """The median of a canary's printed samples; None when it printed none.  Only whole lines count:
    a last line without its newline was cut by the stop ("0.3" of "0.345")."""
    whole = output.split("\n")[:-1]
    samples = [float(line) for line in whole if line]
    return statistics.median(samples) if samples else None


class CanaryWatch:
    """The canaries of one run: `start` before the client starts, `stop` once it has ended; as a
    context manager it starts them on entry and stops whatever still runs on exit (also when
    starting failed halfway), so a run that raises leaves no canary behind."""

    def __init__(self, pinning: Pinning) -> None:
        self._pinning = pinning
        self._procs: dict[str, subprocess.Popen[str]] = {}

    def start(self) -> None:
        prefixes = {"broker": self._pinning.broker_prefix(), "client": self._pinning.client_prefix()}
        for core, prefix in prefixes.items():
            if not prefix:  # not pinned: there is no one core to describe
                continue
            argv = [*prefix, sys.executable, "-c", CANARY_SOURCE, str(CANARY_ITERATIONS), str(CANARY_INTERVAL_S)]
            self._procs[core] = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def __enter__(self) -> CanaryWatch:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> CoreSpeeds:
        found: dict[str, float | None] = {}
        for core, proc in self._procs.items():
            found[core] = median_ms(_ended(proc))
        self._procs.clear()
        return CoreSpeeds(found.get("broker"), found.get("client"))


def measured_broker_core_ms(document: dict[str, Any]) -> list[float]:
    """The broker core's canary figure of every measured (not warm-up) run in a results ``document``;
    empty for runs from before the canary."""
    return [
        run["sample"][BROKER_CORE_FIGURE]
        for case in document.get("cases", [])
        for run in case.get("runs", [])
        if not run.get("warmup") and BROKER_CORE_FIGURE in (run.get("sample") or {})
    ]


def _ended(proc: subprocess.Popen[Any]) -> str:
    proc.terminate()
    try:
        out, _ = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return str(out or "")
