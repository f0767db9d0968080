"""Consumer-group rebalances with real clients: joins, crashes, stalls, static members, offset resets.

Each test waits for an observable state (every member's assignment, rebalance callbacks, consumed
offsets) in a polling loop with a deadline.  Timings that Kafka guarantees are asserted as lower
bounds too: a crashed member keeps its partitions until its session expires, a stalled member
until its max.poll.interval.ms runs out.  A member that must die without a LeaveGroup runs in its
own process (`MemberProcess`) and is killed with SIGKILL.

The broker runs with ``group.initial.rebalance.delay.ms=0`` and ``group.min.session.timeout.ms=1000``
so that sessions of a few seconds are accepted and groups form at once.  Commits surviving a
broker restart are tested in test_groups.py.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from confluent_kafka import Consumer, ConsumerGroupState, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from conftest import BrokerProcess
from kafka import KafkaConsumer
from kafka.errors import NoOffsetForPartitionError

GROUP_OVERRIDES = ["group.initial.rebalance.delay.ms=0", "group.min.session.timeout.ms=1000"]
HEARTBEAT_MS = 300
SESSION_MS = 3000
STATIC_SESSION_MS = 5000
DEADLINE_S = 30.0

# A confluent-kafka member in its own process.  Arguments: bootstrap, topic, group, session timeout,
# heartbeat interval, group instance id ("" for a dynamic member).  Every assignment and revocation
# is printed as one JSON line: {"event": "assigned"|"revoked", "partitions": [...], "member": id}.
MEMBER_SCRIPT = """
import json, sys
from confluent_kafka import Consumer

bootstrap, topic, group, session_ms, heartbeat_ms, instance_id = sys.argv[1:7]
config = {
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "session.timeout.ms": int(session_ms),
    "heartbeat.interval.ms": int(heartbeat_ms),
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
}
if instance_id:
    config["group.instance.id"] = instance_id
consumer = Consumer(config)

def report(event, partitions):
    line = {"event": event, "partitions": sorted(p.partition for p in partitions), "member": consumer.memberid()}
    print(json.dumps(line), flush=True)

consumer.subscribe(
    [topic],
    on_assign=lambda c, partitions: report("assigned", partitions),
    on_revoke=lambda c, partitions: report("revoked", partitions),
)
while True:
    consumer.poll(0.1)
"""


@pytest.fixture(scope="module")
def rebalance_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path_factory.mktemp("rebalance-data"), overrides=list(GROUP_OVERRIDES))
    proc.start()
    yield proc
    proc.stop()


class MemberProcess:
    """A group member in a subprocess; `update` folds its reported callbacks into `assignment`.

    ``assignment`` is None until the first assignment, the partitions it owns after that (empty
    between a revocation and the next assignment); ``member_id`` is the id of its last assignment.
    """

    def __init__(self, broker: BrokerProcess, topic: str, group: str, session_ms: int, instance_id: str = "") -> None:
        args = [broker.bootstrap, topic, group, str(session_ms), str(HEARTBEAT_MS), instance_id]
        with open(broker.log_path.with_name(f"member-{group}.log"), "a") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-c", MEMBER_SCRIPT, *args], stdout=subprocess.PIPE, stderr=stderr, text=True
            )
        self.assignment: list[int] | None = None
        self.member_id = ""
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("{"):
                self._events.put(json.loads(line))

    def update(self) -> None:
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return
            if event["event"] == "assigned":
                self.assignment = event["partitions"]
                self.member_id = event["member"]
            else:
                self.assignment = []

    def kill(self) -> None:
        """SIGKILL: the member vanishes without a LeaveGroup."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._reader.join(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


class Tracker:
    """Counts a confluent-kafka consumer's rebalance callbacks."""

    def __init__(self) -> None:
        self.assigned: list[list[int]] = []
        self.revoked: list[list[int]] = []

    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.assigned.append(sorted(p.partition for p in partitions))

    def on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.revoked.append(sorted(p.partition for p in partitions))

    def counts(self) -> tuple[int, int]:
        return len(self.assigned), len(self.revoked)


