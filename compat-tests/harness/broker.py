"""What the runner knows about a running broker, and the registry of broker launchers.

A launcher is a context manager factory: ``launch(workdir, log_path)`` yields a ``RunningBroker`` and
stops the broker when the block exits, whatever happens inside it. Adding a peer broker (Tansu, kfake)
means writing one more launcher module and one line in ``LAUNCHERS``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path


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


Launcher = Callable[[Path, Path], AbstractContextManager[RunningBroker]]


def launchers() -> dict[str, Launcher]:
    """Broker name -> launcher. Imported lazily so a broken launcher only breaks its own column."""
    from harness import kafka, odradek, peer_kfake, peer_tansu

    return {"odradek": odradek.launch, "kafka": kafka.launch, "kfake": peer_kfake.launch, "tansu": peer_tansu.launch}


#: The broker every other broker is compared with.
REFERENCE = "kafka"

#: Brokers reported beside odradek for comparison only (harness/peers.py): their cells never fail a run.
PEERS = frozenset({"kfake", "tansu"})
