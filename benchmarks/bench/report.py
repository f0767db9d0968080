"""Write the results: ``<date>.json`` (every run), ``summary.md`` (figures, ratios, targets) and
``ratios.png`` (odradek / Kafka per headline figure; needs the optional ``bench`` dependencies).

Two more files of the results directory feed the summary when present: ``budget.json`` (the
per-request CPU budget of benchmarks/profiles.md, `bench.budget`), whose stages are named beside each
missed target of a workload it covers, and the newest ``security-<date>.json`` of
benchmarks/security_cases.py, rendered as the summary's security section.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from bench.analysis import REFERENCE, SUBJECT, Figure
from bench.brokers import PEERS
from bench.budget import BUDGET_FILE
from bench.method import COMPILER_BUSY_SHARE
from bench.method_wording import wording
from bench.metrics import BROKER_COMPILER, MACHINE_SET
from bench.probe import POLL_S
from bench.stats import CONTENDED_CORES, NOISY_SPREAD, Summary
from bench.vcpu_speed import measured_broker_core_ms

CHART = "ratios.png"
#: The stages named beside a missed target, largest first.
BUDGET_STAGES_SHOWN = 3
#: What each security case does, and the case of the main run it is the secured twin of.
SECURITY_CASES = {
    "W1-sasl-ssl": ("produce 1 KiB records", "W1-rdkafka-acks1"),
    "W4-sasl-ssl": ("consume them", "W4-rdkafka"),
}


def write_json(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n")


def _cell(summary: Summary | None) -> str:
    if summary is None:
        return "-"
    return f"{summary.median:.4g} (±{summary.spread * 100:.0f}%)"


def _peer_ratios(figure: Figure) -> str:
    shown = [f"{name} {summary.median:.3g}" for name, summary in figure.peer_ratios.items() if summary is not None]
    return ", ".join(shown) or "-"


def _ratio(figure: Figure) -> str:
    if figure.ratio is None:
        return "-"
    mark = " ⚠" if figure.noisy else ""
    return f"**{figure.ratio.median:.3g}**{mark}"


def _notes(figure: Figure, client_util: dict[str, float], compiling: dict[str, float]) -> str:
    """The notes column: noise, client-bound throughput, a JVM broker's JIT still busy in the measured
    runs (``compiling``: each such broker's median compiler share), failures and cases not run."""
    notes: list[str] = []
    if figure.noisy:
        spreads = [s.spread for s in (*figure.per_broker.values(), figure.ratio) if s is not None]
        widest = max(spreads, default=0.0)
        noisy = f"noisy (spread {widest * 100:.0f}%)" if widest > NOISY_SPREAD else "noisy"
        notes.append(noisy + (", contended" if figure.contended else ""))
    if figure.uneven_speed is not None:
        slower = "odradek's" if figure.uneven_speed > 1 else "Kafka's"
        notes.append(f"{slower} vCPU ran slower (fixed work odradek / Kafka {figure.uneven_speed:.3g})")
    bound = [name for name, util in client_util.items() if util >= 0.85]
    if bound and figure.metric.name in ("mb_s", "rec_s"):
        notes.append("client-bound: " + ", ".join(bound))
    busy_jit = {name: share for name, share in compiling.items() if share > COMPILER_BUSY_SHARE}
    if busy_jit and figure.metric.headline:
        notes.extend(
            f"{name} still compiling ({share * 100:.0f}% of its CPU in its JIT)" for name, share in busy_jit.items()
        )
    failed = [f"{name} {count} failed" for name, count in figure.failures.items() if count]
    notes.extend(failed)
    notes.extend(f"{name} cannot run it (below)" for name in figure.cannot_run)
    return "; ".join(notes)


def _cannot_run(figures: list[Figure]) -> list[str]:
    """One line per case a broker did not run, with the reason."""
    reasons = {(f.row.key, name): why for f in figures for name, why in f.cannot_run.items()}
    if not reasons:
        return []
    lines = ["Cases a peer cannot run (no runs, not counted as failures):", ""]
    lines += [f"- {key} on {name}: {why}." for (key, name), why in reasons.items()]
    return [*lines, ""]


def _medians(figures: list[Figure], key: str, metric: str) -> dict[str, float]:
    """Each broker's median of ``metric`` in case ``key`` (brokers without a value left out)."""
    for figure in figures:
        if figure.row.key == key and figure.metric.name == metric:
            return {name: s.median for name, s in figure.per_broker.items() if s is not None}
    return {}


def _machine(machine: dict[str, Any]) -> str:
    """Cores and pinning, then the CPU and kernel build where the run recorded them (older runs did
    not record the CPU): the same code runs two to three times slower on some of this VM's hosts."""
    described = f"{machine['cpus']} cores, {machine['pinning']}"
    platform = [f"{key} {machine[key]}" for key in ("cpu", "kernel") if machine.get(key)]
    return described + (f" ({', '.join(platform)})" if platform else "")


def _peer_share_note(document: dict[str, Any], peers: list[str]) -> str:
    share = document.get("peer_share")
    shortened = [name for name in peers if name in PEERS]
    if not shortened or not share:
        return ""
    return f" ({' and '.join(shortened)}: at most {share['max_runs']}, see Method)"


def _peer_share_method(document: dict[str, Any]) -> str:
    share = document.get("peer_share")
    if not share:
        return "as many runs as Kafka and odradek."
    return (
        f"{share['warmup_runs']} warm-up run (they have no JIT; it also sizes their measured runs), at most "
        f"{share['max_runs']} measured runs per case, one measured run of {share['long_run_s']:g} s where the "
        f"case's runs are longer (W8), and {share['warmup_runs'] + share['max_runs']} W7 cold starts; "
        "their ratios pair their runs with odradek's first ones."
    )


def _cold_starts_bullet(document: dict[str, Any]) -> list[str]:
    """How W7 started each broker, with the measured cold starts it recorded per broker (none when
    the run had no W7)."""
    case = next((case for case in document.get("cases", []) if case.get("key") == "W7-start"), None)
    runs = case.get("runs") if case else None
    if not runs:
        return []
    settle = case.get("settings", {}).get("idle_settle_s")
    pause = f"{settle:g} s after" if settle is not None else "a pause after"
    measured: dict[str, int] = {}
    for run in runs:
        if not run.get("warmup"):
            measured[run["broker"]] = measured.get(run["broker"], 0) + 1
    counts = ", ".join(f"{name} {count}" for name, count in measured.items())
    return [
        "- W7: each broker started cold on a fresh data directory (Kafka's storage formatted first, not "
        "timed); exec to ready is until an ApiVersions and a Metadata request are answered (polled every "
        f"{POLL_S * 1000:g} ms), idle RSS is read {pause} ready; after one warm-up start, measured cold starts: "
        f"{counts}."
    ]


def load_budget(results: Path) -> dict[str, Any] | None:
    """``results/budget.json``, or None when there is none."""
    path = results / BUDGET_FILE
    if not path.exists():
        return None
    budget: dict[str, Any] = json.loads(path.read_text())
    return budget


def newest_security(results: Path) -> Path | None:
    """The newest ``security-<date>.json`` of ``results`` (ISO dates sort by name), or None."""
    found = sorted(results.glob("security-*.json"))
    return found[-1] if found else None


def _us(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def stage_budget(workload: str, budget: dict[str, Any] | None) -> str:
    """Where the broker's CPU goes in the request shapes ``workload`` depends on: each shape's total
    and its largest stages, from the budget table; "" when the budget covers no shape of it."""
    if budget is None:
        return ""
    parts = []
    for name in budget["workloads"].get(workload, []):
        shape = budget["shapes"].get(name)
        if shape is None:
            continue
        total = shape["total_us"]
        largest = sorted(shape["stages_us"].items(), key=lambda item: -item[1])[:BUDGET_STAGES_SHOWN]
        stages = ", ".join(f"{stage} {_us(us)} ({us / total:.0%})" for stage, us in largest)
        parts.append(f"{name} {_us(total)} µs of broker CPU, {stages}")
    if not parts:
        return ""
    return f"Per request (the budget of {budget['measured']}): " + "; ".join(parts) + "."


def verdict(target: dict[str, Any]) -> str:
    """The targets table's "met" cell: a target is claimed ("yes") only on a figure that is not noisy;
    a noisy figure on the right side of the bound says so without claiming it (issue 19: no figure
    marked noisy is used to claim a target).  A miss is a miss either way."""
    if not target["met"]:
        return "**no**"
    return "not claimed (⚠ noisy)" if target["noisy"] else "yes"


def _why_not(target: dict[str, Any], budget: dict[str, Any] | None) -> str:
    if target["met"]:
        return str(target["reason"])
    workload = target.get("workload") or str(target["case"]).split("-")[0]
    return " ".join(part for part in (str(target["reason"]), stage_budget(workload, budget)) if part)


def _plaintext_ratio(figures: list[Figure], case: str) -> str:
    twin = SECURITY_CASES.get(case, ("", None))[1]
    found = next((f for f in figures if f.row.key == twin and f.metric.name == "mb_s"), None)
    if found is None or found.ratio is None:
        return "-"
    return f"{found.ratio.median:.3g}{' ⚠' if found.noisy else ''} ({twin})"


def _runs_cell(median: float | None, runs: list[float]) -> str:
    if median is None:
        return "-"
    return f"{median:.1f} ({min(runs):.1f}-{max(runs):.1f})" if runs else f"{median:.1f}"


def security_section(path: Path, document: dict[str, Any], figures: list[Figure]) -> list[str]:
    """The summary's section for the security cases of ``path`` (benchmarks/security_cases.py's JSON),
    beside the plaintext ratios of the main run."""
    measured: dict[str, Any] = json.loads(path.read_text())
    date = measured.get("date") or path.stem.removeprefix("security-")
    runs: dict[str, dict[str, list[float]]] = measured["runs"]
    pairs = max((len(values) for values in runs.get(REFERENCE, {}).values()), default=0)
    records = measured.get("records")
    when = date if date == document["date"] else f"{date}, not the day of this run: read the ratios, not the figures"
    lines = [
        "## Security cases (W1 and W4 over SASL_SSL)",
        "",
        f"From `benchmarks/security_cases.py` (`{path.name}`), measured {when}: the secured configuration of "
        "compat-tests/harness/security.py on both brokers (same certificates, users and authorizer), librdkafka "
        f"over SASL_SSL with PLAIN, {pairs} runs per broker alternating"
        + (f", {records:,} records of 1 KiB a run" if records else "")
        + ". Median (lowest-highest run); the ratio is of the medians.",
        "",
        "| case | kafka (MB/s) | odradek (MB/s) | odradek / Kafka | plaintext ratio in the main run |",
        "|---|---|---|---|---|",
    ]
    lasting = []
    for key, figure in measured["summary"].items():
        case = key.split(" ")[0]
        title = f"{case} {SECURITY_CASES[case][0]}" if case in SECURITY_CASES else case
        cells = " | ".join(
            _runs_cell(figure.get(name), runs.get(name, {}).get(key, [])) for name in (REFERENCE, SUBJECT)
        )
        lines.append(f"| {title} | {cells} | **{figure['ratio']:.3g}** | {_plaintext_ratio(figures, case)} |")
        if records and figure.get(SUBJECT) and figure.get(REFERENCE):
            seconds = [records * 1024 / (figure[name] * 1e6) for name in (REFERENCE, SUBJECT)]
            lasting.append(f"{case} Kafka {seconds[0]:.1f} s, odradek {seconds[1]:.1f} s")
    measured_s = document.get("timing", {}).get("measured_s")
    if lasting:
        lines += [
            "",
            "A run lasts (at the median): "
            + "; ".join(lasting)
            + (f" (the main run's measured runs last at least {measured_s:g} s)." if measured_s else "."),
        ]
    return [*lines, ""]


def _vcpu_speed(document: dict[str, Any]) -> list[str]:
    """The paragraph on how fast the broker's vCPU ran (`bench.vcpu_speed`), for runs that measured it."""
    canary = measured_broker_core_ms(document)
    if not canary:
        return []
    low, high = min(canary), max(canary)
    return [
        f"**vCPU speed:** the canary's fixed loop took {low:.3g} to {high:.3g} ms "
        f"(median {statistics.median(canary):.3g}) on the broker core across the {len(canary)} measured runs: the "
        f"slowest run's vCPU did the same work {high / low:.2f} times slower than the fastest's, which steal time "
        "does not show. The rows 'fixed work on the broker core' give it per case and broker; their odradek / Kafka "
        "ratio says whether a pair ran at one speed.",
        "",
    ]


def summary_markdown(
    document: dict[str, Any],
    figures: list[Figure],
    targets: list[dict[str, Any]],
    chart: bool,
    budget: dict[str, Any] | None = None,
    security: Path | None = None,
) -> str:
    """The summary; ``budget`` (`load_budget`) adds the stages of the request shapes a missed target
    depends on, ``security`` (`newest_security`) the security section."""
    brokers = document["brokers"]
    order: list[str] = document["order"]
    timing = document.get("timing", {})
    peers = [name for name in order if name not in (REFERENCE, SUBJECT)]
    method = wording(document)
    lines = [
        "# odradek against Apache Kafka and the look-alikes",
        "",
        f"Measured {document['date']} by `make bench` (`benchmarks/run.py{document['arguments']}`): "
        + ", ".join(f"{name} {brokers.get(name, '?')}" for name in order)
        + f"; {_machine(document['machine'])}; "
        f"{method.start_and_warmup}, then "
        f"{document['pairs']} measured runs per broker of at least {timing.get('measured_s', '?')} s, alternating "
        f"{' / '.join(order)}{_peer_share_note(document, peers)}. "
        "Median (± interquartile spread); the ratios are medians of per-pair ratios. "
        f"⚠ = noisy: spread above {NOISY_SPREAD * 100:.0f}% or {method.contention} taking more than "
        f"{CONTENDED_CORES} cores meanwhile.",
        "",
    ]
    quiet = document.get("quiet")
    if quiet and quiet["contended_runs"]:
        lines += [
            f"**This run could not be quiet:** {quiet['contended_runs']} of {quiet['measured_runs']} measured runs "
            f"ran while {method.contention} took CPU; no figure marked ⚠ may be used to claim a target.",
            "",
        ]
    elif quiet:
        lines += [
            f"**A quiet run:** in none of the {quiet['measured_runs']} measured runs did {method.contention} take "
            f"more than {CONTENDED_CORES} cores; a figure marked ⚠ is noisy by its own spread.",
            "",
        ]
    contended = sorted({f.row.key for f in figures if f.contended})
    if contended:
        lines += [
            f"**Contention:** {len(contended)} of {len({f.row.key for f in figures})} cases ran while other "
            "processes or the hypervisor's other guests took CPU (`foreign_cores` and `steal_cores` per run in "
            "the JSON): "
            + ", ".join(contended)
            + ". Their absolute figures drift; the paired ratios are the figures to read.",
            "",
        ]
    lines += _vcpu_speed(document)
    columns = [REFERENCE, SUBJECT, *peers]
    peer_header = " odradek / peer |" if peers else ""
    lines += [
        f"| case | tool | figure | {' | '.join(columns)} | odradek / Kafka |{peer_header} notes |",
        "|---|---|---|" + "---|" * len(columns) + "---|" + ("---|" if peers else "") + "---|",
    ]
    compiler = BROKER_COMPILER.name
    shown_extra = (
        "peak_rss_mib",
        "broker_util",
        "broker_kernel_share",
        compiler,
        "client_util",
        *(metric.name for metric in MACHINE_SET),
    )
    for figure in figures:
        if not figure.metric.headline and figure.metric.name not in shown_extra:
            continue
        key = figure.row.key
        label = f"{figure.metric.label} ({figure.metric.unit})"
        cells = " | ".join(_cell(figure.per_broker.get(name)) for name in columns)
        peer_cell = f" {_peer_ratios(figure)} |" if peers else ""
        lines.append(
            f"| {figure.row.key} | {figure.row.tool} | {label} | {cells} | {_ratio(figure)} |{peer_cell} "
            f"{_notes(figure, _medians(figures, key, 'client_util'), _medians(figures, key, compiler))} |"
        )
    lines.append("")
    lines += _cannot_run(figures)
    lines += [
        "## Targets from issue 19 (against Kafka; the peers' ratios are in the table)",
        "",
        "| target | case | tool | ratio | met | why not / caveat |",
    ]
    lines.append("|---|---|---|---|---|---|")
    for target in targets:
        mark = verdict(target)
        noisy = " ⚠" if target["noisy"] else ""
        lines.append(
            f"| {target['target']} | {target['case']} | {target['tool']} | {target['ratio']:.3g}{noisy} | "
            f"{mark} | {_why_not(target, budget)} |"
        )
    lines += ["", f"![odradek / Kafka per figure]({CHART})" if chart else "(no chart: no paired figures)", ""]
    lines += [
        "## Method",
        "",
        "- Both brokers single-node, data on the same filesystem, no fsync per append (one row sets "
        "`flush.messages=1` on both); Kafka in KRaft combined mode with `-Xmx1g -XX:+UseG1GC`.",
        "- odradek is the build `make run` runs: this checkout with the request path's modules compiled by mypyc "
        "(`tools/compile.py`; the header's version names the build); `--brokers ...,odradek-pure` measures the "
        "same sources as pure Python, which is what `pip install` installs.",
        "- The same client tool and settings for both brokers. Kafka's tools come from the kafka-tools jar of the "
        "broker's version; the librdkafka generator is confluent-kafka driven from Python "
        "(`benchmarks/bench/rdkafka_load.py`), which saturates its core before a fast broker does: read its "
        "efficiency figure, not its throughput.",
        "- Broker CPU = utime+stime (with children) from /proc/PID/stat around each run; efficiency = MB moved per "
        "broker CPU-second; 'broker core busy' = broker CPU over the tool's active time; 'client core busy' = "
        "client CPU over its wall time; peak RSS = VmHWM, reset before each run.",
        "- W4 throughput is over the fetch phase (ConsumerPerformance's group join is excluded; the librdkafka "
        "consumer counts each pass over the log from its first record to its last, not the restart between "
        "passes, where librdkafka waits out a 500 ms long poll at the end of the log). EndToEndLatency "
        "sends one record at a time and prints whole-millisecond percentiles; the librdkafka probe sends at a "
        "fixed rate and measures in microseconds.",
        method.brokers_bullet,
        method.warmup_bullet,
        *_cold_starts_bullet(document),
        "- Peers: kfake (franz-go's in-memory fake cluster) and Tansu (in-memory storage) run the librdkafka cases "
        "and get less of each (to keep `make bench` within 45 minutes): "
        + _peer_share_method(document)
        + " Both keep records in memory while odradek and Kafka write to disk.",
        "- W8 mixed: 4 producers at a fixed total rate over 6 partitions and a consumer group of 3 committing "
        "synchronously every 0.5 s, at once, for the whole run; per-role throughput and p99 (produce ack, "
        "produce-to-consume, commit); at most 2 measured runs per broker (the peers: see above).",
        "",
    ]
    if security is not None:
        lines += security_section(security, document, figures)
    return "\n".join(lines)


def _colour(ratio: float, higher_is_better: bool) -> str:
    """Green where odradek is better, red where worse, grey within 2% of Kafka."""
    if abs(ratio - 1) < 0.02:
        return "#9a9a9a"
    return "#3b8f5a" if (ratio > 1) == higher_is_better else "#c0504d"


def write_chart(path: Path, figures: list[Figure]) -> bool:
    """A horizontal bar per headline figure; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    shown = [f for f in figures if f.metric.headline and f.ratio is not None and f.ratio.median > 0]
    if not shown:
        return False
    labels = [f"{f.row.key} {f.metric.label}" for f in shown]
    ratios = [f.ratio.median for f in shown if f.ratio is not None]
    colours = [_colour(ratio, figure.metric.higher_is_better) for ratio, figure in zip(ratios, shown, strict=True)]
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(shown) + 1.5))
    positions = list(range(len(shown)))[::-1]
    bars = ax.barh(positions, ratios, color=colours)
    for bar, figure in zip(bars, shown, strict=True):
        if figure.noisy:
            bar.set_hatch("//")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(positions, labels, fontsize=7)
    ax.set_xlabel("odradek / Apache Kafka (log scale; green = odradek better, hatched = noisy)")
    ax.set_title("odradek relative to Apache Kafka, same machine, same run")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
