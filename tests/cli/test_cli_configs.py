"""``odradek configs`` against a real broker, and its ``--add-config`` syntax."""

from __future__ import annotations

import json

import pytest

from odradek.cli.configs import parse_add_config
from tests.cli.harness import Cli
from tests.integration.conftest import BrokerProcess


def test_add_config_splits_on_commas_outside_brackets() -> None:
    assert parse_add_config("a=1,b=[x,y],c=") == {"a": "1", "b": "x,y", "c": ""}
    assert parse_add_config("cleanup.policy=[compact,delete]") == {"cleanup.policy": "compact,delete"}


def _topic_configs(cli: Cli, topic: str, bootstrap: str, *flags: str) -> dict[str, tuple[str, str]]:
    result = cli("configs", "describe", "--topic", topic, "--json", *flags, "--bootstrap-server", bootstrap)
    assert result.code == 0, result.err
    return {c["name"]: (c["value"], c["source"]) for c in json.loads(result.out)}


def test_topic_configs_describe_and_alter(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, *b)
    assert "retention.ms" not in _topic_configs(cli, topic_name, broker.bootstrap)
    assert _topic_configs(cli, topic_name, broker.bootstrap, "--all")["retention.ms"] == ("604800000", "DEFAULT_CONFIG")

    altered = cli(
        "configs",
        "alter",
        "--entity-type",
        "topics",
        "--entity-name",
        topic_name,
        "--add-config",
        "retention.ms=5000,cleanup.policy=[compact,delete]",
        *b,
    )
    assert (altered.code, altered.out) == (0, f"configs of topic {topic_name} altered\n")
    configs = _topic_configs(cli, topic_name, broker.bootstrap)
    assert configs["retention.ms"] == ("5000", "DYNAMIC_TOPIC_CONFIG")
    assert configs["cleanup.policy"] == ("compact,delete", "DYNAMIC_TOPIC_CONFIG")

    assert cli("configs", "alter", "--topic", topic_name, "--delete-config", "retention.ms", *b).code == 0
    configs = _topic_configs(cli, topic_name, broker.bootstrap)
    assert "retention.ms" not in configs and "cleanup.policy" in configs
    table = cli("configs", "describe", "--topic", topic_name, *b).out.splitlines()
    assert table[0] == f"Configs of topic {topic_name}:"
    assert ["cleanup.policy", "compact,delete", "DYNAMIC_TOPIC_CONFIG"] in [line.split() for line in table]

    invalid = cli("configs", "alter", "--topic", topic_name, "--add-config", "retention.ms=soon", *b)
    assert invalid.code == 1 and "INVALID_CONFIG" in invalid.err and invalid.err.count("\n") == 1
    unknown = cli("configs", "describe", "--topic", f"{topic_name}-absent", *b)
    assert unknown.code == 1 and "UNKNOWN_TOPIC_OR_PARTITION" in unknown.err


def test_broker_configs_describe_and_alter(cli: Cli, broker: BrokerProcess) -> None:
    b = ("--bootstrap-server", broker.bootstrap)

    def broker_configs() -> dict[str, tuple[str, str]]:
        result = cli("configs", "describe", "--broker", "1", "--json", *b)
        assert result.code == 0, result.err
        return {c["name"]: (c["value"], c["source"]) for c in json.loads(result.out)}

    assert broker_configs()["log.dirs"] == (str(broker.data_dir), "STATIC_BROKER_CONFIG")
    assert cli("configs", "alter", "--broker", "1", "--add-config", "log.cleaner.threads=2", *b).code == 0
    assert broker_configs()["log.cleaner.threads"] == ("2", "DYNAMIC_BROKER_CONFIG")
    assert cli("configs", "alter", "--broker", "1", "--delete-config", "log.cleaner.threads", *b).code == 0
    assert "log.cleaner.threads" not in broker_configs()


@pytest.mark.parametrize("flags", [["--topic", "a", "--broker", "1"], ["--entity-type", "topics"]])
def test_an_entity_must_be_named_once(cli: Cli, flags: list[str]) -> None:
    result = cli("configs", "describe", *flags)
    assert result.code == 2 and result.err.startswith("usage: odradek configs describe")
