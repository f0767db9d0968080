"""The ``odradek`` command line as a client column: every command against Apache Kafka and odradek.

Per broker, the same steps in order (`STEPS`), each a real ``python -m odradek ...`` process:
topics, produce (keyed, with headers, idempotent, transactional), consume (group, partition and
offset, timestamp), groups (list, describe with lag, reset-offsets, delete), configs (describe,
alter), and the error paths (an unknown topic, a topic that exists, an unknown group). Each step's
exit code and output (JSON where the command has ``--json``, else its text; stderr's first line)
is normalised (`normalise`) and compared with Apache Kafka's. A step is

    pass   same exit code and the same normalised output as on Apache Kafka
    diff   Kafka's exit code is the expected one, odradek's output differs (the step fails when
           odradek's exit code differs too)
    known  a difference the step names as work not yet done (``gap``): reported, never failing
    fail   the step did not do on Apache Kafka what it should (the step itself is wrong)

Then, on the data directories the stopped brokers left, ``odradek dump-log`` is checked against
Kafka's own DumpLogSegments on the same files: every producer ``.snapshot`` (both brokers write
them for the idempotent and transactional producers) and every ``__transaction_state`` segment
(Apache Kafka's; odradek writes none until transactions are wired), field by field.

    .venv/bin/python compat-tests/cli/run.py [--tools-version 4.3.1]

Writes report/cli.json and report/cli.md (not committed: the lead regenerates reports); the full
outputs go to report/logs/cli/.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
COMPAT = HERE.parent
REPO = COMPAT.parent
sys.path.insert(0, str(COMPAT))
sys.path.insert(0, str(COMPAT / "tools"))

from dumps import compare_dumps  # noqa: E402
from harness.broker import REFERENCE, launchers  # noqa: E402
from kafka_tools import Tools  # noqa: E402

DEFAULT_TOOLS_VERSION = "4.3.1"
STEP_TIMEOUT_S = 90.0
RECORDS = "alice:hello\nbob:hi\ncarol:hey\ndave:yo\nerin:ahoy\n"


@dataclass(frozen=True, slots=True)
class Step:
    """One command line; ``{bootstrap}``, ``{topic}``, ``{group}``, ``{other}`` are filled in."""

    name: str
    argv: tuple[str, ...]
    stdin: str = ""
    expect: int = 0
    #: Work not yet done in odradek that makes this step differ (an issue's subject), if any.
    gap: str | None = None
    #: Keys whose values are left out of the comparison (they differ by broker design, not behaviour).
    ignore: tuple[str, ...] = ()


B = ("--bootstrap-server", "{bootstrap}")
STEPS: list[Step] = [
    Step("topics-create", ("topics", "create", "--topic", "{topic}", "--partitions", "3", "--config",
                           "retention.ms=86400000", *B)),
    Step("topics-create-exists", ("topics", "create", "--topic", "{topic}", "--partitions", "3", *B), expect=1),
    Step("topics-create-if-not-exists", ("topics", "create", "--topic", "{topic}", "--if-not-exists", *B)),
    Step("topics-create-validate-only", ("topics", "create", "--topic", "{other}", "--validate-only", *B)),
    Step("topics-list", ("topics", "list", "--exclude-internal", "--json", *B)),
    Step("topics-describe", ("topics", "describe", "--topic", "{topic}", "--json", *B)),
    Step("topics-describe-unknown", ("topics", "describe", "--topic", "no-such-{topic}", *B), expect=1),
    Step("produce-keyed", ("produce", "--topic", "{topic}", "--key-separator", ":", "--header", "src=cli",
                           "--partition", "0", *B), stdin=RECORDS),
    Step("produce-idempotent", ("produce", "--topic", "{topic}", "--idempotent", "--partition", "1",
                                "--compression-codec", "lz4", *B), stdin="one\ntwo\nthree\n"),
    Step("produce-transactional", ("produce", "--topic", "{topic}", "--transactional-id", "cli-{topic}",
                                   "--partition", "2", *B), stdin="t1\nt2\n"),
    Step("consume-group", ("consume", "--topic", "{topic}", "--group", "{group}", "--from-beginning",
                           "--partition", "0", "--max-messages", "3", "--timeout-ms", "15000", "--json", *B)),
    Step("consume-offset", ("consume", "--topic", "{topic}", "--partition", "0", "--offset", "2",
                            "--max-messages", "2", "--timeout-ms", "15000", "--json", *B)),
    Step("consume-timestamp", ("consume", "--topic", "{topic}", "--partition", "1", "--from-timestamp", "0",
                               "--max-messages", "3", "--timeout-ms", "15000", *B)),
    Step("consume-print", ("consume", "--topic", "{topic}", "--partition", "0", "--from-beginning", "--max-messages",
                           "2", "--timeout-ms", "15000", "--property", "print.key=true", "--property",
                           "print.headers=true", "--property", "print.offset=true", *B)),
    Step("groups-list", ("groups", "list", "--json", *B)),
    Step("groups-describe", ("groups", "describe", "--group", "{group}", "--json", *B)),
    Step("groups-describe-unknown", ("groups", "describe", "--group", "no-such-{group}", *B), expect=1),
    Step("groups-reset-dry-run", ("groups", "reset-offsets", "--group", "{group}", "--topic", "{topic}",
                                  "--to-earliest", "--json", *B)),
    Step("groups-reset-execute", ("groups", "reset-offsets", "--group", "{group}", "--topic", "{topic}:0",
                                  "--shift-by", "-1", "--execute", "--json", *B)),
    Step("groups-describe-after-reset", ("groups", "describe", "--group", "{group}", "--json", *B)),
    Step("configs-describe-topic", ("configs", "describe", "--topic", "{topic}", "--json", *B)),
    Step("configs-alter-topic", ("configs", "alter", "--topic", "{topic}", "--add-config",
                                 "cleanup.policy=compact,max.message.bytes=65536", *B)),
    Step("configs-delete-topic", ("configs", "alter", "--topic", "{topic}", "--delete-config", "max.message.bytes",
                                  *B)),
    Step("configs-describe-topic-after", ("configs", "describe", "--topic", "{topic}", "--json", *B)),
    Step("configs-alter-unknown-key", ("configs", "alter", "--topic", "{topic}", "--add-config", "no.such.key=1", *B),
         expect=1),
    Step("topics-alter-partitions", ("topics", "alter", "--topic", "{topic}", "--partitions", "4", *B)),
    Step("topics-add-partitions", ("topics", "add-partitions", "--topic", "{topic}", "--partitions", "5", *B)),
    Step("groups-delete", ("groups", "delete", "--group", "{group}", *B)),
    # {topic} stays: its producer snapshots are what the dump-log checks read once the broker stopped.
    Step("topics-create-other", ("topics", "create", "--topic", "{other}", "--partitions", "1", *B)),
    Step("topics-delete", ("topics", "delete", "--topic", "{other}", *B)),
    Step("topics-delete-unknown", ("topics", "delete", "--topic", "{other}", *B), expect=1),
]  # fmt: skip


@dataclass(slots=True)
class Observed:
    code: int | None
    output: Any
    error: str


@dataclass(slots=True)
class Result:
    step: str
    status: str
    problems: list[str] = field(default_factory=list)
    observed: dict[str, Any] = field(default_factory=dict)
    detail: str = ""


# --- normalisation -------------------------------------------------------------------------------

_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_ADDR = re.compile(r"127\.0\.0\.1:\d+")
_MASKED_KEYS = {"timestamp": "<time>", "member_id": "<member>", "host": "<host>", "topic_id": "<id>"}
_TIMESTAMP_TEXT = re.compile(r"\b(CreateTime|LogAppendTime):\d+")


def _names(text: str, names: dict[str, str]) -> str:
    for concrete, placeholder in sorted(names.items(), key=lambda item: -len(item[0])):
        text = text.replace(concrete, placeholder)
    text = _UUID.sub("<uuid>", text)
    return _ADDR.sub("<bootstrap>", text)


def _walk(value: Any, names: dict[str, str], ignore: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        masked: dict[str, Any] = {}
        for key, item in value.items():
            if key in ignore:
                continue
            masked[key] = _MASKED_KEYS[key] if key in _MASKED_KEYS and item is not None else _walk(item, names, ignore)
        return masked
    if isinstance(value, list):
        return [_walk(v, names, ignore) for v in value]
    if isinstance(value, str):
        return _names(value, names)
    return value


def normalise(stdout: str, stderr: str, names: dict[str, str], ignore: tuple[str, ...]) -> tuple[Any, str]:
    """Output as data (JSON, JSON lines or text lines) with run-specific values masked; stderr's first
    line likewise (later lines carry progress and counts)."""
    text = stdout.strip()
    output: Any
    try:
        output = json.loads(text) if text else None
    except json.JSONDecodeError:
        try:
            output = [json.loads(line) for line in text.splitlines()]
        except json.JSONDecodeError:
            output = [_TIMESTAMP_TEXT.sub(r"\1:<time>", line.rstrip()) for line in text.splitlines()]
    error = stderr.strip().splitlines()[0] if stderr.strip() else ""
    return _walk(output, names, ignore), _names(error, names)


# --- running ----------------------------------------------------------------------------------------


def _fill(part: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        part = part.replace("{" + key + "}", value)
    return part


def run_step(step: Step, values: dict[str, str], names: dict[str, str], log_dir: Path, broker: str) -> Observed:
    argv = [sys.executable, "-m", "odradek", *(_fill(p, values) for p in step.argv)]
    started = time.monotonic()
    try:
        done = subprocess.run(
            argv, input=step.stdin, capture_output=True, text=True, timeout=STEP_TIMEOUT_S, cwd=REPO, check=False
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        code, out, err = None, "", f"killed after {STEP_TIMEOUT_S:.0f} s"
    log = log_dir / broker / f"{step.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    seconds = time.monotonic() - started
    log.write_text(f"$ {' '.join(argv[2:])}\n[exit {code}, {seconds:.1f}s]\n{out}\n--- stderr\n{err}")
    output, error = normalise(out, err, names, step.ignore)
    return Observed(code, output, error)


def run_broker(name: str, log_dir: Path, data_root: Path) -> tuple[str, dict[str, Observed], Path]:
    """Every step against one broker; the data directory outlives the broker for the dump checks."""
    suffix = uuid.uuid4().hex[:8]
    values = {"topic": f"cli-{suffix}", "other": f"cli-other-{suffix}", "group": f"cli-group-{suffix}"}
    names = {values["other"]: "<other>", values["group"]: "<group>", values["topic"]: "<topic>"}
    observed: dict[str, Observed] = {}
    data_dir = data_root / f"{name}-data"
    launch: Any = launchers()[name]
    with launch(data_root, log_dir / f"{name}.log", data_dir=data_dir) as broker:
        values["bootstrap"] = broker.bootstrap
        info = f"{broker.version} at {broker.bootstrap}"
        for step in STEPS:
            observed[step.name] = run_step(step, values, names, log_dir, name)
            o = observed[step.name]
            print(f"   {name:8} {step.name:32} exit {o.code}", flush=True)
    return info, observed, data_dir


def compare(kafka: dict[str, Observed], ours: dict[str, Observed]) -> list[Result]:
    results = []
    for step in STEPS:
        theirs, mine = kafka[step.name], ours[step.name]
        result = Result(step.name, "pass", observed={"kafka": asdict(theirs), "odradek": asdict(mine)})
        if theirs.code != step.expect:
            result.status = "fail"
            result.problems.append(f"on Apache Kafka the exit code is {theirs.code}, not {step.expect}: {theirs.error}")
        elif (mine.code, mine.output, mine.error) != (theirs.code, theirs.output, theirs.error):
            result.status = "known" if step.gap else ("diff" if mine.code == theirs.code else "fail")
            if step.gap:
                result.problems.append(f"waits for {step.gap}")
            if mine.code != theirs.code:
                result.problems.append(f"exit code {mine.code} vs Kafka's {theirs.code}: {mine.error}")
            if mine.error != theirs.error:
                result.problems.append(f"stderr {mine.error!r} vs Kafka's {theirs.error!r}")
            if mine.output != theirs.output:
                result.problems.append(f"output {_short(mine.output)} vs Kafka's {_short(theirs.output)}")
        elif step.gap:
            result.problems.append(f"named as waiting for {step.gap}, but it passes now: drop the gap")
        results.append(result)
    return results


def _short(value: Any) -> str:
    return json.dumps(value)[:600]


def markdown(meta: dict[str, Any], results: list[Result], dumps: list[Result]) -> str:
    lines = ["# The odradek command line against Apache Kafka and odradek", ""]
    lines += [f"- **{b}**: {info}" for b, info in meta["brokers"].items()]
    lines += [f"- kafka-tools {meta['tools_version']} for DumpLogSegments; {meta['seconds']} s", ""]
    lines += ["| step | status | notes |", "|---|---|---|"]
    for r in results + dumps:
        notes = "; ".join(p.replace("|", "\\|") for p in [r.detail, *r.problems] if p)[:400]
        lines.append(f"| {r.step} | {r.status} | {notes} |")
    counts = {s: sum(1 for r in results + dumps if r.status == s) for s in ("pass", "diff", "known", "fail")}
    lines += ["", ", ".join(f"{n} {s}" for s, n in counts.items())]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools-version", default=DEFAULT_TOOLS_VERSION)
    parser.add_argument("--report-dir", type=Path, default=COMPAT / "report")
    args = parser.parse_args(argv)
    started = time.monotonic()
    log_dir = args.report_dir / "logs" / "cli"
    args.report_dir.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = {"tools_version": args.tools_version, "brokers": {}}
    observed: dict[str, dict[str, Observed]] = {}
    with tempfile.TemporaryDirectory(prefix="cli-compat-") as tmp:
        data_dirs: dict[str, Path] = {}
        for name in (REFERENCE, "odradek"):
            print(f"== the command line against {name}", flush=True)
            meta["brokers"][name], observed[name], data_dirs[name] = run_broker(name, log_dir, Path(tmp))
        results = compare(observed[REFERENCE], observed["odradek"])
        tools = Tools(args.tools_version, Path(tmp))
        dumps = [
            Result(f"dump-log {r.name}", r.status, r.problems, detail=r.detail)
            for r in compare_dumps(tools, data_dirs, log_dir)
        ]
    meta["seconds"] = round(time.monotonic() - started, 1)
    (args.report_dir / "cli.json").write_text(
        json.dumps({**meta, "steps": [asdict(r) for r in results], "dumps": [asdict(r) for r in dumps]}, indent=1)
        + "\n"
    )
    (args.report_dir / "cli.md").write_text(markdown(meta, results, dumps))
    for r in results + dumps:
        print(f"{r.step:40} {r.status}" + (f"  {r.problems[0][:160]}" if r.problems else ""))
    failed = [r for r in results + dumps if r.status == "fail"]
    print(f"cli: {args.report_dir / 'cli.md'}; {len(results) + len(dumps)} checks, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
