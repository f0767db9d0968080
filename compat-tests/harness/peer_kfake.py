"""Launcher for the kfake peer: franz-go's in-process fake cluster behind the Go main in peers/kfake/.

The main is built with ``go build`` (modules from the Go module proxy) into ``peers/kfake/kfakepeer``
(git-ignored), rebuilt whenever a source file is newer than the binary. The process gets a stdin pipe
that stays open while the broker runs: kfakepeer exits when its stdin closes, so it never outlives
the harness. A missing Go toolchain or a failed build raises ``PeerUnavailable``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness import procs
from harness.broker import RunningBroker
from harness.net import HOST, free_port, wait_ready
from harness.peers import PeerUnavailable

PEER_DIR = Path(__file__).resolve().parents[1] / "peers" / "kfake"
BINARY = PEER_DIR / "kfakepeer"
SOURCES = ("main.go", "go.mod", "go.sum")
START_TIMEOUT_S = 60.0
BUILD_TIMEOUT_S = 900.0
_KFAKE_REQUIRE = re.compile(r"^\s*(?:require\s+)?github\.com/twmb/franz-go/pkg/kfake\s+(\S+)", re.MULTILINE)


def command(port: int) -> list[str]:
    """The one place that knows how kfakepeer is started."""
    return [str(BINARY), "-port", str(port)]


def build(log_path: Path) -> None:
    """Build kfakepeer unless the binary is newer than every source; raises ``PeerUnavailable``."""
    if shutil.which("go") is None:
        raise PeerUnavailable("kfake needs the Go toolchain (go is not on PATH)")
    newest_source = max((PEER_DIR / name).stat().st_mtime for name in SOURCES)
    if BINARY.exists() and BINARY.stat().st_mtime >= newest_source:
        return
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        try:
            result = subprocess.run(
                ["go", "build", "-o", BINARY.name, "."],
                cwd=PEER_DIR, stdout=log, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT_S, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise PeerUnavailable(f"go build of kfakepeer timed out after {BUILD_TIMEOUT_S:.0f}s") from exc
    if result.returncode != 0:
        raise PeerUnavailable(f"go build of kfakepeer failed with code {result.returncode} (log: {log_path})")


def version() -> str:
    """The kfake module version pinned in peers/kfake/go.mod."""
    found = _KFAKE_REQUIRE.search((PEER_DIR / "go.mod").read_text())
    return f"kfake {found.group(1)}" if found else "kfake (unknown version)"


@contextmanager
def launch(workdir: Path, log_path: Path) -> Iterator[RunningBroker]:
    """Build if needed, start one kfake broker on a free loopback port, yield it, always stop it."""
    build(log_path)
    port = free_port()
    started = time.monotonic()
    proc = procs.spawn(command(port), log_path=log_path, cwd=PEER_DIR, pipes=True)
    try:
        cluster_id = wait_ready(port, proc, START_TIMEOUT_S)
        yield RunningBroker(
            name="kfake",
            version=version(),
            bootstrap=f"{HOST}:{port}",
            cluster_id=cluster_id,
            start_seconds=time.monotonic() - started,
        )
    finally:
        procs.stop(proc)
