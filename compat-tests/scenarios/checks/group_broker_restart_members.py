"""group_broker_restart_members: live members keep their partitions through broker restarts.

Reads members_wait's ``by_member`` (left out of the cross-broker comparison): every member holds
the same partitions after each restart as before the first one.  Rebalance counts are not
compared: some clients run their assigned callback again after a lost coordinator connection
with the same partitions (the Java client does, on both brokers), and franz-go rejoins with the
same member id when the broker stays away for seconds (Kafka's restart takes ~10 s, odradek's
under one), which keeps the assignment but counts a rebalance.  A group the broker failed to
reload would lose its member ids, and range over new ids would move partitions between members.

A member whose client reports its member id (``by_member[name]["member_id"]``) and came back with
another one gave up its membership by itself: kafkajs restarts a consumer whose coordinator was
away for a few seconds, and Kafka's own log then shows "Dynamic member with unknown member id
joins".  Range then sorts a different set of member ids, so partitions may move between any of
the members: that restart says nothing about the broker's reload and is not compared.
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
        if not later.get("ok") or _a_member_rejoined_as_new(before["by_member"], later["by_member"]):
            continue
        for name, was in sorted(before["by_member"].items()):
            now = later["by_member"][name]
            if now["assignment"] != was["assignment"]:
                problems.append(
                    f"member {name}: {was['assignment']} before the restarts, {now['assignment']} in {later_id}"
                )
    return problems


def _a_member_rejoined_as_new(before: dict[str, Any], later: dict[str, Any]) -> bool:
    """True when a member whose client reports member ids holds another id than before."""
    return any(
        was.get("member_id") is not None
        and later[name].get("member_id") is not None
        and later[name]["member_id"] != was["member_id"]
        for name, was in before.items()
    )
