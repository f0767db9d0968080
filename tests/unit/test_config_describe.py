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
