"""Launcher for Apache Kafka 4.x in KRaft combined mode (one node is both broker and controller).

The broker's jars are resolved from Maven Central with ``mvn`` (compat-tests/kafka/pom.xml) into
``$ODRADEK_CACHE/kafka-<version>/libs`` (default cache ``~/.cache/odradek``), never into the repository.
Which version: ``ODRADEK_KAFKA_VERSION`` if set; otherwise the newest candidate already in the cache;
otherwise the newest candidate that resolves. A cache entry counts only once its ``.complete`` marker
exists, so an interrupted download is never used.

Start-up: write server.properties, format the metadata log with StorageTool, run ``kafka.Kafka``,
wait for ApiVersions + Metadata to answer. A restart (``RunningBroker.restart``) runs ``kafka.Kafka``
again with the same server.properties: same ports, same log dirs, no new format. The process is
always stopped (context manager + the exit/signal hooks in ``procs``).

Run ``python -m harness.kafka`` (from compat-tests/) to resolve and print the version without starting.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from harness.broker import BrokerProcess, RunningBroker, log_dir_paths
from harness.net import HOST, BrokerStartError, free_port
from harness.security import SecuredProfile

POM = Path(__file__).resolve().parents[1] / "kafka" / "pom.xml"

#: Newest first. 4.4.0 is listed on Maven Central but some of its modules (kafka-tools-api) are not.
CANDIDATES = ("4.4.0", "4.3.1", "4.3.0", "4.2.1", "4.2.0", "4.1.1", "4.1.0", "4.0.1", "4.0.0")

START_TIMEOUT_S = 120.0
RESOLVE_TIMEOUT_S = 900.0
JVM_OPTIONS = ("-Xmx1g", "-XX:+UseG1GC", "-Djava.awt.headless=true")

_LOG4J2 = """\
status = warn
appender.out.type = Console
appender.out.name = STDOUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = STDOUT
"""


class KafkaResolveError(RuntimeError):
    """No candidate Kafka version could be resolved with mvn."""


def cache_root() -> Path:
    return Path(os.environ.get("ODRADEK_CACHE", Path.home() / ".cache" / "odradek"))


def _libs(version: str) -> Path:
    return cache_root() / f"kafka-{version}" / "libs"


def _complete(version: str) -> bool:
    return (cache_root() / f"kafka-{version}" / ".complete").exists()


def _download(version: str) -> bool:
    """Copy the broker's runtime class path for ``version`` into the cache; False if mvn cannot."""
    if shutil.which("mvn") is None:
        raise KafkaResolveError("mvn is not installed (needed to fetch Apache Kafka from Maven Central)")
    target = _libs(version)
    staging = target.with_name("libs.partial")
    shutil.rmtree(staging, ignore_errors=True)
    argv = [
        "mvn", "-q", "-B", "-U", "-f", str(POM), f"-Dkafka.version={version}",
        "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={staging}",
    ]  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False)
    if result.returncode != 0 or not any(staging.glob(f"kafka_2.13-{version}.jar")):
        shutil.rmtree(staging, ignore_errors=True)
        return False
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    (target.parent / ".complete").write_text(version + "\n")
    return True


def resolve_version() -> str:
    """The Kafka version to run, downloading it if needed (see the module docstring for the order)."""
    pinned = os.environ.get("ODRADEK_KAFKA_VERSION")
    if pinned:
        if not _complete(pinned) and not _download(pinned):
            raise KafkaResolveError(f"mvn could not resolve Apache Kafka {pinned}")
        return pinned
    for version in CANDIDATES:
        if _complete(version):
            return version
    for version in CANDIDATES:
        if _download(version):
            return version
    raise KafkaResolveError(f"mvn could not resolve any of {', '.join(CANDIDATES)}")


