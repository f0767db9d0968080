"""Run fuzz families one after the other, each in its own process, and summarise them.

    python -m tests.fuzz.campaign [--runs N] [--families request,batch] [--work DIR] [--summary FILE]

`make fuzz` runs every family for 1,000,000 executions; the test suite runs a short one.  Each
family's libFuzzer log goes to ``DIR/FAMILY/log``; the summary (one JSON object per family:
executions, seconds, libFuzzer's edge and feature counters, corpus size, for the message families
how many (API, version) decoders the corpus reaches with a successful decode, and any crash file)
is printed and, with ``--summary``, written as JSON.  Exits 1 when any family crashed: turn each
crash file into a regression (``tests/fuzz/regressions/FAMILY/``) once the decoder is fixed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fuzz.seeds import CORPUS_DIR, REGRESSIONS_DIR, generated_seeds, stored_inputs
from tests.fuzz.targets import FAMILIES, decoded_schema, message_versions

__all__ = ["run_family"]

_ROOT = Path(__file__).resolve().parents[2]
_STATUS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/", re.MULTILINE)
_DONE = re.compile(r"^Done (\d+) runs in (\d+) second", re.MULTILINE)
_CRASH = re.compile(r"Test unit written to (\S+)")


def _decoders_reached(family: str, corpus: Path) -> dict[str, int] | None:
    """For the message families: (API, version) pairs some input of the final corpus (the seeds
    and what the run added) decodes, of all pairs."""
    if family not in ("request", "response"):
        return None
    inputs = [*generated_seeds(family), *(path.read_bytes() for path in corpus.iterdir())]
    inputs += [data for root in (CORPUS_DIR, REGRESSIONS_DIR) for _, data in stored_inputs(root, family)]
    reached = {decoded_schema(family, data) for data in inputs}
    reached.discard(None)
    return {"reached": len(reached), "of": message_versions()}


def run_family(family: str, runs: int, work: Path, seed: int = 1) -> dict[str, Any]:
    """One family under atheris for ``runs`` executions; its summary (see the module docstring)."""
    log_dir = work / family
    log_dir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "tests.fuzz.run", family, "--work", str(work), f"-runs={runs}", f"-seed={seed}"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run(
            command, cwd=_ROOT, env=env, capture_output=True, text=True, errors="replace", check=False
        )
    finally:  # the run's temporary files (`tests.fuzz.run`), also after a crash or an interrupt
        shutil.rmtree(log_dir / "tmp", ignore_errors=True)
    log = done.stdout + done.stderr
    (log_dir / "log").write_text(log)
    status = _STATUS.findall(log)
    finished = _DONE.search(log)
    crash = _CRASH.search(log)
    summary: dict[str, Any] = {
        "family": family,
        "exit": done.returncode,
        "executions": int(finished.group(1)) if finished else (int(status[-1][0]) if status else 0),
        "seconds": int(finished.group(2)) if finished else None,
    }
    if status:
        _, cov, ft, corp = status[-1]
        summary |= {"edges": int(cov), "features": int(ft), "corpus": int(corp)}
    reached = _decoders_reached(family, log_dir / "corpus")
    if reached is not None:
        summary["decoders"] = reached
    if crash:
        summary["crash"] = crash.group(1)
    return summary


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--work", type=Path, default=_ROOT / ".fuzz")
    parser.add_argument("--summary", type=Path)
    args = parser.parse_args(argv)
    results = []
    for family in args.families.split(","):
        result = run_family(family, args.runs, args.work.resolve())
        print(json.dumps(result), flush=True)
        results.append(result)
    if args.summary is not None:
        args.summary.write_text(json.dumps(results, indent=1) + "\n")
    crashed = [r for r in results if r["exit"] != 0]
    for result in crashed:
        print(f"{result['family']}: crashed, input in {result.get('crash')}, log in {args.work}/{result['family']}/log")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
