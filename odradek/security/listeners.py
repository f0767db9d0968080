"""Kafka's listener settings: ``listeners``, ``advertised.listeners``, ``listener.security.protocol.map``
and the per-listener form of any setting, ``listener.name.<listener>.<key>``.

Invariants: listener names are unique and each maps to one of the four security protocols (the map
defaults to Kafka's: every protocol name maps to itself); the first listener binds
`BrokerConfig.host`/`port` (so ``--port 0`` still moves it); a listener without an advertised entry
advertises where it listens (its bound port when it asked for port 0).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from odradek.config import BrokerConfig
from odradek.config.broker import ConfigError

__all__ = ["ListenerSpec", "SecurityProtocol", "listener_setting", "listener_specs"]


class SecurityProtocol(enum.Enum):
    PLAINTEXT = "PLAINTEXT"
    SSL = "SSL"
    SASL_PLAINTEXT = "SASL_PLAINTEXT"
    SASL_SSL = "SASL_SSL"

    @property
    def tls(self) -> bool:
        return self in (SecurityProtocol.SSL, SecurityProtocol.SASL_SSL)

    @property
    def sasl(self) -> bool:
        return self in (SecurityProtocol.SASL_PLAINTEXT, SecurityProtocol.SASL_SSL)


_DEFAULT_MAP = {p.value: p for p in SecurityProtocol}


@dataclass(frozen=True, slots=True)
class ListenerSpec:
    name: str
    protocol: SecurityProtocol
    host: str
    port: int
    advertised_host: str | None = None
    advertised_port: int | None = None


def _endpoints(text: str, what: str) -> list[tuple[str, str, int]]:
    """``NAME://host:port,...`` -> [(NAME, host, port)]; an empty host means every interface."""
    found: list[tuple[str, str, int]] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, sep, address = item.partition("://")
        host, _, port = address.rpartition(":")
        if not sep or not name or not port.isdigit():
            raise ConfigError(f"{what}: {item!r} is not NAME://host:port")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        found.append((name.upper(), host, int(port)))
    names = [name for name, _, _ in found]
    if len(set(names)) != len(names):
        raise ConfigError(f"{what}: each listener name must appear once, got {', '.join(names)}")
    return found


def _protocol_map(security: Mapping[str, str]) -> dict[str, SecurityProtocol]:
    text = security.get("listener.security.protocol.map")
    if text is None:
        return dict(_DEFAULT_MAP)
    mapping: dict[str, SecurityProtocol] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, sep, protocol = item.partition(":")
        try:
            mapping[name.strip().upper()] = SecurityProtocol(protocol.strip().upper())
        except ValueError:
            raise ConfigError(f"listener.security.protocol.map: {item!r} names no security protocol") from None
        if not sep:
            raise ConfigError(f"listener.security.protocol.map: {item!r} is not NAME:PROTOCOL")
    return mapping


def listener_specs(config: BrokerConfig) -> list[ListenerSpec]:
    """Every listener of ``config``, the first one on `BrokerConfig.host`/`port`."""
    security = config.security
    text = security.get("listeners")
    if text is None:
        return [ListenerSpec("PLAINTEXT", SecurityProtocol.PLAINTEXT, config.host, config.port)]
    protocols = _protocol_map(security)
    advertised = {
        name: (host, port)
        for name, host, port in _endpoints(security.get("advertised.listeners", ""), "advertised.listeners")
    }
    specs: list[ListenerSpec] = []
    for index, (name, host, port) in enumerate(_endpoints(text, "listeners")):
        protocol = protocols.get(name)
        if protocol is None:
            raise ConfigError(f"listeners: no security protocol defined for listener {name}")
        if index == 0:
            host, port = config.host, config.port
        ad_host, ad_port = advertised.get(name, (None, None))
        specs.append(ListenerSpec(name, protocol, host or "0.0.0.0", port, ad_host or None, ad_port))
    if not specs:
        raise ConfigError("listeners: at least one listener is needed")
    return specs


def listener_setting(security: Mapping[str, str], listener: str, key: str, default: str | None = None) -> str | None:
    """``listener.name.<listener>.<key>`` if set, else ``<key>``, else ``default`` (Kafka's lookup)."""
    prefixed = security.get(f"listener.name.{listener.lower()}.{key}")
    if prefixed is not None:
        return prefixed
    return security.get(key, default)
