"""``odradek run`` lifts its soft limit on open files to the hard one, as the JVM does for Kafka:
a broker started under a small soft limit still serves more connections than that limit."""

from __future__ import annotations

import resource
import subprocess
import sys

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.api_versions import ApiVersionsRequest
from tests.integration.rawclient import RawConnection

SOFT_LIMIT = 64
CONNECTIONS = 150


def _small_soft_limit() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT_LIMIT, hard))


def test_a_broker_started_under_a_small_soft_limit_serves_more_connections_than_it() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard == resource.RLIM_INFINITY or hard > CONNECTIONS + 100, "the hard limit leaves nothing to lift"
    command = [sys.executable, "-m", "odradek", "run", "--port", "0", "--storage", "memory"]
    broker = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=_small_soft_limit
    )
    connections: list[RawConnection] = []
    try:
        assert broker.stdout is not None
        port = int(broker.stdout.readline().strip().rsplit(":", 1)[1])
        for _ in range(CONNECTIONS):
            connections.append(RawConnection(f"127.0.0.1:{port}"))
            assert connections[-1].request(ApiKey.API_VERSIONS, 0, ApiVersionsRequest()).error_code == ErrorCode.NONE
        with open(f"/proc/{broker.pid}/limits") as limits:
            line = next(row for row in limits if row.startswith("Max open files"))
        assert line.split()[3] == line.split()[4] != str(SOFT_LIMIT)
    finally:
        for connection in connections:
            connection.close()
        broker.terminate()
        broker.wait(timeout=20)
        if broker.stdout is not None:
            broker.stdout.close()
