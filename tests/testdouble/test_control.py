"""The control endpoint of ``odradek run``: the port file, JSON in and out, 400 for bad input
with nothing changed, loopback only."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import confluent_kafka
import pytest

from odradek.testing.control import ControlServer


class Control:
    def __init__(self, url: str) -> None:
        self.url = url

    def call(self, method: str, path: str, body: bytes | dict[str, Any] | None = None) -> tuple[int, Any]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Control]]:
    port_file = tmp_path / "ports"
    command = [sys.executable, "-m", "odradek", "run", "--port", "0", "--storage", "memory"]
    command += ["--port-file", str(port_file), "--control-port", "0", "-o", "group.initial.rebalance.delay.ms=0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as process:
        try:
            assert process.stdout is not None
            ready = process.stdout.readline()
            control_line = process.stdout.readline()
            assert ready.startswith("odradek ready on 127.0.0.1:"), ready
            ports = dict(line.split("=", 1) for line in port_file.read_text().split())
            assert ready.strip().endswith(f":{ports['port']}")
            assert control_line.strip() == f"odradek control on http://127.0.0.1:{ports['control.port']}"
            yield f"127.0.0.1:{ports['port']}", Control(f"http://127.0.0.1:{ports['control.port']}")
        finally:
            process.terminate()
            code = process.wait(30)
    assert code == 0


def test_topics_faults_clock_and_journal_over_http(served: tuple[str, Control]) -> None:
    bootstrap, control = served
    assert control.call("POST", "/topics", {"name": "http", "partitions": 2})[0] == 201
    assert control.call("GET", "/topics") == (200, {"topics": ["http"]})
    assert control.call("POST", "/journal/start", {})[0] == 200
    status, fault = control.call("POST", "/faults", {"api": "Produce", "error": "NOT_LEADER_OR_FOLLOWER", "count": 1})
    assert status == 201 and fault["id"] == 1 and fault["error"] == "NOT_LEADER_OR_FOLLOWER"
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    producer.produce("http", b"v", partition=0)
    assert producer.flush(15) == 0
    status, journal = control.call("GET", "/journal?api=Produce&topic=http")
    assert status == 200 and [e["errors"] for e in journal["entries"]] == [["NOT_LEADER_OR_FOLLOWER"], []]
    assert control.call("POST", "/clock/advance", {"seconds": 1})[0] == 400  # not frozen
    assert control.call("POST", "/clock/freeze")[1]["frozen"] is True
    before = control.call("GET", "/clock")[1]["time_ms"]
    assert control.call("POST", "/clock/advance", {"seconds": 90})[1]["time_ms"] == before + 90_000
    status, snapshot = control.call("POST", "/snapshots")
    assert control.call("POST", "/reset")[0] == 200
    assert control.call("GET", "/topics")[1] == {"topics": []}
    assert control.call("GET", "/clock")[1]["frozen"] is False
    assert control.call("POST", f"/snapshots/{snapshot['id']}/restore")[0] == 200
    assert control.call("GET", "/topics")[1] == {"topics": ["http"]}
    del producer


def test_bad_input_is_a_400_with_the_reason_and_changes_nothing(served: tuple[str, Control]) -> None:
    _, control = served
    status, answer = control.call("POST", "/faults", b"{not json")
    assert status == 400 and "not JSON" in answer["error"]
    status, answer = control.call("POST", "/faults", {"api": "Produse", "error": "NOT_LEADER_OR_FOLLOWER"})
    assert status == 400 and "unknown API 'Produse'" in answer["error"] and "Produce" in answer["error"]
    status, answer = control.call("POST", "/faults", {"api": "Produce", "error": 6, "colour": "red"})
    assert status == 400 and "colour" in answer["error"]
    status, answer = control.call("POST", "/topics", {"name": "bad", "partitions": 0})
    assert status == 400 and "bad" in answer["error"]
    status, answer = control.call("GET", "/journal?colour=red")
    assert status == 400 and "colour" in answer["error"]
    assert control.call("GET", "/faults") == (200, {"faults": []})
    assert control.call("GET", "/topics") == (200, {"topics": []})


def test_the_endpoint_refuses_anything_but_loopback() -> None:
    with pytest.raises(ValueError, match=r"127\.0\.0\.1 only"):
        ControlServer(None, host="0.0.0.0")  # type: ignore[arg-type]


def test_run_refuses_an_unknown_release_naming_the_captured_ones(tmp_path: Path) -> None:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "odradek", "run", "--port", "0", "--data-dir", str(tmp_path), "--emulate-kafka", "2.1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, time.monotonic() - started
    assert "unknown Kafka release '2.1'" in result.stderr and "3.6" in result.stderr


def test_run_emulates_a_release_in_memory_and_writes_its_port_file(tmp_path: Path) -> None:
    from odradek.emulation import load_release
    from odradek.wire.api import ApiKey
    from odradek.wire.messages.api_versions import ApiVersionsRequest
    from tests.integration.rawclient import RawConnection

    port_file = tmp_path / "ports"
    command = [sys.executable, "-m", "odradek", "run", "--port", "0", "--storage", "memory"]
    command += ["--emulate-kafka", "3.0", "--port-file", str(port_file)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as process:
        try:
            assert process.stdout is not None
            ready = process.stdout.readline()
            ports = dict(line.split("=", 1) for line in port_file.read_text().split())
            assert set(ports) == {"port"} and ready.strip().endswith(f":{ports['port']}")
            conn = RawConnection(f"127.0.0.1:{ports['port']}")
            try:
                answer = conn.request(ApiKey.API_VERSIONS, 2, ApiVersionsRequest())
            finally:
                conn.close()
        finally:
            process.terminate()
            code = process.wait(30)
    assert code == 0
    assert {a.api_key: (a.min_version, a.max_version) for a in answer.api_keys} == dict(load_release("3.0").apis)
    assert not any(tmp_path.glob("**/*.log")), "memory storage leaves no segment files"
