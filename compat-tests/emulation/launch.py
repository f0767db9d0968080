"""Start one Apache Kafka release on loopback in a chosen metadata mode, and always stop it.

Two modes, the two ways a release could hold its cluster metadata:

- ``kraft``: one node that is both broker and controller (combined mode, production-ready from
  3.3); the metadata log is formatted with StorageTool before the broker starts.
- ``zookeeper``: a ZooKeeper server (``ZooKeeperServerMain``, which Kafka 2.x/3.x lists among
  its own dependencies, so it runs from the same class path) and a broker registered in it.

Jars come from the compat harness's Maven resolution (``harness.kafka``): the runtime class path
of ``kafka_2.13:<version>`` in ``$ODRADEK_CACHE/kafka-<version>/libs`` (default
``~/.cache/odradek``), never inside the repository. Every process is started through
``harness.procs``, whose exit and signal hooks stop anything a crash leaves behind; the context
manager stops the broker first and ZooKeeper last.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import procs
from harness.kafka import _LOG4J2, _cluster_id, _complete, _download, _libs
from harness.net import HOST, BrokerStartError, free_port, wait_ready

from odradek.emulation import Mode

START_TIMEOUT_S = 180.0
BROKER_JVM = ("-Xmx512m", "-XX:+UseG1GC", "-Djava.awt.headless=true")
ZOOKEEPER_JVM = ("-Xmx128m", "-Djava.awt.headless=true")


@dataclass(frozen=True, slots=True)
class Running:
    """A release that answered the readiness probe (ApiVersions + Metadata from a real client)."""

    version: str
    mode: Mode
    bootstrap: str
    start_seconds: float


def resolve(version: str) -> Path:
    """The class path directory of ``version``, downloading it with mvn on first use."""
    if not _complete(version) and not _download(version):
        raise BrokerStartError(f"mvn could not resolve org.apache.kafka:kafka_2.13:{version}")
    return _libs(version)


def _java(libs: Path, jvm: tuple[str, ...], *args: str) -> list[str]:
    return ["java", *jvm, "-cp", f"{libs}/*", *args]


def _properties(props: dict[str, str]) -> str:
    return "".join(f"{key}={value}\n" for key, value in props.items())


def _common(port: int, log_dir: Path) -> dict[str, str]:
    return {
        "log.dirs": str(log_dir),
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        "advertised.listeners": f"PLAINTEXT://{HOST}:{port}",
    }


def kraft_properties(port: int, controller_port: int, log_dir: Path) -> str:
    """A single combined KRaft node; every other setting is the release's default."""
    return _properties(
        {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": f"1@{HOST}:{controller_port}",
            "listeners": f"PLAINTEXT://{HOST}:{port},CONTROLLER://{HOST}:{controller_port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            **_common(port, log_dir),
        }
    )


def zookeeper_properties(port: int, zookeeper_port: int, log_dir: Path) -> str:
    """A single broker registered in a local ZooKeeper; every other setting is the release's default."""
    return _properties(
        {
            "broker.id": "1",
            "listeners": f"PLAINTEXT://{HOST}:{port}",
            "zookeeper.connect": f"{HOST}:{zookeeper_port}",
            **_common(port, log_dir),
        }
    )


def zookeeper_server_properties(port: int, data_dir: Path) -> str:
    """A standalone ZooKeeper on loopback without its admin HTTP server (which would take port 8080)."""
    return _properties(
        {
            "tickTime": "2000",
            "dataDir": str(data_dir),
            "clientPort": str(port),
            "clientPortAddress": HOST,
            "admin.enableServer": "false",
            "maxClientCnxns": "0",
        }
    )


def _wait_listening(port: int, proc: subprocess.Popen[Any], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            if proc.poll() is not None:
                raise BrokerStartError(f"ZooKeeper exited with code {proc.returncode}") from None
            if time.monotonic() > deadline:
                raise BrokerStartError(f"ZooKeeper not listening on {HOST}:{port} after {timeout_s:.0f}s") from None
            time.sleep(0.1)


@contextmanager
def launch(version: str, mode: Mode, workdir: Path) -> Iterator[Running]:
    """Start ``version`` in ``mode``; yield it once a client can read its metadata; stop everything.

    Logs go to ``workdir`` (kept for a post-mortem when a start fails)."""
    if shutil.which("java") is None:
        raise BrokerStartError("java is not installed")
    libs = resolve(version)
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"kafka-{version}-{mode}-") as tmp:
        root = Path(tmp)
        log4j = root / "log4j2.properties"
        log4j.write_text(_LOG4J2)
        config = root / "server.properties"
        port = free_port()
        started = time.monotonic()
        zookeeper = None
        broker = None
        try:
            if mode is Mode.KRAFT:
                config.write_text(kraft_properties(port, free_port(), root / "data"))
                storage_tool = ("kafka.tools.StorageTool", "format", "-t", _cluster_id(), "-c", str(config))
                fmt = subprocess.run(
                    _java(libs, BROKER_JVM, *storage_tool),
                    capture_output=True, text=True, timeout=START_TIMEOUT_S, check=False,
                )  # fmt: skip
                (workdir / "format.log").write_text(fmt.stdout + fmt.stderr)
                if fmt.returncode != 0:
                    raise BrokerStartError(f"kafka-storage format failed: {fmt.stderr.strip()[-500:]}")
            else:
                zookeeper_port = free_port()
                zk_config = root / "zookeeper.properties"
                zk_config.write_text(zookeeper_server_properties(zookeeper_port, root / "zookeeper"))
                zookeeper = procs.spawn(
                    _java(libs, ZOOKEEPER_JVM, f"-Dlog4j2.configurationFile={log4j}",
                          "org.apache.zookeeper.server.ZooKeeperServerMain", str(zk_config)),
                    log_path=workdir / "zookeeper.log",
                )  # fmt: skip
                _wait_listening(zookeeper_port, zookeeper, START_TIMEOUT_S)
                config.write_text(zookeeper_properties(port, zookeeper_port, root / "data"))
            broker = procs.spawn(
                _java(libs, BROKER_JVM, f"-Dlog4j2.configurationFile={log4j}", "kafka.Kafka", str(config)),
                log_path=workdir / "broker.log",
            )
            wait_ready(port, broker, START_TIMEOUT_S)
            yield Running(version, mode, f"{HOST}:{port}", time.monotonic() - started)
        finally:
            if broker is not None:
                procs.stop(broker, grace_s=15.0)
            if zookeeper is not None:
                procs.stop(zookeeper, grace_s=10.0)
