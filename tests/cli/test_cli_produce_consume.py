"""``odradek produce`` and ``odradek consume`` against a real broker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.harness import Cli
from tests.integration.conftest import BrokerProcess


def _records(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def test_round_trip_with_keys_and_headers(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "2", *b)
    lines = b"trace:1,lang:en\tk1:hello\nlang:fr\tk2:bonjour\n"
    produced = cli(
        "produce",
        "--topic",
        topic_name,
        "--property",
        "parse.headers=true",
        "--property",
        "parse.key=true",
        "--property",
        "key.separator=:",
        "--header",
        "origin=cli",
        "--compression-codec",
        "zstd",
        "--idempotent",
        *b,
        stdin=lines,
    )
    assert (produced.code, produced.err) == (0, f"2 records produced to {topic_name}\n")

    consumed = cli("consume", "--topic", topic_name, "--from-beginning", "--max-messages", "2", "--json", *b)
    assert consumed.code == 0
    assert consumed.err == "2 records consumed\n"
    records = sorted(_records(consumed.out), key=lambda r: r["key"])
    assert [(r["key"], r["value"]) for r in records] == [("k1", "hello"), ("k2", "bonjour")]
    assert records[0]["headers"] == [["origin", "cli"], ["trace", "1"], ["lang", "en"]]
    assert records[1]["headers"] == [["origin", "cli"], ["lang", "fr"]]
    assert all(r["topic"] == topic_name for r in records)
    positions = sorted((r["partition"], r["offset"]) for r in records)
    assert positions in ([(0, 0), (1, 0)], [(0, 0), (0, 1)], [(1, 0), (1, 1)])
    assert all(r["timestamp_type"] == "CreateTime" and r["timestamp"] > 0 for r in records)

    plain = cli(
        "consume",
        "--topic",
        topic_name,
        "--partition",
        str(records[0]["partition"]),
        "--offset",
        str(records[0]["offset"]),
        "--max-messages",
        "1",
        "--property",
        "print.key=true",
        "--property",
        "print.offset=true",
        "--property",
        "key.separator= | ",
        *b,
    )
    assert plain.out == f"Offset:{records[0]['offset']} | k1 | hello\n"


def test_value_only_output_and_null_marker(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    stdin = b"a=1\nb=NULL\nNULL=3\n"
    assert (
        cli(
            "produce", "--topic", topic_name, "--key-separator", "=", "--property", "null.marker=NULL", *b, stdin=stdin
        ).code
        == 0
    )
    values = cli("consume", "--topic", topic_name, "--from-beginning", "--max-messages", "3", *b)
    assert values.out == "1\nnull\n3\n"
    records = _records(
        cli("consume", "--topic", topic_name, "--from-beginning", "--max-messages", "3", "--json", *b).out
    )
    assert [(r["key"], r["value"]) for r in records] == [("a", "1"), ("b", None), (None, "3")]


def test_start_positions_and_stop_conditions(cli: Cli, broker: BrokerProcess, topic_name: str, tmp_path: Path) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    first = tmp_path / "first.txt"
    first.write_bytes(b"".join(b"v%d\n" % i for i in range(5)))
    assert cli("produce", "--topic", topic_name, str(first), *b).code == 0
    assert cli("produce", "--topic", topic_name, *b, stdin=b"v5\nv6\r\n").code == 0

    def values(*argv: str) -> list[str]:
        result = cli("consume", "--topic", topic_name, "--timeout-ms", "1500", *argv, *b)
        assert result.code == 0
        return result.out.splitlines()

    assert values("--from-beginning") == [f"v{i}" for i in range(7)]
    assert values("--partition", "0", "--offset", "3", "--max-messages", "2") == ["v3", "v4"]
    assert values("--partition", "0", "--offset", "earliest", "--max-messages", "1") == ["v0"]
    everything = _records(
        cli("consume", "--topic", topic_name, "--from-beginning", "--max-messages", "7", "--json", *b).out
    )
    at = everything[5]["timestamp"]
    start = next(i for i, r in enumerate(everything) if r["timestamp"] >= at)
    assert values("--from-timestamp", str(at)) == [r["value"] for r in everything[start:]]
    assert start <= 5
    assert values() == []
    assert values("--partition", "0", "--offset", "latest") == []


def test_unknown_topic_or_partition_is_exit_1(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    unknown = cli("consume", "--topic", topic_name, "--timeout-ms", "1000", *b)
    assert (unknown.code, unknown.err) == (
        1,
        f"odradek consume: error: topic {topic_name!r}: UNKNOWN_TOPIC_OR_PARTITION\n",
    )
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    wrong = cli("consume", "--topic", topic_name, "--partition", "4", "--timeout-ms", "1000", *b)
    assert (wrong.code, wrong.err) == (1, f"odradek consume: error: topic {topic_name!r} has no partition 4\n")


def test_a_line_without_its_key_separator_is_exit_1(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    result = cli("produce", "--topic", topic_name, "--key-separator", ":", *b, stdin=b"k:v\nnokey\n")
    assert result.code == 1
    assert result.err == "odradek produce: error: line 2: no key separator b':'\n"


def test_produce_from_a_file_that_is_missing_is_exit_1(cli: Cli, broker: BrokerProcess, tmp_path: Path) -> None:
    result = cli("produce", "--topic", "t", str(tmp_path / "absent.txt"), "--bootstrap-server", broker.bootstrap)
    assert result.code == 1 and "cannot read" in result.err and "No such file" in result.err


def test_transactional_produce(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    result = cli("produce", "--topic", topic_name, "--transactional-id", "tx", "--timeout-ms", "3000", *b, stdin=b"x\n")
    assert result.code == 0
    consumed = cli(
        "consume",
        "--topic",
        topic_name,
        "--from-beginning",
        "--isolation-level",
        "read_committed",
        "--max-messages",
        "1",
        *b,
    )
    assert consumed.out == "x\n"
