"""group_max_poll: the member that stopped polling was out of the group and came back.

Reads members_wait's ``by_member`` (left out of the cross-broker comparison): member p was not among
the holders while it paused (``without_p`` covers every partition with a and b alone), and after the
pause it holds partitions again through a new completed assignment (its rebalance count grew).
"""

from __future__ import annotations

from typing import Any


def check(steps: dict[str, dict[str, Any]], obs: dict[str, dict[str, Any]]) -> list[str]:
    three, rejoined = obs.get("three", {}), obs.get("rejoined", {})
    if not (three.get("ok") and rejoined.get("ok")):
        return []
    was, now = three["by_member"]["p"], rejoined["by_member"]["p"]
    if not now["rebalances"] > was["rebalances"]:
        return [f"member p holds {now['assignment']} after its pause without a new assignment ({now['rebalances']})"]
    return []
