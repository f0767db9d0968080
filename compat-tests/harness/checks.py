"""Scenario-level checks that look at more than one step.

Built-in types (in a scenario's "checks" list):
    {"type": "consumed_equals_produced", "produce": <step id>, "consume": <step id>}
        the consumed records are exactly the produced ones: same partition and offset as the produce
        results, same key, value and headers, and the same timestamp where the scenario supplied one.
    {"type": "python", "module": <name>}
        scenarios/checks/<name>.py defines check(steps, observations) -> list[str] (problems), where
        steps are the scenario's steps by id and observations the normalised observations by step id.
A check whose steps were not observed successfully is skipped (the step itself already failed).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

CHECKS_DIR = Path(__file__).resolve().parents[1] / "scenarios" / "checks"


def run(checks: list[dict[str, Any]], steps: dict[str, dict[str, Any]], obs: dict[str, dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    for check in checks:
        kind = check.get("type")
        if kind == "consumed_equals_produced":
            problems.extend(_consumed_equals_produced(check, steps, obs))
        elif kind == "python":
            problems.extend(_python(check["module"], steps, obs))
        else:
            problems.append(f"unknown check type {kind!r}")
    return problems


def _ok(obs: dict[str, dict[str, Any]], step_id: str) -> bool:
    return obs.get(step_id, {}).get("ok") is True


def _consumed_equals_produced(
    check: dict[str, Any], steps: dict[str, dict[str, Any]], obs: dict[str, dict[str, Any]]
) -> list[str]:
    produce_id, consume_id = check["produce"], check["consume"]
    if not (_ok(obs, produce_id) and _ok(obs, consume_id)):
        return []
    sent = steps[produce_id]["records"]
    results = obs[produce_id]["results"]
    got = obs[consume_id]["records"]
    label = f"check {produce_id}->{consume_id}"
    if len(got) != len(sent):
        return [f"{label}: produced {len(sent)} records, consumed {len(got)}"]
    problems: list[str] = []
    for i, (record, result, seen) in enumerate(zip(sent, results, got, strict=True)):
        expected = {
            "partition": result.get("partition"),
            "offset": result.get("offset"),
            "key": record["key"],
            "value": record["value"],
            "headers": [list(h) for h in record["headers"]],
        }
        if record["timestamp"] is not None:
            expected["timestamp"] = record["timestamp"]
        for key, value in expected.items():
            if seen.get(key) != value:
                problems.append(f"{label}: record {i} {key}: produced {value!r}, consumed {seen.get(key)!r}")
    return problems


def _python(module: str, steps: dict[str, dict[str, Any]], obs: dict[str, dict[str, Any]]) -> list[str]:
    path = CHECKS_DIR / f"{module}.py"
    spec = importlib.util.spec_from_file_location(f"compat_check_{module}", path)
    if spec is None or spec.loader is None:
        return [f"check module {path} not found"]
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    result: list[str] = loaded.check(steps, obs)
    return result
