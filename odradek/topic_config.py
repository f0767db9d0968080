"""Topic-level configs: Kafka's names, types, defaults, broker synonyms and validation.

Each topic config has a default that comes from a broker config (its synonym): this broker's
dynamic value, else the cluster-wide dynamic default, else the static value when odradek models
that broker setting, else Kafka's static default.  A topic's effective value is its override if
set, else that default, so a topic without an override follows a dynamic broker change at once.
`validate` raises `InvalidConfig` with Kafka-like wording for unknown names and bad values;
CreateTopics and the config APIs use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from odradek.config import BrokerConfig

if TYPE_CHECKING:
    from odradek.cluster.topics import TopicInfo
    from odradek.storage.log_config import LogConfig

__all__ = [
    "TOPIC_CONFIGS",
    "ConfigSource",
    "InvalidConfig",
    "TopicConfigDef",
    "effective_configs",
    "validate",
]

LONG_MAX = 2**63 - 1


class InvalidConfig(ValueError):
    """A topic config Kafka would refuse with INVALID_CONFIG."""


class ConfigSource(Enum):
    """DescribeConfigs source codes."""

    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5


@dataclass(frozen=True, slots=True)
class TopicConfigDef:
    name: str
    type: str  # Kafka's ConfigDef type name: int, long, double, boolean, string, list
    default: str
    broker_synonym: str | None = None
    #: Kafka's validator: the problem with a parsed value in Kafka's words, or None when valid.
    check: Check | None = None


Check = Callable[[object], str | None]
"""Takes the parsed value (an int, a float or one string of a list) like Kafka's validators."""


def _at_least(low: int) -> Check:
    return lambda value: f"Value must be at least {low}" if isinstance(value, int) and value < low else None


def _ratio(value: object) -> str | None:
    assert isinstance(value, float)
    return "Value must be at least 0.0" if value < 0 else "Value must be no more than 1" if value > 1 else None


def _one_of(*allowed: str) -> Check:
    return lambda value: None if value in allowed else f"String must be one of: {', '.join(allowed)}"


