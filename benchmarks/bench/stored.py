"""Read a results JSON back into case records, so the summary and chart can be written again
(``run.py --report results/<date>.json``) after a change to the report alone, without re-measuring.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.metrics import Metric, by_name
from bench.runner import CaseRecord, RunRecord


@dataclass(frozen=True)
class StoredRow:
    """A case as the JSON recorded it."""

    key: str
    workload: str
    title: str
    tool: str
    metrics: tuple[Metric, ...]
    settings: dict[str, Any] = field(default_factory=dict)


def load(path: Path) -> tuple[dict[str, Any], list[CaseRecord]]:
    """The whole document, and one record per case with its runs and set-up."""
    document: dict[str, Any] = json.loads(path.read_text())
    known = by_name()
    records: list[CaseRecord] = []
    for case in document["cases"]:
        metrics = tuple(known[f["metric"]] for f in case["figures"] if f["metric"] in known)
        row = StoredRow(case["key"], case["workload"], case["title"], case["tool"], metrics, case["settings"])
        runs = [RunRecord(r["broker"], r["index"], r["warmup"], r["sample"], r["error"]) for r in case["runs"]]
        records.append(CaseRecord(row, runs, case["setup"]))
    return document, records
