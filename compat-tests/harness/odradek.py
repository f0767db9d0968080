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


#: Broker configs that differ from Kafka's defaults, the same ones harness/kafka.py gives Kafka.
OVERRIDES = (
    "group.initial.rebalance.delay.ms=0",
    "log.retention.check.interval.ms=1000",
    "log.cleaner.backoff.ms=1000",
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
    overrides = list(OVERRIDES)
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
