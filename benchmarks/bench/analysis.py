"""From runs to figures: medians, spreads, per-pair ratios odradek / Kafka, and the issue-6 targets.

Ratios are taken pair by pair (run i of odradek over run i of Kafka, both measured back to back)
and then summarised, which cancels drift that affects both brokers of a pair alike.
A figure is noisy when either broker's spread or the ratio's spread exceeds 10%, or when the case
ran while other processes used more than ``CONTENDED_CORES`` of the machine.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from bench.brokers import PEERS
from bench.metrics import BROKER_CANARY, Metric, Row
from bench.runner import CANNOT_RUN, CaseRecord
from bench.stats import CONTENDED_CORES, NOISY_SPREAD, Summary, pair_ratios, summarise

REFERENCE = "kafka"
SUBJECT = "odradek"


@dataclass(frozen=True, slots=True)
class Figure:
    """One metric of one case, summarised for both brokers."""

    row: Row
    metric: Metric
    per_broker: dict[str, Summary | None]
    ratio: Summary | None
    contended: bool
    failures: dict[str, int]
    peer_ratios: dict[str, Summary | None] = field(default_factory=dict)  # odradek / each peer, pair by pair
    cannot_run: dict[str, str] = field(default_factory=dict)  # broker -> why it did not run this case
    #: For a timed figure of a case whose pairs ran on vCPUs of different speeds: the median, pair by
    #: pair, of odradek's canary milliseconds over Kafka's (`uneven_speed`); None otherwise.
    uneven_speed: float | None = None

    @property
    def noisy(self) -> bool:
        summaries = [*self.per_broker.values(), self.ratio]
        return self.contended or self.uneven_speed is not None or any(s is not None and s.noisy for s in summaries)

    def to_json(self) -> dict[str, Any]:
        def dump(summary: Summary | None) -> dict[str, float] | None:
            if summary is None:
                return None
            return {"median": summary.median, "spread": summary.spread, "samples": summary.samples}

        return {
            "metric": self.metric.name,
            "unit": self.metric.unit,
            "higher_is_better": self.metric.higher_is_better,
            **{name: dump(summary) for name, summary in self.per_broker.items()},
            "ratio": dump(self.ratio),
            "peer_ratios": {name: dump(summary) for name, summary in self.peer_ratios.items()},
            "noisy": self.noisy,
            "contended": self.contended,
        }


def _values(record: CaseRecord, broker: str, metric: str) -> list[float | None]:
    """Measured (non-warm-up) values of ``metric`` by run index; None where the run failed."""
    by_index: dict[int, float | None] = {}
    for run in record.runs:
        if run.broker == broker and not run.warmup:
            by_index[run.index] = None if run.sample is None else run.sample.get(metric)
    return [by_index[index] for index in sorted(by_index)]


def taken_cores(sample: dict[str, float]) -> float:
    """CPU (in cores) that neither the broker nor the load generator had during a run: other processes
    in this machine (``foreign_cores``) and the hypervisor's other guests (``steal_cores``)."""
    return sample.get("foreign_cores", 0.0) + sample.get("steal_cores", 0.0)


def contended_runs(record: CaseRecord) -> tuple[int, int]:
    """(measured runs that lost more than ``CONTENDED_CORES`` to others (`taken_cores`), measured runs)."""
    measured = [run for run in record.runs if run.sample and not run.warmup]
    busy = [run for run in measured if run.sample and taken_cores(run.sample) > CONTENDED_CORES]
    return len(busy), len(measured)


def contention(record: CaseRecord) -> float:
    """Median CPU (in cores) taken by others (`taken_cores`) during the measured runs of this case."""
    taken = [
        taken_cores(run.sample)
        for run in record.runs
        if run.sample and not run.warmup and "foreign_cores" in run.sample
    ]
    return statistics.median(taken) if taken else 0.0


def uneven_speed(record: CaseRecord) -> float | None:
    """The median per-pair ratio of odradek's broker-core canary to Kafka's (`bench.vcpu_speed`) when it
    lies more than ``NOISY_SPREAD`` from 1: the pairs' runs mostly ran on vCPUs of different speeds, so
    their timed ratios say as much about the machine as about the brokers. None when even or unmeasured."""
    canary = BROKER_CANARY.name
    speeds = summarise(pair_ratios(_values(record, SUBJECT, canary), _values(record, REFERENCE, canary)))
    if speeds is None or abs(speeds.median - 1.0) <= NOISY_SPREAD:
        return None
    return speeds.median


