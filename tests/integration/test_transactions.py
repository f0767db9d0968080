"""Transactions through a real client (confluent-kafka, librdkafka) over real sockets.

Commit and abort across partitions, what read_committed and read_uncommitted consumers see,
zombie fencing, consume-transform-produce with the offsets in the transaction; then, on a broker
running a manual clock, a transaction left open past its timeout and producers idle past
``producer.id.expiration.ms``; and a transaction whose markers could not be written to one
partition (a failing disk), completed by the marker retries or by the next start-up.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from inprocess import InProcessBroker, raw_broker
from rawclient import RawConnection
from test_storage_faults import FailingDisk

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.list_offsets import ListOffsetsRequest
from odradek.wire.messages.txn import DescribeProducersRequest, DescribeTransactionsRequest

READ_COMMITTED, READ_UNCOMMITTED = 1, 0
TIMEOUT_S = 20.0


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessBroker]:
    proc = InProcessBroker(tmp_path_factory.mktemp("txn"), ["group.initial.rebalance.delay.ms=0"])
    proc.start()
    yield proc
    proc.stop()


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _producer(bootstrap: str, transactional_id: str, **extra: Any) -> Producer:
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id, "linger.ms": 5, **extra})
    producer.init_transactions(TIMEOUT_S)
    return producer


def _transaction(producer: Producer, topic: str, values: list[tuple[int, str]], commit: bool | None) -> None:
    """Produce ``(partition, value)`` records in one transaction; commit, abort or (None) leave it open."""
    producer.begin_transaction()
    for partition, value in values:
        producer.produce(topic, value=value.encode(), partition=partition)
    assert producer.flush(TIMEOUT_S) == 0
    if commit is True:
        producer.commit_transaction(TIMEOUT_S)
    elif commit is False:
        producer.abort_transaction(TIMEOUT_S)


def _read(bootstrap: str, topic: str, partition: int, isolation: str, expect: int) -> list[tuple[int, str]]:
    """``(offset, value)`` of what an assigned consumer reads from the start: ``expect`` records, or
    what it has when the end of the partition (for its isolation level) is reached."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": _name("reader"),
            "isolation.level": isolation,
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    consumer.assign([TopicPartition(topic, partition, 0)])
    found: list[tuple[int, str]] = []
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while len(found) < expect and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error() is not None:
                if found or expect == 0:
                    break
                continue
            found.append((msg.offset(), msg.value().decode()))
    finally:
        consumer.close()
    return found


def _list_offset(conn: RawConnection, topic: str, partition: int, isolation: int) -> int:
    request = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=isolation,
        topics=[
            ListOffsetsRequest.ListOffsetsTopic(
                name=topic,
                partitions=[
                    ListOffsetsRequest.ListOffsetsTopic.ListOffsetsPartition(partition_index=partition, timestamp=-1)
                ],
            )
        ],
    )
    answer = conn.request(ApiKey.LIST_OFFSETS, 9, request).topics[0].partitions[0]
    assert answer.error_code == ErrorCode.NONE
    return int(answer.offset)


def _describe(conn: RawConnection, transactional_id: str) -> Any:
    request = DescribeTransactionsRequest(transactional_ids=[transactional_id])
    return conn.request(ApiKey.DESCRIBE_TRANSACTIONS, 0, request).transaction_states[0]


def test_commit_and_abort_across_three_partitions(broker: InProcessBroker) -> None:
    topic = _name("t")
    conn = RawConnection(broker.bootstrap)
    conn.create_topic(topic, partitions=3)
    producer = _producer(broker.bootstrap, _name("tx"))
    _transaction(producer, topic, [(i % 3, f"c1-{i}") for i in range(6)], commit=True)
    _transaction(producer, topic, [(i % 3, f"a2-{i}") for i in range(3)], commit=False)
    _transaction(producer, topic, [(i % 3, f"c3-{i}") for i in range(3)], commit=True)
    for p in range(3):
        # Per partition: two committed records, their marker, an aborted one and its marker, a
        # committed one and its marker.
        assert _read(broker.bootstrap, topic, p, "read_committed", 3) == [
            (0, f"c1-{p}"),
            (1, f"c1-{p + 3}"),
            (5, f"c3-{p}"),
        ]
        uncommitted = _read(broker.bootstrap, topic, p, "read_uncommitted", 4)
        assert uncommitted == [(0, f"c1-{p}"), (1, f"c1-{p + 3}"), (3, f"a2-{p}"), (5, f"c3-{p}")]
        assert _list_offset(conn, topic, p, READ_COMMITTED) == _list_offset(conn, topic, p, READ_UNCOMMITTED) == 7
    conn.close()


