"""The Java client against the test double, driven from Java through the control endpoint:
an injected NOT_LEADER_OR_FOLLOWER is retried by the real KafkaProducer.

Needs java, javac and Kafka's client jars (compat-tests' launcher caches them in
~/.cache/odradek/kafka-<version>/libs); without them the test is skipped, with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from odradek import Broker

SOURCE = Path(__file__).parent / "java" / "ControlEndpointTest.java"


def _client_jars() -> Path | None:
    cache = Path(os.environ.get("ODRADEK_CACHE", Path.home() / ".cache" / "odradek"))
    for libs in sorted(cache.glob("kafka-4.*/libs"), reverse=True):
        if any(libs.glob("kafka-clients-*.jar")):
            return libs
    return None


def _skip_loudly(reason: str) -> None:
    warnings.warn(f"SKIPPED the Java client test: {reason}", stacklevel=2)
    pytest.skip(reason)


@pytest.mark.filterwarnings("default:SKIPPED the Java client test")
def test_the_java_producer_retries_a_fault_injected_over_http(tmp_path: Path) -> None:
    if shutil.which("javac") is None or shutil.which("java") is None:
        _skip_loudly("java/javac are not installed")
    libs = _client_jars()
    if libs is None:
        _skip_loudly("no Kafka client jars in the cache (run make compat or make test-orders-kafka once)")
    classpath = f"{libs}/*"
    compiled = subprocess.run(
        ["javac", "-d", str(tmp_path), "-cp", classpath, str(SOURCE)], capture_output=True, text=True, timeout=300
    )
    assert compiled.returncode == 0, compiled.stderr
    with Broker(storage="memory", control_port=0, journal=True) as broker:
        assert broker.control_url is not None
        arguments = [broker.bootstrap_servers, broker.control_url, "java-orders"]
        run = subprocess.run(
            ["java", "-cp", f"{tmp_path}:{classpath}", "ControlEndpointTest", *arguments],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0 and "OK offset=0" in run.stdout, run.stdout + run.stderr[-3000:]
        produces = broker.journal.requests(api="Produce", topic="java-orders")
        assert [e.errors for e in produces] == [["NOT_LEADER_OR_FOLLOWER"], ["NOT_LEADER_OR_FOLLOWER"], []]
        assert {e.client_id for e in produces} == {"java-control-test"}
        retried_at = produces[1].received_ms
        metadata = broker.journal.requests(api="Metadata", client_id="java-control-test")
        assert any(produces[0].received_ms <= m.received_ms <= retried_at for m in metadata)
