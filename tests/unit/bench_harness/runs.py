"""A `Measured` run for the harness's unit tests: a 10-s run with a client that used 9 CPU-seconds,
the broker's CPU (and its kernel and JIT-compiler parts) and the machine's contention as given."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.measure import Measured
from bench.vcpu_speed import CoreSpeeds


def a_run(
    cpu: float,
    kernel: float = 0.0,
    compiler: float | None = None,
    foreign: float = 0.0,
    steal: float = 0.0,
) -> Measured:
    return Measured(
        returncode=0,
        stdout="",
        stderr="",
        wall_s=10.0,
        broker_cpu_s=cpu,
        broker_kernel_s=kernel,
        broker_compiler_s=compiler,
        client_cpu_s=9.0,
        foreign_cores=foreign,
        steal_cores=steal,
        peak_rss_mib=30.0,
        dirty_mib=0.0,
        speeds=CoreSpeeds(None, None),
    )
