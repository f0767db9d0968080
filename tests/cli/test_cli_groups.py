"""``odradek groups`` against a real broker: lag, offset resets (dry run and --execute), delete."""

from __future__ import annotations

import json
from typing import Any

from tests.cli.harness import Cli
from tests.integration.conftest import BrokerProcess


def _offsets(cli: Cli, group: str, bootstrap: str) -> list[tuple[int, int | None, int | None, int | None]]:
    result = cli("groups", "describe", "--group", group, "--json", "--bootstrap-server", bootstrap)
    assert result.code == 0, result.err
    described: dict[str, Any] = json.loads(result.out)
    return [(o["partition"], o["current_offset"], o["log_end_offset"], o["lag"]) for o in described["offsets"]]


def test_lag_reset_and_delete(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    group = f"g-{topic_name}"
    cli("topics", "create", "--topic", topic_name, "--partitions", "2", *b)
    cli("produce", "--topic", topic_name, "--partition", "0", *b, stdin=b"a\nb\nc\nd\ne\n")
    cli("produce", "--topic", topic_name, "--partition", "1", *b, stdin=b"f\n")
    consumed = cli(
        "consume",
        "--topic",
        topic_name,
        "--group",
        group,
        "--partition",
        "0",
        "--from-beginning",
        "--max-messages",
        "3",
        *b,
    )
    assert consumed.out == "a\nb\nc\n"
    assert _offsets(cli, group, broker.bootstrap) == [(0, 3, 5, 2)]

    text = cli("groups", "describe", "--group", group, *b).out.splitlines()
    assert text[0].startswith(f"Group: {group}  State: Empty  Members: 0")
    assert text[1].split() == [
        "TOPIC",
        "PARTITION",
        "CURRENT-OFFSET",
        "LOG-END-OFFSET",
        "LAG",
        "CONSUMER-ID",
        "HOST",
        "CLIENT-ID",
    ]
    assert text[2].split() == [topic_name, "0", "3", "5", "2", "-", "-", "-"]
    listed = json.loads(cli("groups", "list", "--json", *b).out)
    assert {"group": group, "state": "Empty", "type": "Classic"} in listed

    dry = cli("groups", "reset-offsets", "--group", group, "--topic", topic_name, "--to-earliest", "--json", *b)
    assert dry.code == 0
    plan = json.loads(dry.out)
    assert plan["executed"] is False
    assert [(o["partition"], o["previous_offset"], o["new_offset"]) for o in plan["offsets"]] == [
        (0, 3, 0),
        (1, None, 0),
    ]
    assert _offsets(cli, group, broker.bootstrap) == [(0, 3, 5, 2)]
    dry_text = cli("groups", "reset-offsets", "--group", group, "--topic", f"{topic_name}:0", "--to-latest", *b)
    assert dry_text.err == "dry run: nothing committed; add --execute to apply\n"
    assert dry_text.out.splitlines()[1].split() == [topic_name, "0", "3", "5"]

    def execute(*target: str) -> None:
        result = cli(
            "groups", "reset-offsets", "--group", group, "--topic", f"{topic_name}:0", *target, "--execute", *b
        )
        assert result.code == 0, result.err
        assert "dry run" not in result.err

    execute("--to-earliest")
    assert _offsets(cli, group, broker.bootstrap) == [(0, 0, 5, 5)]
    execute("--shift-by", "2")
    assert _offsets(cli, group, broker.bootstrap) == [(0, 2, 5, 3)]
    execute("--shift-by", "-10")
    assert _offsets(cli, group, broker.bootstrap) == [(0, 0, 5, 5)]
    execute("--to-offset", "99")
    assert _offsets(cli, group, broker.bootstrap) == [(0, 5, 5, 0)]
    execute("--to-datetime", "2000-01-01T00:00:00Z")
    assert _offsets(cli, group, broker.bootstrap) == [(0, 0, 5, 5)]
    execute("--to-datetime", "2999-01-01T00:00:00Z")
    assert _offsets(cli, group, broker.bootstrap) == [(0, 5, 5, 0)]
    all_topics = cli("groups", "reset-offsets", "--group", group, "--all-topics", "--to-offset", "1", "--execute", *b)
    assert all_topics.code == 0
    assert _offsets(cli, group, broker.bootstrap) == [(0, 1, 5, 4)]

    deleted = cli("groups", "delete", "--group", group, *b)
    assert (deleted.code, deleted.out) == (0, f"group {group} deleted\n")
    assert group not in cli("groups", "list", *b).out
    gone = cli("groups", "describe", "--group", group, *b)
    assert (gone.code, gone.err) == (1, f"odradek groups describe: error: group {group!r} does not exist\n")


def test_subscribed_consumer_commits_what_it_printed(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    group = f"g-{topic_name}"
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    cli("produce", "--topic", topic_name, *b, stdin=b"1\n2\n3\n4\n")
    first = cli("consume", "--topic", topic_name, "--group", group, "--from-beginning", "--max-messages", "3", *b)
    assert first.out == "1\n2\n3\n"
    assert _offsets(cli, group, broker.bootstrap) == [(0, 3, 4, 1)]
    rest = cli("consume", "--topic", topic_name, "--group", group, "--from-beginning", "--max-messages", "1", *b)
    assert rest.out == "4\n"


def test_reset_of_a_group_with_no_offsets_or_an_unknown_partition_is_exit_1(
    cli: Cli, broker: BrokerProcess, topic_name: str
) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    none = cli("groups", "reset-offsets", "--group", "nobody", "--all-topics", "--to-earliest", *b)
    assert (none.code, none.err) == (1, "odradek groups reset-offsets: error: group 'nobody' has no offsets to reset\n")
    wrong = cli("groups", "reset-offsets", "--group", "g", "--topic", f"{topic_name}:3", "--to-earliest", *b)
    assert (wrong.code, wrong.err) == (
        1,
        f"odradek groups reset-offsets: error: topic {topic_name!r} has no partition 3\n",
    )
