"""The driver processes of one cell: the main driver, named secondaries of the same client, the helper.

A step without ``"driver"`` goes to the main driver process. A step with ``"driver": "<name>"`` goes
to a secondary process of the same client (same argv, same bootstrap), started on its first step, so
that a scenario can kill it (``kill_driver``: SIGKILL of its process group, no close, no LeaveGroup)
while the main driver keeps its members. ``setup``/``fallback`` steps a driver cannot do go to the
helper driver (harness/runner.py ``HELPER_DRIVER``), also started on first use. A secured scenario's
main and secondary processes connect through its listener with its credentials (``COMPAT_SECURITY``,
PROTOCOL.md); the helper stays on the super user's PLAINTEXT listener.

Invariant: after ``close`` no process started here is running: secondaries first (killed ones are
already reaped), then the helper, then the main driver, each even if closing another one failed.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

from harness import drivers, procs
from harness.drivers import DriverDied, DriverSession, DriverSpec

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class _Lazy:
    """A driver session started on first use."""

    def __init__(
        self, spec: DriverSpec | None, bootstrap: str, stderr_log: Path, what: str, env: dict[str, str] | None = None
    ) -> None:
        self.spec = spec
        self.bootstrap = bootstrap
        self.env = env
        self.stderr_log = stderr_log
        self.what = what
        self.session: DriverSession | None = None
        self.killed = False

    def request(self, step: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        if self.killed:
            raise DriverDied(f"{self.what} was killed by an earlier kill_driver step")
        if self.spec is None:
            raise DriverDied(f"{self.what} is not available")
        if self.session is None:
            self.session = DriverSession(self.spec, self.bootstrap, self.stderr_log, self.env)
        return self.session.request(step, timeout_s)

    def kill(self) -> None:
        """SIGKILL the process group (the driver and any child it started); no close step."""
        self.killed = True
        if self.session is not None:
            self.session.dead = True
            procs.sigkill(self.session.proc)

    def close(self) -> None:
        if self.session is not None:
            self.session.close()


class CellDrivers:
    """Every driver process of one cell; ``main`` is started at once (its errors reach the caller)."""

    def __init__(
        self,
        spec: DriverSpec,
        helper_spec: DriverSpec | None,
        bootstrap: str,
        folder: Path,
        scenario: str,
        connection: tuple[str, dict[str, str]] | None = None,
    ) -> None:
        """``connection``: the bootstrap and environment of a secured scenario's driver processes (main
        and secondaries); the helper always uses ``bootstrap`` (the super user's PLAINTEXT listener)."""
        self.spec = spec
        self.client_bootstrap, self.env = connection if connection is not None else (bootstrap, None)
        self.folder = folder
        self.scenario = scenario
        log = folder / f"{scenario}.stderr.log"
        self.main = drivers.DriverSession(spec, self.client_bootstrap, log, self.env)
        self.helper = _Lazy(helper_spec, bootstrap, folder / f"{scenario}.helper.stderr.log", "the helper driver")
        self.secondaries: dict[str, _Lazy] = {}

    def _secondary(self, name: str) -> _Lazy:
        if not _NAME.match(name):
            raise DriverDied(f"bad secondary driver name {name!r} (letters, digits, '-', '_')")
        if name not in self.secondaries:
            log = self.folder / f"{self.scenario}.{name}.stderr.log"
            what = f"secondary driver {name!r}"
            self.secondaries[name] = _Lazy(self.spec, self.client_bootstrap, log, what, self.env)
        return self.secondaries[name]

    def request(self, step: dict[str, Any], timeout_s: float, driver: str | None) -> dict[str, Any]:
        """Send ``step`` to the main driver, or to the named secondary (started if need be)."""
        if driver is None:
            return self.main.request(step, timeout_s)
        return self._secondary(driver).request(step, timeout_s)

    def help(self, step: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        return self.helper.request(step, timeout_s)

    def kill(self, driver: str) -> dict[str, Any]:
        """The ``kill_driver`` step: SIGKILL a secondary that was started; its result."""
        lazy = self.secondaries.get(driver)
        if lazy is None or lazy.session is None:
            return {"ok": False, "error": f"HARNESS:no secondary driver {driver!r} was started"}
        lazy.kill()
        return {"ok": True}

    def close(self) -> None:
        for lazy in [*self.secondaries.values(), self.helper]:
            with contextlib.suppress(Exception):
                lazy.close()
        self.main.close()
