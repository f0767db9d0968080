"""Effective values: which value of a key is in force now, and where it comes from.

The one resolution chain (Kafka's DynamicBrokerConfig and LogConfig.fromProps):

- a broker key: this broker's dynamic value, else the cluster-wide dynamic default, else the
  static value odradek read at start-up (a security key's or a key odradek only reports as
  given, `BrokerConfig.security` and `BrokerConfig.given`), else Kafka's default;
- a topic key: the topic's override, else its broker synonym's dynamic value (this broker's,
  then cluster-wide), else the synonym's static value as the broker resolves it (``retention.ms``
  inherits ``log.retention.ms`` else minutes else hours), else the topic key's default.

So a topic without an override follows a dynamic broker change at once.  `log_config_for`
turns a topic's effective values into the typed `LogConfig` the storage and produce paths read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from enum import Enum
from functools import cache
from types import MappingProxyType
from typing import Any, get_type_hints, overload

from odradek.config.broker import BrokerConfig
from odradek.config.keys import ConfigKey, ConfigType, Source, parse_value
from odradek.config.table import BROKER_KEYS, TOPIC_KEYS
from odradek.storage.log_config import LogConfig

__all__ = ["effective_value", "log_config_for", "static_text", "topic_configs", "with_layer"]


def with_layer(config: BrokerConfig, props: Mapping[str, str], *, per_broker: bool) -> BrokerConfig:
    """``config`` with ``props`` as its per-broker (or cluster-wide) dynamic layer."""
    layer = MappingProxyType(dict(props))
    if per_broker:
        return replace(config, dynamic_broker_configs=layer)
    return replace(config, dynamic_default_configs=layer)


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def static_text(config: BrokerConfig, key: ConfigKey) -> str | None:
    """The start-up value of a broker key as text (None: odradek does not read it, or it is unset)."""
    return _text(getattr(config, key.attribute)) if key.attribute is not None else None


#: Broker key -> the `BrokerConfig` attribute holding the value its topic synonyms inherit.
_RESOLVED = {key.name: key.resolved or key.attribute for key in BROKER_KEYS.values() if key.attribute is not None}


def _inherited(config: BrokerConfig, synonym: str) -> tuple[str, Source] | None:
    """A topic key's value from its broker synonym and the source (None: nothing set)."""
    value = config.dynamic_broker_configs.get(synonym)
    if value is not None:
        return value, Source.DYNAMIC_BROKER_CONFIG
    value = config.dynamic_default_configs.get(synonym)
    if value is not None:
        return value, Source.DYNAMIC_DEFAULT_BROKER_CONFIG
    attribute = _RESOLVED.get(synonym)
    static = _text(getattr(config, attribute)) if attribute is not None else None
    return (static, Source.STATIC_BROKER_CONFIG) if static is not None else None


def _topic_default(config: BrokerConfig, key: ConfigKey) -> tuple[str, Source]:
    """A topic key's value without an override and its source (CreateTopics' rule: a static
    value equal to Kafka's default counts as the default)."""
    assert key.default is not None, key.name
    found = _inherited(config, key.synonym) if key.synonym is not None else None
    if found is None:
        return key.default, Source.DEFAULT_CONFIG
    value, source = found
    if source is Source.STATIC_BROKER_CONFIG and value == key.default:
        source = Source.DEFAULT_CONFIG
    return value, source


@overload
def effective_value(config: BrokerConfig, overrides: Mapping[str, str], name: str) -> str: ...


@overload
def effective_value(config: BrokerConfig, overrides: None, name: str) -> str | None: ...


def effective_value(config: BrokerConfig, overrides: Mapping[str, str] | None, name: str) -> str | None:
    """The value of ``name`` now: a topic key when ``overrides`` (the topic's) is given, else a
    broker key (None: it has no value, or odradek does not know it)."""
    if overrides is not None:
        value = overrides.get(name)
        if value is not None:
            return value
        topic_key = TOPIC_KEYS[name]
        found = _inherited(config, topic_key.synonym) if topic_key.synonym is not None else None
        return found[0] if found is not None else topic_key.default
    value = config.dynamic_value(name)
    if value is not None:
        return value
    key = BROKER_KEYS.get(name)
    if key is None:
        return None
    static = static_text(config, key)
    if static is None:
        static = config.security.get(name, config.given.get(name))
    return static if static is not None else key.default


def topic_configs(config: BrokerConfig, overrides: Mapping[str, str]) -> list[tuple[ConfigKey, str, Source]]:
    """Every topic key, sorted by name, with its effective value and where the value comes from."""
    result = []
    for key in TOPIC_KEYS.values():
        value = overrides.get(key.name)
        if value is not None:
            result.append((key, value, Source.TOPIC_CONFIG))
        else:
            result.append((key, *_topic_default(config, key)))
    return result


@cache
def _log_fields() -> tuple[tuple[str, ConfigKey, Any], ...]:
    """Each `LogConfig` field with its topic key and its type (an enum is built from the text)."""
    hints = get_type_hints(LogConfig)
    return tuple((f.name, TOPIC_KEYS[f.name.replace("_", ".")], hints[f.name]) for f in fields(LogConfig))


def _typed(key: ConfigKey, text: str, hint: Any) -> object:
    value = parse_value(key, text)
    if key.type is ConfigType.LIST:
        return frozenset(value) if isinstance(value, list) else value
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    return value


def log_config_for(config: BrokerConfig, overrides: Mapping[str, str]) -> LogConfig:
    """The typed settings of a topic's partitions (build once per config change, not per batch)."""
    values: dict[str, Any] = {}
    for name, key, hint in _log_fields():
        values[name] = _typed(key, effective_value(config, overrides, key.name), hint)
    return LogConfig(**values)
