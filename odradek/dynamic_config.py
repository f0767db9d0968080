"""Dynamic broker configs: which ones may change at run time, and Kafka's checks before they do.

A dynamic config lives in one of two layers: this broker's (resource name = its node id) or
the cluster-wide default (resource name ``""``).  A setting's value is the per-broker one, else
the cluster default, else the static value from the properties, else Kafka's default
(`BrokerConfig.dynamic_value` and `odradek.topic_config` apply that order).

`validate_layer` checks a whole candidate layer the way Kafka 4.x's DynamicBrokerConfig does, in
its order: names that cannot change at run time, then value types and ranges, then the checks
of the merged configuration ("requirement failed" ones), then the thread-count rules (at most
double, at least half the current value).  Every such failure is INVALID_REQUEST in Kafka (a
ConfigException turned into InvalidRequestException); the two failures the controller reports
(APPEND/SUBTRACT on a non-list config, removing the cluster's ``min.insync.replicas``) are
INVALID_CONFIG.  Names Kafka does not know at all are accepted and kept, as Kafka keeps custom
configs; Kafka's listener, TLS/SASL, quota and remote-storage configs are refused here as
not dynamic, because odradek has none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from odradek.config import LONG_MAX, STATIC_FIELDS, BrokerConfig

__all__ = [
    "DYNAMIC_CONFIGS",
    "KNOWN_STATIC",
    "BrokerConfigDef",
    "DynamicConfigError",
    "apply_incremental",
    "effective_value",
    "validate_layer",
    "with_layer",
]

INT_MAX = 2**31 - 1
MIB = 1024 * 1024


class DynamicConfigError(ValueError):
    """A refused change; ``invalid_config`` picks INVALID_CONFIG over INVALID_REQUEST."""

    def __init__(self, message: str, *, invalid_config: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.invalid_config = invalid_config


Check = Callable[[float], str | None]


@dataclass(frozen=True, slots=True)
class BrokerConfigDef:
    """One dynamic broker config: Kafka's type name, default (None: no default) and range."""

    name: str
    type: str  # int, long, double, boolean, string, list
    default: str | None
    check: Check | None = None
    allowed: tuple[str, ...] = ()


def _at_least(low: float) -> Check:
    return lambda n: f"Value must be at least {low}" if n < low else None


def _between(low: int, high: int) -> Check:
    return lambda n: (
        f"Value must be at least {low}" if n < low else f"Value must be no more than {high}" if n > high else None
    )


def _between_or(low: int, high: int, other: int) -> Check:
    message = f"Value must be between {low} and {high} or equal to {other}"
    return lambda n: None if low <= n <= high or n == other else message


def _ratio(n: float) -> str | None:
    return "Value must be at least 0.0" if n < 0 else "Value must be no more than 1" if n > 1 else None


_COMPRESSION = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")

