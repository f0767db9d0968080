"""Validation: Kafka's checks of a topic's overrides and of a dynamic broker layer.

`validate` checks one topic override (CreateTopics, AlterConfigs, IncrementalAlterConfigs):
unknown names, null values and `check_value`'s verdict, all INVALID_CONFIG.

`validate_layer` checks a whole candidate broker layer the way Kafka 4.x's DynamicBrokerConfig
does, in its order: names that cannot change at run time, then value types and ranges, then
the checks of the merged configuration ("requirement failed" ones), then the thread-count rules
(at most double, at least half the current value).  Every such failure is INVALID_REQUEST in
Kafka (a ConfigException turned into InvalidRequestException); the two failures the controller
reports (APPEND/SUBTRACT on a non-list config, removing the cluster's ``min.insync.replicas``)
are INVALID_CONFIG.  Names Kafka does not know at all are accepted and kept, as Kafka keeps
custom configs.  TLS and SASL keys change per broker only, a listener's keystore and truststore
only under its prefix (``listener.name.<listener>.<key>``), as Kafka allows.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from odradek.config.broker import BrokerConfig
from odradek.config.keys import ConfigKey, Dynamic, check_value, list_items
from odradek.config.table import BROKER_KEYS, TOPIC_KEYS
from odradek.config.values import effective_value, with_layer
from odradek.java_hash import java_string_hash

__all__ = ["KNOWN_STATIC", "DynamicConfigError", "InvalidConfig", "validate", "validate_layer"]

MIB = 1024 * 1024


class InvalidConfig(ValueError):
    """A topic config Kafka would refuse with INVALID_CONFIG."""


class DynamicConfigError(ValueError):
    """A refused change of dynamic configs (a broker layer, or a topic's overrides altered
    incrementally); ``invalid_config`` picks INVALID_CONFIG over INVALID_REQUEST."""

    def __init__(self, message: str, *, invalid_config: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.invalid_config = invalid_config


#: Kafka broker configs odradek knows that cannot change at run time.
KNOWN_STATIC = frozenset(name for name, key in BROKER_KEYS.items() if key.dynamic is Dynamic.READ_ONLY)

# Thread pools whose size Kafka lets change by at most a factor of two at a time.
_THREAD_POOLS = ("num.io.threads", "num.replica.fetchers", "num.recovery.threads.per.data.dir", "background.threads")

LISTENER_PREFIX = "listener.name."
_SECURITY_PREFIXES = ("ssl.", "sasl.")
_SCOPED = (Dynamic.PER_BROKER, Dynamic.PER_LISTENER)


def validate(name: str, value: str | None) -> str:
    """``value`` when Kafka accepts it as the topic config ``name``; else raise `InvalidConfig`
    with Kafka's wording (checked with compat-tests/probes)."""
    key = TOPIC_KEYS.get(name)
    if key is None:
        raise InvalidConfig(f"Unknown topic config name: {name}")
    if value is None:
        raise InvalidConfig(f"Null value not supported for topic configs: {name}")
    problem = check_value(key, value)
    if problem is not None:
        raise InvalidConfig(problem)
    return value


def listener_key(name: str) -> ConfigKey | None:
    """The TLS or SASL key that ``listener.name.<listener>.<key>`` sets for one listener, if any."""
    if not name.startswith(LISTENER_PREFIX):
        return None
    _, dot, base = name[len(LISTENER_PREFIX) :].partition(".")
    key = BROKER_KEYS.get(base)
    return key if dot and key is not None and base.startswith(_SECURITY_PREFIXES) else None


def _special_checks(config: BrokerConfig, props: Mapping[str, str]) -> None:
    """The checks Kafka's reconfigurable components make of their own keys."""
    cordoned = props.get("cordoned.log.dirs")
    if cordoned:
        missing = [d for d in list_items(cordoned) if d not in config.data_dirs]
        if missing:
            raise DynamicConfigError(
                "requirement failed: All entries in cordoned.log.dirs must be present in log.dirs or log.dir. "
                f"Missing entries : {','.join(missing)}"
            )
    overrides = props.get("max.connections.per.ip.overrides")
    if overrides:
        for entry in overrides.split(","):
            if ":" not in entry:
                raise DynamicConfigError(
                    "Error parsing configuration property 'max.connections.per.ip.overrides': "
                    f"begin 0, end -1, length {len(entry)}"
                )


