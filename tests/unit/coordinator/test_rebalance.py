"""The classic rebalance protocol, driven with a ManualClock: every transition and error path."""

from __future__ import annotations

from coordinator_harness import CONSUMER, Harness, subscription

from odradek.coordinator.messages import JoinResult, SyncResult
from odradek.coordinator.records import GroupMetadataRecord
from odradek.coordinator.state import GroupState
from odradek.wire.errors import ErrorCode


def join_result(box: object) -> JoinResult:
    value = box.value  # type: ignore[attr-defined]
    assert isinstance(value, JoinResult)
    return value


def sync_result(box: object) -> SyncResult:
    value = box.value  # type: ignore[attr-defined]
    assert isinstance(value, SyncResult)
    return value


def state(h: Harness, group: str = "g") -> GroupState:
    g = h.coordinator.group(group)
    assert g is not None
    return g.state


def test_first_join_v4_requires_member_id() -> None:
    h = Harness()
    result = join_result(h.join(client_id="app"))
    assert result.error is ErrorCode.MEMBER_ID_REQUIRED
    assert result.member_id == "app-uuid1"
    assert state(h) is GroupState.EMPTY
    assert h.log == [GroupMetadataRecord("g", h.log[0].value)]  # the empty group is persisted


def test_first_join_v3_gets_an_id_directly_and_completes_after_initial_delay() -> None:
    h = Harness()
    box = h.join(version=3)
    assert not box.done
    assert state(h) is GroupState.PREPARING_REBALANCE
    h.advance(0)
    result = join_result(box)
    assert result.error is ErrorCode.NONE and result.generation_id == 1
    assert result.leader == result.member_id
    assert result.protocol_name == "range" and result.protocol_type == CONSUMER
    assert [m.member_id for m in result.members] == [result.member_id]
    assert state(h) is GroupState.COMPLETING_REBALANCE


def test_initial_rebalance_delay_waits_and_extends_for_new_members() -> None:
    h = Harness(initial_rebalance_delay_ms=3000)
    a = h.join_new(rebalance=10_000)
    h.advance(2999)
    assert not a.done
    b = h.join_new(rebalance=10_000)
    h.advance(1)
    assert not a.done and not b.done  # a new member extended the delay
    h.advance(3000)
    assert join_result(a).generation_id == join_result(b).generation_id == 1
    assert len(join_result(a).members) + len(join_result(b).members) == 2


def test_session_timeout_bounds() -> None:
    h = Harness()
    assert join_result(h.join(session=5999)).error is ErrorCode.INVALID_SESSION_TIMEOUT
    assert join_result(h.join(session=1_800_001)).error is ErrorCode.INVALID_SESSION_TIMEOUT
    assert h.coordinator.group("g") is None


def test_known_member_id_for_unknown_group() -> None:
    h = Harness()
    assert join_result(h.join(member_id="ghost")).error is ErrorCode.UNKNOWN_MEMBER_ID
    assert h.coordinator.group("g") is None


def test_inconsistent_protocols() -> None:
    h = Harness()
    h.stable_group(1)
    assert join_result(h.join_new_raw("other")).error is ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    box = h.join(protocols=(("roundrobin", b""),))
    assert join_result(box).error is ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    assert join_result(h.join(protocol_type="", protocols=(), group="fresh")).error is (
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    )


def test_protocol_selected_by_vote_among_common_protocols() -> None:
    h = Harness(initial_rebalance_delay_ms=100)
    a = h.join_new(protocols=(("sticky", b"s"), ("range", b"r")))
    b = h.join_new(protocols=(("range", b"r"), ("sticky", b"s"), ("rr", b"x")))
    c = h.join_new(protocols=(("sticky", b"s"), ("range", b"r")))
    h.advance(100)  # a second member joined during the delay: it is extended once
    h.advance(100)
    assert {join_result(x).protocol_name for x in (a, b, c)} == {"sticky"}
    leader = next(join_result(x) for x in (a, b, c) if join_result(x).members)
    assert {m.metadata for m in leader.members} == {b"s"}


