"""What the kernel knows about a process: CPU seconds, peak and current resident memory, machine load,
and for a JVM the CPU its JIT compiler threads used.

CPU time of a process is utime + stime of every thread plus cutime + cstime (children it has
reaped), plus the same for its live descendants, read from /proc/PID/stat; its kernel part is the
stime and cstime of the same processes. Peak RSS is VmHWM
from /proc/PID/status; writing ``5`` to /proc/PID/clear_refs resets it (Linux >= 4.0), which is
how each run gets its own peak while a broker stays up across runs.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str]:
    """Fields of /proc/PID/stat after the command name (which may hold spaces and parentheses)."""
    return _stat_fields_of(Path(f"/proc/{pid}/stat"))


def _stat_fields_of(stat: Path) -> list[str]:
    raw = stat.read_text()
    return raw[raw.rindex(")") + 2 :].split()


def _children(pid: int) -> list[int]:
    found: list[int] = []
    task_dir = Path(f"/proc/{pid}/task")
    with contextlib.suppress(OSError):
        for task in task_dir.iterdir():
            with contextlib.suppress(OSError):
                found.extend(int(child) for child in (task / "children").read_text().split())
    return found


# Fields of /proc/PID/stat after the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
_USER, _KERNEL = (11, 13), (12, 14)


@dataclass(frozen=True, slots=True)
class CpuTimes:
    """CPU seconds of a process tree so far: all of it, and the part spent in the kernel (system
    time: syscalls, page faults, the softirq work of loopback TCP that runs on the sender's core)."""

    total: float
    kernel: float

    @property
    def user(self) -> float:
        return self.total - self.kernel

    def __sub__(self, earlier: CpuTimes) -> CpuTimes:
        return CpuTimes(self.total - earlier.total, self.kernel - earlier.kernel)


def cpu_times(pid: int) -> CpuTimes:
    """`CpuTimes` of ``pid`` and all its descendants (live or reaped), from one walk of the tree."""
    user = kernel = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            fields = _stat_fields(current)
            own_user = sum(int(fields[column]) for column in _USER)
            own_kernel = sum(int(fields[column]) for column in _KERNEL)
        except (OSError, ValueError, IndexError):
            continue
        user, kernel = user + own_user, kernel + own_kernel
        pending.extend(_children(current))
    return CpuTimes((user + kernel) / CLOCK_TICKS, kernel / CLOCK_TICKS)


def cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and all its descendants (live or reaped)."""
    return cpu_times(pid).total


#: How HotSpot names its JIT compiler threads ("C2 CompilerThread0", cut to the kernel's 15 bytes).
_COMPILER_THREAD_PREFIXES = ("C1 CompilerThre", "C2 CompilerThre")


def compiler_seconds(pid: int) -> float | None:
    """CPU seconds the JVM ``pid`` has spent compiling (its C1 and C2 compiler threads, user and
    kernel time); None for a process without such threads (every broker but a JVM, or one gone)."""
    ticks, found = 0, False
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                if (task / "comm").read_text().rstrip("\n").startswith(_COMPILER_THREAD_PREFIXES):
                    fields = _stat_fields_of(task / "stat")
                    ticks += sum(int(fields[column]) for column in (_USER[0], _KERNEL[0]))
                    found = True
    return ticks / CLOCK_TICKS if found else None


def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def peak_rss_mib(pid: int) -> float:
    """VmHWM: the highest resident set size since start or since ``reset_peak_rss``."""
    return _status_kib(pid, "VmHWM") / 1024


def rss_mib(pid: int) -> float:
    """VmRSS: the resident set size now."""
    return _status_kib(pid, "VmRSS") / 1024


def reset_peak_rss(pid: int) -> bool:
    """Restart VmHWM from the current RSS; False where the kernel or permissions do not allow it."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class MachineTicks:
    """CPU time of the whole machine (all cores), in seconds: ``busy_s`` what this machine's own work
    used, ``steal_s`` what the hypervisor gave to other guests while this one had work to run, and
    ``total_s`` all of it, idle included."""

    busy_s: float
    total_s: float
    steal_s: float


def machine_ticks() -> MachineTicks:
    """The aggregate ``cpu`` line of /proc/stat: busy = everything but idle, iowait and steal."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal (guest is inside user)
    idle, steal = fields[3] + fields[4], fields[7]
    return MachineTicks((total - idle - steal) / CLOCK_TICKS, total / CLOCK_TICKS, steal / CLOCK_TICKS)


@dataclass(frozen=True, slots=True)
class MachineCores:
    """The machine between two ``machine_ticks`` readings, in cores on average: ``busy`` its own
    work (every process), ``steal`` what the hypervisor gave its other guests."""

    busy: float
    steal: float


def machine_cores(before: MachineTicks, after: MachineTicks, cores: int | None = None) -> MachineCores | None:
    """Average busy and steal cores between ``before`` and ``after`` on a machine of ``cores``
    (``os.cpu_count()`` by default); None when no time passed between them."""
    total = after.total_s - before.total_s
    if total <= 0:
        return None
    scale = (cores or os.cpu_count() or 1) / total
    return MachineCores((after.busy_s - before.busy_s) * scale, (after.steal_s - before.steal_s) * scale)
