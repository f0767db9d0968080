"""``make bench``: odradek measured side by side with Apache Kafka (issues 6 and 19, benchmarks.md).

    python benchmarks/run.py                 # W1-W8 on Kafka, odradek and the peers: warm-up until stable,
                                             # then up to 5 measured pairs of >= 10 s runs (within 45 min;
                                             # the peers get fewer, see bench.method.share)
    python benchmarks/run.py --estimate      # print the plan and its time estimate, run nothing
    python benchmarks/run.py --quick         # short runs, 2 pairs: a smoke look whose figures mean little
    python benchmarks/run.py --only W1,W4    # some workloads (or case keys such as W1-pp-acks1)
    python benchmarks/run.py --smoke         # one short W1 against odradek only (the make test check)
    python benchmarks/run.py --profile /tmp/prof --only W1   # py-spy the odradek runs (raw stacks)
    python benchmarks/run.py --report benchmarks/results/<date>.json   # render it again, in place

Writes ``<out>/<date>.json`` (every run), ``<out>/summary.md`` and ``<out>/ratios.png``;
``<out>`` defaults to benchmarks/results. Exits 1 when any run of Kafka or odradek failed (after writing the
results); the peers' failed runs are reported and shown in the summary but do not fail it.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import kafka_tools, stored
from bench.analysis import REFERENCE, SUBJECT, Figure, contended_runs, contention, evaluate, figures
from bench.brokers import BROKERS, PEERS
from bench.method import (
    BUDGET_S,
    FULL_TIMING,
    PEER_LONG_RUN_S,
    PEER_MAX_RUNS,
    PEER_WARMUP_RUNS,
    PLAN_S,
    QUICK_TIMING,
    PlannedCase,
    Timing,
    cold_start_rounds,
    estimate_seconds,
    pairs_within,
    share,
)
from bench.method_wording import CURRENT_METHOD
from bench.pinning import plan
from bench.report import CHART, load_budget, newest_security, summary_markdown, write_chart, write_json
from bench.runner import BrokerPool, CaseRecord, RunRecord, failed_runs, planned, run_case
from bench.startup import ColdStart, StartupRow, cold_starts
from bench.workloads import FULL, QUICK, SMOKE, Case, Context, Sizes, cases, smoke_case
from harness.kafka import resolve_version

RESULTS = Path(__file__).resolve().parent / "results"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--pairs", type=int, help="measured pairs after warm-up (default: up to 5 within 45 min; 2 with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer pairs")
    parser.add_argument("--smoke", action="store_true", help="one short W1 run against odradek only")
    parser.add_argument("--only", help="comma-separated workloads (W1..W8) or case keys")
    parser.add_argument("--brokers", default=",".join((*BROKERS, *PEERS)), help="comma-separated, in running order")
    parser.add_argument(
        "--out", type=Path, help="where results are written (default: benchmarks/results; with --report, its directory)"
    )
    parser.add_argument("--workdir", type=Path, help="where broker data lives (default: a temporary directory)")
    parser.add_argument("--no-pin", action="store_true", help="do not pin broker and client to separate cores")
    parser.add_argument("--profile", type=Path, help="sample odradek with py-spy into this directory")
    parser.add_argument(
        "--report", type=Path, help="only write this results JSON (in place), its summary and chart again"
    )
    parser.add_argument("--py-spy", default=shutil.which("py-spy"), help="the py-spy executable")
    parser.add_argument("--estimate", action="store_true", help="print the plan and its time estimate, run nothing")
    return parser


def _selected(all_cases: list[Case], only: str | None) -> tuple[list[Case], bool]:
    """The cases to run and whether W7 runs, from ``--only``."""
    if not only:
        return all_cases, True
    wanted = {item.strip() for item in only.split(",") if item.strip()}
    return [c for c in all_cases if c.workload in wanted or c.key in wanted], "W7" in wanted


def _plan_text(keys: list[str], cases: list[PlannedCase], pairs: int, timing: Timing, rounds: dict[str, int]) -> str:
    """Per case, each broker's measured runs x seconds and the case's estimated minutes; then the total."""
    lines = [f"{pairs} pairs; per case: broker measured-runs x seconds (estimated minutes)"]
    for key, case in zip(keys, cases, strict=True):
        given = [(name, share(case, name, pairs)) for name in case.brokers]
        runs = ", ".join(f"{name} {part.runs}x{part.measured_s:g}s" for name, part in given)
        lines.append(f"  {key:<18} {runs} ({estimate_seconds([case], pairs, timing) / 60:.1f})")
    if rounds:
        starts = ", ".join(f"{name} {count}" for name, count in rounds.items())
        minutes = estimate_seconds([], pairs, timing, rounds) / 60
        lines.append(f"  {'W7-start':<18} cold starts: {starts} ({minutes:.1f})")
    total = estimate_seconds(cases, pairs, timing, rounds)
    lines.append(f"estimated {total / 60:.1f} min (planned to fit {PLAN_S / 60:.0f}, budget {BUDGET_S / 60:.0f})")
    return "\n".join(lines)


def _cpu_model() -> str:
    """The processor as /proc/cpuinfo names it, with its family and model numbers: this VM's host
    differs between days (and with it the kernel build), and runs are compared across them."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        return "?"
    return f"{fields.get('model name', '?')} (family {fields.get('cpu family', '?')}, model {fields.get('model', '?')})"


