"""Connection limits with Kafka's settings: ``max.connections`` (the broker's total, and each
listener's own limit as ``listener.name.<l>.max.connections``, which defaults to the broker's
total as Kafka's listener-prefixed settings do), ``max.connections.per.ip`` and
``max.connections.per.ip.overrides`` (``host:count,...``).

What Kafka 4.4.0 does, and so this does (checked side by side with compat-tests' launcher):

- A listener at its limit, or the broker at its total, stops accepting: new connections wait in
  the listening socket's backlog, unanswered, until a connection closes and frees a slot
  (`slot_available`, `wait_for_slot`; the listener's accept loop asks before each accept).
- A connection from an address at its per-ip limit is accepted and closed at once, with one log
  line (`admit`).
- The inter-broker listener (``inter.broker.listener.name``, else the listener named after
  ``security.inter.broker.protocol``) is protected when there is more than one listener: the
  broker's total does not hold it back (its own listener limit still does), and while the total
  is over ``max.connections`` because of it, the other listeners close their least recently
  active connection (`over_total`).

Counts are taken when a connection is accepted (before any TLS handshake, as Kafka's acceptor
counts) and given back when it closes.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Mapping

from odradek.config.broker import ConfigError

__all__ = ["ConnectionLimits"]

_UNLIMITED = 2**31 - 1


def _count(settings: Mapping[str, str], key: str, default: int = _UNLIMITED) -> int:
    text = settings.get(key)
    try:
        value = int(text) if text is not None else default
    except ValueError:
        raise ConfigError(f"{key}: {text!r} is not a number") from None
    if value < 0:
        raise ConfigError(f"{key}: {value} must be at least 0")
    return value


class ConnectionLimits:
    """The broker's connection counts against its limits (module docstring); one per broker,
    shared by its listeners, used on the event loop only."""

    def __init__(self, settings: Mapping[str, str], listeners: list[str] | None = None) -> None:
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
        names = listeners or []
        inter_broker = settings.get("inter.broker.listener.name") or settings.get(
            "security.inter.broker.protocol", "PLAINTEXT"
        )
        self._protected = inter_broker.upper() if len(names) > 1 else None
        self._by_ip: Counter[str] = Counter()
        self._by_listener: Counter[str] = Counter()
        self._total = 0
        self._waiting: deque[tuple[str, Callable[[], None]]] = deque()

    def _listener_limit(self, listener: str) -> int:
        return self._listener_limits.get(listener, self._total_limit)

    def slot_available(self, listener: str) -> bool:
        """Whether ``listener`` may accept one more connection now (Kafka's connection slot)."""
        if self._by_listener[listener] >= self._listener_limit(listener):
            return False
        return listener == self._protected or self._total < self._total_limit

    def wait_for_slot(self, listener: str, wake: Callable[[], None]) -> None:
        """Call ``wake`` (once) when ``listener`` has a slot again."""
        self._waiting.append((listener, wake))

    def admit(self, host: str, listener: str) -> str | None:
        """Count a connection just accepted, or say why it is closed at once (its address is at its
        per-ip limit; it is then not counted)."""
        limit = self._overrides.get(host, self._per_ip)
        if self._by_ip[host] >= limit:
            return f"too many connections from {host} (max.connections.per.ip {limit})"
        self._by_ip[host] += 1
        self._by_listener[listener] += 1
        self._total += 1
        return None

    def over_total(self, listener: str) -> bool:
        """Whether ``listener`` should close its least recently active connection: the total is over
        ``max.connections`` (only a protected listener takes it there) and this one is not protected."""
        return self._total > self._total_limit and listener != self._protected

    def release(self, host: str, listener: str) -> None:
        """A counted connection closed: its slot goes to the first listener waiting that may use it."""
        self._by_ip[host] -= 1
        if not self._by_ip[host]:
            del self._by_ip[host]
        self._by_listener[listener] -= 1
        self._total -= 1
        for _ in range(len(self._waiting)):
            waiting, wake = self._waiting.popleft()
            if self.slot_available(waiting):
                wake()
            else:
                self._waiting.append((waiting, wake))
