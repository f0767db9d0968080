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
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

STAGES = ("decode", "dispatch", "handler", "storage", "encode", "write", "loop")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--us", type=float, help="CPU µs per request, to turn shares into µs")
    args = parser.parse_args()
    lines = [line for path in args.files for line in path.read_text().splitlines()]
    found = shares(lines)
    print(" | ".join(STAGES))
    if args.us:
        print(" | ".join(f"{found[s] * args.us:.1f}" for s in STAGES) + f"  (µs of {args.us:.1f})")
    print(" | ".join(f"{found[s] * 100:.0f}%" for s in STAGES))


if __name__ == "__main__":
    main()