def _java_version() -> str:
    try:
        result = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return "none"
    return (result.stderr.splitlines() or ["?"])[0]


def _loaded_rss(records: list[CaseRecord], broker: str, index: int) -> float | None:
    """The highest peak RSS ``broker`` reached in run ``index`` of any W1-W6 case."""
    peaks = [
        run.sample["peak_rss_mib"]
        for record in records
        for run in record.runs
        if run.broker == broker and run.index == index and run.sample and "peak_rss_mib" in run.sample
    ]
    return max(peaks) if peaks else None


def _startup(
    rounds: dict[str, int], workdir: Path, args: argparse.Namespace, loaded: list[CaseRecord], versions: dict[str, str]
) -> CaseRecord:
    """W7's cold starts; ``versions`` gets the version of each broker started (a W7-only run has no
    other source for them)."""
    record = CaseRecord(StartupRow())

    def keep(name: str, index: int, started: ColdStart | str) -> None:
        run = RunRecord(name, index, warmup=index == 0)
        if isinstance(started, str):
            run.error = started
            print(f"  W7-start           {name:<8} run {index}: FAILED: {started[:160]}", flush=True)
        else:
            versions.setdefault(name, started.version)
            outcome = started.sample
            run.sample = dict(outcome)
            peak = _loaded_rss(loaded, name, index)
            if peak is not None:
                run.sample["loaded_rss_mib"] = peak
            print(
                f"  W7-start           {name:<8} run {index}: start {outcome['start_s']:.3f}s "
                f"idle RSS {outcome['idle_rss_mib']:.0f} MiB",
                flush=True,
            )
        record.runs.append(run)

    cold_starts(rounds, workdir, plan(not args.no_pin), keep)
    return record


def _case_json(record: CaseRecord, case_figures: list[Figure]) -> dict[str, Any]:
    row = record.case
    return {
        "key": row.key,
        "workload": row.workload,
        "title": row.title,
        "tool": row.tool,
        "settings": row.settings,
        "setup": record.setup,
        "contended_cores": contention(record),
        "figures": [figure.to_json() for figure in case_figures],
        "runs": [run.to_json() for run in record.runs],
    }


