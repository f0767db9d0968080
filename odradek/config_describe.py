"""What DescribeConfigs reports: values, sources, synonyms and types, by Kafka's rules.

Synonyms (Kafka's ConfigHelper): for a broker config, each name of its synonym group (e.g.
``log.retention.ms``, ``.minutes``, ``.hours``) with this broker's dynamic value
(DYNAMIC_BROKER_CONFIG), then each with the cluster-wide dynamic default
(DYNAMIC_DEFAULT_BROKER_CONFIG), then each statically set (STATIC_BROKER_CONFIG), then each
default (DEFAULT_CONFIG, only where the default is not null); everything before the first
synonym named like the config itself is dropped.  A topic config has its own override first
(TOPIC_CONFIG), then the synonyms of its primary broker config.  So ``retention.ms`` reports no
synonym at all unless ``log.retention.ms`` itself is set: Kafka's quirk, kept.  The entry's
source is its first synonym's, DEFAULT_CONFIG when there is none.

"Statically set" means the broker's value differs from odradek's default (the config does not
remember which keys a properties file named).

A broker resource lists the static configs odradek models, every dynamic one it accepts and any
custom (unknown to Kafka) name set dynamically; Kafka shows a custom config with a hidden value,
as sensitive, read-only and of unknown type.  The cluster-wide resource (name ``""``) lists
only the dynamic defaults, each with its one DYNAMIC_DEFAULT_BROKER_CONFIG synonym.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum

from odradek.config import LONG_MAX, STATIC_FIELDS, BrokerConfig
from odradek.dynamic_config import DYNAMIC_CONFIGS
from odradek.dynamic_config import effective_value as broker_value
from odradek.topic_config import TOPIC_CONFIGS, effective_value

__all__ = [
    "ConfigType",
    "DescribedConfig",
    "Source",
    "Synonym",
    "describe_broker",
    "describe_cluster",
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
    sensitive: bool = False


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
    "broker.id": "-1",
    "listeners": "PLAINTEXT://:9092",
    "advertised.listeners": None,
}

# Topic configs that have no broker synonym in Kafka although odradek's table names one.
_NO_SYNONYM = frozenset({"follower.replication.throttled.replicas", "leader.replication.throttled.replicas"})

_ATTRS = {f.name.replace("_", "."): f.name for f in STATIC_FIELDS}
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


def _broker_default(name: str, topic_default: str | None = None) -> str | None:
    """Kafka's default of a broker config (None: it has none)."""
    if name in _BROKER_DEFAULTS:
        return _BROKER_DEFAULTS[name]
    if name in DYNAMIC_CONFIGS:
        return DYNAMIC_CONFIGS[name].default
    attr = _ATTRS.get(name)
    if attr is not None and name not in _NO_BROKER_DEFAULT:
        return _text(getattr(_DEFAULT_BROKER, attr))
    return topic_default


def _synonyms(broker: BrokerConfig, primary: str, topic_default: str | None = None) -> list[Synonym]:
    """Kafka's synonym list of the broker config ``primary`` (layer by layer, group order)."""
    names = _broker_names(primary)
    synonyms = [
        Synonym(n, broker.dynamic_broker_configs[n], Source.DYNAMIC_BROKER_CONFIG)
        for n in names
        if n in broker.dynamic_broker_configs
    ]
    synonyms += [
        Synonym(n, broker.dynamic_default_configs[n], Source.DYNAMIC_DEFAULT_BROKER_CONFIG)
        for n in names
        if n in broker.dynamic_default_configs
    ]
    for name in names:
        value = _static_value(broker, name)
        if value is not None:
            synonyms.append(Synonym(name, value, Source.STATIC_BROKER_CONFIG))
    for name in names:
        default = _broker_default(name, topic_default)
        if default is not None:
            synonyms.append(Synonym(name, default, Source.DEFAULT_CONFIG))
    while synonyms and synonyms[0].name != primary:
        synonyms.pop(0)
    return synonyms


def _topic_synonyms(broker: BrokerConfig, name: str, overrides: Mapping[str, str]) -> list[Synonym]:
    definition = TOPIC_CONFIGS[name]
    synonyms: list[Synonym] = []
    primary = definition.broker_synonym
    if primary is not None and name not in _NO_SYNONYM:
        synonyms = _synonyms(broker, primary, definition.default)
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