def test_an_open_transaction_holds_read_committed_consumers_at_its_start(broker: InProcessBroker) -> None:
    topic = _name("t")
    conn = RawConnection(broker.bootstrap)
    conn.create_topic(topic)
    producer = _producer(broker.bootstrap, _name("tx"))
    _transaction(producer, topic, [(0, f"v{i}") for i in range(5)], commit=True)
    assert _list_offset(conn, topic, 0, READ_COMMITTED) == 6, "five records and a commit marker"
    _transaction(producer, topic, [(0, "open-0"), (0, "open-1")], commit=None)
    assert (_list_offset(conn, topic, 0, READ_UNCOMMITTED), _list_offset(conn, topic, 0, READ_COMMITTED)) == (8, 6)
    assert [v for _, v in _read(broker.bootstrap, topic, 0, "read_committed", 7)] == [f"v{i}" for i in range(5)]
    assert len(_read(broker.bootstrap, topic, 0, "read_uncommitted", 7)) == 7
    producer.commit_transaction(TIMEOUT_S)
    assert _list_offset(conn, topic, 0, READ_COMMITTED) == 9
    assert [v for _, v in _read(broker.bootstrap, topic, 0, "read_committed", 7)][-2:] == ["open-0", "open-1"]
    conn.close()


def test_a_zombie_is_fenced_and_its_transaction_aborted(broker: InProcessBroker) -> None:
    topic, transactional_id = _name("t"), _name("tx")
    conn = RawConnection(broker.bootstrap)
    conn.create_topic(topic)
    zombie = _producer(broker.bootstrap, transactional_id)
    _transaction(zombie, topic, [(0, "zombie")], commit=None)
    fresh = _producer(broker.bootstrap, transactional_id)
    _transaction(fresh, topic, [(0, "fresh")], commit=True)
    with pytest.raises(KafkaException) as fenced:
        zombie.commit_transaction(TIMEOUT_S)
    assert fenced.value.args[0].fatal()
    assert [v for _, v in _read(broker.bootstrap, topic, 0, "read_committed", 1)] == ["fresh"]
    conn.close()


def test_consume_transform_produce_commits_the_offsets_with_the_records(broker: InProcessBroker) -> None:
    source, sink, group = _name("in"), _name("out"), _name("g")
    conn = RawConnection(broker.bootstrap)
    conn.create_topic(source, partitions=2)
    conn.create_topic(sink, partitions=2)
    plain = Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(10):
        plain.produce(source, value=f"v{i}".encode(), partition=i % 2)
    assert plain.flush(TIMEOUT_S) == 0
    copier = _producer(broker.bootstrap, _name("copy"))
    consumer = Consumer(
        {
            "bootstrap.servers": broker.bootstrap,
            "group.id": group,
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe([source])
    copied: list[Any] = []
    deadline = time.monotonic() + TIMEOUT_S
    while len(copied) < 6 and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is not None and msg.error() is None:
            copied.append(msg)
    copier.begin_transaction()
    for msg in copied:
        copier.produce(sink, value=msg.value(), partition=msg.partition())
    positions = consumer.position(consumer.assignment())
    copier.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), TIMEOUT_S)
    copier.commit_transaction(TIMEOUT_S)
    consumer.close()
    committed = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group}).committed(
        [TopicPartition(source, 0), TopicPartition(source, 1)], timeout=TIMEOUT_S
    )
    sink_records = sum(len(_read(broker.bootstrap, sink, p, "read_committed", 10)) for p in range(2))
    assert sum(tp.offset for tp in committed) == len(copied) == sink_records
    conn.close()


