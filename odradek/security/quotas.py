"""Client quota enforcement with Kafka's throttling model, on the broker's clock.

Each quota key (``producer_byte_rate``, ``consumer_byte_rate``) is measured per quota entity (a user,
a client id, or both; a default entity measures each user or client separately) as Kafka's ``Rate``:
``quota.window.num`` samples (11) of ``quota.window.size.seconds`` (1 s) each; the rate is the sum of
the samples over the window they span, which counts as at least ``num - 1`` full samples.  A request
whose recorded bytes push the rate above the quota gets a throttle time of
``(rate - quota) / quota * window`` milliseconds: the answer carries it in ``throttle_time_ms`` and the
connection takes no further request for that long (Kafka mutes the channel, KIP-219).

``request_percentage`` (KIP-124) is measured the same way, in Kafka's unit: a request's handler time
counts as percent-seconds of one thread (one second of handler time is 100), so the rate is the
percentage of one thread the client kept busy over the window (the answer's encoding is recorded
after the answer is throttled or not, as Kafka records its network thread's time).  Its throttle time is bounded by one
window (``quota.window.size.seconds``), as Kafka bounds the request quota's and no other.

``controller_mutation_rate`` (KIP-599) is a token bucket of partitions instead: it holds at most
``(controller.quota.window.num - 1) * controller.quota.window.size.seconds * rate`` tokens (full when
first used) and refills at the rate. Each topic created, grown or deleted takes its partitions (the
new ones, for a grown topic). A strict request (CreateTopics v6+, CreatePartitions v3+, DeleteTopics
v5+) finds the bucket empty, below zero, before taking: the topic is refused with
THROTTLING_QUOTA_EXCEEDED and the throttle time is ``-tokens / rate`` seconds; a topic taken while
tokens remain may leave the bucket below zero. An older, permissive request always takes, and is
throttled by the deficit it leaves.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from odradek.clock import Clock
from odradek.scheduler import Scheduler
from odradek.security.quota_store import CLIENT_ID, USER, QuotaStore

__all__ = ["MutationQuota", "QuotaManager"]


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


#: Kafka's request-time unit per nanosecond of handler time: percent of one thread for one second.
_PERCENT_PER_NANOSECOND = 100.0 / 1_000_000_000

#: The largest throttle time an answer can carry (an INT32 field).
_MAX_THROTTLE_MS = 2**31 - 1


@dataclass(slots=True)
class _TokenBucket:
    tokens: float
    last_ms: int

    def refill(self, rate: float, burst: float, now: int) -> None:
        self.tokens = min(burst, self.tokens + rate * (now - self.last_ms) / 1000.0)
        self.last_ms = now


class MutationQuota:
    """One request's controller mutation quota: `admit` each topic's partitions in request order;
    ``throttle_ms`` is the answer's throttle time (the last deficit met or left), 0 when none."""

    def __init__(self, bucket: _TokenBucket, rate: float, burst: float, clock: Clock, strict: bool) -> None:
        self._bucket = bucket
        self._rate = rate
        self._burst = burst
        self._clock = clock
        self._strict = strict
        self.throttle_ms = 0

    def admit(self, partitions: int) -> bool:
        """Take ``partitions`` tokens unless a strict request finds the bucket below zero."""
        bucket = self._bucket
        bucket.refill(self._rate, self._burst, self._clock.time_ms())
        if self._strict and bucket.tokens < 0:
            self.throttle_ms = self._deficit_ms(bucket.tokens)
            return False
        bucket.tokens = min(self._burst, bucket.tokens - partitions)
        if not self._strict and bucket.tokens < 0:
            self.throttle_ms = self._deficit_ms(bucket.tokens)
        return True

    def _deficit_ms(self, tokens: float) -> int:
        """How long the bucket takes to refill to zero (a rate of 0 never refills: the longest wait)."""
        if self._rate <= 0:
            return _MAX_THROTTLE_MS
        return min(_MAX_THROTTLE_MS, round(-tokens / self._rate * 1000))


