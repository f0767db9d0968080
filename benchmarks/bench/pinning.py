"""Which core runs the broker and which runs the load generator.

With at least two usable cores and ``taskset`` installed, the broker gets the first allowed core
and every client process the second; otherwise nothing is pinned and the results say so.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pinning:
    """Core numbers, or None when processes float."""

    broker_core: int | None
    client_core: int | None

    def broker_prefix(self) -> list[str]:
        return _prefix(self.broker_core)

    def client_prefix(self) -> list[str]:
        return _prefix(self.client_core)

    def describe(self) -> str:
        if self.broker_core is None:
            return "not pinned"
        return f"broker on core {self.broker_core}, load generator on core {self.client_core}"


def _prefix(core: int | None) -> list[str]:
    return [] if core is None else ["taskset", "-c", str(core)]


def plan(enabled: bool = True) -> Pinning:
    cores = sorted(os.sched_getaffinity(0))
    if not enabled or len(cores) < 2 or shutil.which("taskset") is None:
        return Pinning(None, None)
    return Pinning(cores[0], cores[1])
