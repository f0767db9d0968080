"""Differential codec test: odradek's schemas against kafka-clients' generated message classes.

For every message odradek defines (odradek.wire.messages.ALL_MESSAGES), every version of its schema,
request and response alike, in two directions:

    kafka->odradek  kafka-clients serialises random instances (java/, ``gen``); odradek decodes each,
                    re-encodes it byte-identically, and its decoded fields equal kafka-clients' JSON.
    odradek->kafka  odradek encodes random values (values.py); kafka-clients parses each with the
                    generated ``XData(Readable, version)`` constructor, consumes every byte,
                    re-serialises it byte-identically, and its JSON equals odradek's value.

Versions kafka-clients does not define (Produce v0-2 in 4.x) are reported as skipped. A case in a
version the broker serves (handlers registry) that fails makes the exit status 1; failures in schema
versions the broker does not serve are reported but do not gate.

    .venv/bin/python compat-tests/codec-diff/run.py [--count 20] [--seed 1] [--kafka-clients 4.4.0]

Writes compat-tests/report/codec-diff.json and codec-diff.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from values import compare, random_struct  # noqa: E402

from odradek.handlers import load_handlers  # noqa: E402
from odradek.wire.codec import decode, encode  # noqa: E402
from odradek.wire.messages import ALL_MESSAGES  # noqa: E402
from odradek.wire.schema import Message  # noqa: E402

JAVA_DIR = HERE / "java"
JAR = JAVA_DIR / "target" / "codec-diff.jar"
DEFAULT_KAFKA_CLIENTS = "4.4.0"
JAVA_TIMEOUT_S = 900.0
DIRECTIONS = ("kafka->odradek", "odradek->kafka")


@dataclass(slots=True)
class Tally:
    """Outcome of one (message, version, direction)."""

    api_key: int
    message: str
    version: int
    served: bool
    direction: str
    passed: int = 0
    failed: int = 0
    skipped: str = ""
    problems: list[str] = field(default_factory=list)

    def fail(self, problem: str) -> None:
        self.failed += 1
        if len(self.problems) < 3:
            self.problems.append(problem)


def build(kafka_clients: str, log_path: Path) -> None:
    """Build java/target/codec-diff.jar for ``kafka_clients`` unless it is already built."""
    stamp = JAR.with_suffix(".version")
    sources = [JAVA_DIR / "pom.xml", *sorted((JAVA_DIR / "src").rglob("*.java"))]
    fresh = JAR.exists() and stamp.exists() and stamp.read_text() == kafka_clients
    if fresh and all(src.stat().st_mtime <= JAR.stat().st_mtime for src in sources):
        return
    if shutil.which("mvn") is None or shutil.which("java") is None:
        raise RuntimeError("SKIPPED: the codec diff needs java and mvn")
    argv = ["mvn", "-q", "-B", "package", f"-Dkafka.version={kafka_clients}"]
    result = subprocess.run(argv, cwd=JAVA_DIR, capture_output=True, text=True, timeout=JAVA_TIMEOUT_S, check=False)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"mvn package failed (log: {log_path})")
    stamp.write_text(kafka_clients)


def java(args: list[str], lines: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Run the jar with JSON lines on stdin; yield its JSON lines."""
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    result = subprocess.run(
        ["java", "-Xmx512m", "-jar", str(JAR), *args],
        input=stdin, capture_output=True, text=True, timeout=JAVA_TIMEOUT_S, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"codec-diff.jar {args[0]} exited {result.returncode}: {result.stderr[-2000:]}")
    for line in result.stdout.splitlines():
        yield json.loads(line)


def targets() -> Iterator[tuple[int, Message, int]]:
    for key, pair in ALL_MESSAGES.items():
        for message in pair:
            assert message.valid.high is not None
            for version in range(message.valid.low, message.valid.high + 1):
                yield key, message, version


def _first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"first difference at byte {at} of {len(a)} (odradek) / {len(b)} (kafka)"


