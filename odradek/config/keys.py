"""What one config key is: Kafka's ConfigDef facts (type, default, validator) plus its place.

A `ConfigKey` is the single definition of one Kafka config name; `odradek.config.table` holds
them all.  Every other part of the package (loading, effective values, the typed `LogConfig`,
validation, alteration, DescribeConfigs) reads these definitions and nothing else.

`check_value` is Kafka's ConfigDef verdict on a value, worded as Kafka words its
ConfigException: a value that does not parse names the text as given; a validator's refusal
names the parsed value (for a list, the offending element).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, IntEnum

__all__ = [
    "INT_MAX",
    "LONG_MAX",
    "ConfigKey",
    "ConfigType",
    "Dynamic",
    "Scope",
    "Source",
    "Validator",
    "at_least",
    "between",
    "between_or",
    "check_value",
    "list_items",
    "one_of",
    "parse_value",
]

INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1


class ConfigType(IntEnum):
    """Kafka's ConfigDef types, numbered as DescribeConfigs (v3+) reports them."""

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


class Source(IntEnum):
    """Where a value comes from: DescribeConfigs ``config_source`` codes (CreateTopics v5+ too)."""

    UNKNOWN = 0
    TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    GROUP_CONFIG = 8


class Scope(Enum):
    """Which resource a key belongs to.  A topic key with a broker synonym takes its default
    from that broker key (``ConfigKey.synonym``)."""

    BROKER = "broker"
    TOPIC = "topic"
    GROUP = "group"


class Dynamic(Enum):
    """Kafka's update mode of a broker key.  Topic keys can always be altered."""

    READ_ONLY = "read-only"
    PER_BROKER = "per-broker"
    CLUSTER_WIDE = "cluster-wide"
    PER_LISTENER = "per-listener"
    """A listener's own security store (keystore, truststore): changed per broker and only
    under a listener's prefix, ``listener.name.<listener>.<key>``."""


Validator = Callable[[object], str | None]
"""Takes a parsed value (an int, a float, or one string of a list); the problem in Kafka's words."""


@dataclass(frozen=True, slots=True)
class ConfigKey:
    """One Kafka config key, defined once.

    Invariants: ``default`` is Kafka's default as DescribeConfigs prints it (None: Kafka has
    none); a topic key always has a default; ``synonym`` is set on topic keys only,
    ``dynamic``/``attribute``/``group``/``resolved`` on broker keys only.
    """

    name: str
    scope: Scope
    type: ConfigType
    default: str | None
    doc: str
    validator: Validator | None = None
    dynamic: Dynamic | None = None
    """Broker keys: Kafka's update mode.  None for a topic key (always alterable)."""
    synonym: str | None = None
    """Topic and group keys: the broker key whose value is their default (None: Kafka's default)."""
    attribute: str | None = None
    """Broker keys odradek reads at start-up: the `BrokerConfig` attribute holding the value."""
    local_default: str | None = None
    """odradek's start-up value where Kafka has no default (``node.id``, ``log.dirs``)."""
    group: tuple[str, ...] = ()
    """Broker keys: Kafka's synonym group in its order (``log.retention.ms``, ``.minutes``,
    ``.hours``); empty for a key that is alone."""
    resolved: str | None = None
    """Broker keys: the `BrokerConfig` property that resolves the group (what topics inherit)."""

    @property
    def names(self) -> tuple[str, ...]:
        """The broker names sharing this setting, in Kafka's synonym order."""
        return self.group or (self.name,)


def at_least(low: int) -> Validator:
    return lambda value: f"Value must be at least {low}" if _number(value) < low else None


def between(low: float, high: float) -> Validator:
    def check(value: object) -> str | None:
        number = _number(value)
        if number < low:
            return f"Value must be at least {low}"
        return f"Value must be no more than {high}" if number > high else None

    return check


def between_or(low: int, high: int, other: int) -> Validator:
    message = f"Value must be between {low} and {high} or equal to {other}"
    return lambda value: None if low <= _number(value) <= high or value == other else message


def one_of(*allowed: str) -> Validator:
    message = f"String must be one of: {', '.join(allowed)}"
    return lambda value: None if value in allowed else message


def _number(value: object) -> float:
    assert isinstance(value, int | float)
    return value


_BITS = {ConfigType.SHORT: 16, ConfigType.INT: 32, ConfigType.LONG: 64}


def list_items(text: str) -> list[str]:
    """The elements of a LIST value: comma-separated, trimmed, empty ones dropped."""
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_value(key: ConfigKey, text: str) -> object:
    """``text`` as the key's type (a LIST gives its items); `ValueError` when it does not parse."""
    text = text.strip()
    kind = key.type
    if kind in _BITS:
        number = int(text)
        bits = _BITS[kind]
        if not -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
            raise ValueError(text)
        return number
    if kind is ConfigType.DOUBLE:
        return float(text)
    if kind is ConfigType.BOOLEAN:
        lowered = text.lower()
        if lowered not in ("true", "false"):
            raise ValueError(text)
        return lowered == "true"
    if kind is ConfigType.LIST:
        return list_items(text)
    return text


def _parse_problem(kind: ConfigType) -> str:
    if kind is ConfigType.BOOLEAN:
        return "Expected value to be either true or false"
    return f"Not a number of type {kind.name}"


def _java_text(value: object) -> str:
    """A parsed value as Java prints it in a ConfigException (2 -> "2", 2.0 -> "2.0")."""
    return repr(value) if isinstance(value, float) else str(value)


#: The Java classes a CLASS config may name: Kafka's own defaults (odradek loads no plug-in).
KNOWN_CLASSES = frozenset(
    {
        "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
        "org.apache.kafka.common.security.ssl.DefaultSslEngineFactory",
        "org.apache.kafka.common.metrics.JmxReporter",
    }
)


def check_value(key: ConfigKey, value: str) -> str | None:
    """Kafka's ConfigException message for ``value`` of ``key``, or None when it is valid."""
    if key.type is ConfigType.CLASS and value.strip() not in KNOWN_CLASSES:
        return f"Invalid value {value} for configuration {key.name}: Class {value.strip()} could not be found."
    try:
        parsed = parse_value(key, value)
    except ValueError:
        return f"Invalid value {value} for configuration {key.name}: {_parse_problem(key.type)}"
    if key.validator is None:
        return None
    for item in parsed if isinstance(parsed, list) else [parsed]:
        problem = key.validator(item)
        if problem is not None:
            return f"Invalid value {_java_text(item)} for configuration {key.name}: {problem}"
    return None