def figures(record: CaseRecord, brokers: list[str]) -> list[Figure]:
    contended = contention(record) > CONTENDED_CORES
    uneven = uneven_speed(record)
    failures = {name: sum(1 for r in record.runs if r.broker == name and r.error) for name in brokers}
    cannot_run = {
        name: str(entry[CANNOT_RUN])
        for name in brokers
        if isinstance(entry := record.setup.get(name), dict) and CANNOT_RUN in entry
    }
    found: list[Figure] = []
    for metric in record.case.metrics:
        per_broker = {
            name: summarise([v for v in _values(record, name, metric.name) if v is not None]) for name in brokers
        }
        ratio = None
        if REFERENCE in brokers and SUBJECT in brokers:
            subject, reference = _values(record, SUBJECT, metric.name), _values(record, REFERENCE, metric.name)
            ratio = summarise(pair_ratios(subject, reference))
        peer_ratios = {}
        if SUBJECT in brokers:
            subject = _values(record, SUBJECT, metric.name)
            for peer in (name for name in brokers if name in PEERS and per_broker.get(name) is not None):
                peer_ratios[peer] = summarise(pair_ratios(subject, _values(record, peer, metric.name)))
        found.append(
            Figure(
                record.case,
                metric,
                per_broker,
                ratio,
                contended,
                failures,
                peer_ratios,
                cannot_run,
                uneven if metric.timed else None,
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class Target:
    """A ratio bound from issue 19: ``ratio >= bound`` (higher is better) or ``ratio <= bound``."""

    workload: str
    metric: str
    bound: float
    at_least: bool
    text: str

    def met(self, ratio: float) -> bool:
        return ratio >= self.bound if self.at_least else ratio <= self.bound


TARGETS = (
    Target("W1", "mb_s", 1.0, True, "W1 throughput >= 1.0"),
    Target("W1", "mb_per_cpu_s", 1.0, True, "W1 efficiency >= 1.0"),
    Target("W2", "mb_s", 1.0, True, "W2 throughput >= 1.0"),
    Target("W2", "mb_per_cpu_s", 1.0, True, "W2 efficiency >= 1.0"),
    Target("W3", "rec_s", 0.8, True, "W3 request rate >= 0.8"),
    Target("W4", "mb_s", 1.0, True, "W4 throughput >= 1.0"),
    Target("W4", "mb_per_cpu_s", 1.0, True, "W4 efficiency >= 1.0"),
    Target("W5", "p99_ms", 1.0, False, "W5 p99 latency <= Kafka's"),
    Target("W6", "mb_s", 1.0, True, "W6 throughput >= 1.0"),
    Target("W7", "start_s", 0.05, False, "W7 start-to-ready <= 1/20"),
    Target("W7", "idle_rss_mib", 0.1, False, "W7 idle RSS <= 1/10"),
    Target("W7", "loaded_rss_mib", 0.1, False, "W7 loaded RSS <= 1/10"),
)


def _median(figure_by_metric: dict[str, Figure], metric: str, broker: str) -> float | None:
    figure = figure_by_metric.get(metric)
    summary = None if figure is None else figure.per_broker.get(broker)
    return None if summary is None else summary.median


def explain(target: Target, case_figures: list[Figure]) -> str:
    """Why a target was missed, from what the runs measured (CPU saturation, client limits, ratios)."""
    by_metric = {figure.metric.name: figure for figure in case_figures}
    reasons: list[str] = []
    subject_util = _median(by_metric, "broker_util", SUBJECT)
    reference_util = _median(by_metric, "broker_util", REFERENCE)
    if subject_util is not None and subject_util >= 0.85:
        reasons.append(
            f"odradek's core was saturated (broker CPU / active time {subject_util:.2f}"
            + (f"; Kafka's {reference_util:.2f})" if reference_util is not None else ")")
        )
        missed = by_metric.get(target.metric)
        if target.at_least and missed is not None and missed.ratio is not None and missed.ratio.median > 0:
            # On a saturated core the rate is the core over the CPU each unit of work costs.
            needed = 1 - missed.ratio.median / target.bound
            reasons.append(f"closing it takes {needed:.0%} less broker CPU for the same work")
    subject_client = _median(by_metric, "client_util", SUBJECT)
    if subject_util is not None and subject_util < 0.85 and subject_client is not None and subject_client < 0.85:
        reasons.append(
            f"neither odradek's core ({subject_util:.2f} busy) nor the client's ({subject_client:.2f}) "
            "was saturated: the runs wait on round trips (per-request latency)"
        )
    efficiency = by_metric.get("mb_per_cpu_s")
    if efficiency is not None and efficiency.ratio is not None and efficiency.ratio.median > 0:
        reasons.append(f"odradek spends {1 / efficiency.ratio.median:.1f}x Kafka's broker CPU per MB")
    reference_client = _median(by_metric, "client_util", REFERENCE)
    if reference_client is not None and reference_client >= 0.85:
        reasons.append(
            f"Kafka's runs were limited by the load generator (client core {reference_client:.2f} busy), "
            "so Kafka's own ceiling lies higher"
        )
    if target.workload in ("W5", "W7"):
        subject = _median(by_metric, target.metric, SUBJECT)
        reference = _median(by_metric, target.metric, REFERENCE)
        if subject is not None and reference is not None:
            unit = by_metric[target.metric].metric.unit
            reasons.append(f"odradek {subject:.3g} {unit} against Kafka {reference:.3g} {unit}")
    if not reasons:
        reasons.append("no saturation measured on either side; see the profile notes")
    return "; ".join(reasons) + ". Profile evidence: benchmarks/profiles.md."


def caveat(target: Target, case_figures: list[Figure]) -> str:
    """A met throughput target needs a caveat when the load generator, not the brokers, set the pace."""
    by_metric = {figure.metric.name: figure for figure in case_figures}
    clients = [_median(by_metric, "client_util", name) for name in (REFERENCE, SUBJECT)]
    if target.metric not in ("mb_s", "rec_s") or any(util is None or util < 0.85 for util in clients):
        return ""
    efficiency = by_metric.get("mb_per_cpu_s")
    ratio = (
        "" if efficiency is None or efficiency.ratio is None else f"; efficiency ratio {efficiency.ratio.median:.2f}"
    )
    return f"both sides limited by the load generator (client core busy {clients[0]:.2f} / {clients[1]:.2f}){ratio}"


PACE_SETTING = "throughput"
"""A case whose settings name this (ProducerPerformance's ``--throughput``, records/s) is paced by its
load generator: both brokers move the same bytes per second when they keep the pace."""

PACED_TOLERANCE = 0.01
"""How far below 1 a paced case's throughput ratio may fall and still count as keeping the pace (the
pacing's own timing: 0.9999 in the run of 2026-11-26, where both brokers ran at 20.44 MB/s)."""


def evaluate(all_figures: list[Figure]) -> list[dict[str, Any]]:
    """Every (target, case) pair where both are measured: the ratio, met or not, and why not."""
    by_case: dict[str, list[Figure]] = {}
    for figure in all_figures:
        by_case.setdefault(figure.row.key, []).append(figure)
    results: list[dict[str, Any]] = []
    for target in TARGETS:
        for key, case_figures in by_case.items():
            if case_figures[0].row.workload != target.workload:
                continue
            found = next((f for f in case_figures if f.metric.name == target.metric), None)
            if found is None or found.ratio is None:
                continue
            ratio = found.ratio.median
            pace = found.row.settings.get(PACE_SETTING) if target.metric in ("mb_s", "rec_s") else None
            if pace is not None:
                met = ratio >= target.bound - PACED_TOLERANCE
                reason = (
                    f"paced by the load generator at {pace:,} records/s on both brokers: the same throughput by "
                    "construction, the efficiency row decides"
                    if met
                    else f"odradek did not keep the load generator's pace of {pace:,} records/s"
                )
            else:
                met = target.met(ratio)
                reason = caveat(target, case_figures) if met else explain(target, case_figures)
            results.append(
                {
                    "target": target.text,
                    "workload": target.workload,
                    "case": key,
                    "tool": found.row.tool,
                    "ratio": ratio,
                    "met": met,
                    "noisy": found.noisy,
                    "reason": reason,
                }
            )
    return results
