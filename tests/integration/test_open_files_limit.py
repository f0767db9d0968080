"""``odradek run`` lifts its soft limit on open files to the hard one, as the JVM does for Kafka:
a broker started under a small soft limit still serves more connections than that limit."""

from __future__ import annotations

import resource
import socket
import struct
import subprocess
import sys

SOFT_LIMIT = 64
CONNECTIONS = 150


def _api_versions(sock: socket.socket) -> int:
    """The error code of an ApiVersions v0 answer on ``sock``."""
    header = struct.pack(">hhih", 18, 0, 7, 4) + b"test"
    sock.sendall(struct.pack(">i", len(header)) + header)
    size = struct.unpack(">i", sock.recv(4, socket.MSG_WAITALL))[0]
    body = sock.recv(size, socket.MSG_WAITALL)
    return int(struct.unpack(">h", body[4:6])[0])


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
    connections: list[socket.socket] = []
    try:
        assert broker.stdout is not None
        port = int(broker.stdout.readline().strip().rsplit(":", 1)[1])
        for _ in range(CONNECTIONS):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            connections.append(sock)
            assert _api_versions(sock) == 0
        with open(f"/proc/{broker.pid}/limits") as limits:
            line = next(row for row in limits if row.startswith("Max open files"))
        assert line.split()[3] == line.split()[4] != str(SOFT_LIMIT)
    finally:
        for sock in connections:
            sock.close()
        broker.terminate()
        broker.wait(timeout=20)
        if broker.stdout is not None:
            broker.stdout.close()
