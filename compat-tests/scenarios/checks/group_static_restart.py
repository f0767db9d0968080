"""group_static_restart: a restarted static member gets its partitions back and nobody else rebalances.

Reads members_wait's ``by_member`` (left out of the cross-broker comparison). Member b is restarted
between ``before`` and ``after``, member a (usually the leader) between ``after`` and ``after_a``:
each restarted member holds what it held before, and the two others report as many completed
assignments as before (a rebalance would have called their assigned callbacks).
"""

from __future__ import annotations

from typing import Any

#: (observation before the restart, observation after it, the restarted member)
_RESTARTS = (("before", "after", "b"), ("after", "after_a", "a"))


def check(steps: dict[str, dict[str, Any]], obs: dict[str, dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    for before_id, after_id, restarted in _RESTARTS:
        before, after = obs.get(before_id, {}), obs.get(after_id, {})
        if not (before.get("ok") and after.get("ok")):
            continue
        was, now = before["by_member"], after["by_member"]
        if now[restarted]["assignment"] != was[restarted]["assignment"]:
            problems.append(
                f"restarted static member {restarted} holds {now[restarted]['assignment']} in step {after_id}, "
                f"before {was[restarted]['assignment']}"
            )
        for name in sorted(set(now) - {restarted}):
            if now[name]["rebalances"] != was[name]["rebalances"]:
                problems.append(
                    f"member {name} saw a rebalance when static member {restarted} restarted: "
                    f"{was[name]['rebalances']} assignments in step {before_id}, "
                    f"{now[name]['rebalances']} in {after_id}"
                )
    return problems
