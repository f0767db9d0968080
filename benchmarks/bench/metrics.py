"""The figures every run reports, and how a client's output becomes them.

Units: MB = 10^6 bytes; CPU in seconds; RSS in MiB; latency in milliseconds.
Efficiency (MB moved per broker CPU-second) is the main figure: it stays meaningful when the load
generator, not the broker, limits throughput. ``broker_util`` is broker CPU over the tool's active
time (1.0 = the broker's core was saturated); ``client_util`` is client CPU over its wall time
(about 1.0 = the load generator's core was saturated). ``broker_kernel_share`` is the part of the
broker's CPU spent in the kernel: on this machine a produce run whose page-cache writes land on
memory the host had taken back shows as a jump of that share (benchmarks/profiles.md, "Produce
efficiency and the host's free-page reporting"). ``broker_compiler_share`` is the part a JVM broker's
JIT compiler threads used (no value for a broker that is not a JVM): what tells a Kafka still
warming up from a Kafka at its pace. ``broker_core_canary_ms`` and ``client_core_canary_ms`` are how
long a fixed piece of work took on each pinned core during the run (`bench.vcpu_speed`): what tells a
run on a slowed vCPU from a slower broker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from bench.measure import Measured
from bench.vcpu_speed import BROKER_CORE_FIGURE, CLIENT_CORE_FIGURE, CoreSpeeds

Sample = dict[str, float]


class RunFailed(RuntimeError):
    """The client failed or printed no result."""


@dataclass(frozen=True, slots=True)
class Metric:
    """One reported figure; ``headline`` figures appear in the chart and the compact table.
    ``timed``: the figure moves with how fast the cores ran (a rate, a latency, CPU), so a pair whose
    runs' vCPUs ran at different speeds cannot compare it (`bench.analysis`); sizes are not timed."""

    name: str
    label: str
    unit: str
    higher_is_better: bool
    headline: bool = True
    timed: bool = True


MB_S = Metric("mb_s", "throughput", "MB/s", True)
REC_S = Metric("rec_s", "records/s", "rec/s", True, headline=False)
EFFICIENCY = Metric("mb_per_cpu_s", "efficiency", "MB/broker CPU-s", True)
BROKER_CPU = Metric("broker_cpu_s", "broker CPU", "s", False, headline=False)
BROKER_KERNEL = Metric("broker_kernel_share", "broker CPU in the kernel", "fraction", False, headline=False)
BROKER_COMPILER = Metric("broker_compiler_share", "broker CPU in the JIT compiler", "fraction", False, headline=False)
PEAK_RSS = Metric("peak_rss_mib", "peak RSS", "MiB", False, headline=False, timed=False)
BROKER_UTIL = Metric("broker_util", "broker core busy", "fraction", False, headline=False)
CLIENT_UTIL = Metric("client_util", "client core busy", "fraction", False, headline=False)
P50 = Metric("p50_ms", "latency p50", "ms", False)
P99 = Metric("p99_ms", "latency p99", "ms", False)
P999 = Metric("p999_ms", "latency p99.9", "ms", False)
AVG = Metric("avg_ms", "latency avg", "ms", False, headline=False)
JOIN = Metric("join_ms", "group join", "ms", False, headline=False)
CREATE = Metric("create_s", "create the W6 topic", "s", False)
START = Metric("start_s", "exec to ready", "s", False)
START_CPU = Metric("start_cpu_s", "CPU to ready", "s", False, headline=False)
IDLE_RSS = Metric("idle_rss_mib", "idle RSS", "MiB", False, timed=False)
LOADED_RSS = Metric("loaded_rss_mib", "loaded RSS (peak over W1-W6)", "MiB", False, timed=False)

