"""The one table of config keys: everything that reads settings is derived from it."""

from __future__ import annotations

from dataclasses import fields

import pytest

from odradek.config import (
    BROKER_KEYS,
    TOPIC_KEYS,
    BrokerConfig,
    ConfigType,
    DynamicConfigError,
    InvalidConfig,
    Scope,
    apply_incremental,
    effective_value,
    load_config,
    log_config_for,
    validate,
    with_layer,
)
from odradek.config.broker import python_value
from odradek.config.table import index_by_name
from odradek.storage.log_config import LogConfig, TimestampType, TopicCompression

_PYTHON_TYPES = {
    ConfigType.BOOLEAN: "bool",
    ConfigType.INT: "int",
    ConfigType.LONG: "int",
    ConfigType.DOUBLE: "float",
    ConfigType.STRING: "str",
    ConfigType.LIST: "str",
}


def test_a_key_defined_twice_is_refused() -> None:
    key = BROKER_KEYS["producer.id.expiration.ms"]
    with pytest.raises(ValueError, match=r"'producer\.id\.expiration\.ms' is defined twice"):
        index_by_name([key, key])


def test_broker_config_holds_exactly_the_keys_read_at_start_up_with_the_table_defaults() -> None:
    attributes = {key.attribute: key for key in BROKER_KEYS.values() if key.attribute is not None}
    own = {"host", "port", "advertised_host", "advertised_port", "dynamic_broker_configs", "dynamic_default_configs"}
    own |= {"security", "given"}
    assert {f.name for f in fields(BrokerConfig)} - own == set(attributes)
    start = BrokerConfig()
    for name, key in attributes.items():
        expected = python_value(key, key.local_default if key.local_default is not None else key.default)
        assert getattr(start, name) == expected, name
        declared = next(str(f.type) for f in fields(BrokerConfig) if f.name == name)
        assert declared.split(" |")[0] == _PYTHON_TYPES[key.type], name


def test_every_topic_synonym_that_is_a_broker_key_shares_its_type() -> None:
    for key in TOPIC_KEYS.values():
        broker = BROKER_KEYS.get(key.synonym or "")
        assert key.scope is Scope.TOPIC and key.default is not None
        if broker is not None:
            assert broker.type is key.type, key.name


def test_the_storage_defaults_are_the_tables() -> None:
    """LogConfig keeps its own defaults (storage may not import the table); they cannot drift."""
    assert log_config_for(BrokerConfig(), {}) == LogConfig()
    for field in fields(LogConfig):
        assert field.name.replace("_", ".") in TOPIC_KEYS


def test_the_typed_log_config_carries_what_the_produce_path_reads() -> None:
    overrides = {
        "compression.type": "zstd",
        "compression.zstd.level": "7",
        "max.message.bytes": "5000",
        "message.timestamp.type": "LogAppendTime",
        "message.timestamp.before.max.ms": "60000",
        "cleanup.policy": "compact,delete",
    }
    config = with_layer(
        load_config(), {"compression.gzip.level": "4", "log.message.timestamp.after.max.ms": "9"}, per_broker=True
    )
    log_config = log_config_for(config, overrides)
    assert log_config.compression_type is TopicCompression.ZSTD
    assert (log_config.compression_zstd_level, log_config.compression_gzip_level, log_config.compression_lz4_level) == (
        7,
        4,
        9,
    )
    assert log_config.max_message_bytes == 5000
    assert log_config.message_timestamp_type is TimestampType.LOG_APPEND_TIME
    assert (log_config.message_timestamp_before_max_ms, log_config.message_timestamp_after_max_ms) == (60000, 9)
    assert log_config.cleanup_policy == frozenset({"compact", "delete"})


def test_a_broker_key_resolves_through_its_layers_then_static_then_kafkas_default() -> None:
    config = load_config(None, ["log.retention.hours=2"])
    assert effective_value(config, None, "log.retention.ms") is None
    assert effective_value(config, {}, "retention.ms") == "7200000"
    assert effective_value(config, None, "num.io.threads") == "8"
    assert effective_value(with_layer(config, {"num.io.threads": "9"}, per_broker=False), None, "num.io.threads") == "9"
    assert effective_value(config, None, "no.such.config") is None


def test_topic_compression_levels_use_kafkas_ranges() -> None:
    validate("compression.gzip.level", "9")
    with pytest.raises(InvalidConfig) as refused:
        validate("compression.lz4.level", "18")
    assert (
        str(refused.value) == "Invalid value 18 for configuration compression.lz4.level: Value must be no more than 17"
    )


@pytest.mark.parametrize(
    ("scope", "name", "message"),
    [
        (Scope.TOPIC, "retention.ms", "Can't APPEND to key retention.ms because its type is not LIST."),
        (Scope.TOPIC, "log.cleanup.policy", "Unknown topic config name: log.cleanup.policy"),
        (Scope.BROKER, "log.retention.ms", "Config value append is not allowed for config key: log.retention.ms"),
        (Scope.BROKER, "cleanup.policy", "Unknown config name: cleanup.policy"),
    ],
)
def test_one_incremental_alter_speaks_each_resources_words(scope: Scope, name: str, message: str) -> None:
    with pytest.raises(DynamicConfigError) as refused:
        apply_incremental({}, [(name, 2, "x")], scope)
    assert (refused.value.message, refused.value.invalid_config) == (message, True)


@pytest.mark.parametrize("scope", [Scope.TOPIC, Scope.BROKER])
def test_list_arithmetic_is_the_same_for_topics_and_brokers(scope: Scope) -> None:
    name = "cleanup.policy" if scope is Scope.TOPIC else "log.cleanup.policy"
    assert apply_incremental({}, [(name, 2, "compact,compact")], scope) == {name: "delete,compact"}
    assert apply_incremental({name: "compact,delete,compact"}, [(name, 3, "compact")], scope) == {
        name: "delete,compact"
    }
    assert apply_incremental({name: ""}, [(name, 2, "delete")], scope) == {name: "delete"}
    with pytest.raises(DynamicConfigError) as refused:
        apply_incremental({}, [(name, 9, "x")], scope)
    assert (refused.value.message, refused.value.invalid_config) == ("Unknown operation type 9", False)


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("segment.bytes", "2147483648", "Not a number of type INT"),
        ("retention.ms", "9223372036854775808", "Not a number of type LONG"),
    ],
)
def test_numbers_outside_their_java_type_do_not_parse(name: str, value: str, problem: str) -> None:
    with pytest.raises(InvalidConfig) as refused:
        validate(name, value)
    assert str(refused.value) == f"Invalid value {value} for configuration {name}: {problem}"
    validate(name, str(int(value) - 1) if name == "retention.ms" else "2147483647")
