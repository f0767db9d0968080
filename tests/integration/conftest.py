"""Brokers for integration tests, started the way the README starts one: ``python -m odradek run``.

Every broker listens on 127.0.0.1 on a free port, keeps its data in a temporary directory and
is stopped (SIGTERM, then SIGKILL after a grace period) when the test or module ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

READY_PREFIX = "odradek ready on "


@dataclass
class BrokerProcess:
    """A broker subprocess; ``restart`` keeps the data directory."""

    data_dir: Path
    overrides: list[str] = field(default_factory=list)
    port: int = 0
    process: subprocess.Popen[str] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir.with_name(self.data_dir.name + ".log")

    def log_text(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    def start(self) -> None:
        command = [sys.executable, "-m", "odradek", "run", "--host", "127.0.0.1", "--port", str(self.port)]
        if not any(item.startswith("log.dirs=") for item in self.overrides):
            command += ["--data-dir", str(self.data_dir)]
        for item in self.overrides:
            command += ["--override", item]
        # The log goes to a file: a pipe nobody reads would fill up and stall the broker.
        with open(self.log_path, "a") as log_file:
            self.process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=log_file, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}
            )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith(READY_PREFIX):
            self.process.kill()
            self.process.wait(timeout=10)
            self.process.stdout.close()
            raise RuntimeError(f"broker did not start: {line!r}\n{self.log_text()[-4000:]}")
        self.port = int(line.strip().rsplit(":", 1)[1])

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process is None:
            return 0
        self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None
        return code

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path_factory.mktemp("broker-data"))
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def topic_name() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"
