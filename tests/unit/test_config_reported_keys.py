"""The broker keys odradek reports without acting on them (`odradek.config.reported_keys`) and
where DescribeConfigs says a broker value comes from: every key of Kafka 4.4's broker config is
listed, a key given at start-up is STATIC_BROKER_CONFIG even when it equals the default (as
Kafka reports it; the probe ``secured.broker_security_configs`` compares the whole list)."""

from __future__ import annotations

import re

import pytest

from odradek.config import ConfigError, ConfigType, DynamicConfigError, Source, Synonym, describe_broker, load_config
from odradek.config.reported_keys import REPORTED_KEYS
from odradek.config.table import BROKER_KEYS
from odradek.config.validation import validate_layer


def test_a_broker_lists_every_kafka_broker_key_but_the_internal_producer_id_check_interval() -> None:
    listed = {d.name for d in describe_broker(load_config())}
    assert listed == set(BROKER_KEYS) - {"producer.id.expiration.check.interval.ms"}
    assert {key.name for key in REPORTED_KEYS} <= listed
    # Kafka 4.4.0 lists 362 keys for the probe's secured broker: these 351 and the eleven
    # per-listener and authorizer settings that broker is given.
    assert len(listed) == 351


def test_a_reported_key_not_given_shows_kafkas_default_read_only() -> None:
    described = {d.name: d for d in describe_broker(load_config(), ["offsets.topic.replication.factor", "log.dir"])}
    factor = described["offsets.topic.replication.factor"]
    assert (factor.value, factor.source, factor.type, factor.read_only) == (
        "3",
        Source.DEFAULT_CONFIG,
        ConfigType.SHORT,
        True,
    )
    assert factor.synonyms == (Synonym("offsets.topic.replication.factor", "3", Source.DEFAULT_CONFIG),)
    assert described["log.dir"].value == "/tmp/kafka-logs"


def test_a_reported_key_given_at_start_up_is_a_static_broker_config_over_its_default() -> None:
    config = load_config(None, ["offsets.topic.replication.factor=1", "process.roles=broker,controller"])
    described = {d.name: d for d in describe_broker(config)}
    factor = described["offsets.topic.replication.factor"]
    assert (factor.value, factor.source) == ("1", Source.STATIC_BROKER_CONFIG)
    assert factor.synonyms == (
        Synonym("offsets.topic.replication.factor", "1", Source.STATIC_BROKER_CONFIG),
        Synonym("offsets.topic.replication.factor", "3", Source.DEFAULT_CONFIG),
    )
    # Kafka has no default for process.roles: only the static synonym.
    roles = described["process.roles"]
    assert (roles.value, roles.source, roles.type) == (
        "broker,controller",
        Source.STATIC_BROKER_CONFIG,
        ConfigType.LIST,
    )
    assert roles.synonyms == (Synonym("process.roles", "broker,controller", Source.STATIC_BROKER_CONFIG),)


def test_a_key_given_at_start_up_equal_to_its_default_is_still_static() -> None:
    given = describe_broker(load_config(None, ["auto.create.topics.enable=true"]), ["auto.create.topics.enable"])
    assert given[0].source is Source.STATIC_BROKER_CONFIG
    assert given[0].synonyms == (
        Synonym("auto.create.topics.enable", "true", Source.STATIC_BROKER_CONFIG),
        Synonym("auto.create.topics.enable", "true", Source.DEFAULT_CONFIG),
    )
    not_given = describe_broker(load_config(), ["auto.create.topics.enable"])
    assert not_given[0].source is Source.DEFAULT_CONFIG


def test_a_reported_key_is_checked_by_type_at_start_up() -> None:
    wrong = "Invalid value many for configuration offsets.topic.replication.factor: Not a number of type SHORT"
    with pytest.raises(ConfigError, match=re.escape(wrong)):
        load_config(None, ["offsets.topic.replication.factor=many"])
    with pytest.raises(ConfigError, match=re.escape("unknown broker config 'not.a.kafka.key'")):
        load_config(None, ["not.a.kafka.key=1"])


def test_a_reported_key_cannot_change_at_run_time() -> None:
    with pytest.raises(DynamicConfigError, match="Cannot update these configs dynamically"):
        validate_layer(load_config(), {"offsets.topic.replication.factor": "2"}, per_broker=True)


def test_a_secret_reported_key_is_hidden() -> None:
    (secret,) = describe_broker(load_config(), ["delegation.token.secret.key"])
    assert (secret.value, secret.type, secret.sensitive) == (None, ConfigType.PASSWORD, True)