_DEFS = [
    # The broker synonyms of topic configs (Kafka's DynamicLogConfig).
    BrokerConfigDef("compression.gzip.level", "int", "-1", _between_or(1, 9, -1)),
    BrokerConfigDef("compression.lz4.level", "int", "9", _between(1, 17)),
    BrokerConfigDef("compression.type", "string", "producer", allowed=_COMPRESSION),
    BrokerConfigDef("compression.zstd.level", "int", "3", _between(-131072, 22)),
    BrokerConfigDef("log.cleaner.delete.retention.ms", "long", "86400000", _at_least(0)),
    BrokerConfigDef("log.cleaner.max.compaction.lag.ms", "long", str(LONG_MAX), _at_least(1)),
    BrokerConfigDef("log.cleaner.min.cleanable.ratio", "double", "0.5", _ratio),
    BrokerConfigDef("log.cleaner.min.compaction.lag.ms", "long", "0", _at_least(0)),
    BrokerConfigDef("log.cleanup.policy", "list", "delete", allowed=("compact", "delete")),
    BrokerConfigDef("log.flush.interval.messages", "long", str(LONG_MAX), _at_least(1)),
    BrokerConfigDef("log.flush.interval.ms", "long", None),
    BrokerConfigDef("log.index.interval.bytes", "int", "4096", _at_least(0)),
    BrokerConfigDef("log.index.size.max.bytes", "int", "10485760", _at_least(4)),
    BrokerConfigDef("log.local.retention.bytes", "long", "-2", _at_least(-2)),
    BrokerConfigDef("log.local.retention.ms", "long", "-2", _at_least(-2)),
    BrokerConfigDef("log.message.timestamp.after.max.ms", "long", "3600000", _at_least(0)),
    BrokerConfigDef("log.message.timestamp.before.max.ms", "long", str(LONG_MAX), _at_least(0)),
    BrokerConfigDef("log.message.timestamp.type", "string", "CreateTime", allowed=("CreateTime", "LogAppendTime")),
    BrokerConfigDef("log.preallocate", "boolean", "false"),
    BrokerConfigDef("log.retention.bytes", "long", "-1"),
    BrokerConfigDef("log.retention.ms", "long", None),
    BrokerConfigDef("log.roll.jitter.ms", "long", None),
    BrokerConfigDef("log.roll.ms", "long", None),
    BrokerConfigDef("log.segment.bytes", "int", "1073741824", _at_least(MIB)),
    BrokerConfigDef("log.segment.delete.delay.ms", "long", "60000", _at_least(0)),
    BrokerConfigDef("message.max.bytes", "int", "1048588", _at_least(0)),
    BrokerConfigDef("min.insync.replicas", "int", "1", _at_least(1)),
    BrokerConfigDef("unclean.leader.election.enable", "boolean", "false"),
    # The log cleaner's (Kafka's LogCleaner.ReconfigurableConfigs).
    BrokerConfigDef("log.cleaner.backoff.ms", "long", "15000", _at_least(0)),
    BrokerConfigDef("log.cleaner.dedupe.buffer.size", "long", str(128 * MIB)),
    BrokerConfigDef("log.cleaner.io.buffer.load.factor", "double", "0.9"),
    BrokerConfigDef("log.cleaner.io.buffer.size", "int", "524288", _at_least(0)),
    BrokerConfigDef("log.cleaner.io.max.bytes.per.second", "double", "1.7976931348623157E308"),
    BrokerConfigDef("log.cleaner.threads", "int", "1", _at_least(0)),
    # Thread pools (Kafka's DynamicThreadPool, and the network threads).
    BrokerConfigDef("background.threads", "int", "10", _at_least(1)),
    BrokerConfigDef("num.io.threads", "int", "8", _at_least(1)),
    BrokerConfigDef("num.network.threads", "int", "3", _at_least(1)),
    BrokerConfigDef("num.recovery.threads.per.data.dir", "int", "2", _at_least(1)),
    BrokerConfigDef("num.replica.fetchers", "int", "1", _at_least(1)),
]

DYNAMIC_CONFIGS: Mapping[str, BrokerConfigDef] = MappingProxyType({d.name: d for d in _DEFS})

# Thread pools whose size Kafka lets change by at most a factor of two at a time.
_THREAD_POOLS = ("num.io.threads", "num.replica.fetchers", "num.recovery.threads.per.data.dir", "background.threads")

#: Kafka broker configs odradek knows that cannot change at run time.
KNOWN_STATIC = (
    frozenset(
        {f.name.replace("_", ".") for f in STATIC_FIELDS if not f.name.endswith(("host", "port"))}
        | {"broker.id", "node.id", "listeners", "advertised.listeners", "log.dir", "process.roles"}
        | {"log.retention.hours", "log.retention.minutes", "log.roll.hours", "log.roll.jitter.hours"}
        | {"log.flush.scheduler.interval.ms", "controller.quorum.voters", "controller.listener.names"}
        | {"inter.broker.listener.name", "listener.security.protocol.map", "metric.reporters"}
        | {"principal.builder.class", "config.providers", "cordoned.log.dirs", "max.connections"}
        | {"max.connections.per.ip", "max.connections.per.ip.overrides", "max.connection.creation.rate"}
    )
    - DYNAMIC_CONFIGS.keys()
)

