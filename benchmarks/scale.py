"""Scale: many connections, many partitions, many consumer groups; odradek beside Apache Kafka.

    python benchmarks/scale.py                        # 1,000 connections, 100 x 100 partitions, 100 groups
    python benchmarks/scale.py --connections 50 --topics 5 --partitions 10 --groups 5 --seconds 5   # a quick look

For each broker in turn (alternating over ``--pairs``), on a fresh data directory, pinned to the
broker core while the load process (``bench.scale_load``) runs on the client core:

1. start to ready (exec to the first ApiVersions + Metadata answer) and idle RSS;
2. ``connections`` connections held idle (RSS, memory per connection), then all of them asking for
   the metadata of a one-partition topic, ``request-rate`` requests a second in all (latency
   percentiles);
3. ``topics`` x ``partitions`` partitions: creation time, RSS, memory per partition;
4. ``groups`` consumer groups of one member (aiokafka): time until all are assigned, RSS and
   memory per group, then commit latency while every member heartbeats;
5. quiet latency on one connection: Metadata of every topic, of one topic (``partitions``
   partitions), and a Fetch of every partition from offset 0 (1 KiB each);
6. traffic: librdkafka producing ``traffic-rate`` records a second over every partition with a
   consumer group reading them (end-to-end latency), and the latencies of 5. measured again meanwhile.

Memory is measured first for what is measured first: a broker that freed memory in an earlier
phase reuses it (Python's allocator, Java's heap), which would hide what the later phase costs;
Kafka's JVM heap makes its differences noisy all the same.

Writes ``<out>/scale-<date>.json`` and ``<out>/scale-<date>.md`` (odradek's and Kafka's figures
with their ratio), with how busy the machine was: load averages, and the CPU seconds other
processes used during each run.  Not a test: nothing here asserts a speed.
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

from bench.admin import create_topic
from bench.brokers import launcher
from bench.pinning import Pinning, plan
from bench.procstat import cpu_seconds, machine_cores, machine_ticks, peak_rss_mib, rss_mib
from bench.side_by_side import busy_cores_text, machine_at_start, store_results

RESULTS = Path(__file__).resolve().parent / "results"
BENCHMARKS = Path(__file__).resolve().parent
SETTLE_S = 2.0
#: Same group timing on both brokers (the matrix's launchers give Kafka and odradek the same).
BROKER_CONFIGS = {"group.initial.rebalance.delay.ms": "0"}


class LoadProcess:
    """``bench.scale_load`` in a child process pinned to the client core, read line by line."""

    def __init__(self, pinning: Pinning, mode: str, *args: str) -> None:
        argv = [*pinning.client_prefix(), sys.executable, "-m", "bench.scale_load", mode, *args]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCHMARKS), str(BENCHMARKS.parent)])}
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        self.started = time.monotonic()

    def line(self) -> dict[str, Any]:
        """The next JSON line; raises with the child's stderr when it ended instead."""
        assert self.proc.stdout is not None
        text = self.proc.stdout.readline()
        if not text:
            assert self.proc.stderr is not None
            raise RuntimeError(f"load process ended: {self.proc.stderr.read()[-3000:]}")
        document: dict[str, Any] = json.loads(text)
        return document

    def until(self, key: str) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        while True:
            document = self.line()
            merged.update(document)
            if key in document:
                return merged

    def go_on(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def finish(self, timeout_s: float = 600.0) -> None:
        try:
            self.proc.wait(timeout=timeout_s)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def _mib_per(before: float, after: float, count: int) -> float:
    return round((after - before) * 1024 / count, 2) if count else 0.0


def measure_broker(name: str, args: argparse.Namespace, pinning: Pinning, workdir: Path) -> dict[str, Any]:
    """Every phase of the module docstring against one fresh broker."""
    machine_before = machine_ticks()
    client_args = ["--topics-prefix", "scale-", "--topics", str(args.topics), "--partitions", str(args.partitions)]
    with launcher(name)(workdir, pinning, BROKER_CONFIGS) as broker:
        pid, bootstrap = broker.pid, broker.bootstrap
        result: dict[str, Any] = {"broker": name, "version": broker.version, "start_s": round(broker.start_seconds, 3)}
        time.sleep(SETTLE_S)
        idle = rss_mib(pid)
        result["idle_rss_mib"] = round(idle, 1)
        print(f"  {name}: ready in {broker.start_seconds:.2f} s, idle RSS {idle:.0f} MiB", flush=True)

        create_topic(bootstrap, "scale-conn", 1)
        time.sleep(SETTLE_S)
        before_connections = rss_mib(pid)
        conns = LoadProcess(
            pinning, "connections", "--bootstrap", bootstrap, "--count", str(args.connections),
            "--seconds", str(args.seconds), "--rate", str(args.request_rate), "--topic", "scale-conn",
        )  # fmt: skip
        opened = conns.until("ready")
        time.sleep(SETTLE_S)
        with_connections = rss_mib(pid)
        result["connections"] = {
            "count": opened["opened"],
            "open_s": opened["seconds"],
            "idle_rss_mib": round(with_connections, 1),
            "kib_per_connection": _mib_per(before_connections, with_connections, args.connections),
        }
        conns.go_on()
        active = conns.until("ready")
        result["connections"] |= {"active_rss_mib": round(rss_mib(pid), 1), **active}
        conns.go_on()
        conns.finish()
        print(f"  {name}: connections {result['connections']}", flush=True)

        time.sleep(SETTLE_S)
        before_partitions = rss_mib(pid)
        started = time.monotonic()
        for index in range(args.topics):
            create_topic(bootstrap, f"scale-{index}", args.partitions)
        partitions = args.topics * args.partitions
        result["create_partitions_s"] = round(time.monotonic() - started, 2)
        time.sleep(SETTLE_S)
        with_partitions = rss_mib(pid)
        result["partitions_rss_mib"] = round(with_partitions, 1)
        result["kib_per_partition"] = _mib_per(before_partitions, with_partitions, partitions)
        print(f"  {name}: {partitions} partitions in {result['create_partitions_s']} s", flush=True)

        time.sleep(SETTLE_S)
        before_groups = rss_mib(pid)
        groups = LoadProcess(
            pinning, "groups", "--bootstrap", bootstrap, "--count", str(args.groups), "--seconds", str(args.seconds),
            *client_args,
        )  # fmt: skip
        joined = groups.until("ready")
        time.sleep(SETTLE_S)
        with_groups = rss_mib(pid)
        groups.go_on()
        committed = groups.until("commit_ms")
        groups.finish()
        result["groups"] = {
            **joined,
            **committed,
            "rss_mib": round(with_groups, 1),
            "kib_per_group": _mib_per(before_groups, with_groups, args.groups),
        }
        print(f"  {name}: groups {result['groups']}", flush=True)
        latency_args = ["--bootstrap", bootstrap, "--count", str(args.latency_count), *client_args]
        quiet = LoadProcess(pinning, "latency", *latency_args)
        result["quiet"] = quiet.until("fetch_all_ms")
        quiet.finish()

        traffic = LoadProcess(
            pinning, "traffic", "--bootstrap", bootstrap, "--seconds", str(args.seconds),
            "--rate", str(args.traffic_rate), *client_args,
        )  # fmt: skip
        time.sleep(min(10.0, args.seconds / 3))
        loaded = LoadProcess(pinning, "latency", *latency_args)
        result["under_traffic"] = loaded.until("fetch_all_ms")
        loaded.finish()
        result["traffic"] = traffic.until("end_to_end_ms")
        traffic.finish()
        print(f"  {name}: traffic {result['traffic']}", flush=True)

        result["broker_cpu_s"] = round(cpu_seconds(pid), 1)
        result["peak_rss_mib"] = round(peak_rss_mib(pid), 1)
    machine = machine_cores(machine_before, machine_ticks())
    result["machine_busy_cores"] = round(machine.busy, 2) if machine else None
    result["machine_steal_cores"] = round(machine.steal, 2) if machine else None
    return result


_ROWS: list[tuple[str, tuple[str, ...]]] = [
    ("start to ready (s)", ("start_s",)),
    ("idle RSS (MiB)", ("idle_rss_mib",)),
    ("create all partitions (s)", ("create_partitions_s",)),
    ("memory per partition (KiB)", ("kib_per_partition",)),
    ("Metadata, every topic, quiet p50 (ms)", ("quiet", "metadata_all_ms", "p50")),
    ("Metadata, every topic, quiet p99 (ms)", ("quiet", "metadata_all_ms", "p99")),
    ("Metadata, one topic, quiet p50 (ms)", ("quiet", "metadata_one_ms", "p50")),
    ("Metadata, one topic, quiet p99 (ms)", ("quiet", "metadata_one_ms", "p99")),
    ("Fetch, every partition, quiet p50 (ms)", ("quiet", "fetch_all_ms", "p50")),
    ("Fetch, every partition, quiet p99 (ms)", ("quiet", "fetch_all_ms", "p99")),
    ("Metadata, every topic, under traffic p99 (ms)", ("under_traffic", "metadata_all_ms", "p99")),
    ("Fetch, every partition, under traffic p99 (ms)", ("under_traffic", "fetch_all_ms", "p99")),
    ("produce to consume p50 (ms)", ("traffic", "end_to_end_ms", "p50")),
    ("produce to consume p99 (ms)", ("traffic", "end_to_end_ms", "p99")),
    ("consumer's first record after (s)", ("traffic", "first_record_s")),
    ("open the connections (s)", ("connections", "open_s")),
    ("memory per idle connection (KiB)", ("connections", "kib_per_connection")),
    ("Metadata (1 partition) over all connections p50 (ms)", ("connections", "active_metadata_ms", "p50")),
    ("Metadata (1 partition) over all connections p99 (ms)", ("connections", "active_metadata_ms", "p99")),
    ("all groups assigned (s)", ("groups", "all_joined_s")),
    ("memory per group (KiB)", ("groups", "kib_per_group")),
    ("OffsetCommit p50 (ms)", ("groups", "commit_ms", "p50")),
    ("OffsetCommit p99 (ms)", ("groups", "commit_ms", "p99")),
    ("broker CPU for the whole run (s)", ("broker_cpu_s",)),
    ("peak RSS (MiB)", ("peak_rss_mib",)),
]


def _get(result: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = result
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def _median(values: list[float]) -> float | None:
    values = sorted(v for v in values if isinstance(v, int | float))
    return values[len(values) // 2] if values else None


def markdown(document: dict[str, Any]) -> str:
    runs = document["runs"]
    settings = document["settings"]
    lines = [
        f"# Scale: odradek beside Apache Kafka {next((r['version'] for r in runs if r['broker'] == 'kafka'), '?')}",
        "",
        f"{settings['connections']} connections, {settings['topics']} topics x {settings['partitions']} partitions, "
        f"{settings['groups']} consumer groups, traffic {settings['traffic_rate']} records/s, "
        f"{settings['request_rate']} Metadata requests/s over the connections, phases of {settings['seconds']} s; "
        f"{document['pinning']}; medians of {settings['pairs']} run(s) per broker.",
        "",
        "| measure | odradek | Kafka | odradek / Kafka |",
        "|---|---|---|---|",
    ]
    for title, path in _ROWS:
        ours = _median([_get(r, path) for r in runs if r["broker"] == "odradek"])
        theirs = _median([_get(r, path) for r in runs if r["broker"] == "kafka"])
        ratio = f"{ours / theirs:.2f}" if ours is not None and theirs else ""
        lines.append(f"| {title} | {ours} | {theirs} | {ratio} |")
    machine = document["machine"]
    lines += [
        "",
        "## How quiet the machine was",
        "",
        f"Load average (1, 5, 15 min) at the start {machine['load_start']}, at the end {machine['load_end']}; "
        f"{machine['cores']} cores.  Busy cores over each broker's run (every process, this one included): "
        + busy_cores_text(runs)
        + ".",
        "",
        "Busiest processes when the run started:",
        "",
        "```",
        *machine["busiest_at_start"],
        "```",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=100, help="partitions per topic")
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each timed phase")
    parser.add_argument("--traffic-rate", type=float, default=200.0, help="records/s produced over every partition")
    parser.add_argument("--request-rate", type=float, default=1000.0, help="Metadata requests/s over all connections")
    parser.add_argument("--latency-count", type=int, default=30, help="requests per latency measure")
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--brokers", default="kafka,odradek")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--no-pin", action="store_true")
    args = parser.parse_args(argv)
    pinning = plan(not args.no_pin)
    document: dict[str, Any] = {
        "settings": {k: v for k, v in vars(args).items() if k not in ("out",)} | {"out": str(args.out)},
        "pinning": pinning.describe(),
        "machine": machine_at_start(),
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="scale-") as tmp:
        for pair in range(args.pairs):
            for name in args.brokers.split(","):
                print(f"pair {pair + 1}/{args.pairs}: {name}", flush=True)
                document["runs"].append(measure_broker(name, args, pinning, Path(tmp)))
    store_results(document, "scale", args.out, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