def test_group_max_size() -> None:
    h = Harness(max_size=2, initial_rebalance_delay_ms=100)
    h.join_new()
    h.join_new()
    result = join_result(h.join())
    assert result.error is ErrorCode.GROUP_MAX_SIZE_REACHED and result.member_id == ""


def test_sync_delivers_the_leaders_assignment_and_persists_it() -> None:
    h = Harness(initial_rebalance_delay_ms=100)
    a, b = h.join_new(), h.join_new()
    h.advance(100)
    h.advance(100)
    ra, rb = join_result(a), join_result(b)
    leader, follower = (ra, rb) if ra.members else (rb, ra)
    assert not follower.members and follower.leader == leader.member_id
    waiting = h.sync(follower.member_id, follower.generation_id)
    assert not waiting.done
    done = h.sync(leader.member_id, leader.generation_id, {follower.member_id: b"F", leader.member_id: b"L"})
    assert sync_result(done).assignment == b"L"
    assert sync_result(waiting) == SyncResult(ErrorCode.NONE, CONSUMER, "range", b"F")
    assert state(h) is GroupState.STABLE
    record = h.log[-1]
    assert isinstance(record, GroupMetadataRecord) and record.value is not None
    assert record.value.generation == 1 and record.value.leader == leader.member_id
    assert {m.member_id: m.assignment for m in record.value.members} == {
        follower.member_id: b"F",
        leader.member_id: b"L",
    }
    assert sync_result(h.sync(follower.member_id, 1)).assignment == b"F"  # Stable: current assignment


def test_leader_missing_members_get_empty_assignments() -> None:
    h = Harness(initial_rebalance_delay_ms=100)
    a, b = h.join_new(), h.join_new()
    h.advance(100)
    h.advance(100)
    leader, follower = sorted((join_result(a), join_result(b)), key=lambda r: not r.members)
    h.sync(leader.member_id, 1, {leader.member_id: b"L"})
    assert sync_result(h.sync(follower.member_id, 1)).assignment == b""


def test_sync_errors() -> None:
    h = Harness()
    assert sync_result(h.sync("m", 1, group="nope")).error is ErrorCode.UNKNOWN_MEMBER_ID
    [leader] = h.stable_group(1)
    m = leader.member_id
    assert sync_result(h.sync("stranger", 1)).error is ErrorCode.UNKNOWN_MEMBER_ID
    assert sync_result(h.sync(m, 7)).error is ErrorCode.ILLEGAL_GENERATION
    assert sync_result(h.sync(m, 1, instance="i")).error is ErrorCode.UNKNOWN_MEMBER_ID
    h.join(member_id=m)  # the leader rejoins: PreparingRebalance until it is the only one
    h.join_new()
    assert state(h) is GroupState.PREPARING_REBALANCE
    assert sync_result(h.sync(m, 2)).error is ErrorCode.REBALANCE_IN_PROGRESS


def test_sync_with_another_protocol_name_is_inconsistent() -> None:
    from odradek.coordinator.messages import SyncRequest

    h = Harness()
    [leader] = h.stable_group(1)
    results: list[SyncResult] = []
    request = SyncRequest("g", leader.member_id, 1, None, CONSUMER, "roundrobin", ())
    h.run(h.coordinator.sync(request, results.append))
    assert results[0].error is ErrorCode.INCONSISTENT_GROUP_PROTOCOL


def test_failed_append_of_assignment_reports_mapped_error() -> None:
    h = Harness()
    box = h.join_new()
    h.advance(0)
    r = join_result(box)
    h.append_error = ErrorCode.KAFKA_STORAGE_ERROR
    assert sync_result(h.sync(r.member_id, 1, {r.member_id: b"x"})).error is ErrorCode.NOT_COORDINATOR
    assert state(h) is GroupState.PREPARING_REBALANCE


