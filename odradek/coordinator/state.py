"""The states of a classic group and the one table of legal transitions (Kafka's ClassicGroupState).

- Empty: no members; offsets may still be committed (generation -1) and fetched.
- PreparingRebalance: members are (re)joining; JoinGroup requests wait for the others.
- CompletingRebalance: the join phase is over; waiting for the leader's SyncGroup assignment.
- Stable: every member has its assignment; heartbeats keep members alive.
- Dead: the group is gone (deleted, or its offsets expired); nothing leaves this state.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["GroupState", "IllegalTransition", "check_transition"]


class GroupState(Enum):
    """The value is the name Kafka reports in DescribeGroups and ListGroups."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


class IllegalTransition(RuntimeError):
    """A transition the table does not allow: a coordinator bug, never a client's fault."""


_S = GroupState
# Target state -> the states it may be entered from.
VALID_PREVIOUS: dict[GroupState, frozenset[GroupState]] = {
    _S.EMPTY: frozenset({_S.PREPARING_REBALANCE}),
    _S.PREPARING_REBALANCE: frozenset({_S.STABLE, _S.COMPLETING_REBALANCE, _S.EMPTY}),
    _S.COMPLETING_REBALANCE: frozenset({_S.PREPARING_REBALANCE}),
    _S.STABLE: frozenset({_S.COMPLETING_REBALANCE}),
    _S.DEAD: frozenset(GroupState),
}


def check_transition(old: GroupState, new: GroupState) -> None:
    if old not in VALID_PREVIOUS[new]:
        raise IllegalTransition(f"group cannot go from {old.value} to {new.value}")
