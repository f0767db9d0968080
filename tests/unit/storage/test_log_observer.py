"""What a partition log tells its owner (`LogObserver`), and reading batch headers from an offset."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import PartitionLog
from tests.unit.storage.conftest import MakeBatch


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.events: list[tuple[str, int]] = []
        self.fail = fail

    def _seen(self, event: str, value: int) -> None:
        self.events.append((event, value))
        if self.fail:
            raise RuntimeError("observer failure")

    def rolled(self, base_offset: int) -> None:
        self._seen("rolled", base_offset)

    def log_start_moved(self, log_start_offset: int) -> None:
        self._seen("log_start_moved", log_start_offset)

    def closing(self) -> None:
        self._seen("closing", -1)


def _log(backend: Any) -> PartitionLog:
    return PartitionLog.create(
        backend.fs, f"{backend.root}/t-0", "t", 0, uuid.uuid4(), LogConfig(segment_bytes=400), ManualClock(0)
    )


@pytest.mark.parametrize("fail", [False, True], ids=["quiet", "raising"])
def test_the_observer_hears_rolls_start_moves_and_the_close(backend: Any, make_batch: MakeBatch, fail: bool) -> None:
    log = _log(backend)
    recorder = Recorder(fail)
    log.observer = recorder
    for _ in range(6):
        log.append(make_batch(2, value_size=60), leader_epoch=0, now_ms=0)
    rolls = [value for event, value in recorder.events if event == "rolled"]
    assert rolls == [segment.base_offset for segment in log.segments[1:]], "one call per new segment"
    assert log.log_end_offset == 12, "an observer that raises does not undo the append"
    log.increment_log_start_offset(3)
    log.increment_log_start_offset(2)
    log.delete_oldest_segments(1, 0)
    moves = [value for event, value in recorder.events if event == "log_start_moved"]
    assert moves == [3, log.log_start_offset], "only real moves are told"
    log.close()
    assert recorder.events[-1] == ("closing", -1)


def test_batch_headers_from_an_offset_skip_earlier_segments(backend: Any, make_batch: MakeBatch) -> None:
    log = _log(backend)
    for _ in range(6):
        log.append(make_batch(2, value_size=60), leader_epoch=0, now_ms=0)
    assert len(log.segments) > 2
    assert [h.base_offset for h in log.batch_headers()] == [0, 2, 4, 6, 8, 10]
    assert [h.base_offset for h in log.batch_headers(5)] == [4, 6, 8, 10], "the batch holding offset 5 first"
    assert [h.base_offset for h in log.batch_headers(12)] == []
