"""Driver discovery (driver.json manifests) and one running driver process per scenario.

Manifest: ``compat-tests/drivers/<dir>/driver.json`` holds one object, or a list of objects:
    {"name": str, "build": [argv...] | null, "run": [argv..., "--bootstrap", "{bootstrap}"],
     "requires": ["java" | "go" | "node" | "kcat" | any program name]}
Placeholders in argv: {bootstrap}, {python} (the interpreter running the harness), {dir} (the manifest's
directory). Both build and run execute with the manifest's directory as working directory.

A ``DriverSession`` owns one process. Invariant: after ``request`` raises ``StepTimeout`` or
``DriverDied`` the process has been killed and the session accepts no further steps.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import procs

DRIVERS_DIR = Path(__file__).resolve().parents[1] / "drivers"
READY_TIMEOUT_S = 60.0
BUILD_TIMEOUT_S = 900.0


class StepTimeout(Exception):
    """The driver did not answer a step in time; it has been killed."""


class DriverDied(Exception):
    """The driver exited or wrote something that is not a protocol line; it has been killed."""


@dataclass(frozen=True, slots=True)
class DriverSpec:
    name: str
    directory: Path
    build: list[str] | None
    run: list[str]
    requires: list[str]

    def expand(self, argv: list[str], bootstrap: str = "") -> list[str]:
        values = {"bootstrap": bootstrap, "python": sys.executable, "dir": str(self.directory)}
        return [arg.format(**values) for arg in argv]

    def missing_tools(self) -> list[str]:
        return [tool for tool in self.requires if shutil.which(tool) is None]


def discover(root: Path = DRIVERS_DIR) -> list[DriverSpec]:
    """Every driver declared by a manifest under ``root``, in a stable order (by name)."""
    specs: list[DriverSpec] = []
    for manifest in sorted(root.glob("*/driver.json")):
        raw = json.loads(manifest.read_text())
        for entry in raw if isinstance(raw, list) else [raw]:
            specs.append(
                DriverSpec(
                    name=str(entry["name"]),
                    directory=manifest.parent,
                    build=list(entry["build"]) if entry.get("build") else None,
                    run=list(entry["run"]),
                    requires=list(entry.get("requires") or []),
                )
            )
    names = [spec.name for spec in specs]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        raise ValueError(f"driver names declared twice: {sorted(duplicates)}")
    return sorted(specs, key=lambda spec: spec.name)


def build(spec: DriverSpec, log_path: Path) -> str | None:
    """Run the driver's build command; None on success, else a one-line reason."""
    if spec.build is None:
        return None
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        try:
            result = subprocess.run(
                spec.expand(spec.build), cwd=spec.directory, stdout=log, stderr=subprocess.STDOUT,
                timeout=BUILD_TIMEOUT_S, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return f"build timed out after {BUILD_TIMEOUT_S:.0f}s"
        except OSError as exc:
            return f"build could not start: {exc}"
    return None if result.returncode == 0 else f"build exited with code {result.returncode}"


class DriverSession:
    """One driver process speaking the protocol; a reader thread turns stdout lines into a queue."""

    def __init__(
        self, spec: DriverSpec, bootstrap: str, stderr_log: Path, env: Mapping[str, str] | None = None
    ) -> None:
        """``env``: variables added to the harness's environment (``COMPAT_SECURITY``, PROTOCOL.md)."""
        self.spec = spec
        argv = spec.expand(spec.run, bootstrap)
        environment = {**os.environ, **env} if env else None
        self.proc = procs.spawn(argv, log_path=stderr_log, cwd=spec.directory, pipes=True, env=environment)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.dead = False
        threading.Thread(target=self._read, daemon=True).start()
        hello = self._next(READY_TIMEOUT_S, "ready line")
        if hello.get("ready") is not True:
            self._kill()
            raise DriverDied(f"first line was not a ready line: {hello}")
        self.client = str(hello.get("client", spec.name))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace"))
        self.lines.put(None)

    def _kill(self) -> None:
        self.dead = True
        procs.kill(self.proc)

    def _next(self, timeout_s: float, what: str) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._kill()
                raise StepTimeout(f"no {what} within {timeout_s:.0f}s") from None
            if line is None:
                self._kill()
                raise DriverDied(f"driver exited (code {self.proc.poll()}) while waiting for {what}")
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                self._kill()
                raise DriverDied(f"not a JSON line on stdout: {line[:200]!r}") from None
            if not isinstance(obj, dict):
                self._kill()
                raise DriverDied(f"not a JSON object on stdout: {line[:200]!r}")
            return obj

    def request(self, step: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one step and return its observation (the reply whose ``step`` echoes the id)."""
        if self.dead:
            raise DriverDied("driver already stopped")
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(step) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._kill()
            raise DriverDied(f"driver exited (code {self.proc.poll()}) before step {step['id']}") from None
        reply = self._next(timeout_s, f"reply to step {step['id']}")
        if reply.get("step") != step["id"]:
            self._kill()
            raise DriverDied(f"reply echoes step {reply.get('step')!r}, expected {step['id']!r}")
        return reply

    def close(self, timeout_s: float = 15.0) -> None:
        """Polite close step, then make sure the process is gone."""
        if not self.dead:
            with contextlib.suppress(StepTimeout, DriverDied):
                self.request({"id": "close", "op": "close"}, timeout_s)
        self.dead = True
        procs.stop(self.proc, grace_s=5.0)
