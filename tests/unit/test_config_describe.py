"""DescribeConfigs values, sources and synonyms, following Kafka's ConfigHelper rules."""

from __future__ import annotations

from odradek.config import TOPIC_KEYS as TOPIC_CONFIGS
from odradek.config import ConfigType, Source, Synonym, describe_broker, describe_topic, load_config, with_layer
from odradek.config.dynamic_store import INITIAL_CLUSTER_CONFIGS


def _one(
    overrides: list[str], topic: dict[str, str], name: str, cluster: dict[str, str] | None = None
) -> tuple[str | None, Source, tuple[Synonym, ...]]:
    config = with_layer(load_config(None, overrides), cluster or {}, per_broker=False)
    (described,) = describe_topic(config, topic, [name])
    return described.value, described.source, described.synonyms


def test_every_topic_config_is_described_sorted_with_its_type() -> None:
    described = describe_topic(load_config(), {})
    assert [d.name for d in described] == sorted(TOPIC_CONFIGS)
    types = {d.name: d.type for d in described}
    assert types["cleanup.policy"] is ConfigType.LIST
    assert types["retention.ms"] is ConfigType.LONG
    assert types["segment.bytes"] is ConfigType.INT
    assert types["preallocate"] is ConfigType.BOOLEAN
    assert types["min.cleanable.dirty.ratio"] is ConfigType.DOUBLE
    assert all(not d.read_only for d in described)


def test_default_values_report_the_broker_default_as_synonym() -> None:
    assert _one([], {}, "segment.bytes") == (
        "1073741824",
        Source.DEFAULT_CONFIG,
        (Synonym("log.segment.bytes", "1073741824", Source.DEFAULT_CONFIG),),
    )
    assert _one([], {}, "max.message.bytes")[2] == (Synonym("message.max.bytes", "1048588", Source.DEFAULT_CONFIG),)


def test_retention_ms_has_no_synonym_unless_log_retention_ms_is_set() -> None:
    assert _one([], {}, "retention.ms") == ("604800000", Source.DEFAULT_CONFIG, ())
    assert _one(["log.retention.hours=1"], {}, "retention.ms") == ("3600000", Source.DEFAULT_CONFIG, ())
    assert _one(["log.retention.ms=5000"], {}, "retention.ms") == (
        "5000",
        Source.STATIC_BROKER_CONFIG,
        (
            Synonym("log.retention.ms", "5000", Source.STATIC_BROKER_CONFIG),
            Synonym("log.retention.hours", "168", Source.DEFAULT_CONFIG),
        ),
    )
    assert _one([], {}, "segment.ms") == ("604800000", Source.DEFAULT_CONFIG, ())


def test_a_topic_override_comes_first() -> None:
    value, source, synonyms = _one(["log.segment.bytes=2097152"], {"segment.bytes": "1048576"}, "segment.bytes")
    assert (value, source) == ("1048576", Source.TOPIC_CONFIG)
    assert synonyms == (
        Synonym("segment.bytes", "1048576", Source.TOPIC_CONFIG),
        Synonym("log.segment.bytes", "2097152", Source.STATIC_BROKER_CONFIG),
        Synonym("log.segment.bytes", "1073741824", Source.DEFAULT_CONFIG),
    )


def test_requested_keys_filter_and_unknown_keys_are_skipped() -> None:
    described = describe_topic(load_config(), {}, ["retention.bytes", "no.such.config", "cleanup.policy"])
    assert [d.name for d in described] == ["cleanup.policy", "retention.bytes"]


def test_broker_configs_report_set_values_and_defaults() -> None:
    config = load_config(None, ["log.retention.check.interval.ms=1000", "num.partitions=3", "port=9099"])
    described = {d.name: d for d in describe_broker(config)}
    check = described["log.retention.check.interval.ms"]
    # Kafka 4.x cannot change log.retention.check.interval.ms at run time: read-only.
    assert (check.value, check.source, check.type, check.read_only) == ("1000", Source.STATIC_BROKER_CONFIG, 5, True)
    assert check.synonyms == (
        Synonym("log.retention.check.interval.ms", "1000", Source.STATIC_BROKER_CONFIG),
        Synonym("log.retention.check.interval.ms", "300000", Source.DEFAULT_CONFIG),
    )
    assert described["log.retention.ms"].value is None
    assert described["log.retention.ms"].synonyms == ()
    assert described["listeners"].value == "PLAINTEXT://127.0.0.1:9099"
    assert described["num.partitions"].read_only
    assert described["auto.create.topics.enable"].value == "true"
    assert "host" not in described and "port" not in described


