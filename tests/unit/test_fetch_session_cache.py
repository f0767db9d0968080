"""The fetch session cache: ids, epochs, eviction, and what an incremental response must carry."""

from __future__ import annotations

import random

from odradek.fetch_sessions import FetchSessionCache, SessionPartition


def _part(partition: int, offset: int = 0) -> SessionPartition:
    return SessionPartition("t", b"\x00" * 16, partition, offset, 1024)


def test_sessions_get_distinct_positive_ids() -> None:
    cache = FetchSessionCache(10, random.Random(1))
    ids = {cache.create().session_id for _ in range(10)}  # type: ignore[union-attr]
    assert len(ids) == 10 and all(i > 0 for i in ids)


def test_the_least_recently_used_session_is_evicted() -> None:
    cache = FetchSessionCache(2, random.Random(2))
    first, second = cache.create(), cache.create()
    assert first is not None and second is not None
    cache.get(first.session_id)
    third = cache.create()
    assert third is not None
    assert cache.get(second.session_id) is None
    assert cache.get(first.session_id) is first


def test_no_slots_means_no_sessions() -> None:
    assert FetchSessionCache(0).create() is None


def test_epochs_advance_and_wrap_to_one() -> None:
    session = FetchSessionCache(1).create()
    assert session is not None and session.next_epoch == 1
    session.advance_epoch()
    assert session.next_epoch == 2
    session.next_epoch = 2**31 - 1
    session.advance_epoch()
    assert session.next_epoch == 1


def test_upsert_updates_position_and_forget_drops() -> None:
    session = FetchSessionCache(1).create()
    assert session is not None
    session.upsert(_part(0, 5))
    session.upsert(_part(1, 7))
    session.upsert(_part(0, 9))
    assert [(p.partition, p.fetch_offset) for p in session.partitions.values()] == [(0, 9), (1, 7)]
    session.forget("t", 0)
    assert list(session.partitions) == [("t", 1)]


def test_a_partition_reports_change_only_when_its_offsets_moved() -> None:
    part = _part(0)
    assert part.changed(10, 10, 0)
    part.remember(10, 10, 0)
    assert not part.changed(10, 10, 0)
    assert part.changed(11, 11, 0)
    assert part.changed(10, 10, 3)
