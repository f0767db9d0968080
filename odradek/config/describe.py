"""What DescribeConfigs reports: values, sources, synonyms and types, by Kafka's rules.

Synonyms (Kafka's ConfigHelper): for a broker config, each name of its synonym group (e.g.
``log.retention.ms``, ``.minutes``, ``.hours``) with this broker's dynamic value
(DYNAMIC_BROKER_CONFIG), then each with the cluster-wide dynamic default
(DYNAMIC_DEFAULT_BROKER_CONFIG), then each statically set (STATIC_BROKER_CONFIG), then each
default (DEFAULT_CONFIG, only where the default is not null); everything before the first
synonym named like the config itself is dropped.  A topic config has its own override first
(TOPIC_CONFIG), then the synonyms of its broker synonym.  So ``retention.ms`` reports no
synonym at all unless ``log.retention.ms`` itself is set: Kafka's quirk, kept.  The entry's
source is its first synonym's, DEFAULT_CONFIG when there is none.

"Statically set" means given at start-up (`BrokerConfig.given`, `BrokerConfig.security`), or,
for a key odradek reads, a start-up value that differs from odradek's default (``log.dirs``
from the command line's data directory).

A broker resource lists every key of Kafka's broker config as Kafka 4.4 does (those odradek only
reports, `odradek.config.reported_keys`, included; ``producer.id.expiration.check.interval.ms``,
internal in Kafka 4.4, left out), the security settings given at start-up that Kafka lists
besides (per-listener TLS and SASL keys, the authorizer's ``super.users`` and
``allow.everyone.if.no.acl.found``) and any custom (unknown to Kafka) name set dynamically;
Kafka shows a custom config with a hidden value, as sensitive, read-only and of unknown type; a
PASSWORD key's value is hidden too (sensitive).  The cluster-wide resource (name ``""``) lists
only the dynamic defaults, each with its one DYNAMIC_DEFAULT_BROKER_CONFIG synonym.

Documentation: Kafka answers its own ConfigDef documentation text when asked (v3+); odradek
does not repeat Kafka's prose, so its entries carry none (`DescribedConfig` has no such field
and the handler answers null).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from odradek.config.broker import LOCAL_NAMES, BrokerConfig
from odradek.config.keys import ConfigKey, ConfigType, Dynamic, Source
from odradek.config.table import BROKER_KEYS, TOPIC_KEYS
from odradek.config.validation import LISTENER_PREFIX, listener_key
from odradek.config.values import effective_value, static_text

__all__ = ["DescribedConfig", "Synonym", "describe_broker", "describe_cluster", "describe_topic"]


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


_START = BrokerConfig()

#: Broker keys odradek reads that Kafka 4.4 does not list: it defines them as internal configs.
_UNLISTED = frozenset({"producer.id.expiration.check.interval.ms"})
#: The broker keys a broker resource lists (besides custom ones set dynamically): every key of
#: Kafka's broker config, as Kafka 4.4 lists them.
_DESCRIBED = frozenset(name for name in BROKER_KEYS if name not in _UNLISTED)


#: Settings of Kafka's StandardAuthorizer that its broker config does not define: Kafka describes
#: them as custom configs (hidden value, sensitive, of unknown type) when server.properties sets them.
_AUTHORIZER_NAMES = frozenset({"super.users", "allow.everyone.if.no.acl.found"})


def _listener_values(broker: BrokerConfig) -> dict[str, str]:
    """The listener keys as given at start-up, else as odradek's one PLAINTEXT listener makes them."""
    advertised_host, advertised_port = broker.advertised
    given = broker.security
    # The controller APIs are served on the client listeners, named CONTROLLER where Kafka's
    # combined mode lists its controller endpoint (DescribeQuorum, DescribeCluster).
    protocols = given.get("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT")
    if not any(entry.strip().startswith("CONTROLLER:") for entry in protocols.split(",")):
        protocols += ",CONTROLLER:PLAINTEXT"
    return {
        "listeners": given.get("listeners", f"PLAINTEXT://{broker.host}:{broker.port}"),
        "advertised.listeners": given.get("advertised.listeners", f"PLAINTEXT://{advertised_host}:{advertised_port}"),
        "broker.id": str(broker.node_id),
        "listener.security.protocol.map": protocols,
    }


def _static_value(broker: BrokerConfig, name: str) -> str | None:
    """The broker's value for ``name`` when it was set: a security key when given at start-up,
    any other when it differs from the start-up value."""
    if name in ("listeners", "broker.id", "listener.security.protocol.map") or (
        name == "advertised.listeners" and (broker.advertised_host or name in broker.security)
    ):
        return _listener_values(broker)[name]
    key = BROKER_KEYS.get(name)
    if key is None:
        return None
    if key.attribute is None:
        return broker.security.get(name, broker.given.get(name))
    value = static_text(broker, key)
    return value if value != static_text(_START, key) or name == "node.id" or name in broker.given else None


def _synonyms(broker: BrokerConfig, primary: str, topic_default: str | None = None) -> list[Synonym]:
    """Kafka's synonym list of the broker config ``primary`` (layer by layer, group order); a
    name odradek does not know as a broker key has the topic's default."""
    key = BROKER_KEYS.get(primary)
    names = key.names if key is not None else (primary,)
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
        known = BROKER_KEYS.get(name)
        default = known.default if known is not None else topic_default
        if default is not None:
            synonyms.append(Synonym(name, default, Source.DEFAULT_CONFIG))
    while synonyms and synonyms[0].name != primary:
        synonyms.pop(0)
    return synonyms