# Prefixes of Kafka's dynamic configs that odradek has no use for (TLS, SASL, per listener, tiered storage).
_REFUSED_PREFIXES = ("ssl.", "sasl.", "listener.name.", "remote.")

_STATIC_ATTRS = frozenset(f.name for f in STATIC_FIELDS)
_NUMBER_TYPES = {"int": (-(2**31), INT_MAX), "long": (-(2**63), LONG_MAX)}


def _not_dynamic(name: str) -> bool:
    return name in KNOWN_STATIC or name.startswith(_REFUSED_PREFIXES)


def _type_error(definition: BrokerConfigDef, value: str) -> str | None:
    """Kafka's ConfigDef verdict on ``value`` (None: valid)."""
    text = value.strip()
    kind = definition.type
    if kind in _NUMBER_TYPES or kind == "double":
        try:
            number: float = float(text) if kind == "double" else int(text)
        except ValueError:
            return f"Not a number of type {kind.upper()}"
        if kind in _NUMBER_TYPES:
            low, high = _NUMBER_TYPES[kind]
            if not low <= number <= high:
                return f"Not a number of type {kind.upper()}"
        return definition.check(number) if definition.check else None
    if kind == "boolean":
        return None if text.lower() in ("true", "false") else "Expected value to be either true or false"
    items = [item.strip() for item in text.split(",") if item.strip()] if kind == "list" else [text]
    if definition.allowed and any(item not in definition.allowed for item in items):
        return f"String must be one of: {', '.join(definition.allowed)}"
    return None


def _java_hash(text: str) -> int:
    value = 0
    for char in text:
        value = (31 * value + ord(char)) & 0xFFFFFFFF
    return value


def _names(names: Sequence[str] | set[str]) -> str:
    """``names`` as Kafka prints its Java ``HashSet``: in hash-bucket order (default capacity
    16, doubled at a load factor of 0.75), colliding names by name."""
    capacity = 16
    while len(names) > capacity * 3 // 4:
        capacity *= 2

    def bucket(name: str) -> int:
        value = _java_hash(name)
        return (value ^ (value >> 16)) & (capacity - 1)

    return "[" + ", ".join(sorted(names, key=lambda name: (bucket(name), name))) + "]"


def with_layer(config: BrokerConfig, props: Mapping[str, str], *, per_broker: bool) -> BrokerConfig:
    """``config`` with ``props`` as its per-broker (or cluster-wide) dynamic layer."""
    layer = MappingProxyType(dict(props))
    if per_broker:
        return _replace_layers(config, layer, config.dynamic_default_configs)
    return _replace_layers(config, config.dynamic_broker_configs, layer)


def _replace_layers(config: BrokerConfig, broker: Mapping[str, str], cluster: Mapping[str, str]) -> BrokerConfig:
    return replace(config, dynamic_broker_configs=broker, dynamic_default_configs=cluster)


def effective_value(config: BrokerConfig, name: str) -> str | None:
    """The value of a broker config now: dynamic layers, else static, else Kafka's default."""
    value = config.dynamic_value(name)
    if value is not None:
        return value
    static = getattr(config, name.replace(".", "_"), None) if name.replace(".", "_") in _STATIC_ATTRS else None
    if static is not None:
        return ("true" if static else "false") if isinstance(static, bool) else str(static)
    definition = DYNAMIC_CONFIGS.get(name)
    return definition.default if definition is not None else None


