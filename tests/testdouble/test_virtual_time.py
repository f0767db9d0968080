"""Virtual time: the test freezes the broker's clock and advances it; group sessions expire at
once, with no sleeping, for a raw member and for a real client's member."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import confluent_kafka

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.groups import DeleteGroupsRequest, JoinGroupRequest, SyncGroupRequest
from tests.integration.rawclient import RawConnection
from tests.testdouble.clients import consume

SESSION_MS = 10_000


def _stable_member(conn: RawConnection, group: str) -> None:
    """One member, leader, synced (JoinGroup v3 needs no member id round trip)."""
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


def test_a_silent_member_expires_when_the_test_advances_past_its_session(kafka_clean: Any, group_id: str) -> None:
    conn = RawConnection(kafka_clean.bootstrap_servers)
    try:
        _stable_member(conn, group_id)  # its session deadline is set on system time
        kafka_clean.clock.freeze()  # ... and moves to the frozen clock
        kafka_clean.clock.advance(SESSION_MS / 1000 / 2)
        assert _delete_group(conn, group_id) is ErrorCode.NON_EMPTY_GROUP
        kafka_clean.clock.advance(SESSION_MS / 1000)
        assert _delete_group(conn, group_id) is ErrorCode.NONE
    finally:
        conn.close()


def test_a_real_consumer_rejoins_after_advance_expired_its_session(
    kafka_clean: Any,
    kafka_topic: Callable[..., str],
    group_id: str,
    producer_factory: Callable[..., confluent_kafka.Producer],
    consumer_factory: Callable[..., confluent_kafka.Consumer],
) -> None:
    topic = kafka_topic()
    kafka_clean.journal.start()
    producer = producer_factory(kafka_clean.bootstrap_servers)
    producer.produce(topic, b"before")
    assert producer.flush(10) == 0
    settings = {"group.id": group_id, "session.timeout.ms": 6000, "heartbeat.interval.ms": 100}
    consumer = consumer_factory(kafka_clean.bootstrap_servers, **settings)
    consumer.subscribe([topic])
    assert consume(consumer, 1) == [b"before"]
    joins_before = len(kafka_clean.journal.requests(api="JoinGroup", group=group_id))
    kafka_clean.clock.freeze()
    kafka_clean.clock.advance(7)  # past session.timeout.ms: the coordinator expires the member now
    for _ in range(150):  # the client notices at its next heartbeat and joins again
        consumer.poll(0.1)
        if len(kafka_clean.journal.requests(api="JoinGroup", group=group_id)) > joins_before:
            break
    heartbeat_errors = {e for h in kafka_clean.journal.requests(api="Heartbeat", group=group_id) for e in h.errors}
    trail = [(e.api, e.errors, e.received_ms) for e in kafka_clean.journal.entries() if e.group == group_id]
    assert heartbeat_errors & {"UNKNOWN_MEMBER_ID", "REBALANCE_IN_PROGRESS"}, trail
    assert len(kafka_clean.journal.requests(api="JoinGroup", group=group_id)) > joins_before
    kafka_clean.clock.resume()
    consumer.close()


def test_retention_deletes_old_records_when_the_test_advances_past_it(
    kafka_clean: Any,
    kafka_topic: Callable[..., str],
    producer_factory: Callable[..., confluent_kafka.Producer],
    consumer_factory: Callable[..., confluent_kafka.Consumer],
) -> None:
    kafka_clean.clock.freeze()
    topic = kafka_topic(configs={"retention.ms": 60_000})
    producer = producer_factory(kafka_clean.bootstrap_servers)
    for value in (b"old-1", b"old-2"):
        producer.produce(topic, value, timestamp=kafka_clean.clock.time_ms())
    assert producer.flush(10) == 0
    reader = consumer_factory(kafka_clean.bootstrap_servers, **{"group.id": "watermarks"})
    partition = confluent_kafka.TopicPartition(topic, 0)
    assert reader.get_watermark_offsets(partition, timeout=10) == (0, 2)
    kafka_clean.clock.advance(30)  # within retention.ms: nothing goes
    assert reader.get_watermark_offsets(partition, timeout=10) == (0, 2)
    kafka_clean.clock.advance(6 * 60)  # past retention.ms and the next retention check (every 5 min)
    assert reader.get_watermark_offsets(partition, timeout=10) == (2, 2)
    kafka_clean.clock.resume()