def test_min_insync_replicas_comes_from_the_cluster_default_as_on_a_new_kafka_4_cluster() -> None:
    cluster = dict(INITIAL_CLUSTER_CONFIGS)
    value, source, synonyms = _one([], {}, "min.insync.replicas", cluster)
    assert (value, source) == ("1", Source.DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert synonyms == (
        Synonym("min.insync.replicas", "1", Source.DYNAMIC_DEFAULT_BROKER_CONFIG),
        Synonym("min.insync.replicas", "1", Source.DEFAULT_CONFIG),
    )
    overridden = _one([], {"min.insync.replicas": "2"}, "min.insync.replicas", cluster)
    assert overridden[:2] == ("2", Source.TOPIC_CONFIG)


def test_segment_delete_delay_and_cleaner_memory_are_broker_settings() -> None:
    """file.delete.delay.ms follows log.segment.delete.delay.ms; the cleaner's map settings parse
    with their Kafka types (long and double)."""
    overrides = ["log.segment.delete.delay.ms=1000", "log.cleaner.io.buffer.load.factor=0.5"]
    value, source, _ = _one(overrides, {}, "file.delete.delay.ms")
    assert (value, source) == ("1000", Source.STATIC_BROKER_CONFIG)
    config = load_config(None, [*overrides, "log.cleaner.dedupe.buffer.size=2400"])
    assert (config.log_cleaner_dedupe_buffer_size, config.log_cleaner_io_buffer_load_factor) == (2400, 0.5)
    described = {d.name: d.value for d in describe_broker(config, ["log.cleaner.io.buffer.load.factor"])}
    assert described == {"log.cleaner.io.buffer.load.factor": "0.5"}


#: Start-up security settings as the secured compat profile gives them (issue 17's probe).
_SECURED = [
    "listeners=PLAINTEXT://127.0.0.1:9092,SASL_SSL://127.0.0.1:9093",
    "advertised.listeners=PLAINTEXT://127.0.0.1:9092,SASL_SSL://127.0.0.1:9093",
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL",
    "ssl.keystore.type=PEM",
    "ssl.keystore.location=/certs/server.pem",
    "listener.name.sasl_ssl.ssl.client.auth=required",
    "listener.name.sasl_ssl.plain.sasl.jaas.config=PlainLoginModule required;",
    "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256",
    "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users=User:admin",
    "allow.everyone.if.no.acl.found=false",
]


def test_start_up_security_settings_are_static_broker_configs() -> None:
    described = {d.name: d for d in describe_broker(load_config(None, _SECURED))}
    static = Source.STATIC_BROKER_CONFIG
    mechanisms = described["sasl.enabled.mechanisms"]
    assert (mechanisms.value, mechanisms.source, mechanisms.read_only) == ("PLAIN,SCRAM-SHA-256", static, False)
    assert mechanisms.synonyms == (
        Synonym("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256", static),
        Synonym("sasl.enabled.mechanisms", "GSSAPI", Source.DEFAULT_CONFIG),
    )
    assert described["ssl.keystore.location"].synonyms == (
        Synonym("ssl.keystore.location", "/certs/server.pem", static),
    )
    assert described["ssl.keystore.type"].value == "PEM"
    assert described["listeners"].value == "PLAINTEXT://127.0.0.1:9092,SASL_SSL://127.0.0.1:9093"
    assert described["advertised.listeners"].source is static
    # odradek serves the controller APIs too: Kafka's combined mode lists its CONTROLLER listener.
    assert (
        described["listener.security.protocol.map"].value
        == "PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT"
    )
    authorizer = described["authorizer.class.name"]
    assert (authorizer.source, authorizer.read_only, authorizer.type) == (static, True, ConfigType.STRING)
    assert authorizer.synonyms[-1] == Synonym("authorizer.class.name", "", Source.DEFAULT_CONFIG)


def test_start_up_secrets_and_authorizer_settings_are_hidden() -> None:
    names = ["super.users", "allow.everyone.if.no.acl.found", "listener.name.sasl_ssl.plain.sasl.jaas.config"]
    described = {d.name: d for d in describe_broker(load_config(None, _SECURED), names)}
    for name in ("super.users", "allow.everyone.if.no.acl.found"):
        entry = described[name]
        assert (entry.value, entry.sensitive, entry.read_only, entry.type) == (None, True, True, ConfigType.UNKNOWN)
        assert entry.synonyms == (Synonym(name, None, Source.STATIC_BROKER_CONFIG),)
    jaas = described["listener.name.sasl_ssl.plain.sasl.jaas.config"]
    assert (jaas.value, jaas.sensitive, jaas.read_only, jaas.type) == (None, True, True, ConfigType.PASSWORD)
    assert jaas.synonyms == (Synonym(jaas.name, None, Source.STATIC_BROKER_CONFIG),)


def test_a_listener_setting_lists_its_base_key_after_its_own() -> None:
    (auth,) = describe_broker(load_config(None, _SECURED), ["listener.name.sasl_ssl.ssl.client.auth"])
    assert (auth.value, auth.source, auth.read_only) == ("required", Source.STATIC_BROKER_CONFIG, True)
    assert auth.synonyms == (
        Synonym("listener.name.sasl_ssl.ssl.client.auth", "required", Source.STATIC_BROKER_CONFIG),
        Synonym("ssl.client.auth", "none", Source.DEFAULT_CONFIG),
    )
