"""``odradek groups`` while a real consumer (confluent-kafka) is a member of the group."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer

from tests.cli.harness import Cli
from tests.integration.conftest import BrokerProcess


@pytest.fixture
def member(cli: Cli, broker: BrokerProcess, topic_name: str) -> Iterator[Consumer]:
    """A consumer of ``topic_name`` (2 partitions, 3 records on partition 0) in group ``g-<topic>``,
    polled until it owns both partitions."""
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "2", *b)
    cli("produce", "--topic", topic_name, "--partition", "0", *b, stdin=b"a\nb\nc\n")
    consumer = Consumer(
        {
            "bootstrap.servers": broker.bootstrap,
            "group.id": f"g-{topic_name}",
            "client.id": "live-member",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic_name])
    for _ in range(100):
        message = consumer.poll(0.2)
        if message is not None and message.error() is None:
            consumer.commit(message=message, asynchronous=False)
            break
    assert len(consumer.assignment()) == 2
    yield consumer
    consumer.close()


def test_describe_shows_the_member_and_its_partitions(
    cli: Cli, broker: BrokerProcess, topic_name: str, member: Consumer
) -> None:
    result = cli("groups", "describe", "--group", f"g-{topic_name}", "--json", "--bootstrap-server", broker.bootstrap)
    described = json.loads(result.out)
    assert described["state"] == "Stable" and described["protocol"] in ("range", "roundrobin", "cooperative-sticky")
    [m] = described["members"]
    assert m["client_id"] == "live-member"
    assert sorted((a["topic"], a["partition"]) for a in m["assignment"]) == [(topic_name, 0), (topic_name, 1)]
    rows = [
        (o["partition"], o["current_offset"], o["log_end_offset"], o["lag"], o["member_id"])
        for o in described["offsets"]
    ]
    assert rows == [(0, 1, 3, 2, m["member_id"]), (1, None, 0, None, m["member_id"])]


def test_reset_offsets_refuses_a_group_with_members(
    cli: Cli, broker: BrokerProcess, topic_name: str, member: Consumer
) -> None:
    result = cli(
        "groups",
        "reset-offsets",
        "--group",
        f"g-{topic_name}",
        "--all-topics",
        "--to-earliest",
        "--execute",
        "--bootstrap-server",
        broker.bootstrap,
    )
    assert result.code == 1
    assert "has 1 active member(s) (state Stable); stop them first" in result.err


def test_a_group_consumer_starts_at_a_timestamp_over_its_committed_offset(
    cli: Cli, broker: BrokerProcess, topic_name: str
) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    group = f"g-{topic_name}"
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    cli("produce", "--topic", topic_name, *b, stdin=b"1\n2\n3\n")
    cli("consume", "--topic", topic_name, "--group", group, "--from-beginning", "--max-messages", "3", *b)
    records = [
        json.loads(line)
        for line in cli(
            "consume", "--topic", topic_name, "--from-beginning", "--max-messages", "3", "--json", *b
        ).out.splitlines()
    ]
    at = records[0]["timestamp"]
    again = cli(
        "consume", "--topic", topic_name, "--group", group, "--from-timestamp", str(at), "--max-messages", "3", *b
    )
    assert again.out == "1\n2\n3\n"