def test_a_transaction_open_past_its_timeout_is_aborted(tmp_path: Path) -> None:
    """On a manual clock: nothing happens until the clock passes the timeout and the abort task runs."""
    broker = InProcessBroker(tmp_path / "data", manual_clock=True)
    broker.start()
    try:
        topic, transactional_id = _name("t"), _name("tx")
        conn = RawConnection(broker.bootstrap)
        conn.create_topic(topic)
        producer = _producer(broker.bootstrap, transactional_id, **{"transaction.timeout.ms": 60_000})
        _transaction(producer, topic, [(0, "slow")], commit=None)
        broker.clock.advance(60_000)
        assert _describe(conn, transactional_id).transaction_state == "Ongoing"
        assert _list_offset(conn, topic, 0, READ_COMMITTED) == 0
        broker.clock.advance(10_000)
        described = _describe(conn, transactional_id)
        assert (described.transaction_state, described.producer_epoch) == ("CompleteAbort", 1)
        assert _list_offset(conn, topic, 0, READ_COMMITTED) == 2, "the record and the abort marker"
        with pytest.raises(KafkaException):
            producer.commit_transaction(TIMEOUT_S)
        conn.close()
    finally:
        broker.stop()


def test_idle_producers_expire_from_every_partition(tmp_path: Path) -> None:
    overrides = ["producer.id.expiration.ms=120000", "producer.id.expiration.check.interval.ms=30000"]
    broker = InProcessBroker(tmp_path / "data", overrides, manual_clock=True)
    broker.start()
    try:
        topic = _name("t")
        conn = RawConnection(broker.bootstrap)
        conn.create_topic(topic)
        producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
        producer.produce(topic, value=b"v", partition=0, timestamp=broker.clock.time_ms())
        assert producer.flush(TIMEOUT_S) == 0

        def producers() -> int:
            request = DescribeProducersRequest(
                topics=[DescribeProducersRequest.TopicRequest(name=topic, partition_indexes=[0])]
            )
            answer = conn.request(ApiKey.DESCRIBE_PRODUCERS, 0, request)
            return len(answer.topics[0].partitions[0].active_producers)

        assert producers() == 1
        broker.clock.advance(90_000)
        assert producers() == 1, "three checks have run, the producer is 90 s idle"
        broker.clock.advance(30_000)
        assert producers() == 0
        conn.close()
    finally:
        broker.stop()


def test_markers_a_failing_disk_refused_are_written_by_retries_or_at_the_next_start(tmp_path: Path) -> None:
    """The commit is persisted at once; the marker of the partition whose disk fails waits: its
    read_committed readers stay before the transaction, the other partition's see it.  A write
    refused by a full disk is retried until the disk takes it; a partition taken offline by a
    failed fsync gets its marker when the next start-up loads the prepared transaction."""
    disk = FailingDisk()
    topic, transactional_id = "t", _name("tx")
    with raw_broker(tmp_path, fs=disk) as (proc, conn):
        conn.create_topic(topic, partitions=2, configs={"flush.messages": "1"})
        producer = _producer(proc.bootstrap, transactional_id)
        _transaction(producer, topic, [(0, "zero"), (1, "one")], commit=None)
        disk.fail_writes = True
        producer.commit_transaction(TIMEOUT_S)
        assert _describe(conn, transactional_id).transaction_state == "PrepareCommit"
        assert (_list_offset(conn, topic, 0, READ_COMMITTED), _list_offset(conn, topic, 1, READ_COMMITTED)) == (0, 2)
        disk.fail_writes = False
        deadline = time.monotonic() + TIMEOUT_S
        while _describe(conn, transactional_id).transaction_state != "CompleteCommit":
            assert time.monotonic() < deadline, "the marker retries never completed the transaction"
            time.sleep(0.05)
        assert _list_offset(conn, topic, 0, READ_COMMITTED) == 2
        _transaction(producer, topic, [(0, "zero again"), (1, "one again")], commit=None)
        disk.fail_fsync = True
        producer.commit_transaction(TIMEOUT_S)
        assert _describe(conn, transactional_id).transaction_state == "PrepareCommit"
    disk.fail_fsync = False
    with raw_broker(tmp_path, fs=disk) as (proc, conn):
        deadline = time.monotonic() + TIMEOUT_S
        while _describe(conn, transactional_id).transaction_state != "CompleteCommit":
            assert time.monotonic() < deadline, "the start-up never completed the transaction"
            time.sleep(0.05)
        assert _list_offset(conn, topic, 1, READ_COMMITTED) == _list_offset(conn, topic, 1, READ_UNCOMMITTED)
        assert _list_offset(conn, topic, 0, READ_COMMITTED) == _list_offset(conn, topic, 0, READ_UNCOMMITTED)
        assert [v for _, v in _read(proc.bootstrap, topic, 0, "read_committed", 2)] == ["zero", "zero again"]
        assert [v for _, v in _read(proc.bootstrap, topic, 1, "read_committed", 2)] == ["one", "one again"]