def _cluster_id() -> str:
    """A random cluster id in Kafka's Uuid text form, never starting with '-' (like Kafka's own
    Uuid.randomUuid): kafka-storage's argument parser would take such an id for an option."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")
        if not text.startswith("-"):
            return text


def server_properties(
    port: int,
    controller_port: int,
    log_dir: Path | str,
    profile: SecuredProfile | None = None,
    settings: Mapping[str, str] | None = None,
) -> str:
    """A single-node KRaft config; Kafka's defaults except what one node needs and faster storage passes.
    A secured profile replaces the listeners with its own (plus the controller's) and adds its settings."""
    props = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.voters": f"1@{HOST}:{controller_port}",
        "listeners": f"PLAINTEXT://{HOST}:{port},CONTROLLER://{HOST}:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://{HOST}:{port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs": str(log_dir),
        "auto.create.topics.enable": "true",
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        # Background storage passes every second instead of every 5 min / 15 s, so that the retention
        # and compaction scenarios finish in seconds; odradek gets the same (harness/odradek.py).
        "log.retention.check.interval.ms": "1000",
        "log.cleaner.backoff.ms": "1000",
        # Kafka-internal: the first retention pass would otherwise wait 30 s after start-up.
        "log.initial.task.delay.ms": "1000",
    }
    if profile is not None:
        secured = profile.properties()
        secured["listeners"] += f",CONTROLLER://{HOST}:{controller_port}"
        secured["listener.security.protocol.map"] += ",CONTROLLER:PLAINTEXT"
        props.update(secured)
    props.update(settings or {})
    return "".join(f"{key}={value}\n" for key, value in props.items())


def _java(version: str, *args: str) -> list[str]:
    return ["java", *JVM_OPTIONS, "-cp", f"{_libs(version)}/*", *args]


@contextmanager
def launch(
    workdir: Path,
    log_path: Path,
    data_dir: Path | None = None,
    profile: SecuredProfile | None = None,
    *,
    log_dirs: int = 1,
    settings: Mapping[str, str] | None = None,
) -> Iterator[RunningBroker]:
    """Resolve, format and start Kafka; yield it once ready; always stop it (``settings``: more
    server properties).

    ``data_dir``, if given, is the log directory instead of a temporary one and outlives the broker;
    ``profile`` runs the secured configuration (harness/security.py) on the profile's ports;
    ``log_dirs`` above 1 makes that many log directories under ``data_dir`` (`log_dir_paths`)."""
    if shutil.which("java") is None:
        raise BrokerStartError("java is not installed")
    version = resolve_version()
    with tempfile.TemporaryDirectory(prefix="kafka-", dir=workdir) as tmp:
        root = Path(tmp)
        data_dir = data_dir or root / "data"
        port, controller_port = free_port(), free_port()
        if profile is not None:
            port = profile.ports["PLAINTEXT"]
        config = root / "server.properties"
        dirs = ",".join(str(path) for path in log_dir_paths(data_dir, log_dirs))
        config.write_text(server_properties(port, controller_port, dirs, profile, settings))
        log4j = root / "log4j2.properties"
        log4j.write_text(_LOG4J2)
        started = time.monotonic()
        fmt = subprocess.run(
            _java(version, "kafka.tools.StorageTool", "format", "-t", _cluster_id(), "-c", str(config)),
            capture_output=True, text=True, timeout=START_TIMEOUT_S, check=False,
        )  # fmt: skip
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text(fmt.stdout + fmt.stderr)
        if fmt.returncode != 0:
            raise BrokerStartError(f"kafka-storage format failed: {fmt.stderr.strip()[-500:]}")
        broker = BrokerProcess(
            _java(version, f"-Dlog4j2.configurationFile={log4j}", "kafka.Kafka", str(config)),
            log_path, port, START_TIMEOUT_S, grace_s=20.0,
        )  # fmt: skip
        try:
            cluster_id = broker.wait_ready()
            yield RunningBroker(
                name="kafka",
                version=version,
                bootstrap=f"{HOST}:{port}",
                cluster_id=cluster_id,
                start_seconds=time.monotonic() - started,
                data_dir=data_dir,
                restart=broker.restart,
                listeners=profile.listener_addresses() if profile is not None else {},
            )
        finally:
            broker.stop()


if __name__ == "__main__":
    print(resolve_version())
