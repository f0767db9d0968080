"""Apache Kafka's own load generators (kafka-tools: ProducerPerformance, ConsumerPerformance,
EndToEndLatency): class path resolution and parsers for what each prints.

The jars are resolved with ``mvn`` from benchmarks/kafka/pom.xml into
``$ODRADEK_CACHE/kafka-tools-<version>/libs`` (next to compat-tests' broker jars), for the same Kafka
version the broker runs, and used only once the ``.complete`` marker exists.
Throughput is reported in MB = 10^6 bytes; the tools' own "MB" figures (MiB) are not used.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from harness.kafka import cache_root

POM = Path(__file__).resolve().parents[1] / "kafka" / "pom.xml"
RESOLVE_TIMEOUT_S = 900.0
CLIENT_JVM = ("-Xmx1g", "-Djava.awt.headless=true")
TOOLS = "org.apache.kafka.tools."


class ToolsResolveError(RuntimeError):
    """mvn could not provide the kafka-tools class path."""


def libs(version: str) -> Path:
    return cache_root() / f"kafka-tools-{version}" / "libs"


def resolve(version: str) -> Path:
    """The class path directory for ``version``, downloading it on first use."""
    target = libs(version)
    marker = target.parent / ".complete"
    if marker.exists():
        return target
    if shutil.which("mvn") is None:
        raise ToolsResolveError("mvn is not installed (needed to fetch kafka-tools from Maven Central)")
    staging = target.with_name("libs.partial")
    shutil.rmtree(staging, ignore_errors=True)
    argv = [
        "mvn",
        "-q",
        "-B",
        "-f",
        str(POM),
        f"-Dkafka.version={version}",
        "dependency:copy-dependencies",
        "-DincludeScope=runtime",
        f"-DoutputDirectory={staging}",
    ]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False)
    if result.returncode != 0 or not (staging / f"kafka-tools-{version}.jar").exists():
        shutil.rmtree(staging, ignore_errors=True)
        raise ToolsResolveError(f"mvn could not resolve kafka-tools {version}: {result.stdout[-500:]}")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    marker.write_text(version + "\n")
    return target


def command(version: str, tool: str, *args: str) -> list[str]:
    """``java ... org.apache.kafka.tools.<tool> args`` with the resolved class path."""
    return ["java", *CLIENT_JVM, "-cp", f"{resolve(version)}/*", TOOLS + tool, *args]


_PRODUCER_LINE = re.compile(
    r"(?P<records>\d+) records sent, (?P<rate>[\d.]+) records/sec \([\d.]+ MB/sec\), (?P<avg>[\d.]+) ms avg latency, "
    r"(?P<max>[\d.]+) ms max latency, (?P<p50>\d+) ms 50th, (?P<p95>\d+) ms 95th, (?P<p99>\d+) ms 99th, "
    r"(?P<p999>\d+) ms 99.9th"
)


def parse_producer(output: str, record_size: int) -> dict[str, float]:
    """ProducerPerformance's final line: records/s, and send->ack latency in whole milliseconds."""
    matches = list(_PRODUCER_LINE.finditer(output))
    if not matches:
        raise ValueError("no ProducerPerformance summary line")
    match = matches[-1]
    rate = float(match["rate"])
    return {
        "records": float(match["records"]),
        "rec_s": rate,
        "mb_s": rate * record_size / 1e6,
        "ack_avg_ms": float(match["avg"]),
        "ack_p99_ms": float(match["p99"]),
    }


def parse_consumer(output: str) -> dict[str, float]:
    """ConsumerPerformance's CSV line; throughput over the fetch time (group join excluded)."""
    header: list[str] | None = None
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.split(",")]
        if "fetch.time.ms" in cells:
            header = cells
        elif header is not None and len(cells) == len(header):
            row = dict(zip(header, cells, strict=True))
            records = float(row["data.consumed.in.nMsg"])
            mib = float(row["data.consumed.in.MB"])
            fetch_s = max(float(row["fetch.time.ms"]) / 1000, 1e-9)
            return {
                "records": records,
                "rec_s": records / fetch_s,
                "mb_s": mib * 1_048_576 / 1e6 / fetch_s,
                "join_ms": float(row["rebalance.time.ms"]),
            }
    raise ValueError("no ConsumerPerformance result line")


_E2E_AVG = re.compile(r"Avg latency: (?P<avg>[\d.]+) ms")
_E2E_PCT = re.compile(r"Percentiles: 50th = (?P<p50>\d+), 99th = (?P<p99>\d+), 99.9th = (?P<p999>\d+)")


def parse_end_to_end(output: str) -> dict[str, float]:
    """EndToEndLatency: the average (sub-millisecond) and its percentiles (truncated to whole ms)."""
    avg, pct = _E2E_AVG.search(output), _E2E_PCT.search(output)
    if avg is None or pct is None:
        raise ValueError("no EndToEndLatency result lines")
    return {
        "avg_ms": float(avg["avg"]),
        "p50_ms": float(pct["p50"]),
        "p99_ms": float(pct["p99"]),
        "p999_ms": float(pct["p999"]),
    }