class QuotaManager:
    """Records client traffic against the stored quotas (see the module docstring)."""

    def __init__(self, store: QuotaStore, clock: Clock, settings: Mapping[str, str]) -> None:
        self._store = store
        self._clock = clock
        self._window_ms = int(float(settings.get("quota.window.size.seconds", "1")) * 1000)
        self._count = int(settings.get("quota.window.num", "11"))
        self._mutation_window_ms = int(float(settings.get("controller.quota.window.size.seconds", "1")) * 1000)
        self._mutation_count = int(settings.get("controller.quota.window.num", "11"))
        self._rates: dict[tuple[str, tuple[tuple[str, str], ...]], _Rate] = {}
        self._buckets: dict[tuple[tuple[str, str], ...], _TokenBucket] = {}
        self.scheduler: Scheduler | None = None
        #: Measures handler time in nanoseconds (wall time of the running steps, as Kafka measures
        #: its request threads); tests put a deterministic timer here.
        self.request_timer: Callable[[], int] = time.perf_counter_ns

    def _sensor(self, key: str, user: str, client_id: str) -> tuple[float, _Rate] | None:
        found = self._quota(key, user, client_id)
        if found is None:
            return None
        value, tags = found
        return value, self._rates.setdefault((key, tags), _Rate())

    def _quota(self, key: str, user: str, client_id: str) -> tuple[float, tuple[tuple[str, str], ...]] | None:
        """The quota of ``key`` that applies to the user and client id (Kafka's order of precedence)
        and the tags of the sensor that measures it (a default entity measures each client apart)."""
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
                return value, tuple(tags)
        return None

    def mutation_quota(self, user: str, client_id: str, strict: bool) -> MutationQuota | None:
        """The controller mutation quota of one CreateTopics, CreatePartitions or DeleteTopics
        (``strict`` for the versions that refuse topics), None when no quota applies."""
        found = self._quota("controller_mutation_rate", user, client_id)
        if found is None:
            return None
        rate, tags = found
        burst = (self._mutation_count - 1) * self._mutation_window_ms / 1000.0 * rate
        now = self._clock.time_ms()
        bucket = self._buckets.setdefault(tags, _TokenBucket(tokens=burst, last_ms=now))
        return MutationQuota(bucket, rate, burst, self._clock, strict)

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

    def throttle_fetch(self, user: str, client_id: str, response_bytes: int, other_throttle_ms: int = 0) -> int:
        """Kafka records a fetch answer's size against ``consumer_byte_rate``; a fetch throttled by
        this or another quota (``other_throttle_ms``) is answered without its data, so the recording
        is taken back."""
        throttle = self.record("consumer_byte_rate", user, client_id, response_bytes)
        if throttle > 0 or other_throttle_ms > 0:
            self.unrecord("consumer_byte_rate", user, client_id, response_bytes)
        return throttle

    def charges_request_time(self, user: str, client_id: str) -> bool:
        """Whether a ``request_percentage`` quota applies to the user and client id."""
        return self._quota("request_percentage", user, client_id) is not None

    def throttle_request_time(self, user: str, client_id: str, nanoseconds: int) -> int:
        """Kafka records a request's handler time against ``request_percentage``; the throttle time
        is bounded by one quota window."""
        throttle = self.record("request_percentage", user, client_id, nanoseconds * _PERCENT_PER_NANOSECOND)
        return min(throttle, self._window_ms)

    def record_request_time(self, user: str, client_id: str, nanoseconds: int) -> None:
        """Record time spent on a request after its answer was decided (encoding it), without
        throttling that answer: it counts towards the next requests' throttle."""
        self.record("request_percentage", user, client_id, nanoseconds * _PERCENT_PER_NANOSECOND)

    def delay(self, ms: int) -> Awaitable[None]:
        """A wait of ``ms`` on the broker's clock (the muted connection's)."""
        if self.scheduler is None:
            raise RuntimeError("the quota manager has no scheduler")
        return self.scheduler.sleep(ms)
