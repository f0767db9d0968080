"""group_broker_restart_members: live members ride through broker restarts without a rebalance.

Reads members_wait's ``by_member`` (left out of the cross-broker comparison): every member holds the
same partitions after each restart as before the first one, and reports as many completed
assignments (a rebalance after the restart, e.g. because the reloaded group lost its members and
answered UNKNOWN_MEMBER_ID to their heartbeats, would have called their assigned callbacks).
"""

from __future__ import annotations

from typing import Any


def check(steps: dict[str, dict[str, Any]], obs: dict[str, dict[str, Any]]) -> list[str]:
    before = obs.get("before", {})
    if not before.get("ok"):
        return []
    problems: list[str] = []
    for later_id in ("after", "after_kill"):
        later = obs.get(later_id, {})
        if not later.get("ok"):
            continue
        for name, was in sorted(before["by_member"].items()):
            now = later["by_member"][name]
            if now != was:
                problems.append(f"member {name}: {was} before the restarts, {now} in step {later_id}")
    return problems
