"""Group deadlines fire at their own millisecond, and a failed append is remapped in one place."""

from __future__ import annotations

import pytest
from coordinator_harness import Harness

from odradek.coordinator.messages import CommitIdentity, CommitPartition
from odradek.coordinator.results import Result, response_error, settle
from odradek.coordinator.state import GroupState
from odradek.wire.errors import ErrorCode


def test_a_session_ends_at_exactly_its_deadline() -> None:
    h = Harness()
    [member] = h.stable_group(1)  # session timeout 10 s, last heartbeat at the sync
    h.advance(9_999)
    assert h.run(h.coordinator.delete_groups(["g"])) == [ErrorCode.NON_EMPTY_GROUP]
    h.advance(2)
    assert h.run(h.coordinator.delete_groups(["g"])) == [ErrorCode.NONE]
    assert h.coordinator.group("g") is None
    assert h.heartbeat(member.member_id, 1) is ErrorCode.UNKNOWN_MEMBER_ID


def test_a_heartbeat_moves_the_session_deadline() -> None:
    h = Harness()
    [member] = h.stable_group(1)
    h.advance(6_000)
    assert h.heartbeat(member.member_id, 1) is ErrorCode.NONE
    h.advance(9_999)
    assert h.coordinator.group("g") is not None and h.coordinator.group("g").state is GroupState.STABLE  # type: ignore[union-attr]
    h.advance(1)
    assert h.coordinator.group("g").state is GroupState.EMPTY  # type: ignore[union-attr]


def test_each_member_expires_at_its_own_deadline() -> None:
    h = Harness()
    first, second = h.stable_group(2)
    h.advance(3_000)
    assert h.heartbeat(second.member_id, 2) is ErrorCode.NONE
    group = h.coordinator.group("g")
    assert group is not None
    h.advance(6_999)
    assert set(group.members) == {first.member_id, second.member_id}
    h.advance(1)
    assert set(group.members) == {second.member_id} and group.state is GroupState.PREPARING_REBALANCE


def test_deleted_groups_cancel_their_timer() -> None:
    h = Harness()
    h.stable_group(1)
    h.advance(10_000)
    assert h.run(h.coordinator.delete_groups(["g"])) == [ErrorCode.NONE]
    assert h.runtime._group_timers == {}


# ------------------------------------------------------------ failure remapping


@pytest.mark.parametrize(
    ("append_error", "too_large", "expected"),
    [
        (ErrorCode.NONE, ErrorCode.INVALID_COMMIT_OFFSET_SIZE, ErrorCode.NONE),
        (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.COORDINATOR_NOT_AVAILABLE),
        (ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.COORDINATOR_NOT_AVAILABLE),
        (ErrorCode.REQUEST_TIMED_OUT, ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.COORDINATOR_NOT_AVAILABLE),
        (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.NOT_COORDINATOR),
        (ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.INVALID_COMMIT_OFFSET_SIZE, ErrorCode.NOT_COORDINATOR),
        (ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.UNKNOWN_SERVER_ERROR),
        (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.INVALID_COMMIT_OFFSET_SIZE, ErrorCode.INVALID_COMMIT_OFFSET_SIZE),
        (ErrorCode.INVALID_FETCH_SIZE, ErrorCode.INVALID_COMMIT_OFFSET_SIZE, ErrorCode.INVALID_COMMIT_OFFSET_SIZE),
        (ErrorCode.CORRUPT_MESSAGE, ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.CORRUPT_MESSAGE),
    ],
)
def test_response_error_remaps_an_append_error(
    append_error: ErrorCode, too_large: ErrorCode, expected: ErrorCode
) -> None:
    assert response_error(append_error, too_large) is expected


def test_settle_tells_on_append_the_remapped_error_and_builds_the_failed_response() -> None:
    heard: list[ErrorCode] = []
    result = Result(["planned"], on_append=heard.append, on_failure=lambda planned, error: [*planned, error.name])
    assert settle(result, ErrorCode.KAFKA_STORAGE_ERROR) == ["planned", "NOT_COORDINATOR"]
    assert heard == [ErrorCode.NOT_COORDINATOR]
    assert settle(Result("kept"), ErrorCode.KAFKA_STORAGE_ERROR) == "kept"
    assert settle(result, ErrorCode.NONE) == ["planned"] and heard[-1] is ErrorCode.NONE


def _commit(h: Harness, metadata: str = "m") -> list[ErrorCode]:
    partitions = [CommitPartition("t", 0, 1, 0, metadata), CommitPartition("t", 1, 1, 0, "x" * 5000)]
    return h.run(h.coordinator.commit_offsets(CommitIdentity("g", -1, "", None), partitions, 9))


def test_a_failed_commit_answers_the_remapped_error_for_the_accepted_partitions_only() -> None:
    h = Harness()
    h.append_error = ErrorCode.RECORD_LIST_TOO_LARGE
    assert _commit(h) == [ErrorCode.INVALID_COMMIT_OFFSET_SIZE, ErrorCode.OFFSET_METADATA_TOO_LARGE]
    h.append_error = ErrorCode.KAFKA_STORAGE_ERROR
    assert _commit(h) == [ErrorCode.NOT_COORDINATOR, ErrorCode.OFFSET_METADATA_TOO_LARGE]
    assert not h.coordinator.offsets.has_offsets("g")
    h.append_error = ErrorCode.NONE
    assert _commit(h) == [ErrorCode.NONE, ErrorCode.OFFSET_METADATA_TOO_LARGE]
    assert h.coordinator.offsets.has_offsets("g")


def test_failed_deletes_answer_the_remapped_error_and_keep_the_state() -> None:
    h = Harness()
    _commit(h)
    h.append_error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert h.run(h.coordinator.delete_offsets("g", [("t", 0)])) == (ErrorCode.COORDINATOR_NOT_AVAILABLE, [])
    assert h.run(h.coordinator.delete_groups(["g", "nope"])) == [
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.GROUP_ID_NOT_FOUND,
    ]
    assert h.coordinator.group("g") is not None and h.coordinator.offsets.has_offsets("g")
