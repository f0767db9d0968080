"""The matrix: cells of (scenario, driver, broker), written as report/matrix.json and report/matrix.md.

Cell statuses:
    pass         every expectation and check held (and, for a non-reference broker, the normalised
                 observations equal the reference broker's for the same driver)
    diff         expectations held but observations differ from the reference broker's
    fail         an expectation or check did not hold, a step timed out, or the driver died
    unsupported  the client cannot do one of the scenario's steps
    skipped      the column could not run (missing toolchain, failed build, broker did not start)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STATUSES = ("pass", "diff", "fail", "unsupported", "skipped")


@dataclass(slots=True)
class Cell:
    scenario: str
    driver: str
    broker: str
    status: str
    problems: list[str] = field(default_factory=list)
    diff: list[str] = field(default_factory=list)
    log: str | None = None
    seconds: float = 0.0
    client: str = ""
    notes: list[str] = field(default_factory=list)
    observations: dict[str, Any] = field(default_factory=dict)


def write(report_dir: Path, run_info: dict[str, Any], cells: list[Cell]) -> tuple[Path, Path]:
    report_dir.mkdir(parents=True, exist_ok=True)
    json_path = report_dir / "matrix.json"
    md_path = report_dir / "matrix.md"
    payload = {
        "run": run_info,
        "summary": summary(cells),
        "cells": [{k: v for k, v in asdict(cell).items() if k != "observations"} for cell in cells],
    }
    json_path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    md_path.write_text(markdown(run_info, cells))
    return json_path, md_path


def summary(cells: list[Cell]) -> dict[str, int]:
    return {status: sum(1 for c in cells if c.status == status) for status in STATUSES}


def markdown(run_info: dict[str, Any], cells: list[Cell]) -> str:
    columns: list[tuple[str, str]] = []
    for cell in cells:
        if (cell.driver, cell.broker) not in columns:
            columns.append((cell.driver, cell.broker))
    scenarios: list[str] = []
    for cell in cells:
        if cell.scenario not in scenarios:
            scenarios.append(cell.scenario)
    by_key = {(c.scenario, c.driver, c.broker): c for c in cells}
    lines = ["# compat-tests matrix", ""]
    for name, info in run_info.get("brokers", {}).items():
        lines.append(f"- broker **{name}**: {info}")
    for name, info in run_info.get("drivers", {}).items():
        lines.append(f"- driver **{name}**: {info}")
    counts = ", ".join(f"{n} {s}" for s, n in summary(cells).items() if n)
    lines += [f"- cells: {counts}", ""]
    lines.append("| scenario | " + " | ".join(f"{d} / {b}" for d, b in columns) + " |")
    lines.append("|---|" + "---|" * len(columns))
    for scenario in scenarios:
        row = [by_key[(scenario, d, b)].status if (scenario, d, b) in by_key else "" for d, b in columns]
        lines.append(f"| {scenario} | " + " | ".join(row) + " |")
    details = [c for c in cells if c.status in ("fail", "diff", "skipped", "unsupported") and (c.problems or c.diff)]
    if details:
        lines += ["", "## Problems", ""]
        for cell in details:
            lines.append(f"### {cell.scenario} — {cell.driver} / {cell.broker}: {cell.status}")
            for problem in (cell.problems + cell.diff)[:12]:
                lines.append(f"- {problem}")
            if cell.log:
                lines.append(f"- log: `{cell.log}`")
            lines.append("")
    return "\n".join(lines) + "\n"