def kafka_to_odradek(tallies: dict[tuple[str, int, str], Tally], count: int, seed: int) -> None:
    messages = {message.name: message for _, message, _ in targets()}
    asks = [{"name": m.name, "version": v} for _, m, v in targets()]
    for reply in java(["gen", str(count), str(seed)], asks):
        tally = tallies[(reply["name"], reply["version"], DIRECTIONS[0])]
        message, version = messages[reply["name"]], int(reply["version"])
        if "skip" in reply:
            tally.skipped = reply["skip"]
            continue
        case = f"case {reply['case']}"
        if "error" in reply:
            tally.fail(f"{case}: kafka-clients could not build an instance: {reply['error']}")
            continue
        data = bytes.fromhex(reply["hex"])
        try:
            value = decode(message, version, data)
            again = encode(message, version, value)
        except Exception as exc:
            tally.fail(f"{case}: {type(exc).__name__}: {exc}; bytes {reply['hex'][:400]}")
            continue
        if again != data:
            tally.fail(f"{case}: re-encoded bytes differ, {_first_difference(again, data)}; kafka {reply['hex'][:400]}")
            continue
        diffs = compare(message.struct, version, message.is_flexible(version), value, reply["json"])
        if diffs:
            tally.fail(f"{case}: decoded fields differ from kafka-clients': {'; '.join(diffs[:4])}")
            continue
        tally.passed += 1


def odradek_to_kafka(tallies: dict[tuple[str, int, str], Tally], count: int, seed: int) -> None:
    asks: list[dict[str, Any]] = []
    values: dict[int, tuple[Message, int, Any]] = {}
    for _, message, version in targets():
        tally = tallies[(message.name, version, DIRECTIONS[1])]
        rng = Random(f"{seed}-{message.name}-{version}")
        for _ in range(count):
            value = random_struct(message.struct, version, message.is_flexible(version), rng)
            try:
                data = encode(message, version, value)
            except Exception as exc:
                tally.fail(f"odradek could not encode its own random value: {type(exc).__name__}: {exc}")
                continue
            values[len(asks)] = (message, version, value)
            asks.append({"id": len(asks), "name": message.name, "version": version, "hex": data.hex()})
    for reply in java(["check"], asks):
        message, version, value = values[int(reply["id"])]
        tally = tallies[(message.name, version, DIRECTIONS[1])]
        sent = asks[int(reply["id"])]["hex"]
        if "skip" in reply:
            tally.skipped = reply["skip"]
        elif "error" in reply:
            tally.fail(f"kafka-clients could not parse odradek's bytes: {reply['error']}; bytes {sent[:400]}")
        elif not reply["ok"]:
            diff = _first_difference(bytes.fromhex(sent), bytes.fromhex(reply["hex"]))
            tally.fail(f"kafka-clients re-serialised differently, {diff}; odradek {sent[:400]}")
        else:
            diffs = compare(message.struct, version, message.is_flexible(version), value, reply["json"])
            if diffs:
                tally.fail(f"kafka-clients parsed other fields than odradek sent: {'; '.join(diffs[:4])}")
            else:
                tally.passed += 1


def write_report(report_dir: Path, meta: dict[str, Any], tallies: list[Tally]) -> tuple[Path, Path]:
    report_dir.mkdir(parents=True, exist_ok=True)
    rows = [
        {
            "api_key": t.api_key, "message": t.message, "version": t.version, "served": t.served,
            "direction": t.direction, "passed": t.passed, "failed": t.failed, "skipped": t.skipped,
            "problems": t.problems,
        }
        for t in tallies
    ]  # fmt: skip
    json_path = report_dir / "codec-diff.json"
    json_path.write_text(json.dumps({**meta, "results": rows}, indent=1, sort_keys=True) + "\n")
    md_path = report_dir / "codec-diff.md"
    md_path.write_text(markdown(meta, tallies))
    return json_path, md_path


