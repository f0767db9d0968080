"""Usage errors exit 2 with the usage and one error line; --help exits 0 everywhere; a broker
that is not there is exit 1 with one clear line, within the command's timeout."""

from __future__ import annotations

import time

import pytest

from tests.cli.harness import Cli, Result

COMMANDS = [
    ["run"],
    ["topics", "create"],
    ["topics", "list"],
    ["topics", "describe"],
    ["topics", "alter"],
    ["topics", "delete"],
    ["topics", "add-partitions"],
    ["produce"],
    ["consume"],
    ["groups", "list"],
    ["groups", "describe"],
    ["groups", "reset-offsets"],
    ["groups", "delete"],
    ["configs", "describe"],
    ["configs", "alter"],
    ["dump-log"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_exits_0_and_shows_the_flags(cli: Cli, command: list[str]) -> None:
    result = cli(*command, "--help")
    assert result.code == 0
    assert result.out.startswith(f"usage: odradek {' '.join(command)}")
    if command[0] not in ("run", "dump-log"):
        assert "--bootstrap-server HOST:PORT" in result.out


def _assert_usage_error(result: Result, needle: str) -> None:
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith("usage: odradek")
    last = result.err.rstrip("\n").splitlines()[-1]
    assert last.startswith("odradek") and ": error: " in last
    assert needle in last
    assert result.err.count("error:") == 1


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        ([], "required"),
        (["nonsense"], "invalid choice"),
        (["topics"], "required"),
        (["topics", "create"], "--topic"),
        (["topics", "create", "--topic", "x", "--partitions", "0"], "must be positive"),
        (["topics", "create", "--topic", "x", "--config", "novalue"], "KEY=VALUE"),
        (["topics", "alter", "--topic", "x"], "--partitions and/or --config"),
        (["produce", "--topic", "x", "--acks", "7"], "invalid choice"),
        (["produce", "--topic", "x", "--property", "parse.kee=true"], "unknown --property"),
        (["produce", "--topic", "x", "--property", "parse.key=maybe"], "true or false"),
        (["consume", "--topic", "x", "--offset", "5"], "needs --partition"),
        (["consume", "--topic", "x", "--offset", "soon", "--partition", "0"], "--offset must be"),
        (["consume", "--topic", "x", "--from-beginning", "--offset", "1"], "not allowed with"),
        (["consume", "--topic", "x", "--from-timestamp", "yesterday"], "ISO 8601"),
        (["groups", "reset-offsets", "--group", "g", "--to-earliest"], "--topic --all-topics"),
        (["groups", "reset-offsets", "--group", "g", "--all-topics"], "--to-earliest"),
        (
            ["groups", "reset-offsets", "--group", "g", "--all-topics", "--to-latest", "--dry-run", "--execute"],
            "not allowed",
        ),
        (["configs", "describe"], "exactly one entity"),
        (["configs", "alter", "--topic", "x"], "--add-config and/or --delete-config"),
        (["configs", "alter", "--topic", "x", "--add-config", "a=[1,2"], "unclosed"),
        (["configs", "alter", "--topic", "x", "--add-config", "a=1", "--delete-config", "a"], "both added and deleted"),
        (["dump-log"], "give segment files"),
    ],
)
def test_bad_arguments_exit_2_with_one_error_line_and_usage(cli: Cli, argv: list[str], needle: str) -> None:
    _assert_usage_error(cli(*argv), needle)


@pytest.mark.parametrize(
    "argv",
    [
        ["topics", "list"],
        ["topics", "describe", "--topic", "x"],
        ["topics", "create", "--topic", "x"],
        ["produce", "--topic", "x"],
        ["consume", "--topic", "x"],
        ["groups", "list"],
        ["groups", "describe", "--group", "g"],
        ["configs", "describe", "--topic", "x"],
    ],
    ids=" ".join,
)
def test_an_unreachable_broker_is_exit_1_with_one_line_within_the_timeout(
    cli: Cli, dead_bootstrap: str, argv: list[str]
) -> None:
    started = time.monotonic()
    result = cli(*argv, "--bootstrap-server", dead_bootstrap, "--timeout-ms", "1000", stdin=b"v\n")
    elapsed = time.monotonic() - started
    assert result.code == 1
    assert result.out == ""
    assert result.err.count("\n") == 1
    assert f"error: cannot reach a broker at {dead_bootstrap} within 1000 ms" in result.err
    assert elapsed < 5
