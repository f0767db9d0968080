"""Broker configuration: Apache Kafka's property names, types and defaults.

Only the settings odradek implements are known here; an unknown key is an error rather than a
silently ignored typo.  Values come from, in increasing precedence: defaults, a
``server.properties``-style file, then ``key=value`` overrides from the command line.

Dynamic broker configs (set at run time with AlterConfigs, see `odradek.dynamic_config`) ride
along as two read-only layers, per-broker over cluster-wide; the static fields never change
after start-up.  `BrokerConfig.dynamic_value` reads the layers; a setting that can change at run
time must be read through it (or through `odradek.topic_config`) to follow them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["STATIC_FIELDS", "BrokerConfig", "ConfigError", "load_config"]

MIB = 1024 * 1024
LONG_MAX = 2**63 - 1


class ConfigError(ValueError):
    """A configuration key is unknown or its value has the wrong type."""


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """Broker settings; attribute names are Kafka's with dots turned into underscores."""

    node_id: int = 1
    host: str = "127.0.0.1"
    port: int = 9092
    advertised_host: str | None = None
    advertised_port: int | None = None
    log_dirs: str = "./data"
    num_partitions: int = 1
    default_replication_factor: int = 1
    auto_create_topics_enable: bool = True
    delete_topic_enable: bool = True
    message_max_bytes: int = 1048588
    socket_request_max_bytes: int = 100 * MIB
    log_segment_bytes: int = 1024 * MIB
    log_index_interval_bytes: int = 4096
    log_index_size_max_bytes: int = 10 * MIB
    log_message_timestamp_type: str = "CreateTime"
    log_retention_hours: int = 168
    log_retention_minutes: int | None = None
    log_retention_ms: int | None = None
    log_retention_bytes: int = -1
    log_retention_check_interval_ms: int = 300000
    log_cleanup_policy: str = "delete"
    log_flush_interval_messages: int = LONG_MAX
    log_flush_interval_ms: int | None = None
    log_cleaner_enable: bool = True
    log_cleaner_backoff_ms: int = 15000
    log_cleaner_dedupe_buffer_size: int = 128 * MIB
    log_cleaner_io_buffer_load_factor: float = 0.9
    log_segment_delete_delay_ms: int = 60000
    fetch_max_bytes: int = 55 * MIB
    replica_fetch_max_bytes: int = MIB
    max_incremental_fetch_session_cache_slots: int = 1000
    group_initial_rebalance_delay_ms: int = 3000
    offsets_topic_num_partitions: int = 50
    group_min_session_timeout_ms: int = 6000
    group_max_session_timeout_ms: int = 1800000
    group_max_size: int = 2147483647
    offsets_retention_minutes: int = 10080
    offsets_retention_check_interval_ms: int = 600000
    offset_metadata_max_bytes: int = 4096
    dynamic_broker_configs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Dynamic configs of this broker (Kafka's source DYNAMIC_BROKER_CONFIG), by Kafka name."""
    dynamic_default_configs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Cluster-wide dynamic defaults (source DYNAMIC_DEFAULT_BROKER_CONFIG), by Kafka name."""

    def dynamic_value(self, name: str) -> str | None:
        """The dynamic value of ``name``: this broker's, else the cluster default, else None."""
        value = self.dynamic_broker_configs.get(name)
        return value if value is not None else self.dynamic_default_configs.get(name)

    @property
    def advertised(self) -> tuple[str, int]:
        return (self.advertised_host or self.host, self.advertised_port or self.port)

    @property
    def retention_ms(self) -> int:
        """Kafka's precedence: ``log.retention.ms``, else minutes, else hours (-1 is unlimited)."""
        if self.log_retention_ms is not None:
            return self.log_retention_ms
        if self.log_retention_minutes is not None:
            return self.log_retention_minutes * 60_000
        return self.log_retention_hours * 3_600_000

    @property
    def flush_interval_ms(self) -> int:
        """``log.flush.interval.ms``, unset meaning never (Kafka falls back to a scheduler at Long.MAX)."""
        return self.log_flush_interval_ms if self.log_flush_interval_ms is not None else LONG_MAX


#: The fields set from properties (every field but the two dynamic layers).
STATIC_FIELDS = tuple(f for f in fields(BrokerConfig) if not f.name.startswith("dynamic_"))
_KAFKA_NAMES = {f.name.replace("_", "."): f.name for f in STATIC_FIELDS}
_TYPES = {f.name: str(f.type) for f in STATIC_FIELDS}
_KAFKA_NAMES.update({"node.id": "node_id", "broker.id": "node_id"})


def _coerce(name: str, raw: str, declared: str) -> Any:
    """``raw`` as the field's declared type (``int``, ``float``, ``bool``, ``str``, optionally ``| None``)."""
    kind = {"int": int, "bool": bool, "float": float}.get(declared.split("|")[0].strip(), str)
    try:
        if kind is bool:
            lowered = raw.strip().lower()
            if lowered not in ("true", "false"):
                raise ValueError(raw)
            return lowered == "true"
        if kind is int:
            return int(raw)
        if kind is float:
            return float(raw)
        return raw.strip()
    except ValueError:
        raise ConfigError(f"{name}: cannot use {raw!r} as {kind.__name__}") from None


def _parse_listener(value: str) -> tuple[str, int]:
    """``PLAINTEXT://host:port`` (first listener only) -> (host, port)."""
    first = value.split(",")[0].strip()
    _, _, address = first.rpartition("://")
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        raise ConfigError(f"listener {value!r} has no port")
    return host or "0.0.0.0", int(port)


def _apply(config: BrokerConfig, items: Iterable[tuple[str, str]]) -> BrokerConfig:
    changes: dict[str, Any] = {}
    for key, raw in items:
        key = key.strip()
        if key == "listeners":
            changes["host"], changes["port"] = _parse_listener(raw)
        elif key == "advertised.listeners":
            changes["advertised_host"], changes["advertised_port"] = _parse_listener(raw)
        elif key in ("log.dir", "log.dirs"):
            changes["log_dirs"] = raw.split(",")[0].strip()
        elif key in _KAFKA_NAMES:
            attr = _KAFKA_NAMES[key]
            changes[attr] = _coerce(key, raw, _TYPES[attr])
        else:
            raise ConfigError(f"unknown broker config {key!r}")
    return replace(config, **changes)


def parse_properties(text: str) -> list[tuple[str, str]]:
    """Java-properties lines: ``key=value`` or ``key: value``; ``#`` and ``!`` start comments."""
    items: list[tuple[str, str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#!":
            continue
        sep = min((i for i in (stripped.find("="), stripped.find(":")) if i >= 0), default=-1)
        if sep < 0:
            raise ConfigError(f"not a property line: {line!r}")
        items.append((stripped[:sep].strip(), stripped[sep + 1 :].strip()))
    return items


def load_config(properties_file: Path | None = None, overrides: Iterable[str] = ()) -> BrokerConfig:
    config = BrokerConfig()
    if properties_file is not None:
        config = _apply(config, parse_properties(properties_file.read_text()))
    pairs = []
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"override {item!r} is not key=value")
        pairs.append((key, value))
    return _apply(config, pairs)