def _topic_synonyms(broker: BrokerConfig, name: str, overrides: Mapping[str, str]) -> list[Synonym]:
    key = TOPIC_KEYS[name]
    synonyms = _synonyms(broker, key.synonym, key.default) if key.synonym is not None else []
    if name in overrides:
        synonyms.insert(0, Synonym(name, overrides[name], Source.TOPIC_CONFIG))
    return synonyms


def describe_topic(
    broker: BrokerConfig, overrides: Mapping[str, str], names: list[str] | None = None
) -> list[DescribedConfig]:
    """Every topic config (or those of ``names`` that exist), sorted by name."""
    wanted = sorted(TOPIC_KEYS) if not names else [n for n in sorted(set(names)) if n in TOPIC_KEYS]
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
                type=TOPIC_KEYS[name].type,
            )
        )
    return described


def _custom_names(layer: Mapping[str, str]) -> set[str]:
    return {name for name in layer if name not in BROKER_KEYS and name not in LOCAL_NAMES}


def _custom_entry(name: str, source: Source) -> DescribedConfig:
    return DescribedConfig(name, None, source, True, (Synonym(name, None, source),), ConfigType.UNKNOWN, True)


def _listener_base(name: str) -> ConfigKey | None:
    """The TLS or SASL key a ``listener.name.<listener>.<key>`` (or, for SASL, a
    ``listener.name.<listener>.<mechanism>.<key>``) setting sets for one listener, if any."""
    key = listener_key(name)
    if key is not None or not name.startswith(LISTENER_PREFIX):
        return key
    _, _, per_listener = name[len(LISTENER_PREFIX) :].partition(".")
    _, dot, base = per_listener.partition(".")
    key = BROKER_KEYS.get(base)
    return key if dot and key is not None and base.startswith("sasl.") else None


def _given_names(broker: BrokerConfig) -> set[str]:
    """The security settings given at start-up that a broker resource lists: Kafka's keys, its
    authorizer's own settings and the per-listener forms of TLS and SASL keys."""
    return {
        name
        for name in broker.security
        if name in BROKER_KEYS or name in _AUTHORIZER_NAMES or _listener_base(name) is not None
    }


def describe_broker(broker: BrokerConfig, names: list[str] | None = None) -> list[DescribedConfig]:
    """This broker's configs (``names`` filters), sorted by name."""
    custom = _custom_names(broker.dynamic_broker_configs) | _custom_names(broker.dynamic_default_configs)
    known = _DESCRIBED | custom | _given_names(broker)
    wanted = sorted(known) if not names else [n for n in sorted(set(names)) if n in known]
    described = []
    for name in wanted:
        base = _listener_base(name)
        if base is not None and (name in broker.dynamic_broker_configs or name in broker.security):
            described.append(_listener_entry(broker, name, base))
            continue
        if name in custom:
            in_broker = name in broker.dynamic_broker_configs
            source = Source.DYNAMIC_BROKER_CONFIG if in_broker else Source.DYNAMIC_DEFAULT_BROKER_CONFIG
            described.append(_custom_entry(name, source))
            continue
        if name in _AUTHORIZER_NAMES:
            described.append(_custom_entry(name, Source.STATIC_BROKER_CONFIG))
            continue
        key = BROKER_KEYS[name]
        synonyms = _synonyms(broker, name)
        value = _listener_values(broker).get(name) or effective_value(broker, None, name)
        secret = key.type is ConfigType.PASSWORD
        described.append(
            DescribedConfig(
                name=name,
                value=None if secret else value,
                source=synonyms[0].source if synonyms else Source.DEFAULT_CONFIG,
                read_only=key.dynamic is Dynamic.READ_ONLY,
                synonyms=tuple(_hidden(s) for s in synonyms) if secret else tuple(synonyms),
                type=key.type,
                sensitive=secret,
            )
        )
    return described


def _listener_entry(broker: BrokerConfig, name: str, base: ConfigKey) -> DescribedConfig:
    """A listener's own TLS or SASL setting (``listener.name.<listener>.<key>``), set dynamically
    or at start-up: read-only, of its base key's type, with its own synonyms (dynamic, then static)
    before the base key's, as Kafka describes it; a password's values all hidden."""
    own = []
    if name in broker.dynamic_broker_configs:
        own.append(Synonym(name, broker.dynamic_broker_configs[name], Source.DYNAMIC_BROKER_CONFIG))
    if name in broker.security:
        own.append(Synonym(name, broker.security[name], Source.STATIC_BROKER_CONFIG))
    synonyms = [*own, *_synonyms(broker, base.name)]
    secret = base.type is ConfigType.PASSWORD
    if secret:
        synonyms = [_hidden(s) for s in synonyms]
    value = synonyms[0].value
    return DescribedConfig(name, value, own[0].source, True, tuple(synonyms), base.type, sensitive=secret)


def _hidden(synonym: Synonym) -> Synonym:
    return Synonym(synonym.name, None, synonym.source)


def describe_cluster(broker: BrokerConfig, names: list[str] | None = None) -> list[DescribedConfig]:
    """The cluster-wide dynamic defaults (``names`` filters), sorted by name."""
    layer = broker.dynamic_default_configs
    wanted = sorted(layer) if not names else [n for n in sorted(set(names)) if n in layer]
    described = []
    for name in wanted:
        key = BROKER_KEYS.get(name)
        if key is None or key.dynamic is Dynamic.READ_ONLY:
            described.append(_custom_entry(name, Source.DYNAMIC_DEFAULT_BROKER_CONFIG))
            continue
        source = Source.DYNAMIC_DEFAULT_BROKER_CONFIG
        value = None if key.type is ConfigType.PASSWORD else layer[name]
        described.append(
            DescribedConfig(
                name, value, source, False, (Synonym(name, value, source),), key.type, key.type is ConfigType.PASSWORD
            )
        )
    return described