_DEFS = [
    TopicConfigDef("cleanup.policy", "list", "delete", "log.cleanup.policy", _one_of("compact", "delete")),
    TopicConfigDef("compression.gzip.level", "int", "-1", "compression.gzip.level"),
    TopicConfigDef("compression.lz4.level", "int", "9", "compression.lz4.level"),
    TopicConfigDef("compression.type", "string", "producer", "compression.type",
                   _one_of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    TopicConfigDef("compression.zstd.level", "int", "3", "compression.zstd.level"),
    TopicConfigDef("delete.retention.ms", "long", "86400000", "log.cleaner.delete.retention.ms", _at_least(0)),
    TopicConfigDef("errors.deadletterqueue.group.enable", "boolean", "false"),
    TopicConfigDef("file.delete.delay.ms", "long", "60000", "log.segment.delete.delay.ms", _at_least(0)),
    TopicConfigDef("flush.messages", "long", str(LONG_MAX), "log.flush.interval.messages", _at_least(1)),
    TopicConfigDef("flush.ms", "long", str(LONG_MAX), "log.flush.interval.ms", _at_least(0)),
    TopicConfigDef("follower.replication.throttled.replicas", "list", "",
                   "follower.replication.throttled.replicas"),
    TopicConfigDef("index.interval.bytes", "int", "4096", "log.index.interval.bytes", _at_least(0)),
    TopicConfigDef("leader.replication.throttled.replicas", "list", "", "leader.replication.throttled.replicas"),
    TopicConfigDef("local.retention.bytes", "long", "-2", "log.local.retention.bytes", _at_least(-2)),
    TopicConfigDef("local.retention.ms", "long", "-2", "log.local.retention.ms", _at_least(-2)),
    TopicConfigDef("max.compaction.lag.ms", "long", str(LONG_MAX), "log.cleaner.max.compaction.lag.ms",
                   _at_least(1)),
    TopicConfigDef("max.decompressed.message.bytes", "int", "2147483639", "max.decompressed.message.bytes",
                   _at_least(1)),
    TopicConfigDef("max.message.bytes", "int", "1048588", "message.max.bytes", _at_least(0)),
    TopicConfigDef("message.timestamp.after.max.ms", "long", "3600000", "log.message.timestamp.after.max.ms",
                   _at_least(0)),
    TopicConfigDef("message.timestamp.before.max.ms", "long", str(LONG_MAX), "log.message.timestamp.before.max.ms",
                   _at_least(0)),
    TopicConfigDef("message.timestamp.type", "string", "CreateTime", "log.message.timestamp.type",
                   _one_of("CreateTime", "LogAppendTime")),
    TopicConfigDef("min.cleanable.dirty.ratio", "double", "0.5", "log.cleaner.min.cleanable.ratio",
                   _ratio),
    TopicConfigDef("min.compaction.lag.ms", "long", "0", "log.cleaner.min.compaction.lag.ms", _at_least(0)),
    TopicConfigDef("min.insync.replicas", "int", "1", "min.insync.replicas", _at_least(1)),
    TopicConfigDef("preallocate", "boolean", "false", "log.preallocate"),
    TopicConfigDef("remote.copy.lag.bytes", "long", "-1", "log.remote.copy.lag.bytes", _at_least(-1)),
    TopicConfigDef("remote.copy.lag.ms", "long", "0", "log.remote.copy.lag.ms", _at_least(-1)),
    TopicConfigDef("remote.log.copy.disable", "boolean", "false"),
    TopicConfigDef("remote.log.delete.on.disable", "boolean", "false"),
    TopicConfigDef("remote.storage.enable", "boolean", "false"),
    TopicConfigDef("retention.bytes", "long", "-1", "log.retention.bytes"),
    TopicConfigDef("retention.ms", "long", "604800000", "log.retention.ms", _at_least(-1)),
    TopicConfigDef("segment.bytes", "int", "1073741824", "log.segment.bytes", _at_least(1048576)),
    TopicConfigDef("segment.index.bytes", "int", "10485760", "log.index.size.max.bytes", _at_least(4)),
    TopicConfigDef("segment.jitter.ms", "long", "0", "log.roll.jitter.ms", _at_least(0)),
    TopicConfigDef("segment.ms", "long", "604800000", "log.roll.ms", _at_least(1)),
    TopicConfigDef("unclean.leader.election.enable", "boolean", "false", "unclean.leader.election.enable"),
]  # fmt: skip

TOPIC_CONFIGS: dict[str, TopicConfigDef] = {d.name: d for d in _DEFS}

# Broker settings we model, by the Kafka name of the broker synonym.
_BROKER_VALUES: dict[str, Callable[[BrokerConfig], str]] = {
    "message.max.bytes": lambda c: str(c.message_max_bytes),
    "log.segment.bytes": lambda c: str(c.log_segment_bytes),
    "log.index.interval.bytes": lambda c: str(c.log_index_interval_bytes),
    "log.index.size.max.bytes": lambda c: str(c.log_index_size_max_bytes),
    "log.message.timestamp.type": lambda c: c.log_message_timestamp_type,
    "log.retention.ms": lambda c: str(c.retention_ms),
    "log.retention.bytes": lambda c: str(c.log_retention_bytes),
    "log.cleanup.policy": lambda c: c.log_cleanup_policy,
    "log.flush.interval.messages": lambda c: str(c.log_flush_interval_messages),
    "log.flush.interval.ms": lambda c: str(c.flush_interval_ms),
    "log.segment.delete.delay.ms": lambda c: str(c.log_segment_delete_delay_ms),
}

_PARSERS: dict[str, Callable[[str], object]] = {
    "int": int,
    "long": int,
    "double": float,
    "boolean": lambda v: {"true": True, "false": False}[v.lower()],
    "string": str,
    "list": str,
}


def _java_number(value: object) -> str:
    """A parsed value as Java prints it in a ConfigException (2 -> "2", 2.0 -> "2.0")."""
    return repr(value) if isinstance(value, float) else str(value)


def _parse_problem(config_type: str) -> str:
    """Kafka's ConfigDef words for a value it cannot parse: only numbers and booleans can fail."""
    if config_type in ("int", "long", "double"):
        return f"Not a number of type {config_type.upper()}"
    return "Expected value to be either true or false"


def validate(name: str, value: str | None) -> None:
    """Raise `InvalidConfig` with Kafka's wording (checked with compat-tests/probes): a
    parse failure names the given text, a validator's refusal the parsed value (or, for a
    list, the offending element)."""
    definition = TOPIC_CONFIGS.get(name)
    if definition is None:
        raise InvalidConfig(f"Unknown topic config name: {name}")
    if value is None:
        raise InvalidConfig(f"Null value not supported for topic configs: {name}")
    text = value.strip()
    try:
        parsed = _PARSERS[definition.type](text)
    except (ValueError, KeyError):
        raise InvalidConfig(
            f"Invalid value {value} for configuration {name}: {_parse_problem(definition.type)}"
        ) from None
    if definition.check is None:
        return
    items = [item.strip() for item in text.split(",") if item.strip()] if definition.type == "list" else [parsed]
    for item in items:
        problem = definition.check(item)
        if problem is not None:
            raise InvalidConfig(f"Invalid value {_java_number(item)} for configuration {name}: {problem}")


def _broker_default(broker: BrokerConfig, synonym: str | None) -> tuple[str, ConfigSource] | None:
    """The broker-level value of a topic config and its source (None: Kafka's static default)."""
    if synonym is None:
        return None
    value = broker.dynamic_broker_configs.get(synonym)
    if value is not None:
        return value, ConfigSource.DYNAMIC_BROKER_CONFIG
    value = broker.dynamic_default_configs.get(synonym)
    if value is not None:
        return value, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
    static = _BROKER_VALUES.get(synonym)
    return (static(broker), ConfigSource.STATIC_BROKER_CONFIG) if static is not None else None


def effective_configs(
    broker: BrokerConfig, overrides: Mapping[str, str]
) -> list[tuple[TopicConfigDef, str, ConfigSource]]:
    """Every topic config with its effective value and where the value comes from."""
    result = []
    for definition in _DEFS:
        if definition.name in overrides:
            result.append((definition, overrides[definition.name], ConfigSource.DYNAMIC_TOPIC_CONFIG))
            continue
        found = _broker_default(broker, definition.broker_synonym)
        if found is None:
            result.append((definition, definition.default, ConfigSource.DEFAULT_CONFIG))
            continue
        value, source = found
        if source is ConfigSource.STATIC_BROKER_CONFIG and value == definition.default:
            source = ConfigSource.DEFAULT_CONFIG
        result.append((definition, value, source))
    return result


def effective_value(broker: BrokerConfig, overrides: Mapping[str, str], name: str) -> str:
    """One topic config's effective value (cheap: used on the produce path)."""
    if name in overrides:
        return overrides[name]
    definition = TOPIC_CONFIGS[name]
    found = _broker_default(broker, definition.broker_synonym)
    return found[0] if found is not None else definition.default


def log_config_for(broker: BrokerConfig, topic: TopicInfo) -> LogConfig:
    """The storage settings of one topic's partitions."""
    from odradek.storage.log_config import LogConfig, TimestampType

    values = {d.name: v for d, v, _ in effective_configs(broker, topic.configs)}
    return LogConfig(
        segment_bytes=int(values["segment.bytes"]),
        index_interval_bytes=int(values["index.interval.bytes"]),
        segment_index_bytes=int(values["segment.index.bytes"]),
        segment_ms=int(values["segment.ms"]),
        message_timestamp_type=TimestampType(values["message.timestamp.type"]),
        retention_ms=int(values["retention.ms"]),
        retention_bytes=int(values["retention.bytes"]),
        cleanup_policy=frozenset(item.strip() for item in values["cleanup.policy"].split(",") if item.strip()),
        flush_messages=int(values["flush.messages"]),
        flush_ms=int(values["flush.ms"]),
        delete_retention_ms=int(values["delete.retention.ms"]),
        min_cleanable_dirty_ratio=float(values["min.cleanable.dirty.ratio"]),
        min_compaction_lag_ms=int(values["min.compaction.lag.ms"]),
        max_compaction_lag_ms=int(values["max.compaction.lag.ms"]),
        file_delete_delay_ms=int(values["file.delete.delay.ms"]),
    )