def _create_topic(bootstrap: str, name: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(timeout=10)


def _produce(bootstrap: str, topic: str, values: Sequence[bytes]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for value in values:
        producer.produce(topic, value, partition=0)
    assert producer.flush(10) == 0


def _config(broker: BrokerProcess, group: str, **extra: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "bootstrap.servers": broker.bootstrap,
        "group.id": group,
        "session.timeout.ms": SESSION_MS,
        "heartbeat.interval.ms": HEARTBEAT_MS,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    }
    config.update(extra)
    return config


def _owned(consumer: Consumer) -> list[int]:
    return sorted(tp.partition for tp in consumer.assignment())


def _owners(consumers: Sequence[Consumer], members: Sequence[MemberProcess] = ()) -> list[list[int]]:
    return [_owned(c) for c in consumers] + [m.assignment or [] for m in members]


def _is_split(owners: list[list[int]], sizes: list[int], partitions: int = 6) -> bool:
    """Each owner holds ``sizes[i]`` partitions and every partition has exactly one owner."""
    return [len(o) for o in owners] == sizes and sorted(p for o in owners for p in o) == list(range(partitions))


def _poll_until(
    consumers: Sequence[Consumer],
    done: Callable[[], bool],
    what: str,
    members: Sequence[MemberProcess] = (),
    errors: list[int] | None = None,
) -> float:
    """Poll every consumer until ``done``; the monotonic time it became true.  Error codes go to ``errors``."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        for member in members:
            member.update()
        if done():
            return time.monotonic()
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not reached in {DEADLINE_S}s; owners {_owners(consumers, members)}")
        for consumer in consumers:
            message = consumer.poll(0.05)
            if message is not None and message.error() is not None and errors is not None:
                errors.append(message.error().code())


def _keep_polling(consumers: Sequence[Consumer], until: float) -> None:
    while time.monotonic() < until:
        for consumer in consumers:
            consumer.poll(0.05)


def _close_all(consumers: Sequence[Consumer]) -> None:
    for consumer in consumers:
        consumer.close()


def test_fourth_member_joins_and_six_partitions_are_reassigned(
    rebalance_broker: BrokerProcess, topic_name: str
) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 6)
    group = f"g-{topic_name}"
    consumers = [Consumer(_config(rebalance_broker, group)) for _ in range(3)]
    try:
        for consumer in consumers:
            consumer.subscribe([topic_name])
        _poll_until(consumers, lambda: _is_split(_owners(consumers), [2, 2, 2]), "three members own two each")

        fourth = Consumer(_config(rebalance_broker, group))
        consumers.append(fourth)
        fourth.subscribe([topic_name])

        def four_owners() -> bool:
            owners = _owners(consumers)
            return all(owners) and _is_split(owners, [len(o) for o in owners])

        _poll_until(consumers, four_owners, "four members own all six partitions")
        assert sorted(len(o) for o in _owners(consumers)) == [1, 1, 2, 2]

        admin = AdminClient({"bootstrap.servers": rebalance_broker.bootstrap})
        described = admin.describe_consumer_groups([group])[group].result(timeout=10)
        assert described.state == ConsumerGroupState.STABLE
        assert {
            m.member_id: sorted(tp.partition for tp in m.assignment.topic_partitions) for m in described.members
        } == {c.memberid(): _owned(c) for c in consumers}
    finally:
        _close_all(consumers)


def test_killed_member_loses_its_partitions_after_the_session_timeout(
    rebalance_broker: BrokerProcess, topic_name: str
) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 6)
    group = f"g-{topic_name}"
    survivors = [Consumer(_config(rebalance_broker, group)) for _ in range(2)]
    doomed = MemberProcess(rebalance_broker, topic_name, group, SESSION_MS)
    try:
        for consumer in survivors:
            consumer.subscribe([topic_name])
        _poll_until(
            survivors,
            lambda: _is_split(_owners(survivors, [doomed]), [2, 2, 2]),
            "three members own two each",
            members=[doomed],
        )
        orphaned = doomed.assignment
        doomed.kill()
        killed_at = time.monotonic()

        moved_at = _poll_until(survivors, lambda: _is_split(_owners(survivors), [3, 3]), "survivors own all six")
        # Kafka does not react to the closed connection: the member stays until its session expires.
        assert moved_at - killed_at >= (SESSION_MS - HEARTBEAT_MS) / 1000 - 0.5
        assert orphaned is not None
        assert set(orphaned) <= {p for c in survivors for p in _owned(c)}
    finally:
        doomed.kill()
        _close_all(survivors)


def test_member_exceeding_max_poll_interval_is_removed(rebalance_broker: BrokerProcess, topic_name: str) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 6)
    group = f"g-{topic_name}"
    max_poll_ms = 2500
    active = [Consumer(_config(rebalance_broker, group)) for _ in range(2)]
    stalled = Consumer(
        _config(rebalance_broker, group, **{"session.timeout.ms": 2000, "max.poll.interval.ms": max_poll_ms})
    )
    everyone = [*active, stalled]
    try:
        for consumer in everyone:
            consumer.subscribe([topic_name])
        _poll_until(everyone, lambda: _is_split(_owners(everyone), [2, 2, 2]), "three members own two each")
        stalled_at = time.monotonic()

        moved_at = _poll_until(active, lambda: _is_split(_owners(active), [3, 3]), "active members own all six")
        assert moved_at - stalled_at >= max_poll_ms / 1000 - 0.5

        # Polling again, the stalled consumer is told it was removed, then rejoins.
        errors: list[int] = []
        _poll_until(
            everyone, lambda: _is_split(_owners(everyone), [2, 2, 2]), "the stalled member rejoined", errors=errors
        )
        assert KafkaError._MAX_POLL_EXCEEDED in errors
    finally:
        _close_all(everyone)


def test_static_member_restarts_without_a_rebalance(rebalance_broker: BrokerProcess, topic_name: str) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 6)
    group = f"g-{topic_name}"
    trackers = [Tracker(), Tracker()]
    others = [Consumer(_config(rebalance_broker, group)) for _ in trackers]
    static = MemberProcess(rebalance_broker, topic_name, group, STATIC_SESSION_MS, "static-member")
    restarted: MemberProcess | None = None
    try:
        for consumer, tracker in zip(others, trackers, strict=True):
            consumer.subscribe([topic_name], on_assign=tracker.on_assign, on_revoke=tracker.on_revoke)
        _poll_until(
            others, lambda: _is_split(_owners(others, [static]), [2, 2, 2]), "three members own two each", [static]
        )
        before = [t.counts() for t in trackers]
        owned_before = _owners(others)
        static_partitions, static_id = static.assignment, static.member_id
        static.kill()
        killed_at = time.monotonic()

        restarted = MemberProcess(rebalance_broker, topic_name, group, STATIC_SESSION_MS, "static-member")
        member = restarted
        _poll_until(others, lambda: member.assignment is not None, "the static member is back", [member])
        assert member.assignment == static_partitions
        assert member.member_id != static_id

        # Past the old member id's session: it was replaced, so it never expires into a rebalance.
        _keep_polling(others, killed_at + STATIC_SESSION_MS / 1000 + 1.5)
        member.update()
        assert member.assignment == static_partitions
        assert [t.counts() for t in trackers] == before
        assert _owners(others) == owned_before
    finally:
        static.kill()
        if restarted is not None:
            restarted.kill()
        _close_all(others)


def test_kafka_python_static_member_rejoins_with_its_partitions(
    rebalance_broker: BrokerProcess, topic_name: str
) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 6)
    group = f"g-{topic_name}"
    trackers = [Tracker(), Tracker()]
    others = [Consumer(_config(rebalance_broker, group)) for _ in trackers]

    def static_consumer() -> KafkaConsumer:
        return KafkaConsumer(
            topic_name,
            bootstrap_servers=rebalance_broker.bootstrap,
            group_id=group,
            group_instance_id="kafka-python-static",
            session_timeout_ms=STATIC_SESSION_MS,
            heartbeat_interval_ms=HEARTBEAT_MS,
            enable_auto_commit=False,
        )

    def owned(consumer: KafkaConsumer) -> list[int]:
        return sorted(tp.partition for tp in consumer.assignment())

    static: KafkaConsumer | None = None
    restarted: KafkaConsumer | None = None
    try:
        for consumer, tracker in zip(others, trackers, strict=True):
            consumer.subscribe([topic_name], on_assign=tracker.on_assign, on_revoke=tracker.on_revoke)
        # kafka-python 3.0 drops a JoinGroup/SyncGroup round that completes between two polls and
        # joins again; as the leader, each such rejoin starts a new rebalance (Kafka's rule for a
        # rejoining leader), so the confluent members form the group first and one of them leads.
        _poll_until(others, lambda: _is_split(_owners(others), [3, 3]), "two members own three each")
        static = first = static_consumer()

        def three_members() -> bool:
            first.poll(timeout_ms=50)
            return _is_split([*_owners(others), owned(first)], [2, 2, 2])

        _poll_until(others, three_members, "three members own two each")
        before = [t.counts() for t in trackers]
        owned_before = _owners(others)
        static_partitions = owned(first)
        # A static member's close sends no LeaveGroup: only its session could end its membership.
        first.close()
        closed_at = time.monotonic()

        restarted = static_consumer()
        member = restarted

        def back() -> bool:
            member.poll(timeout_ms=50)
            return bool(member.assignment())

        _poll_until(others, back, "the static member is back")
        assert owned(member) == static_partitions

        deadline = closed_at + STATIC_SESSION_MS / 1000 + 1.5
        while time.monotonic() < deadline:
            member.poll(timeout_ms=50)
            _keep_polling(others, time.monotonic() + 0.05)
        assert owned(member) == static_partitions
        assert [t.counts() for t in trackers] == before
        assert _owners(others) == owned_before
    finally:
        for kafka_python in (static, restarted):
            if kafka_python is not None:
                kafka_python.close()
        _close_all(others)


# ------------------------------------------------------------------ auto.offset.reset


def _consume(consumer: Consumer, count: int) -> list[tuple[int, bytes]]:
    """``count`` records as (offset, value); fails at the deadline or on an error."""
    records: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + DEADLINE_S
    while len(records) < count:
        assert time.monotonic() < deadline, f"only {records} consumed"
        message = consumer.poll(0.1)
        if message is None:
            continue
        assert message.error() is None, message.error()
        records.append((message.offset(), message.value()))
    return records


def test_new_group_with_earliest_reads_from_the_start(rebalance_broker: BrokerProcess, topic_name: str) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 1)
    _produce(rebalance_broker.bootstrap, topic_name, [b"v%d" % i for i in range(5)])
    consumer = Consumer(_config(rebalance_broker, f"g-{topic_name}", **{"auto.offset.reset": "earliest"}))
    try:
        consumer.subscribe([topic_name])
        assert _consume(consumer, 5) == [(i, b"v%d" % i) for i in range(5)]
    finally:
        consumer.close()


def test_new_group_with_latest_skips_existing_records(rebalance_broker: BrokerProcess, topic_name: str) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 1)
    _produce(rebalance_broker.bootstrap, topic_name, [b"old%d" % i for i in range(5)])
    consumer = Consumer(_config(rebalance_broker, f"g-{topic_name}", **{"auto.offset.reset": "latest"}))
    producer = Producer({"bootstrap.servers": rebalance_broker.bootstrap})
    try:
        consumer.subscribe([topic_name])
        _poll_until([consumer], lambda: bool(consumer.assignment()), "assigned")
        # The position is resolved some time after the assignment: keep producing until one arrives.
        received: list[tuple[int, bytes]] = []
        deadline = time.monotonic() + DEADLINE_S
        while not received:
            assert time.monotonic() < deadline, "no new record consumed"
            producer.produce(topic_name, b"new", partition=0)
            assert producer.flush(10) == 0
            message = consumer.poll(0.3)
            if message is not None:
                assert message.error() is None, message.error()
                received.append((message.offset(), message.value()))
        offset, value = received[0]
        assert offset >= 5
        assert value == b"new"
    finally:
        consumer.close()


def test_new_group_with_reset_none_reports_no_offset(rebalance_broker: BrokerProcess, topic_name: str) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 1)
    _produce(rebalance_broker.bootstrap, topic_name, [b"v%d" % i for i in range(5)])
    # librdkafka spells Java's "none" as "error".
    consumer = Consumer(_config(rebalance_broker, f"g-{topic_name}", **{"auto.offset.reset": "error"}))
    try:
        consumer.subscribe([topic_name])
        deadline = time.monotonic() + DEADLINE_S
        while True:
            assert time.monotonic() < deadline, "no auto.offset.reset error reported"
            message = consumer.poll(0.1)
            if message is None:
                continue
            assert message.error() is not None, f"consumed offset {message.offset()} without a committed offset"
            if message.error().code() == KafkaError._AUTO_OFFSET_RESET:
                break
    finally:
        consumer.close()


def test_reset_none_starts_at_a_standalone_commit(rebalance_broker: BrokerProcess, topic_name: str) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 1)
    _produce(rebalance_broker.bootstrap, topic_name, [b"v%d" % i for i in range(5)])
    group = f"g-{topic_name}"
    committer = Consumer(_config(rebalance_broker, group))
    try:
        # Never subscribed: the commit carries generation -1 and no member id.
        committer.commit(offsets=[TopicPartition(topic_name, 0, 2)], asynchronous=False)
    finally:
        committer.close()
    consumer = Consumer(_config(rebalance_broker, group, **{"auto.offset.reset": "error"}))
    try:
        consumer.subscribe([topic_name])
        assert _consume(consumer, 3) == [(i, b"v%d" % i) for i in range(2, 5)]
    finally:
        consumer.close()


def test_kafka_python_reset_none_raises(rebalance_broker: BrokerProcess, topic_name: str) -> None:
    _create_topic(rebalance_broker.bootstrap, topic_name, 1)
    _produce(rebalance_broker.bootstrap, topic_name, [b"v%d" % i for i in range(5)])
    consumer = KafkaConsumer(
        topic_name,
        bootstrap_servers=rebalance_broker.bootstrap,
        group_id=f"g-{topic_name}",
        auto_offset_reset="none",
        enable_auto_commit=False,
        session_timeout_ms=SESSION_MS,
        heartbeat_interval_ms=HEARTBEAT_MS,
    )
    try:
        deadline = time.monotonic() + DEADLINE_S
        with pytest.raises(NoOffsetForPartitionError):
            while time.monotonic() < deadline:
                assert not consumer.poll(timeout_ms=100), "consumed without a committed offset"
    finally:
        consumer.close()
