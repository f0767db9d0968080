"""The broker's settings: `BrokerConfig`, loaded from ``server.properties`` and overrides.

Values come from, in increasing precedence: the defaults of `odradek.config.table`, a
``server.properties``-style file, then ``key=value`` overrides from the command line.  Keys of
Kafka's broker config are accepted: those odradek reads into attributes (`ConfigKey.attribute`),
the security settings (kept as text), and the others checked by type and kept as given
(`BrokerConfig.given`, which also remembers every Kafka key given, so that DescribeConfigs
reports it as STATIC_BROKER_CONFIG as Kafka does); plus odradek's own ``host``, ``port``,
``advertised.host`` and ``advertised.port``.  Any other key is an error rather than a silently
ignored typo.

Dynamic broker configs (set at run time with AlterConfigs) ride along as two read-only layers,
per-broker over cluster-wide; the static fields never change after start-up.  A setting that can
change at run time must be read through `BrokerConfig.dynamic_value` or
`odradek.config.effective_value` to follow them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from odradek.config.keys import LONG_MAX, ConfigKey, ConfigType, Dynamic, Scope, check_value
from odradek.config.table import BROKER_KEYS

__all__ = [
    "LOCAL_NAMES",
    "BrokerConfig",
    "ConfigError",
    "is_security_name",
    "load_config",
    "parse_properties",
    "python_value",
    "read_properties",
]


class ConfigError(ValueError):
    """A configuration key is unknown or its value has the wrong type."""


def python_value(key: ConfigKey, text: str | None) -> Any:
    """A broker key's text as its `BrokerConfig` attribute holds it (bool, int, float or str)."""
    if text is None:
        return None
    if key.type is ConfigType.BOOLEAN:
        lowered = text.strip().lower()
        if lowered not in ("true", "false"):
            raise ValueError(text)
        return lowered == "true"
    if key.type in (ConfigType.INT, ConfigType.LONG, ConfigType.SHORT):
        return int(text)
    if key.type is ConfigType.DOUBLE:
        return float(text)
    return text.strip()


