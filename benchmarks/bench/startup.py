"""W7: cold start to ready, CPU spent getting there, and idle RSS, alternating the brokers.

Start time runs from just before exec to the first successful ApiVersions + Metadata (the
``bench.probe`` poll, 5 ms steps). Kafka's storage format runs before that clock starts and is
reported apart (``format_s``). Idle RSS is read ``IDLE_SETTLE_S`` after ready. The vCPU canaries
(`bench.vcpu_speed`) run from `CANARY_LEAD_S` before exec until ready, so a start on a slowed vCPU
shows as one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.brokers import launcher
from bench.method import IDLE_SETTLE_S
from bench.metrics import (
    BROKER_CANARY,
    CLIENT_CANARY,
    IDLE_RSS,
    LOADED_RSS,
    START,
    START_CPU,
    Metric,
    Sample,
    canary_figures,
)
from bench.pinning import Pinning
from bench.procstat import cpu_seconds, rss_mib
from bench.vcpu_speed import CanaryWatch

#: How long the canaries run before the broker's exec: their own interpreters' start lands before it.
CANARY_LEAD_S = 0.3


@dataclass(frozen=True)
class StartupRow:
    """The W7 row of the report; ``loaded_rss_mib`` is filled in from the peaks seen in W1-W6."""

    key: str = "W7-start"
    workload: str = "W7"
    title: str = "cold start to ready; idle and loaded RSS"
    tool: str = "ApiVersions+Metadata probe"
    metrics: tuple[Metric, ...] = (START, START_CPU, IDLE_RSS, LOADED_RSS, BROKER_CANARY, CLIENT_CANARY)
    settings: dict[str, Any] = field(default_factory=lambda: {"idle_settle_s": IDLE_SETTLE_S})


@dataclass(frozen=True, slots=True)
class ColdStart:
    """One cold start's figures, and the version the started broker reported."""

    sample: Sample
    version: str


def cold_start(name: str, workdir: Path, pinning: Pinning) -> ColdStart:
    """Start ``name`` once from an empty data dir; measure; stop it."""
    with CanaryWatch(pinning) as canaries:
        time.sleep(CANARY_LEAD_S)
        with launcher(name)(workdir, pinning) as broker:
            start_cpu = cpu_seconds(broker.pid)
            speeds = canaries.stop()
            time.sleep(IDLE_SETTLE_S)
            sample = {
                "start_s": broker.start_seconds,
                "start_cpu_s": start_cpu,
                "idle_rss_mib": rss_mib(broker.pid),
                "format_s": broker.prepare_seconds,
            }
            return ColdStart(sample | canary_figures(speeds), broker.version)


def cold_starts(
    rounds: Mapping[str, int], workdir: Path, pinning: Pinning, record: Callable[[str, int, ColdStart | str], None]
) -> None:
    """Rounds of one cold start per broker, in the order of ``rounds``, until each broker had its number of
    them; ``record`` gets a cold start or an error."""
    for index in range(max(rounds.values(), default=0)):
        for name, wanted in rounds.items():
            if index >= wanted:
                continue
            try:
                record(name, index, cold_start(name, workdir, pinning))
            except Exception as exc:
                record(name, index, f"{type(exc).__name__}: {exc}")
