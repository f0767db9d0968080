"""Output details: the progress display on a terminal, and the command run as a real process."""

from __future__ import annotations

import io
import subprocess
import sys

from rich.console import Console

from odradek.cli.common import progress
from tests.integration.conftest import BrokerProcess


def test_progress_shows_percent_count_and_rate_on_a_terminal_only() -> None:
    screen = io.StringIO()
    with progress(Console(file=screen, force_terminal=True, width=120), "records") as bar:
        task = bar.add_task("producing to t", total=100, count=0)
        bar.update(task, advance=100, count=12345)
    shown = screen.getvalue()
    assert "producing to t" in shown and "100%" in shown and "12,345 records" in shown and "/s" in shown
    piped = io.StringIO()
    with progress(Console(file=piped), "records") as bar:
        bar.add_task("producing to t", total=100, count=5)
    assert piped.getvalue() == ""


def test_python_m_odradek_exit_codes_and_uncoloured_output(broker: BrokerProcess) -> None:
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "odradek", *argv], capture_output=True, text=True, timeout=60, check=False
        )

    listed = run("topics", "list", "--bootstrap-server", broker.bootstrap)
    assert listed.returncode == 0 and listed.stdout.startswith("TOPIC") and "\x1b[" not in listed.stdout
    bad = run("topics", "list", "--bogus")
    assert bad.returncode == 2 and bad.stderr.splitlines()[-1] == "odradek: error: unrecognized arguments: --bogus"
    missing = run("topics", "describe", "--topic", "absent-topic", "--bootstrap-server", broker.bootstrap)
    assert missing.returncode == 1 and missing.stderr == (
        "odradek topics describe: error: topic 'absent-topic': UNKNOWN_TOPIC_OR_PARTITION\n"
    )