def test_new_member_triggers_rebalance_and_old_members_learn_by_heartbeat() -> None:
    h = Harness()
    a, b = h.stable_group(2)
    c = h.join_new()
    assert not c.done and state(h) is GroupState.PREPARING_REBALANCE
    assert h.heartbeat(a.member_id, 2) is ErrorCode.REBALANCE_IN_PROGRESS
    ra = h.join(member_id=a.member_id)
    rb = h.join(member_id=b.member_id)
    assert state(h) is GroupState.COMPLETING_REBALANCE
    assert {join_result(x).generation_id for x in (ra, rb, c)} == {3}
    assert h.heartbeat(a.member_id, 3) is ErrorCode.NONE  # heartbeats are fine while completing


def test_member_not_rejoining_is_dropped_at_rebalance_timeout() -> None:
    h = Harness()
    a, b = h.stable_group(2)
    again = h.join(member_id=a.member_id)
    for _ in range(3):
        h.advance(9000)
        assert h.heartbeat(b.member_id, 2) is ErrorCode.REBALANCE_IN_PROGRESS  # alive, but not rejoining
    assert not again.done
    h.advance(3000)  # the rebalance timeout (30 s) since the rebalance began
    result = join_result(again)
    assert result.generation_id == 3 and [m.member_id for m in result.members] == [a.member_id]
    assert h.heartbeat(b.member_id, 2) is ErrorCode.UNKNOWN_MEMBER_ID


def test_session_expiry_removes_member_and_rebalances() -> None:
    h = Harness()
    a, b = h.stable_group(2)
    h.advance(9000)
    assert h.heartbeat(a.member_id, 2) is ErrorCode.NONE
    assert state(h) is GroupState.STABLE
    h.advance(1000)  # b's session (10 s) expires
    assert h.heartbeat(b.member_id, 2) is ErrorCode.UNKNOWN_MEMBER_ID
    assert state(h) is GroupState.PREPARING_REBALANCE
    assert h.heartbeat(a.member_id, 2) is ErrorCode.REBALANCE_IN_PROGRESS
    rejoin = h.join(member_id=a.member_id)
    assert join_result(rejoin).generation_id == 3 and len(join_result(rejoin).members) == 1


def test_last_member_expiring_empties_the_group() -> None:
    h = Harness()
    h.stable_group(1)
    h.advance(10_000)
    assert state(h) is GroupState.EMPTY
    record = h.log[-1]
    assert isinstance(record, GroupMetadataRecord) and record.value is not None
    assert record.value.members == () and record.value.generation == 2 and record.value.protocol is None


def test_pending_member_that_never_rejoins_is_forgotten() -> None:
    h = Harness()
    first = join_result(h.join())
    group = h.coordinator.group("g")
    assert group is not None and first.member_id in group.pending_join
    h.advance(10_000)
    assert first.member_id not in group.pending_join


def test_member_that_never_syncs_is_removed() -> None:
    h = Harness(initial_rebalance_delay_ms=100)
    a, b = h.join_new(rebalance=5000), h.join_new(rebalance=5000)
    h.advance(100)
    h.advance(100)
    leader, follower = sorted((join_result(a), join_result(b)), key=lambda r: not r.members)
    h.sync(leader.member_id, 1, {})
    assert state(h) is GroupState.STABLE
    h.heartbeat(leader.member_id, 1)
    h.advance(4999)
    h.heartbeat(leader.member_id, 1)
    h.advance(1)
    assert h.heartbeat(follower.member_id, 1) is ErrorCode.UNKNOWN_MEMBER_ID
    assert state(h) is GroupState.PREPARING_REBALANCE


def test_heartbeat_errors() -> None:
    h = Harness()
    assert h.heartbeat("m", 0, group="nope") is ErrorCode.UNKNOWN_MEMBER_ID
    [a] = h.stable_group(1)
    assert h.heartbeat("stranger", 1) is ErrorCode.UNKNOWN_MEMBER_ID
    assert h.heartbeat(a.member_id, 0) is ErrorCode.ILLEGAL_GENERATION
    assert h.heartbeat(a.member_id, 1, instance="i") is ErrorCode.UNKNOWN_MEMBER_ID


