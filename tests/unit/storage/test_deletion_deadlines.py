"""The deadlines of delayed segment deletion are told to whoever owns the timers: the deletion
listener hears each due time as it starts, and ``next_deletion_due`` names the earliest left."""

from __future__ import annotations

import uuid
from typing import Any

from odradek.clock import ManualClock
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager

TOPIC_ID = uuid.UUID(int=0xDEAD)
CONFIG = LogConfig(segment_bytes=200, retention_ms=5_000, file_delete_delay_ms=60_000)


def test_the_listener_hears_each_deletion_deadline_of_present_and_future_logs(backend: Any, make_batch: Any) -> None:
    clock = ManualClock(100_000)
    manager = LogManager.open(backend.fs, backend.root, clock, config_for=lambda _topic: CONFIG)
    early = manager.create_partition("early", 0, TOPIC_ID, CONFIG)
    heard: list[int] = []
    manager.set_deletion_listener(heard.append)
    late = manager.create_partition("late", 0, uuid.UUID(int=0xBEEF), CONFIG)
    assert manager.next_deletion_due() is None
    for log in (early, late):
        for i in range(6):
            log.append(make_batch(2, value_size=30, base_timestamp=1_000 + i), leader_epoch=0, now_ms=1_000 + i)
    assert manager.delete_old_segments() >= 4
    assert heard == [160_000, 160_000]
    assert manager.next_deletion_due() == early.deletions.next_due == late.deletions.next_due == 160_000
    clock.advance(60_000)
    assert manager.delete_expired_segments() >= 4
    assert manager.next_deletion_due() is None and early.deletions.next_due is None
    manager.close()