PRODUCE_MB_S = Metric("produce_mb_s", "produce throughput", "MB/s", True)
CONSUME_MB_S = Metric("consume_mb_s", "consume throughput", "MB/s", True)
COMMIT_S = Metric("commit_s", "commits/s", "commits/s", True, headline=False)
PRODUCE_P99 = Metric("produce_p99_ms", "produce ack p99", "ms", False)
E2E_P99 = Metric("e2e_p99_ms", "produce-to-consume p99", "ms", False)
COMMIT_P99 = Metric("commit_p99_ms", "commit p99", "ms", False)
DIRTY = Metric("dirty_mib", "dirty page cache at run start", "MiB", False, headline=False, timed=False)
BROKER_CANARY = Metric(BROKER_CORE_FIGURE, "fixed work on the broker core", "ms", False, headline=False, timed=False)
CLIENT_CANARY = Metric(CLIENT_CORE_FIGURE, "fixed work on the client core", "ms", False, headline=False, timed=False)
#: The figures of the machine rather than of a broker, reported by every case measured with a client.
MACHINE_SET = (DIRTY, BROKER_CANARY, CLIENT_CANARY)

THROUGHPUT_SET = (
    MB_S,
    REC_S,
    EFFICIENCY,
    BROKER_CPU,
    BROKER_KERNEL,
    BROKER_COMPILER,
    PEAK_RSS,
    BROKER_UTIL,
    CLIENT_UTIL,
    *MACHINE_SET,
)
LATENCY_SET = (P50, P99, P999, AVG, BROKER_CPU, BROKER_COMPILER, PEAK_RSS, BROKER_UTIL, CLIENT_UTIL, *MACHINE_SET)
MIXED_SET = (
    PRODUCE_MB_S,
    CONSUME_MB_S,
    COMMIT_S,
    PRODUCE_P99,
    E2E_P99,
    COMMIT_P99,
    EFFICIENCY,
    BROKER_CPU,
    BROKER_COMPILER,
    PEAK_RSS,
    CLIENT_UTIL,
    *MACHINE_SET,
)


def check(measured: Measured) -> None:
    """Raise RunFailed, with the end of the client's output, when the client failed."""
    if measured.returncode != 0:
        tail = (measured.stderr or measured.stdout).strip()[-800:]
        raise RunFailed(f"client exited with {measured.returncode}: {tail}")


def finish(measured: Measured, tool: Sample, bytes_moved: float, active_s: float) -> Sample:
    """Combine the tool's own figures with what /proc said about the broker and the client."""
    check(measured)
    sample = dict(tool)
    broker_cpu = measured.broker_cpu_s
    sample["broker_cpu_s"] = broker_cpu
    if broker_cpu > 0:
        sample["broker_kernel_share"] = measured.broker_kernel_s / broker_cpu
        if measured.broker_compiler_s is not None:
            sample["broker_compiler_share"] = measured.broker_compiler_s / broker_cpu
    if bytes_moved > 0 and broker_cpu > 0:
        sample["mb_per_cpu_s"] = bytes_moved / 1e6 / broker_cpu
    if active_s > 0:
        sample["broker_util"] = broker_cpu / active_s
    sample["client_util"] = measured.client_cpu_s / measured.wall_s if measured.wall_s > 0 else 0.0
    sample["peak_rss_mib"] = measured.peak_rss_mib
    sample["foreign_cores"] = measured.foreign_cores
    sample["steal_cores"] = measured.steal_cores
    sample["wall_s"] = measured.wall_s
    sample["dirty_mib"] = measured.dirty_mib
    return sample | canary_figures(measured.speeds)


def canary_figures(speeds: CoreSpeeds) -> Sample:
    """The canaries' figures of a run (`bench.vcpu_speed`), leaving out a core that had none."""
    found = {BROKER_CANARY.name: speeds.broker_core_ms, CLIENT_CANARY.name: speeds.client_core_ms}
    return {name: ms for name, ms in found.items() if ms is not None}


class Row(Protocol):
    """What the report needs to know about a case (a workload with one tool and one setting)."""

    @property
    def key(self) -> str: ...
    @property
    def workload(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def metrics(self) -> tuple[Metric, ...]: ...
    @property
    def settings(self) -> dict[str, Any]: ...


def by_name() -> dict[str, Metric]:
    """Every metric defined here, by name (to read results back from JSON)."""
    return {value.name: value for value in globals().values() if isinstance(value, Metric)}