def _write(out: Path, document: dict[str, Any], records: list[CaseRecord], json_path: Path | None = None) -> None:
    """Summarise ``records`` into ``document`` and write the JSON (to ``json_path``, by default
    ``out/<date>.json``), the summary and the chart to ``out``."""
    all_figures: list[Figure] = []
    cases_json = []
    for record in records:
        case_figures = figures(record, document["order"])
        all_figures.extend(case_figures)
        cases_json.append(_case_json(record, case_figures))
    targets = evaluate(all_figures)
    counts = [contended_runs(record) for record in records]
    quiet = {"contended_runs": sum(c[0] for c in counts), "measured_runs": sum(c[1] for c in counts)}
    document = {**document, "quiet": quiet, "cases": cases_json, "targets": targets}
    json_path = json_path or out / f"{document['date']}.json"
    write_json(json_path, document)
    charted = write_chart(out / CHART, all_figures)
    summary = summary_markdown(document, all_figures, targets, charted, load_budget(out), newest_security(out))
    (out / "summary.md").write_text(summary)
    chart = f", {out / CHART}" if charted else ""
    print(f"wrote {json_path}, {out / 'summary.md'}{chart}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.report is not None:
        # in place: another run's JSON (a partial, a kept run) never replaces the standing one
        previous, measured = stored.load(args.report)
        _write(args.out or args.report.parent, previous, measured, json_path=args.report)
        return 0
    order = [name.strip() for name in args.brokers.split(",") if name.strip()]
    sizes: Sizes = QUICK if args.quick else FULL
    timing = QUICK_TIMING if args.quick or args.smoke else FULL_TIMING
    selected, with_startup = _selected(cases(sizes), args.only)
    planned_cases = [planned(case, order, timing) for case in selected]
    cold = [(name, name in PEERS) for name in order] if with_startup else []
    if args.pairs is not None:
        pairs = args.pairs
    else:
        pairs = 2 if args.quick else pairs_within(planned_cases, timing, PLAN_S, most=5, least=3, cold_starts=cold)
    if args.smoke:
        order, sizes, pairs, selected, with_startup = [SUBJECT], SMOKE, 1, [smoke_case(SMOKE)], False
        planned_cases, cold = [planned(case, order, timing) for case in selected], []
    rounds = {name: cold_start_rounds(pairs, peer) for name, peer in cold}
    estimate = estimate_seconds(planned_cases, pairs, timing, rounds)
    if args.estimate:
        print(_plan_text([case.key for case in selected], planned_cases, pairs, timing, rounds))
        return 0
    if estimate > PLAN_S:
        print(
            f"warning: estimated {estimate / 60:.0f} min, over the {PLAN_S / 60:.0f}-min plan of the "
            f"{BUDGET_S / 60:.0f}-min budget (fewer brokers with --brokers, or fewer cases with --only)",
            file=sys.stderr,
        )
    if args.profile is not None and args.py_spy is None:
        print("--profile needs py-spy (pip install py-spy, or --py-spy PATH)", file=sys.stderr)
        return 2
    pinning = plan(not args.no_pin)
    needs_java_tools = any(case.tool != "librdkafka" for case in selected)
    kafka_version = resolve_version() if REFERENCE in order or needs_java_tools else "none"
    if needs_java_tools:
        kafka_tools.resolve(kafka_version)
    started = time.time()
    print(
        f"odradek bench: {len(selected)} cases{' + W7' if with_startup else ''}, {pairs} pairs after warm-up, "
        f"brokers {' / '.join(order)}, {pinning.describe()}; estimated {estimate / 60:.0f} min",
        flush=True,
    )
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="odradek-bench-", dir=args.workdir))
    records: list[CaseRecord] = []
    pool = BrokerPool(workdir, pinning)
    ctx = Context(pinning, kafka_version, timing, args.profile, args.py_spy)
    try:
        for case in selected:
            print(f"{case.key}: {case.title} [{case.tool}]", flush=True)
            records.append(run_case(case, ctx, pool, order, pairs))
    finally:
        pool.close()
    started_versions: dict[str, str] = {}
    try:
        if with_startup:
            print("W7-start: cold start to ready, idle RSS", flush=True)
            records.append(_startup(rounds, workdir, args, records, started_versions))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    date = time.strftime("%Y-%m-%d", time.localtime(started))
    document: dict[str, Any] = {
        "date": date,
        "arguments": "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:])),
        "method": CURRENT_METHOD,
        "machine": {
            "cpus": os.cpu_count(),
            "pinning": pinning.describe(),
            "kernel": platform.release(),
            "cpu": _cpu_model(),
            "python": platform.python_version(),
            "java": _java_version(),
        },
        "brokers": {**{name: "?" for name in order}, **started_versions, **pool.versions},
        "order": order,
        "pairs": pairs,
        "sizes": dataclasses.asdict(sizes),
        "timing": dataclasses.asdict(timing),
        "peer_share": {
            "warmup_runs": PEER_WARMUP_RUNS,
            "max_runs": PEER_MAX_RUNS,
            "long_run_s": PEER_LONG_RUN_S,
        },
        "estimate_s": estimate,
        "duration_s": time.time() - started,
        "restarts": pool.restarts,
    }
    _write(args.out or RESULTS, document, records)
    failed, peers_failed = failed_runs(records)
    print(
        f"{failed} runs failed"
        + (f" ({peers_failed} runs of the peers failed too, not counted)" if peers_failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
