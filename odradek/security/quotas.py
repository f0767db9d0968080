"""Client quota enforcement with Kafka's throttling model, on the broker's clock.

Each quota key (``producer_byte_rate``, ``consumer_byte_rate``) is measured per quota entity (a user,
a client id, or both; a default entity measures each user or client separately) as Kafka's ``Rate``:
``quota.window.num`` samples (11) of ``quota.window.size.seconds`` (1 s) each; the rate is the sum of
the samples over the window they span, which counts as at least ``num - 1`` full samples.  A request
whose recorded bytes push the rate above the quota gets a throttle time of
``(rate - quota) / quota * window`` milliseconds: the answer carries it in ``throttle_time_ms`` and the
connection takes no further request for that long (Kafka mutes the channel, KIP-219).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field

from odradek.clock import Clock
from odradek.scheduler import Scheduler
from odradek.security.quota_store import CLIENT_ID, USER, QuotaStore

__all__ = ["QuotaManager"]


@dataclass(slots=True)
class _Rate:
    samples: list[list[float]] = field(default_factory=list)  # [window start ms, total]

    def record(self, value: float, now: int, window_ms: int, count: int) -> None:
        if not self.samples or now - self.samples[-1][0] >= window_ms:
            self.samples.append([float(now), 0.0])
        self.samples[-1][1] += value
        self._purge(now, window_ms, count)

    def unrecord(self, value: float) -> None:
        if self.samples:
            self.samples[-1][1] -= value

    def _purge(self, now: int, window_ms: int, count: int) -> None:
        oldest_allowed = now - count * window_ms
        while self.samples and self.samples[0][0] + window_ms <= oldest_allowed:
            self.samples.pop(0)

    def window_ms(self, now: int, window_ms: int, count: int) -> float:
        self._purge(now, window_ms, count)
        elapsed = now - self.samples[0][0] if self.samples else 0.0
        full = int(elapsed // window_ms)
        if full < count - 1:
            elapsed += (count - 1 - full) * window_ms
        return max(elapsed, 1.0)

    def per_second(self, now: int, window_ms: int, count: int) -> tuple[float, float]:
        window = self.window_ms(now, window_ms, count)
        return sum(total for _, total in self.samples) * 1000.0 / window, window


class QuotaManager:
    """Records client traffic against the stored quotas (see the module docstring)."""

    def __init__(self, store: QuotaStore, clock: Clock, settings: Mapping[str, str]) -> None:
        self._store = store
        self._clock = clock
        self._window_ms = int(float(settings.get("quota.window.size.seconds", "1")) * 1000)
        self._count = int(settings.get("quota.window.num", "11"))
        self._rates: dict[tuple[str, tuple[tuple[str, str], ...]], _Rate] = {}
        self.scheduler: Scheduler | None = None

    def _sensor(self, key: str, user: str, client_id: str) -> tuple[float, _Rate] | None:
        store = self._store
        if not store:
            return None
        for entity_user, entity_client in (
            (user, client_id),
            (user, None),
            (user, ""),
            (None, client_id),
            (None, None),
            (None, ""),
            ("", client_id),
            ("", None),
        ):
            tags: list[tuple[str, str]] = []
            entity: list[tuple[str, str | None]] = []
            if entity_client != "":
                entity.append((CLIENT_ID, entity_client))
                tags.append((CLIENT_ID, client_id))
            if entity_user != "":
                entity.append((USER, entity_user))
                tags.append((USER, user))
            value = store.get(tuple(entity), key)
            if value is not None:
                rate = self._rates.setdefault((key, tuple(tags)), _Rate())
                return value, rate
        return None

    def record(self, key: str, user: str, client_id: str, amount: float) -> int:
        """Record ``amount`` for ``key``; the throttle time in ms (0 when within the quota)."""
        found = self._sensor(key, user, client_id)
        if found is None:
            return 0
        quota, rate = found
        now = self._clock.time_ms()
        rate.record(amount, now, self._window_ms, self._count)
        value, window = rate.per_second(now, self._window_ms, self._count)
        if value <= quota:
            return 0
        return int((value - quota) / quota * window)

    def unrecord(self, key: str, user: str, client_id: str, amount: float) -> None:
        """Take back a recording (a throttled fetch is answered without its data, as Kafka does)."""
        found = self._sensor(key, user, client_id)
        if found is not None:
            found[1].unrecord(amount)

    def throttle_produce(self, user: str, client_id: str, request_bytes: int) -> int:
        """Kafka records a produce request's whole size against ``producer_byte_rate``."""
        return self.record("producer_byte_rate", user, client_id, request_bytes)

    def throttle_fetch(self, user: str, client_id: str, response_bytes: int) -> int:
        """Kafka records a fetch answer's size against ``consumer_byte_rate``; a throttled fetch is
        answered without its data, so the recording is taken back."""
        throttle = self.record("consumer_byte_rate", user, client_id, response_bytes)
        if throttle > 0:
            self.unrecord("consumer_byte_rate", user, client_id, response_bytes)
        return throttle

    def delay(self, ms: int) -> Awaitable[None]:
        """A wait of ``ms`` on the broker's clock (the muted connection's)."""
        if self.scheduler is None:
            raise RuntimeError("the quota manager has no scheduler")
        return self.scheduler.sleep(ms)
