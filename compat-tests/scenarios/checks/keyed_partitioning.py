"""keyed_partitioning: same key -> same partition across both produce steps; several partitions used;
offsets within each partition are 0, 1, 2, ... in send order."""

from __future__ import annotations

from typing import Any


def check(steps: dict[str, dict[str, Any]], obs: dict[str, dict[str, Any]]) -> list[str]:
    if not all(obs.get(s, {}).get("ok") for s in ("produce", "produce_again")):
        return []
    problems: list[str] = []
    first = obs["produce"]["results"]
    second = obs["produce_again"]["results"]
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        if a.get("partition") != b.get("partition"):
            problems.append(f"key user-{i}: partition {a.get('partition')} then {b.get('partition')}")
    used = {r.get("partition") for r in first}
    if len(used) < 2:
        problems.append(f"24 distinct keys all went to partitions {sorted(used)}")
    next_offset: dict[int, int] = {}
    for i, result in enumerate(first + second):
        partition = result.get("partition")
        if not isinstance(partition, int):
            continue
        expected = next_offset.get(partition, 0)
        if result.get("offset") != expected:
            problems.append(f"record {i}: partition {partition} offset {result.get('offset')}, expected {expected}")
        next_offset[partition] = expected + 1
    return problems
