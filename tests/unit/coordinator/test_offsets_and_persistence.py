"""Committed offsets, group admin, retention, and the replay of __consumer_offsets at start-up."""

from __future__ import annotations

from coordinator_harness import Harness

from odradek.clock import ManualClock
from odradek.coordinator.coordinator import CoordinatorSettings, GroupCoordinator
from odradek.coordinator.messages import CommitIdentity, CommitPartition
from odradek.coordinator.rebalance import GroupSettings
from odradek.coordinator.runtime import CoordinatorRuntime
from odradek.coordinator.state import GroupState
from odradek.scheduler import Scheduler
from odradek.wire.errors import ErrorCode


def commit(h: Harness, gen: int = -1, member: str = "", version: int = 9, metadata: str | None = "m", group: str = "g"):
    return h.run(
        h.coordinator.commit_offsets(
            CommitIdentity(group, gen, member, None), [CommitPartition("t", 0, 42, 3, metadata)], version
        )
    )


def test_standalone_commit_creates_an_empty_group_and_fetch_returns_it() -> None:
    h = Harness()
    assert commit(h, metadata=None) == [ErrorCode.NONE]
    group = h.coordinator.group("g")
    assert group is not None and group.state is GroupState.EMPTY and group.protocol_type is None
    error, rows = h.coordinator.fetch_offsets("g", [("t", 0), ("t", 1)])
    assert error is ErrorCode.NONE
    assert [(t, p, v.offset if v else None, v.metadata if v else None) for t, p, v in rows] == [
        ("t", 0, 42, ""),
        ("t", 1, None, None),
    ]
    assert [lg.group_id for lg in h.coordinator.list_groups()] == ["g"]


def test_commit_validation_errors() -> None:
    h = Harness()
    assert commit(h, gen=1, member="m", version=9) == [ErrorCode.GROUP_ID_NOT_FOUND]
    assert commit(h, gen=1, member="m", version=8) == [ErrorCode.ILLEGAL_GENERATION]
    [a] = h.stable_group(1)
    assert commit(h, gen=1, member=a.member_id) == [ErrorCode.NONE]
    assert commit(h, gen=5, member=a.member_id) == [ErrorCode.ILLEGAL_GENERATION]
    assert commit(h, gen=1, member="stranger") == [ErrorCode.UNKNOWN_MEMBER_ID]
    assert commit(h, gen=-1, member="") == [ErrorCode.UNKNOWN_MEMBER_ID]
    h.join(member_id=a.member_id)  # leader rejoins: generation 2, CompletingRebalance
    assert commit(h, gen=2, member=a.member_id) == [ErrorCode.REBALANCE_IN_PROGRESS]
    assert commit(h, metadata="x" * 4097, group="other") == [ErrorCode.OFFSET_METADATA_TOO_LARGE]


def test_delete_offsets_rules() -> None:
    h = Harness()
    assert h.run(h.coordinator.delete_offsets("nope", [("t", 0)]))[0] is ErrorCode.GROUP_ID_NOT_FOUND
    [a] = h.stable_group(1)  # subscribes to "t"
    commit(h, gen=1, member=a.member_id)
    error, errors = h.run(h.coordinator.delete_offsets("g", [("t", 0), ("u", 0)]))
    assert error is ErrorCode.NONE and errors == [ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, ErrorCode.NONE]
    h.leave((a.member_id, None))
    error, errors = h.run(h.coordinator.delete_offsets("g", [("t", 0)]))
    assert errors == [ErrorCode.NONE] and h.coordinator.fetch_offsets("g", [("t", 0)])[1][0][2] is None


def test_delete_groups() -> None:
    h = Harness()
    h.stable_group(1, group="busy")
    commit(h)
    errors = h.run(h.coordinator.delete_groups(["busy", "g", "nope"]))
    assert errors == [ErrorCode.NON_EMPTY_GROUP, ErrorCode.NONE, ErrorCode.GROUP_ID_NOT_FOUND]
    assert h.coordinator.group("g") is None and not h.coordinator.offsets.has_offsets("g")


def test_describe_and_list() -> None:
    h = Harness()
    [a] = h.stable_group(1)
    described = h.coordinator.describe_group("g")
    assert described is not None and described.state is GroupState.STABLE and described.protocol_data == "range"
    assert described.members[0].assignment == a.member_id.encode()
    h.join_new()
    described = h.coordinator.describe_group("g")
    assert described is not None and described.protocol_data == ""
    assert all(m.metadata == b"" for m in described.members)
    assert h.coordinator.describe_group("nope") is None
    assert h.coordinator.list_groups(["preparingrebalance"]) and not h.coordinator.list_groups(["Stable"])
    assert not h.coordinator.list_groups(types=["consumer"])


def test_offsets_of_an_empty_group_expire_then_the_group_goes() -> None:
    h = Harness()
    commit(h)
    retention = h.coordinator.settings.offsets_retention_ms
    h.advance(0)
    h.advance(retention - 1)
    assert h.coordinator.offsets.has_offsets("g")
    h.advance(h.coordinator.settings.offsets_retention_check_interval_ms)
    assert not h.coordinator.offsets.has_offsets("g") and h.coordinator.group("g") is None


def test_state_survives_a_restart_through_the_log() -> None:
    h = Harness()
    [a] = h.stable_group(1)
    commit(h, gen=1, member=a.member_id)
    commit(h, group="standalone")
    clock = ManualClock(5_000_000)
    fresh = GroupCoordinator(CoordinatorSettings(GroupSettings()), clock)
    CoordinatorRuntime(fresh, h.offsets_log, 50, Scheduler(clock)).load()
    group = fresh.group("g")
    assert group is not None and group.state is GroupState.STABLE and group.generation_id == 1
    assert group.members[a.member_id].assignment == a.member_id.encode()
    assert group.leader_id == a.member_id
    assert fresh.fetch_offsets("g", [("t", 0)])[1][0][2] == h.coordinator.offsets.get("g", "t", 0)
    assert fresh.group("standalone") is not None
    clock.advance(9_999)
    assert group.state is GroupState.STABLE
    clock.advance(1)  # no heartbeat since the restart: the member's session expires at its deadline
    assert group.state is GroupState.EMPTY
