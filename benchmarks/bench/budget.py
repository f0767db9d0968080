"""Where a request's CPU goes, by stage, from py-spy's raw stacks (``request_cost.py --profile``).

    python benchmarks/bench/budget.py /tmp/prof/produce1.txt --us 56.0

Only the event-loop thread counts (idle pool threads waiting on a queue show up in py-spy's samples
but use no CPU). Each sample goes to the stage of the innermost frame that names one, walking from
the leaf towards the root, so a ``Reader.int32`` under ``decode_ProduceRequest_v9`` is decode and an
``os.write`` under ``PartitionLog.append`` is storage:

- decode: framing (``wire/framing.py``, the connection's ``buffer_updated``), the request header and body
- dispatch: ``handlers/dispatch.py`` and the connection's request loop, minus what they call below
- handler: the API's handler module (``handlers/*.py``) minus storage
- storage: ``partition/`` and ``storage/`` (produce checks, the log append or read, os.write/pread)
- encode: the answer's encoding (``encode_*``)
- write: handing the answer to the socket (``_send``, ``write_parts``: the send syscall)
- loop: uvloop itself (socket reads into new bytes objects, epoll) and everything else

With ``--us`` (the CPU µs per request ``request_cost.py`` measured) each share is also given in µs.

The budget table of benchmarks/profiles.md (one row per request shape and measurement) is also kept as
data, ``results/budget.json``, which the summary writer reads to say, beside a missed target, where the
CPU of the request shape that workload depends on goes (`SHAPES_BY_WORKLOAD`).  Written again after the
table changes with:

    python benchmarks/bench/budget.py --from-profiles benchmarks/profiles.md
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

STAGES = ("decode", "dispatch", "handler", "storage", "encode", "write", "loop")
#: The request shapes of the budget table each workload's figures depend on: W3 and W6 send one record
#: per request, to one partition (the test double's journal over a W6-rdkafka run: 40,000 Produce
#: requests of one partition and one record each, from 200 producers and no consumer).
SHAPES_BY_WORKLOAD: dict[str, tuple[str, ...]] = {"W3": ("produce1",), "W6": ("produce-spread",)}
BUDGET_FILE = "budget.json"
_RESULTS = Path(__file__).resolve().parents[1] / "results"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_FRAME = re.compile(r"^(?P<function>\S+) \((?P<file>[^:)]+)")
MAIN_THREAD = "_run_event_loop"


def stage_of(function: str, file: str) -> str | None:
    """The stage one frame names, or None when it names none (a helper that inherits its caller's)."""
    if function in ("_send", "write_parts") or file.endswith("server/zerocopy.py"):
        return "write"
    if function.startswith("encode"):
        return "encode"
    if function.startswith("decode") or function == "_run_decoder" or file.endswith("wire/framing.py"):
        return "decode"
    if function == "buffer_updated":
        return "decode"
    if "odradek/partition/" in file or "odradek/storage/" in file:
        return "storage"
    if file.endswith("handlers/dispatch.py") or file.endswith("server/connection.py"):
        return "dispatch"
    if "odradek/handlers/" in file:
        return "handler"
    return None


def classify(stack: str) -> str | None:
    """The stage of one sample (``frame;frame;...;leaf``), or None for a sample of another thread."""
    frames = stack.split(";")
    if not any(frame.startswith(MAIN_THREAD) for frame in frames):
        return None
    for frame in reversed(frames):
        match = _FRAME.match(frame)
        if match is None:
            continue
        stage = stage_of(match["function"], match["file"])
        if stage is not None:
            return stage
    return "loop"


def shares(lines: Iterable[str]) -> dict[str, float]:
    """Each stage's share of the event-loop thread's samples (0..1, all stages present)."""
    counts: Counter[str] = Counter()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        stage = classify(stack)
        if stage is not None:
            counts[stage] += int(count)
    total = sum(counts.values())
    return {stage: (counts[stage] / total if total else 0.0) for stage in STAGES}


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def table_from_profiles(text: str) -> dict[str, Any]:
    """The budget table of profiles.md as data: for each shape its newest row (the table lists a
    shape's rows oldest first), when it was measured (the newest date in the ``when`` cells of the
    rows the workloads read, else the date of the section holding the table), and `SHAPES_BY_WORKLOAD`.

    Raises ``ValueError`` when there is no table whose header is ``| shape | when | total |`` and the
    stages, or a shape named in `SHAPES_BY_WORKLOAD` has no row."""
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if _cells(line)[:3] == ["shape", "when", "total"]), None)
    if header is None or tuple(_cells(lines[header])[3:]) != STAGES:
        raise ValueError(f"no budget table (| shape | when | total | {' | '.join(STAGES)} |)")
    heading = next((line for line in reversed(lines[:header]) if line.startswith("## ")), "")
    date = _DATE.search(heading)
    shapes: dict[str, dict[str, Any]] = {}
    for line in lines[header + 2 :]:
        if not line.startswith("|"):
            break
        shape, when, total, *stages = _cells(line)
        shapes[shape] = {
            "when": when,
            "total_us": float(total),
            "stages_us": {stage: float(value) for stage, value in zip(STAGES, stages, strict=True)},
        }
    read = {shape for shapes_read in SHAPES_BY_WORKLOAD.values() for shape in shapes_read}
    missing = sorted(read - set(shapes))
    if missing:
        raise ValueError(f"the budget table has no row for {', '.join(missing)}")
    row_dates = [found.group() for shape in read if (found := _DATE.search(shapes[shape]["when"]))]
    return {
        "source": "benchmarks/profiles.md",
        "measured": max(row_dates) if row_dates else (date.group() if date else None),
        "unit": "broker CPU µs per request",
        "workloads": {workload: list(wanted) for workload, wanted in SHAPES_BY_WORKLOAD.items()},
        "shapes": shapes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--us", type=float, help="CPU µs per request, to turn shares into µs")
    parser.add_argument("--from-profiles", type=Path, help="write the budget table of this profiles.md as JSON")
    parser.add_argument("--out", type=Path, default=_RESULTS / BUDGET_FILE, help="where --from-profiles writes")
    args = parser.parse_args()
    if args.from_profiles is not None:
        table = table_from_profiles(args.from_profiles.read_text())
        args.out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.out}")
        return
    if not args.files:
        parser.error("py-spy raw files, or --from-profiles")
    lines = [line for path in args.files for line in path.read_text().splitlines()]
    found = shares(lines)
    print(" | ".join(STAGES))
    if args.us:
        print(" | ".join(f"{found[s] * args.us:.1f}" for s in STAGES) + f"  (µs of {args.us:.1f})")
    print(" | ".join(f"{found[s] * 100:.0f}%" for s in STAGES))


if __name__ == "__main__":
    main()
