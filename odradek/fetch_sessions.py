"""Incremental fetch sessions (KIP-227): what each session remembers between fetches.

A client opens a session with epoch 0 and session id 0, then sends only what changed, with the
epoch the broker expects next.  The broker answers an incremental fetch with only the
partitions that changed: new records, an error, or a new high watermark, last stable offset or
log start offset.  Epoch -1 closes a session (the fetch itself is then sessionless).

Invariants: session ids are positive and unique; an epoch goes 1, 2, ... and wraps from
2**31-1 back to 1; at most ``max_sessions`` exist, the least recently used is evicted first.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import random

__all__ = ["FetchSession", "FetchSessionCache", "SessionPartition"]

INITIAL_EPOCH = 0
FINAL_EPOCH = -1
_MAX_EPOCH = 2**31 - 1


@dataclass(slots=True)
class SessionPartition:
    """One partition of a session: the client's position and what it was last told."""

    topic: str
    topic_id: bytes
    partition: int
    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = -1
    last_fetched_epoch: int = -1
    sent_high_watermark: int = -1
    sent_last_stable_offset: int = -1
    sent_log_start_offset: int = -1

    def changed(self, high_watermark: int, last_stable_offset: int, log_start_offset: int) -> bool:
        return (high_watermark, last_stable_offset, log_start_offset) != (
            self.sent_high_watermark,
            self.sent_last_stable_offset,
            self.sent_log_start_offset,
        )

    def remember(self, high_watermark: int, last_stable_offset: int, log_start_offset: int) -> None:
        self.sent_high_watermark = high_watermark
        self.sent_last_stable_offset = last_stable_offset
        self.sent_log_start_offset = log_start_offset


@dataclass(slots=True)
class FetchSession:
    session_id: int
    next_epoch: int = 1
    partitions: OrderedDict[tuple[str, int], SessionPartition] = field(default_factory=OrderedDict)

    def advance_epoch(self) -> None:
        self.next_epoch = 1 if self.next_epoch >= _MAX_EPOCH else self.next_epoch + 1

    def upsert(self, part: SessionPartition) -> None:
        key = (part.topic, part.partition)
        known = self.partitions.get(key)
        if known is None:
            self.partitions[key] = part
            return
        known.fetch_offset = part.fetch_offset
        known.max_bytes = part.max_bytes
        known.current_leader_epoch = part.current_leader_epoch
        known.last_fetched_epoch = part.last_fetched_epoch

    def forget(self, topic: str, partition: int) -> None:
        self.partitions.pop((topic, partition), None)


class FetchSessionCache:
    """The broker's sessions, bounded by ``max.incremental.fetch.session.cache.slots``.  Session
    ids come from ``rng`` (a seeded one in tests), else from a generator made at the first session:
    importing `random` is 0.3 MiB of an idle broker's memory (W7, benchmarks/profiles.md)."""

    def __init__(self, max_sessions: int, rng: random.Random | None = None) -> None:
        self._max = max_sessions
        self._rng = rng
        self._sessions: OrderedDict[int, FetchSession] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def create(self) -> FetchSession | None:
        """A new empty session, or None when the cache holds no slots at all."""
        if self._max <= 0:
            return None
        while len(self._sessions) >= self._max:
            self._sessions.popitem(last=False)
        rng = self._rng
        if rng is None:
            import random

            rng = self._rng = random.Random()
        session_id = 0
        while session_id == 0 or session_id in self._sessions:
            session_id = rng.randint(1, _MAX_EPOCH)
        session = FetchSession(session_id)
        self._sessions[session_id] = session
        return session

    def get(self, session_id: int) -> FetchSession | None:
        session = self._sessions.get(session_id)
        if session is not None:
            self._sessions.move_to_end(session_id)
        return session

    def remove(self, session_id: int) -> None:
        self._sessions.pop(session_id, None)
