"""group_members: the members' assignments are disjoint and together cover every partition of the topic."""

from __future__ import annotations

from typing import Any


def check(steps: dict[str, dict[str, Any]], obs: dict[str, dict[str, Any]]) -> list[str]:
    seen = obs.get("members", {})
    if not seen.get("ok"):
        return []
    owned = [tuple(pair) for member in seen["members"] for pair in member["assignment"]]
    wanted = {("{topic}", p) for p in range(int(steps["create"]["partitions"]))}
    problems: list[str] = []
    if len(owned) != len(set(owned)):
        problems.append(f"a partition is owned by two members: {sorted(owned)}")
    if set(owned) != wanted:
        problems.append(f"owned partitions {sorted(set(owned))}, expected {sorted(wanted)}")
    return problems
