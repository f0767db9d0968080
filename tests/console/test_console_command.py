"""``odradek run --console`` and the console command's own errors, as processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from tests.console.conftest import CONSOLE_READY, ConsoleProcess, Page
from tests.integration.conftest import READY_PREFIX


def _odradek(*argv: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "odradek", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        **kwargs,  # type: ignore[call-overload]
    )


def test_run_starts_a_console_beside_the_broker(tmp_path: Path) -> None:
    broker = _odradek("run", "--port", "0", "--data-dir", str(tmp_path / "data"), "--console", "127.0.0.1:0")
    assert broker.stdout is not None and broker.stderr is not None
    try:
        ready = broker.stdout.readline()
        assert ready.startswith(READY_PREFIX), ready + broker.stderr.read()
        port = ready.strip().rsplit(":", 1)[1]
        console = broker.stdout.readline()
        assert console.startswith(CONSOLE_READY + "http://127.0.0.1:")
        with urllib.request.urlopen(console.strip().removeprefix(CONSOLE_READY) + "/", timeout=30) as page:
            assert page.status == 200 and f'<td class="num">{port}</td>' in page.read().decode()
    finally:
        broker.send_signal(signal.SIGTERM)
        assert broker.wait(timeout=30) == 0
        broker.stdout.close()
        broker.stderr.close()


def test_without_the_option_no_console_is_started(tmp_path: Path) -> None:
    broker = _odradek("run", "--port", "0", "--data-dir", str(tmp_path / "data"))
    assert broker.stdout is not None and broker.stderr is not None
    try:
        assert broker.stdout.readline().startswith(READY_PREFIX)
    finally:
        broker.send_signal(signal.SIGTERM)
        assert broker.wait(timeout=30) == 0
    assert broker.stdout.read() == ""
    broker.stdout.close()
    broker.stderr.close()


def test_a_bad_console_address_is_a_usage_error(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "odradek", "run", "--data-dir", str(tmp_path), "--console", "8080"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "--listen must be HOST:PORT" in run.stderr


def test_a_port_in_use_is_one_line_and_exit_1() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run(
            [sys.executable, "-m", "odradek", "console", "--listen", f"127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        f"odradek console: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]


def test_an_unreachable_cluster_is_a_502_page_and_never_blocks_other_pages(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{probe.getsockname()[1]}"
    console = ConsoleProcess(dead, tmp_path / "console.log", timeout_ms=5000)
    try:
        slow: list[Page] = []
        waiting = threading.Thread(target=lambda: slow.append(console.get("/topics")))
        waiting.start()
        style = console.get("/static/console.css")  # answered while /topics waits for the cluster
        assert style.status == 200 and waiting.is_alive()
        waiting.join(timeout=60)
        [page] = slow
        assert page.status == 502 and f"cannot reach a broker at {dead}" in page.text
        assert "Traceback" not in page.text
    finally:
        assert console.stop() == 0
