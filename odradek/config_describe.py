"""What DescribeConfigs reports: values, sources, synonyms and types, by Kafka's rules.

Topic config entries (Kafka's ConfigHelper): the synonyms of a topic config are its own override
(source TOPIC_CONFIG), then for each broker synonym name of its primary broker config, in
order, the statically set broker value (STATIC_BROKER_CONFIG), then for each the broker
default (DEFAULT_CONFIG, only where the default is not null); everything before the first
synonym named like the primary broker config is dropped.  So ``retention.ms`` reports no
synonym at all unless ``log.retention.ms`` itself is set: Kafka's quirk, kept.  The entry's
source is its first synonym's, DEFAULT_CONFIG when there is none.

"Statically set" means the broker's value differs from odradek's default (the config does not
remember which keys a properties file named).  The only dynamic broker config is the cluster
default ``min.insync.replicas=1`` that a freshly formatted Kafka 4.x cluster carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import IntEnum

from odradek.config import LONG_MAX, BrokerConfig
from odradek.topic_config import TOPIC_CONFIGS, effective_value

__all__ = [
    "ConfigType",
    "DescribedConfig",
    "Source",
    "Synonym",
    "describe_broker",
    "describe_topic",
]


class Source(IntEnum):
    """DescribeConfigs ``config_source`` codes."""

    UNKNOWN = 0
    TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5


class ConfigType(IntEnum):
    """DescribeConfigs ``config_type`` codes (v3+)."""

    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9


_TYPES = {
    "boolean": ConfigType.BOOLEAN,
    "string": ConfigType.STRING,
    "int": ConfigType.INT,
    "long": ConfigType.LONG,
    "double": ConfigType.DOUBLE,
    "list": ConfigType.LIST,
}


@dataclass(frozen=True, slots=True)
class Synonym:
    name: str
    value: str | None
    source: Source


@dataclass(frozen=True, slots=True)
class DescribedConfig:
    name: str
    value: str | None
    source: Source
    read_only: bool
    synonyms: tuple[Synonym, ...]
    type: ConfigType


# Kafka's DynamicBrokerConfig.brokerConfigSynonyms: the broker names sharing one setting.
_SYNONYM_GROUPS = (
    ("log.roll.ms", "log.roll.hours"),
    ("log.roll.jitter.ms", "log.roll.jitter.hours"),
    ("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
    ("log.flush.interval.ms", "log.flush.scheduler.interval.ms"),
)

# Broker defaults that differ from the topic default of the same setting (None: no default).
_BROKER_DEFAULTS: dict[str, str | None] = {
    "log.roll.ms": None,
    "log.roll.hours": "168",
    "log.roll.jitter.ms": None,
    "log.roll.jitter.hours": "0",
    "log.retention.ms": None,
    "log.retention.minutes": None,
    "log.retention.hours": "168",
    "log.flush.interval.ms": None,
    "log.flush.scheduler.interval.ms": str(LONG_MAX),
}

# Topic configs that have no broker synonym in Kafka although odradek's table names one.
_NO_SYNONYM = frozenset({"follower.replication.throttled.replicas", "leader.replication.throttled.replicas"})

# Cluster-level dynamic defaults a new Kafka 4.x cluster starts with: formatting storage with
# eligible leader replicas (KIP-966) enabled records min.insync.replicas for the whole cluster,
# so Kafka reports it with source DYNAMIC_DEFAULT_BROKER_CONFIG, and kafka-topics lists it.
_CLUSTER_DEFAULTS = {"min.insync.replicas": "1"}

_ATTRS = {f.name.replace("_", "."): f.name for f in fields(BrokerConfig)}
_DEFAULT_BROKER = BrokerConfig()

_LONG_BROKER_CONFIGS = frozenset(
    {
        "log.retention.ms",
        "log.retention.bytes",
        "log.retention.check.interval.ms",
        "log.flush.interval.messages",
        "log.flush.interval.ms",
        "offsets.retention.check.interval.ms",
    }
)
_LIST_BROKER_CONFIGS = frozenset({"log.cleanup.policy", "log.dirs"})
# Broker configs that Kafka declares without a default (odradek has to pick one).
_NO_BROKER_DEFAULT = frozenset({"node.id", "log.dirs"})
# Broker configs Kafka can change at run time (the log configs among ours, and message.max.bytes).
_DYNAMIC_BROKER_CONFIGS = frozenset(
    {name for name in _ATTRS if name.startswith("log.") and name != "log.dirs"} | {"message.max.bytes"}
)


def _broker_names(primary: str) -> tuple[str, ...]:
    for group in _SYNONYM_GROUPS:
        if primary in group:
            return group
    return (primary,)


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _static_value(broker: BrokerConfig, name: str) -> str | None:
    """The broker's value for ``name`` when it was set (differs from the default), else None."""
    attr = _ATTRS.get(name)
    if attr is None:
        return None
    value = getattr(broker, attr)
    return _text(value) if value != getattr(_DEFAULT_BROKER, attr) else None