def _cell(t: Tally) -> str:
    if t.skipped:
        return "skipped"
    if t.failed:
        return f"**FAIL {t.failed}**/{t.passed + t.failed}"
    return f"{t.passed} ok"


def markdown(meta: dict[str, Any], tallies: list[Tally]) -> str:
    lines = [
        "# Differential codec test: odradek vs kafka-clients",
        "",
        f"kafka-clients {meta['kafka_clients']}, {meta['count']} random cases per message, version and direction "
        f"(seed {meta['seed']}), {meta['seconds']}s. Summary: {meta['summary']}.",
        "",
        "`served` = the broker's handler registry serves the version; other schema versions are informational.",
        "",
        "| api | version | served | request kafka->odradek | request odradek->kafka "
        "| response kafka->odradek | response odradek->kafka |",
        "|---|---|---|---|---|---|---|",
    ]
    grouped: dict[tuple[int, int], dict[tuple[str, str], Tally]] = {}
    for t in tallies:
        kind = "response" if t.message.endswith("Response") else "request"
        grouped.setdefault((t.api_key, t.version), {})[(kind, t.direction)] = t
    for (key, version), cells in sorted(grouped.items()):
        first = next(iter(cells.values()))
        name = first.message.removesuffix("Request").removesuffix("Response")
        order = [(k, d) for k in ("request", "response") for d in DIRECTIONS]
        row = [_cell(cells[o]) if o in cells else "" for o in order]
        lines.append(f"| {name} ({key}) | {version} | {'yes' if first.served else 'no'} | " + " | ".join(row) + " |")
    problems = [t for t in tallies if t.failed]
    if problems:
        lines += ["", "## Failures", ""]
        for t in problems:
            lines.append(f"- {t.message} v{t.version} {t.direction}{'' if t.served else ' (not served)'}:")
            lines.extend(f"  - `{p[:600]}`" for p in t.problems)
    skips = sorted({t.skipped for t in tallies if t.skipped})
    if skips:
        lines += ["", "## Skipped", ""] + [f"- {s}" for s in skips]
    return "\n".join(lines) + "\n"


def summary(tallies: list[Tally]) -> dict[str, int]:
    served = [t for t in tallies if t.served]
    return {
        "cases_passed": sum(t.passed for t in tallies),
        "cases_failed": sum(t.failed for t in tallies),
        "served_cases_failed": sum(t.failed for t in served),
        "served_versions_skipped": sum(1 for t in served if t.skipped),
        "groups": len(tallies),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=20, help="random cases per message, version and direction")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kafka-clients", default=DEFAULT_KAFKA_CLIENTS)
    parser.add_argument("--report-dir", type=Path, default=HERE.parent / "report")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        build(args.kafka_clients, args.report_dir / "logs" / "builds" / "codec-diff.log")
    except RuntimeError as exc:
        print(f"!!! codec-diff: {exc}", file=sys.stderr)
        return 1
    registry = load_handlers()
    tallies: dict[tuple[str, int, str], Tally] = {}
    for key, message, version in targets():
        for direction in DIRECTIONS:
            tallies[(message.name, version, direction)] = Tally(
                key, message.name, version, registry.serves(key, version), direction
            )
    kafka_to_odradek(tallies, args.count, args.seed)
    odradek_to_kafka(tallies, args.count, args.seed)
    ordered = list(tallies.values())
    counts = summary(ordered)
    meta = {
        "kafka_clients": args.kafka_clients, "count": args.count, "seed": args.seed,
        "seconds": round(time.monotonic() - started, 1), "summary": counts,
    }  # fmt: skip
    json_path, md_path = write_report(args.report_dir, meta, ordered)
    print(f"codec-diff: {json_path} and {md_path}")
    print("codec-diff summary: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for t in ordered:
        if t.failed:
            print(f"   FAIL {t.message} v{t.version} {t.direction}: {t.failed} of {t.passed + t.failed}")
            for problem in t.problems[:1]:
                print(f"      {problem[:300]}")
    return 1 if counts["served_cases_failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
