"""Launcher for odradek itself: ``python -m odradek run`` on a free loopback port with a temporary data dir.

The command line lives only in ``command()``; change it there if the CLI changes. A restart
(``RunningBroker.restart``) runs the same command again: same port, same data dir.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

from harness.broker import BrokerProcess, RunningBroker, log_dir_paths
from harness.net import HOST, free_port
from harness.security import SecuredProfile

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60.0


#: The broker configs harness/kafka.py gives Kafka besides its listeners and data directory, so
#: that both brokers start from the same configuration (DescribeConfigs reports each as given at
#: start-up).  The KRaft settings describe the combined-mode node odradek stands for; odradek
#: reports them and does not act on them, nor on the internal topics' replication settings.
OVERRIDES = (
    "process.roles=broker,controller",
    "node.id=1",
    "controller.listener.names=CONTROLLER",
    "inter.broker.listener.name=PLAINTEXT",
    "auto.create.topics.enable=true",
    "offsets.topic.replication.factor=1",
    "transaction.state.log.replication.factor=1",
    "transaction.state.log.min.isr=1",
    "share.coordinator.state.topic.replication.factor=1",
    "share.coordinator.state.topic.min.isr=1",
    "group.initial.rebalance.delay.ms=0",
    "log.retention.check.interval.ms=1000",
    "log.cleaner.backoff.ms=1000",
    "log.initial.task.delay.ms=1000",
)


def command(
    port: int,
    data_dir: Path,
    profile: SecuredProfile | None = None,
    log_dirs: int = 1,
    settings: Mapping[str, str] | None = None,
) -> list[str]:
    """The one place that knows how odradek is started (a secured profile adds its settings, then
    ``settings``; ``log_dirs`` directories under ``data_dir`` as Kafka's launcher lays them out,
    `harness.broker.log_dir_paths`)."""
    dirs = ",".join(str(path) for path in log_dir_paths(data_dir, log_dirs))
    argv = [sys.executable, "-m", "odradek", "run", "--host", HOST, "--port", str(port), "--data-dir", dirs]
    # Kafka's voter is its controller listener; odradek answers the controller APIs on its own.
    overrides = [*OVERRIDES, f"controller.quorum.voters=1@{HOST}:{port}"]
    if profile is not None:
        overrides += [f"{key}={value}" for key, value in profile.properties().items()]
    overrides += [f"{key}={value}" for key, value in (settings or {}).items()]
    for override in overrides:
        argv += ["--override", override]
    return argv


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
    """Start odradek, wait for ApiVersions to answer, yield it, always stop it (``profile``: the
    secured configuration of harness/security.py, on the profile's ports; ``settings``: more
    server properties).

    ``data_dir``, if given, is used instead of a temporary one and outlives the broker (tools/run.py
    reads the segment files of the stopped broker)."""
    with tempfile.TemporaryDirectory(prefix="odradek-", dir=workdir) as tmp:
        port = profile.ports["PLAINTEXT"] if profile is not None else free_port()
        started = time.monotonic()
        data_dir = data_dir or Path(tmp) / "data"
        argv = command(port, data_dir, profile, log_dirs, settings)
        broker = BrokerProcess(argv, log_path, port, START_TIMEOUT_S, grace_s=10.0, cwd=REPO_ROOT)
        try:
            cluster_id = broker.wait_ready()
            yield RunningBroker(
                name="odradek",
                version=_version(),
                bootstrap=f"{HOST}:{port}",
                cluster_id=cluster_id,
                start_seconds=time.monotonic() - started,
                data_dir=data_dir,
                restart=broker.restart,
                listeners=profile.listener_addresses() if profile is not None else {},
            )
        finally:
            broker.stop()


def _version() -> str:
    try:
        return metadata.version("odradek")
    except metadata.PackageNotFoundError:
        return "source"