def _static_types(broker: BrokerConfig) -> dict[str, ConfigType]:
    """Kafka name -> type for every static broker config odradek models."""
    types = {"listeners": ConfigType.LIST, "advertised.listeners": ConfigType.LIST, "broker.id": ConfigType.INT}
    for name, attr in _ATTRS.items():
        if attr in ("host", "port", "advertised_host", "advertised_port"):
            continue
        value = getattr(broker, attr)
        if isinstance(value, bool):
            types[name] = ConfigType.BOOLEAN
        elif name in _LIST_BROKER_CONFIGS:
            types[name] = ConfigType.LIST
        elif isinstance(value, str):
            types[name] = ConfigType.STRING
        else:
            types[name] = ConfigType.LONG if name in _LONG_BROKER_CONFIGS else ConfigType.INT
    return types


def _listener_values(broker: BrokerConfig) -> dict[str, str]:
    advertised_host, advertised_port = broker.advertised
    return {
        "listeners": f"PLAINTEXT://{broker.host}:{broker.port}",
        "advertised.listeners": f"PLAINTEXT://{advertised_host}:{advertised_port}",
        "broker.id": str(broker.node_id),
    }


def _static_value(broker: BrokerConfig, name: str) -> str | None:
    """The broker's value for ``name`` when it was set (differs from the default), else None."""
    if name in ("listeners", "broker.id") or (name == "advertised.listeners" and broker.advertised_host):
        return _listener_values(broker)[name]
    attr = _ATTRS.get(name)
    if attr is None:
        return None
    value = getattr(broker, attr)
    return _text(value) if value != getattr(_DEFAULT_BROKER, attr) or name == "node.id" else None


def _custom_names(layer: Mapping[str, str]) -> set[str]:
    return {name for name in layer if name not in DYNAMIC_CONFIGS and name not in _ATTRS}


def _custom_entry(name: str, source: Source) -> DescribedConfig:
    return DescribedConfig(name, None, source, True, (Synonym(name, None, source),), ConfigType.UNKNOWN, True)


def describe_broker(broker: BrokerConfig, names: list[str] | None = None) -> list[DescribedConfig]:
    """This broker's configs (``names`` filters), sorted by name."""
    types = _static_types(broker)
    types.update({name: _TYPES[d.type] for name, d in DYNAMIC_CONFIGS.items()})
    custom = _custom_names(broker.dynamic_broker_configs) | _custom_names(broker.dynamic_default_configs)
    known = set(types) | custom
    wanted = sorted(known) if not names else [n for n in sorted(set(names)) if n in known]
    described = []
    for name in wanted:
        if name in custom:
            in_broker = name in broker.dynamic_broker_configs
            source = Source.DYNAMIC_BROKER_CONFIG if in_broker else Source.DYNAMIC_DEFAULT_BROKER_CONFIG
            described.append(_custom_entry(name, source))
            continue
        synonyms = _synonyms(broker, name)
        value = _listener_values(broker).get(name) or broker_value(broker, name)
        described.append(
            DescribedConfig(
                name=name,
                value=value,
                source=synonyms[0].source if synonyms else Source.DEFAULT_CONFIG,
                read_only=name not in DYNAMIC_CONFIGS,
                synonyms=tuple(synonyms),
                type=types[name],
            )
        )
    return described


def describe_cluster(broker: BrokerConfig, names: list[str] | None = None) -> list[DescribedConfig]:
    """The cluster-wide dynamic defaults (``names`` filters), sorted by name."""
    layer = broker.dynamic_default_configs
    wanted = sorted(layer) if not names else [n for n in sorted(set(names)) if n in layer]
    described = []
    for name in wanted:
        definition = DYNAMIC_CONFIGS.get(name)
        if definition is None:
            described.append(_custom_entry(name, Source.DYNAMIC_DEFAULT_BROKER_CONFIG))
            continue
        source = Source.DYNAMIC_DEFAULT_BROKER_CONFIG
        described.append(
            DescribedConfig(
                name, layer[name], source, False, (Synonym(name, layer[name], source),), _TYPES[definition.type]
            )
        )
    return described