def _names(names: Collection[str]) -> str:
    """``names`` as Kafka prints its Java ``HashSet``: in hash-bucket order (default capacity
    16, doubled at a load factor of 0.75), colliding names by name."""
    capacity = 16
    while len(names) > capacity * 3 // 4:
        capacity *= 2

    def bucket(name: str) -> int:
        value = java_string_hash(name) & 0xFFFFFFFF
        return (value ^ (value >> 16)) & (capacity - 1)

    return "[" + ", ".join(sorted(names, key=lambda name: (bucket(name), name))) + "]"


def _int(config: BrokerConfig, name: str, fallback: str) -> int:
    return int(effective_value(config, None, name) or fallback)


def _merged_checks(old: BrokerConfig, new: BrokerConfig) -> None:
    """Kafka's checks of the whole merged configuration, then of each changed thread pool."""
    roll = effective_value(new, None, "log.roll.ms")
    if roll is not None and int(roll) < 1:
        raise DynamicConfigError("requirement failed: log.roll.ms must be greater than or equal to 1")
    jitter = effective_value(new, None, "log.roll.jitter.ms")
    if jitter is not None and int(jitter) < 0:
        raise DynamicConfigError("requirement failed: log.roll.jitter.ms must be greater than or equal to 0")
    threads = _int(new, "log.cleaner.threads", "1")
    if threads > 0 and _int(new, "log.cleaner.dedupe.buffer.size", "0") < MIB * threads:
        raise DynamicConfigError(
            "requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread."
        )
    problem = _cleaner_threads_problem(old, new)
    for name in _THREAD_POOLS:
        before, after = _int(old, name, "1"), _int(new, name, "1")
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
    before, after = _int(old, "log.cleaner.threads", "1"), _int(new, "log.cleaner.threads", "1")
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
    """Raise `DynamicConfigError` unless ``props`` may replace the per-broker (or cluster) layer.

    Kafka 4.4's order (DynamicBrokerConfig, then the controller): names that cannot change at
    run time; a listener's own security keys without the listener prefix; value types and
    ranges; per-broker keys (listeners, TLS, SASL, anything listener-prefixed) in the cluster-wide
    layer; the checks of particular keys; the merged configuration; ``min.insync.replicas``
    (ELR is on: per broker never, cluster-wide never removed; INVALID_CONFIG)."""
    refused = {name for name in props if name in KNOWN_STATIC}
    if refused:
        raise DynamicConfigError(f"Cannot update these configs dynamically: {_names(refused)}")
    unprefixed = {
        name for name in props if (k := BROKER_KEYS.get(name)) is not None and k.dynamic is Dynamic.PER_LISTENER
    }
    if unprefixed:
        raise DynamicConfigError(
            "These security configs can be dynamically updated only per-listener using the listener prefix: "
            f"{_names(unprefixed)}"
        )
    for name, value in sorted(props.items()):
        key = BROKER_KEYS.get(name) or listener_key(name)
        if key is None:
            continue
        problem = check_value(key, value)
        if problem is not None:
            raise DynamicConfigError(problem)
    if not per_broker:
        scoped = {
            name
            for name in props
            if listener_key(name) is not None or ((k := BROKER_KEYS.get(name)) is not None and k.dynamic in _SCOPED)
        }
        if scoped:
            raise DynamicConfigError(
                f"Cannot update these configs at default cluster level, broker id must be specified: {_names(scoped)}"
            )
    _special_checks(config, props)
    _merged_checks(config, with_layer(config, props, per_broker=per_broker))
    if per_broker and "min.insync.replicas" in props:
        raise DynamicConfigError(
            "Broker-level min.insync.replicas cannot be altered while ELR is enabled.", invalid_config=True
        )
    removed = set(config.dynamic_default_configs) - set(props)
    if not per_broker and "min.insync.replicas" in removed:
        raise DynamicConfigError(
            "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.", invalid_config=True
        )
