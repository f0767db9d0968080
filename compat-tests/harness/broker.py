"""What the runner knows about a running broker, and the registry of broker launchers.

A launcher is a context manager factory: ``launch(workdir, log_path)`` yields a ``RunningBroker`` and
stops the broker when the block exits, whatever happens inside it. Adding a peer broker (Tansu, kfake)
means writing one more launcher module and one line in ``LAUNCHERS``.

A launcher whose broker can be restarted in place (same port, same data: Kafka, odradek) runs it as a
``BrokerProcess`` and hands its ``restart`` to the ``RunningBroker``; the ``restart_broker`` step uses it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import procs
from harness.net import wait_ready


@dataclass(frozen=True, slots=True)
class RunningBroker:
    """A broker that answered the readiness probe."""

    name: str
    version: str
    bootstrap: str
    cluster_id: str
    start_seconds: float
    #: Where the broker keeps its partition directories (read by tools/run.py's DumpLogSegments checks).
    data_dir: Path | None = None
    #: Stops the broker (``kill``: SIGKILL, else SIGTERM) and starts it again on the same port with the
    #: same data, returning once it is ready; None when the broker cannot be restarted in place.
    restart: Callable[[bool], None] | None = None
    #: Every listener's address by listener name (a secured profile's; the bootstrap is PLAINTEXT's).
    listeners: dict[str, str] = field(default_factory=dict)


class BrokerProcess:
    """One broker process that can be stopped and started again with the same argv, port and data.

    Invariant: ``proc`` is the current process; ``stop`` (always called by the launcher) reaps it.
    """

    def __init__(
        self, argv: Sequence[str], log_path: Path, port: int, start_timeout_s: float, grace_s: float,
        cwd: Path | None = None,
    ) -> None:  # fmt: skip
        self.argv = list(argv)
        self.log_path = log_path
        self.port = port
        self.start_timeout_s = start_timeout_s
        self.grace_s = grace_s
        self.cwd = cwd
        self.proc: subprocess.Popen[Any] = procs.spawn(self.argv, log_path=log_path, cwd=cwd)

    def wait_ready(self) -> str:
        """Block until the broker answers ApiVersions + Metadata; returns its cluster id."""
        return wait_ready(self.port, self.proc, self.start_timeout_s)

    def restart(self, kill: bool) -> None:
        """Stop the broker (SIGKILL with ``kill``, else SIGTERM and its grace period), start it again."""
        if kill:
            procs.sigkill(self.proc)
        else:
            procs.stop(self.proc, grace_s=self.grace_s)
        with self.log_path.open("a") as log:
            log.write(f"\n==== compat harness: restarting the broker ({'SIGKILL' if kill else 'SIGTERM'}) ====\n")
        self.proc = procs.spawn(self.argv, log_path=self.log_path, cwd=self.cwd)
        self.wait_ready()

    def stop(self) -> None:
        procs.stop(self.proc, grace_s=self.grace_s)


Launcher = Callable[[Path, Path], AbstractContextManager[RunningBroker]]


def launchers() -> dict[str, Launcher]:
    """Broker name -> launcher. Imported lazily so a broken launcher only breaks its own column."""
    from harness import kafka, odradek, peer_kfake, peer_tansu

    return {"odradek": odradek.launch, "kafka": kafka.launch, "kfake": peer_kfake.launch, "tansu": peer_tansu.launch}


#: The broker every other broker is compared with.
REFERENCE = "kafka"

#: Brokers reported beside odradek for comparison only (harness/peers.py): their cells never fail a run.
PEERS = frozenset({"kfake", "tansu"})
