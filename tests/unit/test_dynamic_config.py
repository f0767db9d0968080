"""Dynamic broker configs: Kafka 4.x's checks, the layer precedence, and their persistence.

The expected messages are the ones a Kafka 4.3.1 broker answered to the same requests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from odradek.cluster.topics import TopicInfo
from odradek.config import (
    BrokerConfig,
    ConfigError,
    DynamicConfigError,
    Scope,
    Source,
    Synonym,
    describe_broker,
    describe_cluster,
    describe_topic,
    effective_value,
    load_config,
    log_config_for,
    validate_layer,
    with_layer,
)
from odradek.config import apply_incremental as apply_any
from odradek.config import topic_configs as effective_configs
from odradek.config.dynamic_store import DYNAMIC_CONFIGS_FILE, INITIAL_CLUSTER_CONFIGS, DynamicConfigStore
from odradek.storage.filesystem import OsFileSystem

ConfigSource = Source

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def apply_incremental(current: dict[str, str], changes: list[tuple[str, int, str | None]]) -> dict[str, str | None]:
    return apply_any(current, changes, Scope.BROKER)


def _fresh(overrides: tuple[str, ...] = ()) -> BrokerConfig:
    return with_layer(load_config(None, list(overrides)), INITIAL_CLUSTER_CONFIGS, per_broker=False)


def _refusal(props: dict[str, str], *, per_broker: bool = True, config: BrokerConfig | None = None) -> tuple[str, bool]:
    with pytest.raises(DynamicConfigError) as caught:
        validate_layer(config or _fresh(), props, per_broker=per_broker)
    return caught.value.message, caught.value.invalid_config


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"broker.id": "5"}, "Cannot update these configs dynamically: [broker.id]"),
        ({"log.retention.hours": "1"}, "Cannot update these configs dynamically: [log.retention.hours]"),
        ({"log.dirs": "/x"}, "Cannot update these configs dynamically: [log.dirs]"),
        ({"log.retention.ms": "abc", "broker.id": "2"}, "Cannot update these configs dynamically: [broker.id]"),
        ({"broker.id": "5", "node.id": "7"}, "Cannot update these configs dynamically: [node.id, broker.id]"),
        (
            {"log.retention.ms": "abc"},
            "Invalid value abc for configuration log.retention.ms: Not a number of type LONG",
        ),
        ({"message.max.bytes": "-1"}, "Invalid value -1 for configuration message.max.bytes: Value must be at least 0"),
        (
            {"log.segment.bytes": "1048575"},
            "Invalid value 1048575 for configuration log.segment.bytes: Value must be at least 1048576",
        ),
        (
            {"log.cleanup.policy": "bogus"},
            "Invalid value bogus for configuration log.cleanup.policy: String must be one of: compact, delete",
        ),
        (
            {"compression.type": "none"},
            "Invalid value none for configuration compression.type: "
            "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer",
        ),
        (
            {"log.preallocate": "maybe"},
            "Invalid value maybe for configuration log.preallocate: Expected value to be either true or false",
        ),
        (
            {"log.cleaner.min.cleanable.ratio": "2.0"},
            "Invalid value 2.0 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1",
        ),
        (
            {"compression.gzip.level": "20"},
            "Invalid value 20 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1",
        ),
        ({"log.roll.ms": "0"}, "requirement failed: log.roll.ms must be greater than or equal to 1"),
        (
            {"log.cleaner.dedupe.buffer.size": "1"},
            "requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.",
        ),
        (
            {"num.io.threads": "17"},
            "Invalid value org.apache.kafka.common.config.ConfigException: Dynamic thread count update validation "
            "failed for num.io.threads=17, value should not be greater than double the current value 8 "
            "for configuration Invalid dynamic configuration",
        ),
        (
            {"num.io.threads": "3"},
            "Invalid value org.apache.kafka.common.config.ConfigException: Dynamic thread count update validation "
            "failed for num.io.threads=3, value should be at least half the current value 8 "
            "for configuration Invalid dynamic configuration",
        ),
        (
            {"log.cleaner.threads": "3"},
            "Invalid value org.apache.kafka.common.config.ConfigException: Log cleaner threads cannot be increased "
            "to more than double the current value 1 for configuration Invalid dynamic configuration",
        ),
    ],
)
def test_refused_changes_give_kafkas_invalid_request_message(props: dict[str, str], message: str) -> None:
    assert _refusal(props) == (message, False)


@pytest.mark.parametrize(
    "props",
    [
        {"log.retention.ms": "-5"},
        {"message.max.bytes": " 5000 "},
        {"log.cleanup.policy": ""},
        {"log.cleanup.policy": "compact,compact"},
        {"num.io.threads": "16"},
        {"num.io.threads": "4"},
        {"log.flush.interval.ms": "-1"},
        {"custom.config.nobody.knows": "x"},
    ],
)
def test_accepted_changes(props: dict[str, str]) -> None:
    validate_layer(_fresh(), props, per_broker=True)


def test_thread_limits_follow_the_current_dynamic_value() -> None:
    config = with_layer(_fresh(), {"num.io.threads": "16"}, per_broker=True)
    validate_layer(config, {"num.io.threads": "32"}, per_broker=True)
    assert "current value 16" in _refusal({"num.io.threads": "33"}, config=config)[0]


def test_the_cluster_min_insync_replicas_cannot_be_removed() -> None:
    message = "Cluster-level min.insync.replicas cannot be removed while ELR is enabled."
    assert _refusal({"log.segment.bytes": "2097152"}, per_broker=False) == (message, True)
    validate_layer(_fresh(), {}, per_broker=True)


def test_append_and_subtract_start_from_the_layer_or_kafkas_default() -> None:
    assert apply_incremental({}, [("log.cleanup.policy", APPEND, "compact")]) == {
        "log.cleanup.policy": "delete,compact"
    }
    layer = {"log.cleanup.policy": "delete,compact", "message.max.bytes": "5"}
    after = apply_incremental(layer, [("log.cleanup.policy", SUBTRACT, "delete"), ("message.max.bytes", DELETE, None)])
    assert after == {"log.cleanup.policy": "compact"}
    assert apply_incremental({}, [("log.retention.ms", SET, "1"), ("x", DELETE, None)]) == {"log.retention.ms": "1"}


@pytest.mark.parametrize(
    ("name", "op", "message"),
    [
        ("log.retention.ms", APPEND, "Config value append is not allowed for config key: log.retention.ms"),
        ("broker.id", SUBTRACT, "Config value subtract is not allowed for config key: broker.id"),
        ("foo.bar", APPEND, "Unknown config name: foo.bar"),
    ],
)
def test_list_operations_on_other_configs_are_invalid_config(name: str, op: int, message: str) -> None:
    with pytest.raises(DynamicConfigError) as caught:
        apply_incremental({}, [(name, op, "x")])
    assert (caught.value.message, caught.value.invalid_config) == (message, True)


def _layers(cluster: dict[str, str], own: dict[str, str], overrides: tuple[str, ...] = ()) -> BrokerConfig:
    config = with_layer(load_config(None, list(overrides)), cluster, per_broker=False)
    return with_layer(config, own, per_broker=True)


def test_a_topic_follows_per_broker_then_cluster_then_static_then_default() -> None:
    static = ("message.max.bytes=5000",)
    assert effective_value(_layers({}, {}), {}, "max.message.bytes") == "1048588"
    assert effective_value(_layers({}, {}, static), {}, "max.message.bytes") == "5000"
    assert effective_value(_layers({"message.max.bytes": "6000"}, {}, static), {}, "max.message.bytes") == "6000"
    both = _layers({"message.max.bytes": "6000"}, {"message.max.bytes": "7000"}, static)
    assert effective_value(both, {}, "max.message.bytes") == "7000"
    assert effective_value(both, {"max.message.bytes": "8000"}, "max.message.bytes") == "8000"
    sources = {d.name: (value, source) for d, value, source in effective_configs(both, {})}
    assert sources["max.message.bytes"] == ("7000", ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert sources["compression.type"] == ("producer", ConfigSource.DEFAULT_CONFIG)


def test_storage_settings_follow_the_dynamic_layers() -> None:
    config = _layers({"log.retention.ms": "3600000"}, {"log.segment.bytes": "2097152", "log.cleanup.policy": "compact"})
    topic = TopicInfo(name="t", topic_id=b"\0" * 16, partitions=1, configs={})
    log_config = log_config_for(config, topic.configs)
    assert (log_config.retention_ms, log_config.segment_bytes) == (3600000, 2097152)
    assert log_config.cleanup_policy == frozenset({"compact"})


def test_describe_synonyms_follow_kafkas_layer_order() -> None:
    config = _layers({"log.retention.ms": "3600000"}, {"log.retention.ms": "7200001"})
    (retention,) = describe_topic(config, {}, ["retention.ms"])
    assert (retention.value, retention.source) == ("7200001", Source.DYNAMIC_BROKER_CONFIG)
    assert retention.synonyms == (
        Synonym("log.retention.ms", "7200001", Source.DYNAMIC_BROKER_CONFIG),
        Synonym("log.retention.ms", "3600000", Source.DYNAMIC_DEFAULT_BROKER_CONFIG),
        Synonym("log.retention.hours", "168", Source.DEFAULT_CONFIG),
    )
    broker = {d.name: d for d in describe_broker(config, ["log.retention.ms", "log.retention.hours"])}
    assert broker["log.retention.ms"].synonyms == retention.synonyms
    assert not broker["log.retention.ms"].read_only
    assert broker["log.retention.hours"].read_only
    assert broker["log.retention.hours"].synonyms == (Synonym("log.retention.hours", "168", Source.DEFAULT_CONFIG),)


def test_cluster_describe_lists_only_the_dynamic_defaults() -> None:
    config = _layers({"log.retention.ms": "3600000", "min.insync.replicas": "1"}, {"message.max.bytes": "7"})
    described = describe_cluster(config)
    assert [(d.name, d.value, d.source, d.synonyms) for d in described] == [
        (
            "log.retention.ms",
            "3600000",
            Source.DYNAMIC_DEFAULT_BROKER_CONFIG,
            (Synonym("log.retention.ms", "3600000", Source.DYNAMIC_DEFAULT_BROKER_CONFIG),),
        ),
        (
            "min.insync.replicas",
            "1",
            Source.DYNAMIC_DEFAULT_BROKER_CONFIG,
            (Synonym("min.insync.replicas", "1", Source.DYNAMIC_DEFAULT_BROKER_CONFIG),),
        ),
    ]


def test_custom_configs_are_described_hidden_and_read_only() -> None:
    (custom,) = describe_broker(_layers({}, {"foo.bar": "1"}), ["foo.bar"])
    assert (custom.value, custom.source, custom.read_only, custom.sensitive) == (
        None,
        Source.DYNAMIC_BROKER_CONFIG,
        True,
        True,
    )
    assert custom.synonyms == (Synonym("foo.bar", None, Source.DYNAMIC_BROKER_CONFIG),)


def test_store_round_trip_and_fresh_cluster(tmp_path: Path) -> None:
    store = DynamicConfigStore(OsFileSystem(), str(tmp_path / DYNAMIC_CONFIGS_FILE))
    assert store.load() == ({"min.insync.replicas": "1"}, {})
    store.save({"min.insync.replicas": "1", "log.retention.ms": "5"}, {"message.max.bytes": "7"})
    assert store.load() == ({"min.insync.replicas": "1", "log.retention.ms": "5"}, {"message.max.bytes": "7"})
    assert sorted(p.name for p in tmp_path.iterdir()) == [DYNAMIC_CONFIGS_FILE]


@pytest.mark.parametrize(
    "text",
    ["not json", json.dumps({"version": 2, "cluster": {}, "broker": {}}), json.dumps({"version": 1, "cluster": {}})],
)
def test_a_damaged_store_is_an_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / DYNAMIC_CONFIGS_FILE
    path.write_text(text)
    with pytest.raises(ConfigError):
        DynamicConfigStore(OsFileSystem(), str(path)).load()


@pytest.mark.parametrize(
    ("props", "per_broker", "message"),
    [
        (
            {"ssl.keystore.location": "/k"},
            True,
            "These security configs can be dynamically updated only per-listener using the listener prefix: "
            "[ssl.keystore.location]",
        ),
        (
            {"ssl.truststore.type": "JKS"},
            False,
            "These security configs can be dynamically updated only per-listener using the listener prefix: "
            "[ssl.truststore.type]",
        ),
        (
            {"sasl.kerberos.min.time.before.relogin": "60000"},
            False,
            "Cannot update these configs at default cluster level, broker id must be specified: "
            "[sasl.kerberos.min.time.before.relogin]",
        ),
        (
            {"listener.name.plaintext.ssl.keystore.password": "s"},
            False,
            "Cannot update these configs at default cluster level, broker id must be specified: "
            "[listener.name.plaintext.ssl.keystore.password]",
        ),
        (
            {"sasl.login.refresh.buffer.seconds": "x"},
            False,
            "Invalid value x for configuration sasl.login.refresh.buffer.seconds: Not a number of type SHORT",
        ),
        (
            {"listener.name.plaintext.ssl.engine.factory.class": "x"},
            True,
            "Invalid value x for configuration ssl.engine.factory.class: Class x could not be found.",
        ),
        (
            {"cordoned.log.dirs": "/elsewhere"},
            True,
            "requirement failed: All entries in cordoned.log.dirs must be present in log.dirs or log.dir. "
            "Missing entries : /elsewhere",
        ),
        (
            {"max.connections.per.ip.overrides": "x"},
            True,
            "Error parsing configuration property 'max.connections.per.ip.overrides': begin 0, end -1, length 1",
        ),
    ],
)
def test_security_and_per_broker_keys_are_refused_where_kafka_refuses_them(
    props: dict[str, str], per_broker: bool, message: str
) -> None:
    assert _refusal(props, per_broker=per_broker) == (message, False)


@pytest.mark.parametrize(
    ("props", "per_broker"),
    [
        ({"sasl.kerberos.min.time.before.relogin": "61000"}, True),
        ({"listener.name.plaintext.sasl.kerberos.min.time.before.relogin": "61000"}, True),
        ({"listener.name.plaintext.ssl.keystore.password": "secret", "ssl.protocol": "TLSv1.2"}, True),
        ({"min.insync.replicas": "1", "remote.fetch.max.wait.ms": "600", "max.connections": "100"}, False),
        (
            {"principal.builder.class": "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"},
            True,
        ),
    ],
)
def test_kafkas_dynamic_keys_are_accepted_in_their_scope(props: dict[str, str], per_broker: bool) -> None:
    validate_layer(_fresh(), props, per_broker=per_broker)


def test_a_broker_level_min_insync_replicas_is_refused_while_elr_is_on() -> None:
    assert _refusal({"min.insync.replicas": "1"}) == (
        "Broker-level min.insync.replicas cannot be altered while ELR is enabled.",
        True,
    )
