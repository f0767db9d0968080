"""Loopback ports and the broker readiness probe.

A broker is ready when a real client can connect, negotiate ApiVersions and read cluster metadata:
confluent-kafka's AdminClient.list_topics does exactly that (librdkafka sends ApiVersions first on
every connection). A plain TCP connect is tried first so the probe does not spam connection errors.
"""

from __future__ import annotations

import socket
import subprocess
import time
from typing import Any

from confluent_kafka.admin import AdminClient

HOST = "127.0.0.1"


class BrokerStartError(RuntimeError):
    """The broker process exited or did not become ready in time."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def _tcp_open(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_ready(port: int, proc: subprocess.Popen[Any], timeout_s: float) -> str:
    """Block until the broker on ``port`` answers ApiVersions + Metadata; returns its cluster id."""
    deadline = time.monotonic() + timeout_s
    while not _tcp_open(port):
        if proc.poll() is not None:
            raise BrokerStartError(f"broker exited with code {proc.returncode} before listening")
        if time.monotonic() > deadline:
            raise BrokerStartError(f"nothing listening on {HOST}:{port} after {timeout_s:.0f}s")
        time.sleep(0.1)
    admin = AdminClient({"bootstrap.servers": f"{HOST}:{port}", "log_level": 0})
    last_error = ""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BrokerStartError(f"broker exited with code {proc.returncode} during start-up")
        try:
            metadata = admin.list_topics(timeout=2.0)
        except Exception as exc:
            last_error = str(exc)
            time.sleep(0.2)
            continue
        if metadata.brokers:
            return str(metadata.cluster_id)
    raise BrokerStartError(f"broker not ready after {timeout_s:.0f}s: {last_error}")
