"""The JIT compiler's share of a JVM broker's CPU (benchmarks/bench/procstat.py, metrics.py): read
from the JVM's C1 and C2 compiler threads in /proc, zero for a process without them, and reported
by every run beside the broker's CPU seconds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.metrics import finish
from bench.procstat import compiler_seconds

from tests.unit.bench_harness.runs import a_run

# A program the JVM runs from source: compiling it and running its loop keep the JIT busy at start.
_BUSY_JAVA = """
public class Busy {
    public static void main(String[] args) {
        long sum = 0;
        while (true) {
            for (int i = 0; i < 1_000_000; i++) {
                sum += Integer.toString(i).hashCode();
            }
            if (sum == 42) System.out.println(sum);
        }
    }
}
"""


def test_a_process_without_compiler_threads_has_no_compiler_time() -> None:
    assert compiler_seconds(os.getpid()) is None


def test_a_process_that_is_gone_has_no_compiler_time() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert compiler_seconds(child.pid) is None


@pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed")
def test_a_jvm_starting_up_spends_cpu_in_its_compiler_threads(tmp_path: Path) -> None:
    source = tmp_path / "Busy.java"
    source.write_text(_BUSY_JAVA)
    jvm = subprocess.Popen(["java", str(source)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60.0
        while not compiler_seconds(jvm.pid) and time.monotonic() < deadline and jvm.poll() is None:
            time.sleep(0.1)
        spent = compiler_seconds(jvm.pid)
        assert spent is not None and spent > 0.0
    finally:
        jvm.kill()
        jvm.wait()


def test_a_run_reports_the_compilers_part_of_the_broker_cpu() -> None:
    measured = a_run(cpu=2.0, kernel=0.5, compiler=0.1)
    assert finish(measured, {"mb_s": 100.0}, 1e9, 10.0)["broker_compiler_share"] == pytest.approx(0.05)


def test_a_broker_that_is_not_a_jvm_has_no_compiler_share() -> None:
    assert "broker_compiler_share" not in finish(a_run(cpu=2.0), {"mb_s": 100.0}, 1e9, 10.0)
