"""Connection limits with Kafka's settings: ``max.connections`` (the broker's total, also per listener
as ``listener.name.<l>.max.connections``), ``max.connections.per.ip`` and
``max.connections.per.ip.overrides`` (``host:count,...``).

A connection over a limit is closed as soon as it is accepted, with one log line naming the address
(Kafka closes one over its per-ip limit the same way; over ``max.connections`` Kafka stops accepting
until a connection closes, odradek closes the new one instead).  Counts are taken when a connection
is made and given back when it closes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from odradek.config.broker import ConfigError

__all__ = ["ConnectionLimits"]

_UNLIMITED = 2**31 - 1


def _count(settings: Mapping[str, str], key: str) -> int:
    text = settings.get(key)
    try:
        value = int(text) if text is not None else _UNLIMITED
    except ValueError:
        raise ConfigError(f"{key}: {text!r} is not a number") from None
    if value < 0:
        raise ConfigError(f"{key}: {value} must be at least 0")
    return value


class ConnectionLimits:
    def __init__(self, settings: Mapping[str, str]) -> None:
        self._total_limit = _count(settings, "max.connections")
        self._per_ip = _count(settings, "max.connections.per.ip")
        self._listener_limits = {
            key[len("listener.name.") : -len(".max.connections")].upper(): _count(settings, key)
            for key in settings
            if key.startswith("listener.name.") and key.endswith(".max.connections")
        }
        self._overrides: dict[str, int] = {}
        for item in (part.strip() for part in settings.get("max.connections.per.ip.overrides", "").split(",")):
            if item:
                host, _, count = item.rpartition(":")
                if not host or not count.isdigit():
                    raise ConfigError(f"max.connections.per.ip.overrides: {item!r} is not host:count")
                self._overrides[host] = int(count)
        self._by_ip: Counter[str] = Counter()
        self._by_listener: Counter[str] = Counter()
        self._total = 0

    def admit(self, host: str, listener: str) -> str | None:
        """Count a new connection, or say why it is refused (it is then not counted)."""
        limit = self._overrides.get(host, self._per_ip)
        if self._by_ip[host] >= limit:
            return f"too many connections from {host} (max.connections.per.ip {limit})"
        if self._total >= self._total_limit:
            return f"too many connections (max.connections {self._total_limit})"
        listener_limit = self._listener_limits.get(listener, _UNLIMITED)
        if self._by_listener[listener] >= listener_limit:
            return f"too many connections on listener {listener} (max.connections {listener_limit})"
        self._by_ip[host] += 1
        self._by_listener[listener] += 1
        self._total += 1
        return None

    def release(self, host: str, listener: str) -> None:
        self._by_ip[host] -= 1
        self._by_listener[listener] -= 1
        self._total -= 1
