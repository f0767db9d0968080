"""Probe sequence for incremental fetch sessions (KIP-227): creating a session, incremental
fetches that return only partitions with news, wrong epochs, unknown and closed sessions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import topic_with
from probes.session import Session
from probes.storage import produce_one

__all__ = ["SEQUENCES"]


def _part(partition: int, offset: int) -> dict[str, Any]:
    return {
        "partition": partition,
        "current_leader_epoch": -1,
        "fetch_offset": offset,
        "last_fetched_epoch": -1,
        "log_start_offset": -1,
        "partition_max_bytes": 1 << 20,
    }


def _fetch(
    s: Session,
    label: str,
    session_id: int,
    epoch: int,
    topic: str,
    parts: list[dict[str, Any]],
    forgotten: list[int] | None = None,
) -> Any:
    return s.call(
        label,
        ApiKey.FETCH,
        12,
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=1 << 20,
        isolation_level=0,
        session_id=session_id,
        session_epoch=epoch,
        topics=[{"topic": topic, "partitions": parts}] if parts else [],
        forgotten_topics_data=[{"topic": topic, "partitions": forgotten}] if forgotten else [],
        rack_id="",
    )


def sessions(s: Session, names: dict[str, str]) -> None:
    topic = names["topic"]
    topic_with(s, topic, 3)
    for i in range(3):
        produce_one(s, f"produce {i} to partition 0", topic, 0, i)
    full = _fetch(s, "open a session with all three partitions", 0, 0, topic, [_part(0, 0), _part(1, 0), _part(2, 0)])
    sid = int(full["session_id"])
    _fetch(s, "incremental fetch: nothing new", sid, 1, topic, [_part(0, 3)])
    produce_one(s, "produce to partition 1", topic, 1, 0)
    _fetch(s, "incremental fetch: partition 1 has news", sid, 2, topic, [])
    _fetch(s, "incremental fetch: forget partition 2", sid, 3, topic, [_part(1, 1)], forgotten=[2])
    _fetch(s, "incremental fetch: a wrong epoch", sid, 9, topic, [])
    _fetch(s, "incremental fetch: an unknown session", sid + 1, 1, topic, [])
    _fetch(s, "incremental fetch: epoch 0 with a session id", sid, 0, topic, [])
    _fetch(s, "close the session", sid, -1, topic, [_part(0, 0)])
    _fetch(s, "fetch on the closed session", sid, 4, topic, [])
    _fetch(s, "sessionless fetch", 0, -1, topic, [_part(0, 1), _part(5, 0)])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {"fetch.sessions": sessions}