def _start(name: str) -> Any:
    """The value a broker key starts with: odradek's where Kafka has no default, else Kafka's."""
    key = BROKER_KEYS[name]
    return python_value(key, key.local_default if key.local_default is not None else key.default)


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """Broker settings; attribute names are Kafka's with dots turned into underscores."""

    node_id: int = _start("node.id")
    host: str = "127.0.0.1"
    port: int = 9092
    advertised_host: str | None = None
    advertised_port: int | None = None
    log_dirs: str = _start("log.dirs")
    num_partitions: int = _start("num.partitions")
    default_replication_factor: int = _start("default.replication.factor")
    auto_create_topics_enable: bool = _start("auto.create.topics.enable")
    delete_topic_enable: bool = _start("delete.topic.enable")
    message_max_bytes: int = _start("message.max.bytes")
    socket_request_max_bytes: int = _start("socket.request.max.bytes")
    queued_max_request_bytes: int = _start("queued.max.request.bytes")
    socket_send_buffer_bytes: int = _start("socket.send.buffer.bytes")
    socket_receive_buffer_bytes: int = _start("socket.receive.buffer.bytes")
    log_segment_bytes: int = _start("log.segment.bytes")
    log_index_interval_bytes: int = _start("log.index.interval.bytes")
    log_index_size_max_bytes: int = _start("log.index.size.max.bytes")
    log_message_timestamp_type: str = _start("log.message.timestamp.type")
    log_retention_hours: int = _start("log.retention.hours")
    log_retention_minutes: int | None = _start("log.retention.minutes")
    log_retention_ms: int | None = _start("log.retention.ms")
    log_retention_bytes: int = _start("log.retention.bytes")
    log_retention_check_interval_ms: int = _start("log.retention.check.interval.ms")
    log_flush_offset_checkpoint_interval_ms: int = _start("log.flush.offset.checkpoint.interval.ms")
    log_cleanup_policy: str = _start("log.cleanup.policy")
    log_flush_interval_messages: int = _start("log.flush.interval.messages")
    log_flush_interval_ms: int | None = _start("log.flush.interval.ms")
    log_cleaner_enable: bool = _start("log.cleaner.enable")
    log_cleaner_backoff_ms: int = _start("log.cleaner.backoff.ms")
    log_cleaner_dedupe_buffer_size: int = _start("log.cleaner.dedupe.buffer.size")
    log_cleaner_io_buffer_load_factor: float = _start("log.cleaner.io.buffer.load.factor")
    log_segment_delete_delay_ms: int = _start("log.segment.delete.delay.ms")
    fetch_max_bytes: int = _start("fetch.max.bytes")
    replica_fetch_max_bytes: int = _start("replica.fetch.max.bytes")
    max_incremental_fetch_session_cache_slots: int = _start("max.incremental.fetch.session.cache.slots")
    group_initial_rebalance_delay_ms: int = _start("group.initial.rebalance.delay.ms")
    offsets_topic_num_partitions: int = _start("offsets.topic.num.partitions")
    group_min_session_timeout_ms: int = _start("group.min.session.timeout.ms")
    group_max_session_timeout_ms: int = _start("group.max.session.timeout.ms")
    group_max_size: int = _start("group.max.size")
    offsets_retention_minutes: int = _start("offsets.retention.minutes")
    offsets_retention_check_interval_ms: int = _start("offsets.retention.check.interval.ms")
    offset_metadata_max_bytes: int = _start("offset.metadata.max.bytes")
    transaction_max_timeout_ms: int = _start("transaction.max.timeout.ms")
    transactional_id_expiration_ms: int = _start("transactional.id.expiration.ms")
    transaction_abort_timed_out_transaction_cleanup_interval_ms: int = _start(
        "transaction.abort.timed.out.transaction.cleanup.interval.ms"
    )
    transaction_remove_expired_transaction_cleanup_interval_ms: int = _start(
        "transaction.remove.expired.transaction.cleanup.interval.ms"
    )
    transaction_state_log_num_partitions: int = _start("transaction.state.log.num.partitions")
    transaction_state_log_segment_bytes: int = _start("transaction.state.log.segment.bytes")
    producer_id_expiration_ms: int = _start("producer.id.expiration.ms")
    producer_id_expiration_check_interval_ms: int = _start("producer.id.expiration.check.interval.ms")
    transaction_partition_verification_enable: bool = _start("transaction.partition.verification.enable")
    dynamic_broker_configs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Dynamic configs of this broker (Kafka's source DYNAMIC_BROKER_CONFIG), by Kafka name."""
    dynamic_default_configs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Cluster-wide dynamic defaults (source DYNAMIC_DEFAULT_BROKER_CONFIG), by Kafka name."""
    security: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Listener, TLS, SASL, authorizer, quota and connection-limit settings as given, by Kafka name
    (``listeners`` and ``advertised.listeners`` whole); `odradek.security.settings` reads them."""
    given: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Every Kafka key given at start-up, as given (trimmed), by Kafka name: Kafka's static layer.
    A key odradek reads is in its attribute too; a read-only key odradek only reports
    (`odradek.config.reported_keys`) has its value here alone."""

    def dynamic_value(self, name: str) -> str | None:
        """The dynamic value of ``name``: this broker's, else the cluster default, else None."""
        value = self.dynamic_broker_configs.get(name)
        return value if value is not None else self.dynamic_default_configs.get(name)

    @property
    def data_dirs(self) -> tuple[str, ...]:
        """The data directories of ``log.dirs``, in order (the first keeps the broker's metadata)."""
        return tuple(d.strip() for d in self.log_dirs.split(",") if d.strip())

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


#: odradek's own settings (not Kafka keys): where to listen and what to advertise.
_LOCAL_KEYS = {
    name: ConfigKey(
        name,
        Scope.BROKER,
        kind,
        None,
        "odradek's own setting",
        dynamic=Dynamic.READ_ONLY,
        attribute=name.replace(".", "_"),
    )
    for name, kind in (
        ("host", ConfigType.STRING),
        ("port", ConfigType.INT),
        ("advertised.host", ConfigType.STRING),
        ("advertised.port", ConfigType.INT),
    )
}
#: The names of odradek's own settings.
LOCAL_NAMES = frozenset(_LOCAL_KEYS)
_KEYS_BY_NAME = {key.name: key for key in BROKER_KEYS.values() if key.attribute is not None}
_KEYS_BY_NAME.update(_LOCAL_KEYS)
_KEYS_BY_NAME["broker.id"] = BROKER_KEYS["node.id"]
_PYTHON_TYPE_NAMES = {ConfigType.BOOLEAN: "bool", ConfigType.DOUBLE: "float"}
_PYTHON_TYPE_NAMES.update(dict.fromkeys((ConfigType.INT, ConfigType.LONG, ConfigType.SHORT), "int"))


def _parse_listener(value: str) -> tuple[str, int]:
    """``PLAINTEXT://host:port`` (first listener only) -> (host, port)."""
    first = value.split(",")[0].strip()
    _, _, address = first.rpartition("://")
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        raise ConfigError(f"listener {value!r} has no port")
    return host or "0.0.0.0", int(port)


#: Security settings kept as text in `BrokerConfig.security`: these names, and every name under
#: these prefixes (``listener.name.<listener>.<key>`` is Kafka's per-listener form of any of them).
SECURITY_NAMES = frozenset(
    {"listener.security.protocol.map", "inter.broker.listener.name", "security.inter.broker.protocol"}
    | {"super.users", "authorizer.class.name", "allow.everyone.if.no.acl.found", "principal.builder.class"}
    | {"max.connections", "max.connections.per.ip", "max.connections.per.ip.overrides"}
    | {"connections.max.idle.ms", "connections.max.reauth.ms", "quota.window.num", "quota.window.size.seconds"}
)
SECURITY_PREFIXES = ("ssl.", "sasl.", "listener.name.")


def is_security_name(name: str) -> bool:
    """Whether ``name`` is a setting `BrokerConfig.security` keeps."""
    return name in SECURITY_NAMES or name.startswith(SECURITY_PREFIXES)


def _apply(config: BrokerConfig, items: Iterable[tuple[str, str]]) -> BrokerConfig:
    changes: dict[str, Any] = {}
    security = dict(config.security)
    given = dict(config.given)
    for key, raw in items:
        key = key.strip()
        if key not in LOCAL_NAMES:
            given[key] = raw.strip()
        if key in ("listeners", "advertised.listeners"):
            security[key] = raw.strip()
        if is_security_name(key):
            security[key] = raw.strip()
        elif key == "listeners":
            changes["host"], changes["port"] = _parse_listener(raw)
        elif key == "advertised.listeners":
            changes["advertised_host"], changes["advertised_port"] = _parse_listener(raw)
        elif key in ("log.dir", "log.dirs"):
            changes["log_dirs"] = ",".join(d.strip() for d in raw.split(",") if d.strip())
        else:
            definition = _KEYS_BY_NAME.get(key)
            if definition is None or definition.attribute is None:
                _check_reported(key, raw)
                continue
            try:
                changes[definition.attribute] = python_value(definition, raw)
            except ValueError:
                kind = _PYTHON_TYPE_NAMES.get(definition.type, "str")
                raise ConfigError(f"{key}: cannot use {raw!r} as {kind}") from None
    if security != config.security:
        changes["security"] = MappingProxyType(security)
    if given != config.given:
        changes["given"] = MappingProxyType(given)
    return replace(config, **changes)


def _check_reported(name: str, raw: str) -> None:
    """A Kafka broker key odradek keeps only as given: known, and valid for its type."""
    definition = BROKER_KEYS.get(name)
    if definition is None:
        raise ConfigError(f"unknown broker config {name!r}")
    problem = check_value(definition, raw.strip())
    if problem is not None:
        raise ConfigError(problem)


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


def read_properties(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """A ``server.properties`` file's items, as `parse_properties` reads its text."""
    with open(path, encoding="utf-8") as file:
        return parse_properties(file.read())


def load_config(properties_file: str | os.PathLike[str] | None = None, overrides: Iterable[str] = ()) -> BrokerConfig:
    config = BrokerConfig()
    if properties_file is not None:
        config = _apply(config, read_properties(properties_file))
    pairs = []
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"override {item!r} is not key=value")
        pairs.append((key, value))
    return _check_request_memory(_apply(config, pairs))


def _check_request_memory(config: BrokerConfig) -> BrokerConfig:
    """Kafka's start-up check: a positive request memory limit holds at least one whole request."""
    if 0 < config.queued_max_request_bytes < config.socket_request_max_bytes:
        raise ConfigError("queued.max.request.bytes must be larger or equal to socket.request.max.bytes")
    return config
