"""What the side-by-side runs (benchmarks/scale.py, benchmarks/abuse.py) record about the machine
and how they store their results: how busy the machine was at the start and the end (a run on a
busy machine must say so), and ``<kind>-<date>[-label].{json,md}`` beside the other results.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["busy_cores_text", "machine_at_start", "store_results"]


def _load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def machine_at_start() -> dict[str, Any]:
    """Cores, the load average and the ten busiest processes (``ps``) as a run starts."""
    listing = subprocess.run(
        ["ps", "-eo", "pcpu,etime,comm", "--sort=-pcpu"], capture_output=True, text=True, check=False
    ).stdout.splitlines()
    return {
        "cores": os.cpu_count(),
        "load_start": _load_average(),
        "busiest_at_start": [line.strip() for line in listing[1:11]],
    }


def busy_cores_text(runs: list[dict[str, Any]]) -> str:
    """Each broker's run with the machine's busy cores over it and, where the run recorded it (runs
    before 2026-11-26 did not), the cores the hypervisor gave its other guests meanwhile."""
    return ", ".join(
        f"{run['broker']} {run['machine_busy_cores']}"
        + (f" (steal {run['machine_steal_cores']})" if run.get("machine_steal_cores") is not None else "")
        for run in runs
    )


def store_results(
    document: dict[str, Any], kind: str, out: Path, markdown: Callable[[dict[str, Any]], str], label: str = ""
) -> None:
    """Record the load average at the end in ``document["machine"]``, write the JSON and its
    Markdown rendering to ``out`` and print the Markdown."""
    document["machine"]["load_end"] = _load_average()
    stamp = datetime.date.today().isoformat() + (f"-{label}" if label else "")
    out.mkdir(parents=True, exist_ok=True)
    rendered = markdown(document)
    (out / f"{kind}-{stamp}.json").write_text(json.dumps(document, indent=1) + "\n")
    (out / f"{kind}-{stamp}.md").write_text(rendered)
    print(rendered)