def _merged_checks(old: BrokerConfig, new: BrokerConfig) -> None:
    """Kafka's checks of the whole merged configuration, then of each changed thread pool."""
    roll = effective_value(new, "log.roll.ms")
    if roll is not None and int(roll) < 1:
        raise DynamicConfigError("requirement failed: log.roll.ms must be greater than or equal to 1")
    jitter = effective_value(new, "log.roll.jitter.ms")
    if jitter is not None and int(jitter) < 0:
        raise DynamicConfigError("requirement failed: log.roll.jitter.ms must be greater than or equal to 0")
    threads = int(effective_value(new, "log.cleaner.threads") or "1")
    if threads > 0 and int(effective_value(new, "log.cleaner.dedupe.buffer.size") or "0") < MIB * threads:
        raise DynamicConfigError(
            "requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread."
        )
    problem = _cleaner_threads_problem(old, new)
    for name in _THREAD_POOLS:
        before, after = int(effective_value(old, name) or "1"), int(effective_value(new, name) or "1")
        if problem is None and after != before:
            if after < before // 2:
                problem = f"value should be at least half the current value {before}"
            elif after > before * 2:
                problem = f"value should not be greater than double the current value {before}"
            if problem is not None:
                problem = f"Dynamic thread count update validation failed for {name}={after}, {problem}"
    if problem is not None:
        raise DynamicConfigError(
            f"Invalid value org.apache.kafka.common.config.ConfigException: {problem} "
            "for configuration Invalid dynamic configuration"
        )


def _cleaner_threads_problem(old: BrokerConfig, new: BrokerConfig) -> str | None:
    before = int(effective_value(old, "log.cleaner.threads") or "1")
    after = int(effective_value(new, "log.cleaner.threads") or "1")
    if after == before:
        return None
    if after < 1:
        return "Log cleaner threads should be at least 1"
    if after < before // 2:
        return f"Log cleaner threads cannot be reduced to less than half the current value {before}"
    if after > before * 2:
        return f"Log cleaner threads cannot be increased to more than double the current value {before}"
    return None


def validate_layer(config: BrokerConfig, props: Mapping[str, str], *, per_broker: bool) -> None:
    """Raise `DynamicConfigError` unless ``props`` may replace the per-broker (or cluster) layer."""
    refused = {name for name in props if _not_dynamic(name)}
    if refused:
        raise DynamicConfigError(f"Cannot update these configs dynamically: {_names(refused)}")
    for name, value in sorted(props.items()):
        definition = DYNAMIC_CONFIGS.get(name)
        if definition is None:
            continue
        problem = _type_error(definition, value)
        if problem is not None:
            raise DynamicConfigError(f"Invalid value {value} for configuration {name}: {problem}")
    _merged_checks(config, with_layer(config, props, per_broker=per_broker))
    removed = set(config.dynamic_default_configs) - set(props)
    if not per_broker and "min.insync.replicas" in removed:
        raise DynamicConfigError(
            "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.", invalid_config=True
        )


def _list_items(value: str) -> list[str]:
    return value.split(",") if value else []


def apply_incremental(current: Mapping[str, str], changes: Sequence[tuple[str, int, str | None]]) -> dict[str, str]:
    """The layer after SET (0), DELETE (1), APPEND (2) and SUBTRACT (3), in order.

    APPEND and SUBTRACT work on list configs only (INVALID_CONFIG otherwise); they start from
    the layer's own value, else Kafka's default, as Kafka's ConfigAdminManager does."""
    result = dict(current)
    for name, op, value in changes:
        if op == 0:
            result[name] = value or ""
        elif op == 1:
            result.pop(name, None)
        else:
            verb = "append" if op == 2 else "subtract"
            definition = DYNAMIC_CONFIGS.get(name)
            if definition is None and name not in KNOWN_STATIC:
                raise DynamicConfigError(f"Unknown config name: {name}", invalid_config=True)
            if definition is None or definition.type != "list":
                raise DynamicConfigError(
                    f"Config value {verb} is not allowed for config key: {name}", invalid_config=True
                )
            items = _list_items(result.get(name, definition.default or ""))
            given = _list_items(value or "")
            if op == 2:
                items += [item for item in given if item not in items]
            else:
                items = [item for item in items if item not in given]
            result[name] = ",".join(items)
    return result
