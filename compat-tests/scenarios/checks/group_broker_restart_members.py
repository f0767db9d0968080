"""group_broker_restart_members: live members keep their partitions through broker restarts.

Reads members_wait's ``by_member`` (left out of the cross-broker comparison): every member holds
the same partitions after each restart as before the first one.  Rebalance counts are not
compared: some clients run their assigned callback again after a lost coordinator connection
with the same partitions (the Java client does, on both brokers), and franz-go rejoins with the
same member id when the broker stays away for seconds (Kafka's restart takes ~10 s, odradek's
under one), which keeps the assignment but counts a rebalance.  A group the broker failed to
reload would lose its member ids, and range over new ids would move partitions between members.
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
            if now["assignment"] != was["assignment"]:
                problems.append(
                    f"member {name}: {was['assignment']} before the restarts, {now['assignment']} in {later_id}"
                )
    return problems
