"""Abuse: how a well-behaved client's latency and the broker's memory fare while others misbehave.

    python benchmarks/abuse.py                 # 20 s phases, odradek and Kafka
    python benchmarks/abuse.py --seconds 5 --brokers odradek     # a quick look
    ODRADEK_BASELINE_SRC=/tmp/base python benchmarks/abuse.py --brokers odradek-pure,odradek-base
                                               # a before/after pair, both trees as pure Python
                                               # (odradek is the mypyc build make run runs)

For each broker in turn, on a fresh data directory: one topic, then phases of ``seconds`` each.  In
every phase a well-behaved client (``bench.abuse_load probe``) sends a Metadata request for that
topic and a one-record Produce in turn, every 5 ms, and keeps their latency percentiles (from when
each request was due); a warm-up phase is not reported, a quiet phase comes before the abuse and
another after it, and in between an abuser process runs beside the client (``bench.abuse_load``: slow-loris, trickled
100 MiB frames, pipelining without reading, connection churn, Metadata for 100,000 topics, then
all at once).  The broker's peak RSS and the CPU time it spent are read for each phase.  Writes
``<out>/abuse-<date>[-<label>].json`` and ``.md`` with each phase's p99 against the quiet phase's,
beside Kafka's, and, in its header, how loaded the machine was (load averages, busy cores, and
``--load-note``: what else ran).  Not a test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.abuse_load import KINDS
from bench.admin import create_topic
from bench.brokers import launcher
from bench.pinning import Pinning, plan
from bench.procstat import cpu_seconds, machine_cores, machine_ticks, peak_rss_mib, reset_peak_rss, rss_mib
from bench.side_by_side import busy_cores_text, machine_at_start, store_results

RESULTS = Path(__file__).resolve().parent / "results"
BENCHMARKS = Path(__file__).resolve().parent
TOPIC = "abuse-probe"
PHASES = ("warm-up", "quiet", *KINDS, "all", "quiet-again")
REPORTED = PHASES[1:]
#: Kafka's heap would not hold five 100 MiB receive buffers beside its own under -Xmx1g, so both
#: brokers get Kafka's request memory pool at 400 MiB: the same rule, where odradek's bound is stated.
BROKER_CONFIGS = {"group.initial.rebalance.delay.ms": "0", "queued.max.request.bytes": str(400 * 1024 * 1024)}
ABUSERS = (
    "the abusers stand for other machines: their process runs at nice 19 on the client core, so they take only "
    "the CPU the probe leaves, and the 100k-topic abuser sends one request encoded once and reads its answers as "
    "bytes (what each abuser did is listed below the table)"
)


def _load(pinning: Pinning, *args: str) -> subprocess.Popen[str]:
    argv = [*pinning.client_prefix(), sys.executable, "-m", "bench.abuse_load", *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCHMARKS), str(BENCHMARKS.parent)])}
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _result(proc: subprocess.Popen[str], timeout_s: float) -> dict[str, Any]:
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    merged: dict[str, Any] = {}
    for line in stdout.splitlines():
        merged.update(json.loads(line))
    if proc.returncode != 0:
        merged["error"] = stderr[-2000:]
    return merged


def measure_broker(name: str, args: argparse.Namespace, pinning: Pinning, workdir: Path) -> dict[str, Any]:
    machine_before = machine_ticks()
    with launcher(name)(workdir, pinning, BROKER_CONFIGS) as broker:
        create_topic(broker.bootstrap, TOPIC, 1)
        result: dict[str, Any] = {"broker": name, "version": broker.version, "phases": {}}
        for phase in PHASES:
            baseline = rss_mib(broker.pid)
            reset_peak_rss(broker.pid)
            cpu_before = cpu_seconds(broker.pid)
            abuser = None
            if phase not in ("warm-up", "quiet", "quiet-again"):
                abuser = _load(pinning, "abuse", "--bootstrap", broker.bootstrap, "--kind", phase,
                               "--seconds", str(args.seconds + 4))  # fmt: skip
                time.sleep(2.0)
            probe = _load(pinning, "probe", "--bootstrap", broker.bootstrap, "--topic", TOPIC,
                          "--seconds", str(args.seconds))  # fmt: skip
            measured = _result(probe, args.seconds + 120)
            if abuser is not None:
                measured["abuser"] = _result(abuser, 120)
            measured["rss_before_mib"] = round(baseline, 1)
            measured["peak_rss_mib"] = round(peak_rss_mib(broker.pid), 1)
            measured["broker_cpu_s"] = round(cpu_seconds(broker.pid) - cpu_before, 2)
            result["phases"][phase] = measured
            print(f"  {name} {phase}: {json.dumps(measured)[:300]}", flush=True)
            time.sleep(2.0)  # let closed connections go before the next phase
    machine = machine_cores(machine_before, machine_ticks())
    result["machine_busy_cores"] = round(machine.busy, 2) if machine else None
    result["machine_steal_cores"] = round(machine.steal, 2) if machine else None
    return result


def _p99(run: dict[str, Any], phase: str, what: str) -> float | None:
    value = run["phases"].get(phase, {}).get(what, {}).get("p99")
    return value if isinstance(value, int | float) else None


def _quiet_p99(run: dict[str, Any], what: str) -> float | None:
    """The lower p99 of the two quiet phases: the stricter baseline when a load spike on a shared
    machine lands in one of them."""
    found = [value for value in (_p99(run, "quiet", what), _p99(run, "quiet-again", what)) if value]
    return min(found) if found else None


def _label(broker: str) -> str:
    return "Kafka" if broker == "kafka" else broker


def markdown(document: dict[str, Any]) -> str:
    """The summary: one column group per broker that ran, Kafka's last."""
    runs = {run["broker"]: run for run in document["runs"]}
    brokers = sorted(runs, key=lambda broker: broker == "kafka")
    machine = document["machine"]
    lines = [
        "# Abuse: a well-behaved client's p99 and the broker's memory while others misbehave",
        "",
        f"**Machine load**: load average (1, 5, 15 min) {machine['load_start']} at the start, "
        f"{machine['load_end']} at the end, on {machine['cores']} cores; busy cores over each broker's run "
        "(every process): "
        + busy_cores_text(document["runs"])
        + (f".  {document['settings']['load_note']}" if document["settings"].get("load_note") else ".")
        + "  Latencies on a loaded machine carry its scheduling delays: compare each broker's phases with "
        "its own quiet phase, and the broker's CPU seconds per phase, rather than milliseconds across runs.",
        "",
        f"Phases of {document['settings']['seconds']} s; {document['pinning']}; "
        + (f"{document['settings']['abusers']}; " if document["settings"].get("abusers") else "")
        + "queued.max.request.bytes 400 MiB on both brokers.  p99 in ms, and in brackets against the same "
        "broker's quiet p99 (the lower of its two quiet phases); CPU: the broker's CPU seconds during the phase.",
        "",
        "| phase | "
        + " | ".join(
            f"{label} Metadata p99 | {label} Produce p99 | {label} CPU s | {label} peak RSS (MiB)"
            for label in map(_label, brokers)
        )
        + " |",
        "|---|" + "---|" * (4 * len(brokers)),
    ]

    def cell(run: dict[str, Any], phase: str, what: str) -> str:
        value, quiet = _p99(run, phase, what), _quiet_p99(run, what)
        if value is None:
            return "failed"
        return f"{value:.2f} ({value / quiet:.1f}x)" if quiet else f"{value:.2f}"

    for phase in REPORTED:
        row = [phase]
        for broker in brokers:
            run = runs[broker]
            measured = run["phases"].get(phase, {})
            row += [cell(run, phase, "metadata_ms"), cell(run, phase, "produce_ms")]
            row += [str(measured.get("broker_cpu_s", "")), str(measured.get("peak_rss_mib", ""))]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "## What the abusers did", ""]
    for phase in REPORTED:
        did = []
        for broker in brokers:
            abuser = runs[broker]["phases"].get(phase, {}).get("abuser", {})
            work = ", ".join(
                f"{key} {value}" for key, value in abuser.items() if key.endswith(("_calls", "_connections"))
            )
            if work:
                did.append(f"{broker}: {work}")
        if did:
            lines.append(f"- {phase}: " + "; ".join(did))
    lines += [
        "",
        "## The busiest processes at the start",
        "",
        "```",
        *machine["busiest_at_start"],
        "```",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--brokers", default="kafka,odradek")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--no-pin", action="store_true")
    parser.add_argument("--label", default="", help="appended to the results' file names")
    parser.add_argument("--load-note", default="", help="what else ran on the machine, for the header")
    parser.add_argument("--render", type=Path, help="only write the .md of this results .json again")
    args = parser.parse_args(argv)
    if args.render is not None:
        args.render.with_suffix(".md").write_text(markdown(json.loads(args.render.read_text())))
        return 0
    pinning = plan(not args.no_pin)
    document: dict[str, Any] = {
        "settings": {"seconds": args.seconds, "brokers": args.brokers, "load_note": args.load_note, "abusers": ABUSERS},
        "pinning": pinning.describe(),
        "machine": machine_at_start(),
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="abuse-") as tmp:
        for name in args.brokers.split(","):
            print(f"{name}:", flush=True)
            document["runs"].append(measure_broker(name, args, pinning, Path(tmp)))
    store_results(document, "abuse", args.out, markdown, args.label)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