def test_leave_triggers_rebalance_and_last_leave_empties() -> None:
    h = Harness()
    a, b = h.stable_group(2)
    result = h.leave((b.member_id, None))
    assert result.error is ErrorCode.NONE and result.members[0].error is ErrorCode.NONE
    assert state(h) is GroupState.PREPARING_REBALANCE
    rejoin = h.join(member_id=a.member_id)
    assert join_result(rejoin).generation_id == 3
    h.sync(a.member_id, 3, {a.member_id: b""})
    h.leave((a.member_id, None))
    assert state(h) is GroupState.EMPTY


def test_leave_errors_and_batch() -> None:
    h = Harness()
    assert h.leave(("m", None), group="nope").error is ErrorCode.UNKNOWN_MEMBER_ID
    [a] = h.stable_group(1)
    result = h.leave(("stranger", None), ("", "unknown-instance"), (a.member_id, "wrong"))
    assert [m.error for m in result.members] == [ErrorCode.UNKNOWN_MEMBER_ID] * 3
    assert state(h) is GroupState.STABLE


def test_leaving_member_parked_in_join_gets_unknown_member() -> None:
    h = Harness()
    a, _b = h.stable_group(2)
    parked = h.join(member_id=a.member_id)
    h.leave((a.member_id, None))
    assert join_result(parked).error is ErrorCode.UNKNOWN_MEMBER_ID


def test_static_member_restart_does_not_rebalance_and_fences_old_id() -> None:
    h = Harness()
    first = h.join(instance="i-1")
    h.advance(0)
    old = join_result(first)
    h.sync(old.member_id, 1, {old.member_id: b"A"})
    assert state(h) is GroupState.STABLE
    again = join_result(h.join(instance="i-1", version=8))
    assert again.error is ErrorCode.NONE and again.member_id != old.member_id
    assert again.generation_id == 1 and again.leader == old.member_id and not again.members
    assert state(h) is GroupState.STABLE
    assert h.heartbeat(old.member_id, 1, instance="i-1") is ErrorCode.FENCED_INSTANCE_ID
    assert h.heartbeat(again.member_id, 1, instance="i-1") is ErrorCode.NONE
    assert sync_result(h.sync(again.member_id, 1, instance="i-1")).assignment == b"A"


def test_static_leader_rejoin_v9_skips_assignment() -> None:
    h = Harness()
    first = h.join(instance="i-1")
    h.advance(0)
    old = join_result(first)
    h.sync(old.member_id, 1, {old.member_id: b"A"})
    again = join_result(h.join(instance="i-1", version=9))
    assert again.skip_assignment and again.leader == again.member_id
    assert [m.group_instance_id for m in again.members] == ["i-1"]


def test_static_member_parked_join_is_fenced_by_its_replacement() -> None:
    h = Harness()
    _a, _ = h.stable_group(2)
    s = h.join(instance="i-1")
    assert not s.done
    h.join(instance="i-1")
    assert join_result(s).error is ErrorCode.FENCED_INSTANCE_ID


def test_static_member_leaves_by_instance_id() -> None:
    h = Harness()
    first = h.join(instance="i-1")
    h.advance(0)
    h.sync(join_result(first).member_id, 1, {})
    result = h.leave(("", "i-1"))
    assert result.members[0].error is ErrorCode.NONE
    assert state(h) is GroupState.EMPTY


def test_follower_with_same_metadata_gets_current_generation_without_rebalance() -> None:
    h = Harness()
    a, b = h.stable_group(2)
    follower = b if a.leader == a.member_id else a
    result = join_result(h.join(member_id=follower.member_id))
    assert result.generation_id == 2 and not result.members
    assert state(h) is GroupState.STABLE


def test_rejoin_with_unknown_member_id_on_empty_group() -> None:
    h = Harness()
    [a] = h.stable_group(1)
    h.leave((a.member_id, None))
    assert join_result(h.join(member_id=a.member_id)).error is ErrorCode.UNKNOWN_MEMBER_ID


def test_subscription_helper_is_consumer_protocol_v0() -> None:
    assert subscription("ab") == b"\x00\x00\x00\x00\x00\x01\x00\x02ab\xff\xff\xff\xff"
