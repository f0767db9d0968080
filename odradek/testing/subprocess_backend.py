"""The embedded broker as an ``odradek run`` subprocess, driven through its control endpoint.

The child runs ``python -m odradek run --port-file F --control-port 0`` with the broker's
settings; once it writes its ports, every operation is one HTTP request to the endpoint
(`odradek.testing.control`), with the standard library's client so the test process imports
nothing more.  Stopping sends SIGTERM (SIGKILL after a grace period).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from odradek.emulation import load_release
from odradek.testing.faults import Fault
from odradek.testing.journal import JournalEntry

__all__ = ["SubprocessBackend"]

_START_TIMEOUT_S = 60.0
_STOP_GRACE_S = 20.0


class SubprocessBackend:
    def __init__(self, settings: dict[str, Any]) -> None:
        storage = settings.get("storage", "disk")
        if storage not in ("disk", "memory"):
            raise ValueError(f"unknown storage {storage!r}; allowed: disk, memory")
        if settings.get("emulate") is not None:
            load_release(settings["emulate"])
        self._settings = settings
        self._process: subprocess.Popen[bytes] | None = None
        self._workdir = tempfile.TemporaryDirectory(prefix="odradek-run-")
        self._port = 0
        self._control = ""

    def _command(self, port_file: Path) -> list[str]:
        s = self._settings
        command = [sys.executable, "-m", "odradek", "run", "--host", s.get("host", "127.0.0.1")]
        command += ["--port", str(s.get("port", 0)), "--port-file", str(port_file), "--control-port", "0"]
        command += ["--storage", s.get("storage", "disk")]
        data_dir = s.get("data_dir") or os.path.join(self._workdir.name, "data")
        if s.get("storage", "disk") == "disk":
            command += ["--data-dir", data_dir]
        if s.get("emulate") is not None:
            command += ["--emulate-kafka", s["emulate"]]
        for key, value in (s.get("config") or {}).items():
            command += ["-o", f"{key}={value}"]
        return command

    def start(self) -> None:
        port_file = Path(self._workdir.name) / "ports"
        log = open(Path(self._workdir.name) / "broker.log", "wb")  # noqa: SIM115 (the child keeps it)
        with log:
            self._process = subprocess.Popen(
                self._command(port_file), stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL
            )
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not port_file.exists():
            if self._process.poll() is not None or time.monotonic() > deadline:
                output = (Path(self._workdir.name) / "broker.log").read_text(errors="replace")[-4000:]
                self.stop()
                raise RuntimeError(f"odradek run did not start:\n{output}")
            time.sleep(0.002)
        ports = dict(line.split("=", 1) for line in port_file.read_text().split())
        self._port = int(ports["port"])
        self._control = f"http://127.0.0.1:{ports['control.port']}"
        if self._settings.get("journal"):
            self.journal_start(None)
        if self._settings.get("manual_time"):
            self.freeze()

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(_STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._workdir.cleanup()

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self._control + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                text = answer.read().decode()
        except urllib.error.HTTPError as exc:
            reason = json.loads(exc.read().decode() or "{}").get("error", exc.reason)
            raise ValueError(reason) from None
        return json.loads(text) if text else None

    def bootstrap_servers(self) -> str:
        return f"{self._settings.get('host', '127.0.0.1')}:{self._port}"

    def control_url(self) -> str | None:
        return self._control

    def create_topic(self, name: str, partitions: int, configs: dict[str, str]) -> None:
        self._request("POST", "/topics", {"name": name, "partitions": partitions, "configs": configs})

    def delete_topic(self, name: str) -> None:
        self._request("DELETE", f"/topics/{urllib.parse.quote(name, safe='')}")

    def topics(self) -> list[str]:
        return list(self._request("GET", "/topics")["topics"])

    def reset(self) -> None:
        self._request("POST", "/reset", {})

    def snapshot(self) -> object:
        return int(self._request("POST", "/snapshots", {})["id"])

    def restore(self, snapshot: object) -> None:
        if not isinstance(snapshot, int):
            raise ValueError("restore takes what snapshot() returned")
        self._request("POST", f"/snapshots/{snapshot}/restore", {})

    def clock_frozen(self) -> bool:
        return bool(self._request("GET", "/clock")["frozen"])

    def freeze(self) -> None:
        self._request("POST", "/clock/freeze", {})

    def resume(self) -> None:
        self._request("POST", "/clock/resume", {})

    def advance_ms(self, ms: int) -> None:
        self._request("POST", "/clock/advance", {"ms": ms})

    def time_ms(self) -> int:
        return int(self._request("GET", "/clock")["time_ms"])

    def inject(self, fault: Fault) -> Fault:
        data = {k: v for k, v in fault.to_json().items() if k != "id"}
        return Fault.from_json(self._request("POST", "/faults", data))

    def faults(self) -> list[dict[str, Any]]:
        return list(self._request("GET", "/faults")["faults"])

    def remove_fault(self, fault_id: int) -> bool:
        try:
            self._request("DELETE", f"/faults/{fault_id}")
        except ValueError:
            return False
        return True

    def clear_faults(self) -> None:
        self._request("DELETE", "/faults")

    def journal_start(self, capacity: int | None) -> None:
        self._request("POST", "/journal/start", {} if capacity is None else {"capacity": capacity})

    def journal_stop(self) -> None:
        self._request("POST", "/journal/stop", {})

    def journal_clear(self) -> None:
        self._request("DELETE", "/journal")

    def journal_entries(self) -> list[JournalEntry]:
        return [JournalEntry.from_json(entry) for entry in self._request("GET", "/journal")["entries"]]