def _broker_default(name: str, topic_default: str) -> str | None:
    return _BROKER_DEFAULTS.get(name, topic_default)


def _topic_synonyms(broker: BrokerConfig, name: str, overrides: Mapping[str, str]) -> list[Synonym]:
    definition = TOPIC_CONFIGS[name]
    synonyms: list[Synonym] = []
    primary = definition.broker_synonym
    if primary is not None and name not in _NO_SYNONYM:
        names = _broker_names(primary)
        for broker_name in names:
            if broker_name in _CLUSTER_DEFAULTS:
                synonyms.append(
                    Synonym(broker_name, _CLUSTER_DEFAULTS[broker_name], Source.DYNAMIC_DEFAULT_BROKER_CONFIG)
                )
        for broker_name in names:
            value = _static_value(broker, broker_name)
            if value is not None:
                synonyms.append(Synonym(broker_name, value, Source.STATIC_BROKER_CONFIG))
        for broker_name in names:
            default = _broker_default(broker_name, definition.default)
            if default is not None:
                synonyms.append(Synonym(broker_name, default, Source.DEFAULT_CONFIG))
        while synonyms and synonyms[0].name != primary:
            synonyms.pop(0)
    if name in overrides:
        synonyms.insert(0, Synonym(name, overrides[name], Source.TOPIC_CONFIG))
    return synonyms


def describe_topic(
    broker: BrokerConfig, overrides: Mapping[str, str], names: list[str] | None = None
) -> list[DescribedConfig]:
    """Every topic config (or those of ``names`` that exist), sorted by name."""
    wanted = sorted(TOPIC_CONFIGS) if not names else [n for n in sorted(set(names)) if n in TOPIC_CONFIGS]
    described = []
    for name in wanted:
        synonyms = _topic_synonyms(broker, name, overrides)
        described.append(
            DescribedConfig(
                name=name,
                value=effective_value(broker, overrides, name),
                source=synonyms[0].source if synonyms else Source.DEFAULT_CONFIG,
                read_only=False,
                synonyms=tuple(synonyms),
                type=_TYPES.get(TOPIC_CONFIGS[name].type, ConfigType.UNKNOWN),
            )
        )
    return described


def _broker_values(broker: BrokerConfig) -> dict[str, tuple[str | None, bool, ConfigType]]:
    """Kafka name -> (value, statically set, type) for every broker config odradek knows."""
    listener = f"PLAINTEXT://{broker.host}:{broker.port}"
    advertised_host, advertised_port = broker.advertised
    advertised = f"PLAINTEXT://{advertised_host}:{advertised_port}"
    values: dict[str, tuple[str | None, bool, ConfigType]] = {
        "listeners": (listener, True, ConfigType.STRING),
        "advertised.listeners": (advertised, broker.advertised_host is not None, ConfigType.STRING),
        "broker.id": (str(broker.node_id), True, ConfigType.INT),
    }
    for name, attr in _ATTRS.items():
        if attr in ("host", "port", "advertised_host", "advertised_port"):
            continue
        value = getattr(broker, attr)
        if isinstance(value, bool):
            kind = ConfigType.BOOLEAN
        elif name in _LIST_BROKER_CONFIGS:
            kind = ConfigType.LIST
        elif isinstance(value, str):
            kind = ConfigType.STRING
        else:
            kind = ConfigType.LONG if name in _LONG_BROKER_CONFIGS else ConfigType.INT
        values[name] = (_text(value), value != getattr(_DEFAULT_BROKER, attr) or name == "node.id", kind)
    return values


def describe_broker(broker: BrokerConfig, names: list[str] | None = None) -> list[DescribedConfig]:
    """The per-broker configs odradek models (``names`` filters), sorted by name."""
    values = _broker_values(broker)
    wanted = sorted(values) if not names else [n for n in sorted(set(names)) if n in values]
    described = []
    for name in wanted:
        value, is_set, kind = values[name]
        synonyms = []
        if is_set:
            synonyms.append(Synonym(name, value, Source.STATIC_BROKER_CONFIG))
        attr = _ATTRS.get(name)
        if attr is not None and name not in _NO_BROKER_DEFAULT and getattr(_DEFAULT_BROKER, attr) is not None:
            synonyms.append(Synonym(name, _text(getattr(_DEFAULT_BROKER, attr)), Source.DEFAULT_CONFIG))
        described.append(
            DescribedConfig(
                name=name,
                value=value,
                source=synonyms[0].source if synonyms else Source.DEFAULT_CONFIG,
                read_only=name not in _DYNAMIC_BROKER_CONFIGS,
                synonyms=tuple(synonyms),
                type=kind,
            )
        )
    return described
