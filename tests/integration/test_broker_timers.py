"""The broker's timers on a ManualClock, driven from the test thread with advance() only: retention,
delayed segment deletion and group sessions each happen at their own millisecond, never on real
time (the broker runs on its own event-loop thread; advance() runs each timer on that loop)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from inprocess import InProcessBroker
from rawclient import RawConnection

from odradek.storage.checkpoint import RECOVERY_POINT_CHECKPOINT, read_offset_checkpoint
from odradek.storage.filesystem import OsFileSystem
from odradek.storage.partition_log import PartitionLog
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.groups import DeleteGroupsRequest, JoinGroupRequest, SyncGroupRequest
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

CHECK_INTERVAL_MS = 1_000
RECOVERY_CHECKPOINT_MS = 10_000
RETENTION_MS = 60_000
DELETE_DELAY_MS = 5_000
SESSION_MS = 10_000


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[InProcessBroker]:
    overrides = [
        f"log.retention.check.interval.ms={CHECK_INTERVAL_MS}",
        f"log.flush.offset.checkpoint.interval.ms={RECOVERY_CHECKPOINT_MS}",
        "group.initial.rebalance.delay.ms=0",
        "log.cleaner.enable=false",
    ]
    broker = InProcessBroker(tmp_path / "data", overrides, manual_clock=True)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def conn(broker: InProcessBroker) -> Iterator[RawConnection]:
    connection = RawConnection(broker.bootstrap)
    try:
        yield connection
    finally:
        connection.close()


def _log(broker: InProcessBroker, topic: str) -> PartitionLog:
    log = broker.broker.partition_log(topic, 0)
    assert log is not None
    return log


def _fill_two_segments(broker: InProcessBroker, topic: str) -> None:
    """A batch stamped now in a first segment, then a roll and a batch stamped 10 s later."""

    def fill() -> None:
        log = _log(broker, topic)
        now = broker.clock.time_ms()
        log.append(bytearray(build_batch([Record(0, 0, b"k", b"old")], base_timestamp=now)), leader_epoch=0, now_ms=now)
        log.roll(now)
        later = build_batch([Record(0, 0, b"k", b"new")], base_timestamp=now + 10_000)
        log.append(bytearray(later), leader_epoch=0, now_ms=now)

    broker.call(fill)


def test_retention_then_delayed_deletion_each_happen_at_their_deadline(
    broker: InProcessBroker, conn: RawConnection
) -> None:
    topic = "timed"
    conn.create_topic(topic, 1, {"retention.ms": str(RETENTION_MS), "file.delete.delay.ms": str(DELETE_DELAY_MS)})
    _fill_two_segments(broker, topic)
    log = _log(broker, topic)
    start_ms = broker.clock.time_ms()
    first_check = CHECK_INTERVAL_MS * (RETENTION_MS // CHECK_INTERVAL_MS + 1)  # first pass past retention.ms
    broker.clock.advance(first_check - 1)
    assert broker.call(lambda: (log.log_start_offset, len(log.deletions))) == (0, 0)
    broker.clock.advance(1)
    assert broker.call(lambda: (log.log_start_offset, len(log.deletions))) == (1, 1)
    assert broker.clock.time_ms() - start_ms == first_check
    broker.clock.advance(DELETE_DELAY_MS - 1)
    assert broker.call(lambda: len(log.deletions)) == 1
    broker.clock.advance(1)
    assert broker.call(lambda: len(log.deletions)) == 0
    broker.run(broker.broker.background_syncs_done)  # the files go on the sync worker, off the loop
    assert not any(path.name.startswith("00000000000000000000") for path in Path(log.directory).iterdir())


def test_recovery_points_are_checkpointed_at_their_own_interval_not_at_each_retention_check(
    broker: InProcessBroker, conn: RawConnection
) -> None:
    conn.create_topic("points", 1)
    _fill_two_segments(broker, "points")
    log = _log(broker, "points")
    broker.call(log.flush)
    checkpoint = Path(log.directory).parent / RECOVERY_POINT_CHECKPOINT

    def written() -> dict[tuple[str, int], int]:
        broker.run(broker.broker.background_syncs_done)
        return read_offset_checkpoint(OsFileSystem(), str(checkpoint))

    broker.clock.advance(RECOVERY_CHECKPOINT_MS - 1)  # nine retention checks
    assert ("points", 0) not in written()
    broker.clock.advance(1)
    assert written()[("points", 0)] == 2


def _stable_group(conn: RawConnection, group: str) -> None:
    """One member (JoinGroup v3: no member id round trip), leader, synced: the session starts now."""
    Protocol = JoinGroupRequest.JoinGroupRequestProtocol
    join = JoinGroupRequest(
        group_id=group,
        session_timeout_ms=SESSION_MS,
        rebalance_timeout_ms=SESSION_MS,
        member_id="",
        protocol_type="consumer",
        protocols=[Protocol(name="range", metadata=b"")],
    )
    joined = conn.request(ApiKey.JOIN_GROUP, 3, join)
    assert joined.error_code == ErrorCode.NONE
    Assignment = SyncGroupRequest.SyncGroupRequestAssignment
    sync = SyncGroupRequest(
        group_id=group,
        generation_id=joined.generation_id,
        member_id=joined.member_id,
        assignments=[Assignment(member_id=joined.member_id, assignment=b"a")],
    )
    assert conn.request(ApiKey.SYNC_GROUP, 1, sync).error_code == ErrorCode.NONE


def _delete_group(conn: RawConnection, group: str) -> ErrorCode:
    answer = conn.request(ApiKey.DELETE_GROUPS, 2, DeleteGroupsRequest(groups_names=[group]))
    return ErrorCode(answer.results[0].error_code)


def test_an_expired_session_empties_the_group_at_exactly_its_deadline(
    broker: InProcessBroker, conn: RawConnection
) -> None:
    _stable_group(conn, "g")
    broker.clock.advance(SESSION_MS - 1)
    assert _delete_group(conn, "g") is ErrorCode.NON_EMPTY_GROUP
    broker.clock.advance(2)
    assert _delete_group(conn, "g") is ErrorCode.NONE
