"""The broker's kernel share (benchmarks/bench/procstat.py, metrics.py): system time read from
/proc for a process tree, and the share each run reports beside its CPU seconds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.metrics import finish
from bench.procstat import cpu_times

from tests.unit.bench_harness.runs import a_run

# Reads 16 GiB of /dev/zero into one buffer: nearly all of it is the kernel clearing memory.
_KERNEL_BOUND_CHILD = (
    "import os\n"
    "buf = bytearray(1 << 20)\n"
    "fd = os.open('/dev/zero', os.O_RDONLY)\n"
    "for _ in range(16384):\n"
    "    os.readv(fd, [buf])\n"
)


def test_a_run_reports_the_kernel_part_of_the_broker_cpu() -> None:
    sample = finish(a_run(cpu=2.0, kernel=1.5), {"mb_s": 100.0}, 1e9, 10.0)
    assert sample["broker_kernel_share"] == 0.75
    assert sample["mb_per_cpu_s"] == 500.0


def test_no_share_when_the_broker_used_no_cpu() -> None:
    sample = finish(a_run(cpu=0.0, kernel=0.0), {"mb_s": 100.0}, 1e9, 10.0)
    assert "broker_kernel_share" not in sample


def test_kernel_time_counts_a_reaped_childs_system_time() -> None:
    before = cpu_times(os.getpid())
    subprocess.run([sys.executable, "-c", _KERNEL_BOUND_CHILD], check=True)
    spent = cpu_times(os.getpid()) - before
    cpu_spent, kernel_spent = spent.total, spent.kernel
    assert kernel_spent >= 0.1
    assert kernel_spent <= cpu_spent
    assert kernel_spent >= cpu_spent / 2
