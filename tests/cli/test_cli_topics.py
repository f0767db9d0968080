"""``odradek topics`` against a real broker."""

from __future__ import annotations

import json

from tests.cli.harness import Cli
from tests.integration.conftest import BrokerProcess


def test_create_list_describe_alter_delete(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    created = cli("topics", "create", "--topic", topic_name, "--partitions", "3", "--config", "retention.ms=60000", *b)
    assert (created.code, created.out) == (0, f"topic {topic_name} created\n")

    listed = cli("topics", "list", "--json", *b)
    assert listed.code == 0
    assert {"topic": topic_name, "partitions": 3} in json.loads(listed.out)
    table = cli("topics", "list", *b).out.splitlines()
    assert table[0].split() == ["TOPIC", "PARTITIONS", "REPLICATION"]
    assert [topic_name, "3", "1"] in [line.split() for line in table[1:]]

    cli("produce", "--topic", topic_name, "--partition", "1", *b, stdin=b"a\nb\n")
    described = cli("topics", "describe", "--topic", topic_name, "--json", *b)
    assert described.code == 0
    [info] = json.loads(described.out)
    assert [p["partition"] for p in info["partitions"]] == [0, 1, 2]
    assert [(p["start_offset"], p["end_offset"]) for p in info["partitions"]] == [(0, 0), (0, 2), (0, 0)]
    assert all(p["leader"] == p["replicas"][0] == p["isr"][0] for p in info["partitions"])
    assert info["configs"]["retention.ms"] == "60000"
    assert "segment.bytes" not in info["configs"]
    text = cli("topics", "describe", "--topic", topic_name, *b).out
    assert "retention.ms=60000" in text and "END-OFFSET" in text

    altered = cli("topics", "alter", "--topic", topic_name, "--config", "retention.ms=120000", *b)
    assert altered.code == 0
    [info] = json.loads(cli("topics", "describe", "--topic", topic_name, "--json", *b).out)
    assert info["configs"]["retention.ms"] == "120000"

    deleted = cli("topics", "delete", "--topic", topic_name, *b)
    assert (deleted.code, deleted.out) == (0, f"topic {topic_name} deleted\n")
    assert topic_name not in {t["topic"] for t in json.loads(cli("topics", "list", "--json", *b).out)}


def test_unknown_topic_is_exit_1_and_describe_does_not_create_it(
    cli: Cli, broker: BrokerProcess, topic_name: str
) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    result = cli("topics", "describe", "--topic", topic_name, *b)
    assert result.code == 1
    assert result.err == f"odradek topics describe: error: topic {topic_name!r}: UNKNOWN_TOPIC_OR_PARTITION\n"
    assert topic_name not in cli("topics", "list", *b).out
    deleted = cli("topics", "delete", "--topic", topic_name, *b)
    assert deleted.code == 1 and "UNKNOWN_TOPIC_OR_PARTITION" in deleted.err
    assert cli("topics", "delete", "--topic", topic_name, "--if-exists", *b).code == 0


def test_creating_an_existing_topic_fails_unless_if_not_exists(
    cli: Cli, broker: BrokerProcess, topic_name: str
) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    assert cli("topics", "create", "--topic", topic_name, *b).code == 0
    again = cli("topics", "create", "--topic", topic_name, *b)
    assert again.code == 1 and "TOPIC_ALREADY_EXISTS" in again.err and again.err.count("\n") == 1
    assert cli("topics", "create", "--topic", topic_name, "--if-not-exists", *b).code == 0
    bad = cli("topics", "create", "--topic", "bad/name", *b)
    assert bad.code == 1 and "INVALID_TOPIC_EXCEPTION: Topic name is invalid" in bad.err


def test_partitions_may_only_grow(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "2", *b)
    shrink = cli("topics", "add-partitions", "--topic", topic_name, "--partitions", "2", *b)
    assert shrink.code == 1 and "has 2 partitions" in shrink.err


def test_add_partitions(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    assert cli("topics", "add-partitions", "--topic", topic_name, "--partitions", "3", *b).code == 0
    [info] = json.loads(cli("topics", "describe", "--topic", topic_name, "--json", *b).out)
    assert len(info["partitions"]) == 3
