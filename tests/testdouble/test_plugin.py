"""The pytest plugin as an application's suite uses it: settings checked before any test runs,
and one broker per pytest-xdist worker."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from odradek.testing.pytest_plugin import KafkaSettings

SUITE = """
import os
import pytest

@pytest.mark.parametrize("n", range(6))
def test_records_its_broker(kafka_clean, kafka_topic, n):
    topic = kafka_topic()
    assert kafka_clean.topics() == [topic]  # the reset left nothing of other tests
    with open(os.environ["PORTS_FILE"], "a") as out:
        out.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {kafka_clean.port}\\n")
"""


def _pytest(directory: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(directory / "pytest.ini")]
    return subprocess.run(
        [*command, str(directory), *args], capture_output=True, text=True, timeout=300, env=env, check=False
    )


def _suite(tmp_path: Path, ini: str = "", body: str = SUITE) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n" + ini)
    (tmp_path / "test_suite.py").write_text(body)
    return tmp_path


def test_each_xdist_worker_has_a_broker_of_its_own(tmp_path: Path) -> None:
    import os

    ports_file = tmp_path / "ports.txt"
    result = _pytest(_suite(tmp_path), "-n", "2", env={**os.environ, "PORTS_FILE": str(ports_file)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 passed" in result.stdout
    by_worker: dict[str, set[str]] = {}
    for line in ports_file.read_text().splitlines():
        worker, port = line.split()
        by_worker.setdefault(worker, set()).add(port)
    assert sorted(by_worker) == ["gw0", "gw1"]
    assert all(len(ports) == 1 for ports in by_worker.values())
    assert by_worker["gw0"] != by_worker["gw1"]


def test_an_unknown_release_stops_the_run_before_any_test(tmp_path: Path) -> None:
    result = _pytest(_suite(tmp_path, "kafka_emulate = 9.9\n"))
    assert result.returncode == 4  # pytest's usage error
    assert "unknown Kafka release '9.9' to emulate; allowed: 2.8" in result.stderr
    assert "passed" not in result.stdout


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (KafkaSettings(storage="tape"), "unknown kafka storage 'tape'; allowed: memory, disk"),
        (KafkaSettings(process="fork"), "unknown kafka process 'fork'; allowed: thread, subprocess"),
        (KafkaSettings(partitions=0), "kafka partitions must be an integer >= 1, not 0"),
        (KafkaSettings(config={"num.partitions": "many"}), "invalid kafka broker config"),
    ],
)
def test_bad_settings_name_the_value_and_what_is_allowed(settings: KafkaSettings, message: str) -> None:
    with pytest.raises(pytest.UsageError, match=re.escape(message)):
        settings.check("kafka settings")


def test_a_bad_marker_is_refused_when_tests_are_collected(tmp_path: Path) -> None:
    body = "import pytest\n\n@pytest.mark.kafka(partitons=3)\ndef test_x(kafka_clean):\n    pass\n"
    result = _pytest(_suite(tmp_path, body=body))
    assert result.returncode == 4
    assert "unknown @pytest.mark.kafka setting(s) partitons; allowed: partitions" in result.stderr
