"""Which brokers a case gets (benchmarks/bench/runner.py, ``BrokerPool.ready``): Kafka and odradek
started once and kept across cases, a peer started again on an empty store for every case, and a
broker that exited started again and counted. The brokers here are stand-in processes: what is under
test is the pool's bookkeeping, not a broker."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

import bench.runner as runner
from bench.brokers import Broker
from bench.pinning import Pinning


class _Starts:
    """Stand-in launchers: each start runs a sleeping process and is recorded; each stop too."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.stopped: list[str] = []

    def launcher(self, name: str) -> Any:
        @contextmanager
        def start(workdir: Path, pinning: Pinning) -> Iterator[Broker]:
            proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            self.started.append(name)
            try:
                yield Broker(name, "test", "127.0.0.1:1", proc, 0.0, 0.0)
            finally:
                proc.kill()
                proc.wait()
                self.stopped.append(name)

        return start


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> _Starts:
    fake = _Starts()
    monkeypatch.setattr(runner, "launcher", fake.launcher)
    return fake


def test_kafka_and_odradek_serve_every_case_and_a_peer_starts_again_for_each(starts: _Starts, tmp_path: Path) -> None:
    pool = runner.BrokerPool(tmp_path, Pinning(None, None))
    try:
        pool.ready(["kafka", "odradek", "kfake"])
        first = {name: pool.get(name).pid for name in ("kafka", "odradek", "kfake")}
        pool.ready(["kafka", "odradek", "kfake", "tansu"])
        assert pool.get("kafka").pid == first["kafka"]
        assert pool.get("odradek").pid == first["odradek"]
        assert pool.get("kfake").pid != first["kfake"]
        assert starts.started == ["kafka", "odradek", "kfake", "kfake", "tansu"]
        assert starts.stopped == ["kfake"]
        pool.ready(["kafka", "odradek"])
        assert sorted(starts.stopped) == ["kfake", "kfake", "tansu"]
        assert pool.restarts == {}
    finally:
        pool.close()
    assert sorted(starts.stopped) == ["kafka", "kfake", "kfake", "odradek", "tansu"]


def test_a_broker_that_exited_is_started_again_and_counted(starts: _Starts, tmp_path: Path) -> None:
    pool = runner.BrokerPool(tmp_path, Pinning(None, None))
    try:
        pool.ready(["kafka", "odradek"])
        gone = pool.get("odradek")
        gone.proc.kill()
        gone.proc.wait()
        pool.ready(["kafka", "odradek"])
        assert pool.get("odradek").pid != gone.pid
        assert pool.restarts == {"odradek": 1}
        assert starts.started == ["kafka", "odradek", "odradek"]
    finally:
        pool.close()
