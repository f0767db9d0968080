"""One measured run: a client process on the client core while the broker's /proc counters are read.

Around the client process: flush dirty pages (``sync``) and pause so earlier runs' write-back does not
land in this one, record the dirty page cache left at the start (/proc/meminfo ``Dirty``), reset the
broker's peak RSS, then take deltas of the broker's CPU seconds, the client's
CPU seconds (rusage of reaped children) and the whole machine's busy time (its own work) and steal
time (the hypervisor running other guests while this one had work). Steal is reported in cores; what
is left of the busy time after the broker and the client is "foreign" CPU: other processes in this
machine (and the idle peer broker), also in cores, so contended runs can be flagged. A canary on each
pinned core (`bench.vcpu_speed`), started before the ``sync`` and stopped after the client, says how
fast the core ran meanwhile, which neither of those counts shows.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.brokers import Broker
from bench.method import dirty_mib
from bench.pinning import Pinning
from bench.procstat import compiler_seconds, cpu_times, machine_ticks, peak_rss_mib, reset_peak_rss
from bench.vcpu_speed import CanaryWatch, CoreSpeeds

CLIENT_TIMEOUT_S = 600.0


@dataclass(frozen=True, slots=True)
class Measured:
    """What one client process did and what it cost the broker."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    broker_cpu_s: float
    broker_kernel_s: float  # the part of broker_cpu_s spent in the kernel
    broker_compiler_s: float | None  # the part of broker_cpu_s a JVM's JIT compiler threads used; None: no JVM
    client_cpu_s: float
    foreign_cores: float
    steal_cores: float
    peak_rss_mib: float
    dirty_mib: float  # page cache waiting for write-back when the run started
    speeds: CoreSpeeds  # the canaries' median milliseconds per pinned core


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _start_profiler(py_spy: str, pid: int, out: Path) -> subprocess.Popen[Any]:
    out.parent.mkdir(parents=True, exist_ok=True)
    argv = [py_spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "250", "--output", str(out)]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop_profiler(proc: subprocess.Popen[Any]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_client(
    broker: Broker,
    argv: Sequence[str],
    pinning: Pinning,
    *,
    profile: tuple[str, Path] | None = None,
    timeout_s: float = CLIENT_TIMEOUT_S,
    pause_s: float = 0.0,
) -> Measured:
    """Run ``argv`` pinned to the client core and measure it against ``broker``.

    ``profile`` = (py-spy executable, output file): sample the broker while the client runs.
    ``pause_s``: wait this long after ``sync`` so the write-back it started settles.
    """
    with CanaryWatch(pinning) as canaries:
        os.sync()
        if pause_s > 0:
            time.sleep(pause_s)
        dirty = dirty_mib(Path("/proc/meminfo").read_text())
        reset_peak_rss(broker.pid)
        profiler = _start_profiler(profile[0], broker.pid, profile[1]) if profile else None
        children_before = _children_cpu()
        machine_before = machine_ticks()
        broker_before = cpu_times(broker.pid)
        compiler_before = compiler_seconds(broker.pid)
        started = time.monotonic()
        try:
            result = subprocess.run(
                [*pinning.client_prefix(), *argv], capture_output=True, text=True, timeout=timeout_s, check=False
            )
            returncode, stdout, stderr = result.returncode, result.stdout, result.stderr
        except subprocess.TimeoutExpired as exc:
            returncode, stdout, stderr = -1, _text(exc.stdout), _text(exc.stderr) + f"\ntimed out after {timeout_s}s"
        wall = time.monotonic() - started
        broker_spent = cpu_times(broker.pid) - broker_before
        compiler_after = compiler_seconds(broker.pid)
        compiler_spent = None if compiler_before is None or compiler_after is None else compiler_after - compiler_before
        broker_cpu = broker_spent.total
        machine_after = machine_ticks()
        client_cpu = _children_cpu() - children_before
        speeds = canaries.stop()
        peak = peak_rss_mib(broker.pid)
        if profiler is not None:
            _stop_profiler(profiler)
        steal = machine_after.steal_s - machine_before.steal_s
        foreign = (machine_after.busy_s - machine_before.busy_s) - broker_cpu - client_cpu
        return Measured(
            returncode=returncode,
            stdout=stdout,
            stderr=stderr,
            wall_s=wall,
            broker_cpu_s=broker_cpu,
            broker_kernel_s=broker_spent.kernel,
            broker_compiler_s=compiler_spent,
            client_cpu_s=client_cpu,
            foreign_cores=max(0.0, foreign) / wall if wall > 0 else 0.0,
            steal_cores=max(0.0, steal) / wall if wall > 0 else 0.0,
            peak_rss_mib=peak,
            dirty_mib=dirty,
            speeds=speeds,
        )


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode(errors="replace")
