"""Log compaction: latest value per key, offsets kept, tombstones and their horizon, lag and
dirty-ratio rules, the cleaner checkpoint, and crash-safe swaps."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.checkpoint import CLEANER_OFFSET_CHECKPOINT, read_offset_checkpoint
from odradek.storage.cleaner import clean
from odradek.storage.filesystem import read_file, write_file_atomic
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.unit.storage.log_rows import keyed_rows

TOPIC_ID = uuid.UUID(int=0xC0C0)
COMPACT = frozenset({"compact"})


def _batch(pairs: list[tuple[str, str | None]], timestamp: int = 1_000, compression: int = 0) -> bytearray:
    records = [
        Record(i, i, key.encode(), None if value is None else value.encode()) for i, (key, value) in enumerate(pairs)
    ]
    return bytearray(build_batch(records, base_timestamp=timestamp, compression=compression))


def _config(**overrides: Any) -> LogConfig:
    settings: dict[str, Any] = {
        "segment_bytes": 150,
        "cleanup_policy": COMPACT,
        "min_cleanable_dirty_ratio": 0.0,
        "index_interval_bytes": 1,
    }
    settings.update(overrides)
    return LogConfig(**settings)


def _log(backend: Any, config: LogConfig) -> PartitionLog:
    return PartitionLog.create(backend.fs, f"{backend.root}/c-0", "c", 0, TOPIC_ID, config, ManualClock(0))


def _fill(log: PartitionLog, pairs: list[tuple[str, str | None]], timestamp: int = 1_000) -> None:
    for key, value in pairs:
        log.append(_batch([(key, value)], timestamp), leader_epoch=0, now_ms=timestamp)


def test_cleaning_keeps_the_last_value_of_every_key_at_its_offset(backend: Any) -> None:
    log = _log(backend, _config())
    _fill(log, [("a", "1"), ("b", "1"), ("a", "2"), ("c", "1"), ("b", "2"), ("a", "3"), ("d", "1")])
    assert len(log.segments) > 2
    active_before = log.segments[-1].base_offset
    result = clean(backend.fs, log, 0, 10_000)
    assert result is not None
    assert result.end_offset == active_before
    assert result.records_removed == 3
    assert keyed_rows(log) == [(3, "c", "1"), (4, "b", "2"), (5, "a", "3"), (6, "d", "1")]
    assert log.log_end_offset == 7
    assert log.append(_batch([("e", "1")]), leader_epoch=0, now_ms=0).base_offset == 7
    assert keyed_rows(log)[-1] == (7, "e", "1")
    log.close()
    reopened = PartitionLog.open(
        backend.fs, f"{backend.root}/c-0", "c", 0, _config(), ManualClock(0), clean_shutdown=False
    )
    assert keyed_rows(reopened)[:4] == [(3, "c", "1"), (4, "b", "2"), (5, "a", "3"), (6, "d", "1")]
    assert reopened.recovered_bytes == 0
    reopened.close()


def test_partially_kept_batches_keep_offsets_sequence_and_codec(backend: Any) -> None:
    log = _log(backend, _config(segment_bytes=1 << 20))
    log.append(_batch([("a", "1"), ("b", "1"), ("a", "2")], compression=1), leader_epoch=4, now_ms=0)
    log.append(_batch([("b", "2")]), leader_epoch=4, now_ms=0)
    log.roll(0)
    log.append(_batch([("z", "1")]), leader_epoch=4, now_ms=0)
    assert clean(backend.fs, log, 0, 0) is not None
    first = log.segments[0]
    headers = list(first.batch_headers())
    assert [(h.base_offset, h.last_offset, h.compression, h.partition_leader_epoch) for h in headers] == [
        (0, 2, 1, 4),
        (3, 3, 0, 4),
    ]
    assert keyed_rows(log) == [(2, "a", "2"), (3, "b", "2"), (4, "z", "1")]
    log.close()


def test_tombstones_get_a_horizon_then_vanish_after_delete_retention(backend: Any) -> None:
    config = _config(delete_retention_ms=5_000, segment_bytes=70)
    log = _log(backend, config)
    _fill(log, [("a", "1"), ("b", "1"), ("a", None), ("c", "1")])
    first = clean(backend.fs, log, 0, 10_000)
    assert first is not None
    assert [(o, k, v) for o, k, v in keyed_rows(log)] == [(1, "b", "1"), (2, "a", None), (3, "c", "1")]
    tombstone = next(h for s in log.segments for h in s.batch_headers() if h.base_offset == 2)
    assert tombstone.has_delete_horizon and tombstone.base_timestamp == 15_000
    _fill(log, [("d", "1"), ("e", "1")])
    second = clean(backend.fs, log, first.end_offset, 14_999)
    assert second is not None
    assert (2, "a", None) in keyed_rows(log)
    _fill(log, [("f", "1"), ("g", "1")])
    assert clean(backend.fs, log, second.end_offset, 15_000) is not None
    assert all(k != "a" for _, k, _ in keyed_rows(log))
    log.close()


def test_dirty_ratio_and_compaction_lags_decide_when_to_clean(backend: Any) -> None:
    log = _log(backend, _config(min_cleanable_dirty_ratio=0.9))
    _fill(log, [("a", "1"), ("a", "2"), ("a", "3")], timestamp=1_000)
    first = clean(backend.fs, log, 0, 2_000)
    assert first is not None, "everything is dirty the first time: ratio 1"
    _fill(log, [("a", "4"), ("b", "1")], timestamp=1_000)
    assert clean(backend.fs, log, first.end_offset, 2_000) is None, "ratio below 0.9"
    log.update_config(_config(min_cleanable_dirty_ratio=0.9, max_compaction_lag_ms=500))
    assert clean(backend.fs, log, first.end_offset, 2_000) is not None, "the dirty part is overdue"
    lagging = _log_at(backend, "lag", _config(min_compaction_lag_ms=1_000))
    _fill(lagging, [("a", "1"), ("a", "2"), ("a", "3")], timestamp=1_000)
    assert clean(backend.fs, lagging, 0, 1_999) is None
    assert clean(backend.fs, lagging, 0, 2_001) is not None
    log.close()
    lagging.close()


def _log_at(backend: Any, name: str, config: LogConfig) -> PartitionLog:
    return PartitionLog.create(backend.fs, f"{backend.root}/{name}-0", name, 0, TOPIC_ID, config, ManualClock(0))


def test_delete_policy_logs_are_never_compacted(backend: Any) -> None:
    log = _log(backend, _config(cleanup_policy=frozenset({"delete"})))
    _fill(log, [("a", "1"), ("a", "2"), ("a", "3")])
    assert clean(backend.fs, log, 0, 10_000) is None
    assert len(keyed_rows(log)) == 3
    log.close()


@pytest.mark.parametrize("stage", ["cleaned", "swap"])
def test_a_crash_mid_swap_leaves_the_old_or_the_new_segment(backend: Any, stage: str) -> None:
    log = _log(backend, _config())
    _fill(log, [("a", "1"), ("a", "2"), ("b", "1"), ("a", "3")])
    original = keyed_rows(log)
    first = log.segments[0]
    log.close()
    leftover = first.path + "." + stage
    content = bytes(_batch([("a", "9")]))
    if stage == "swap":
        data = bytearray(content)
        data[0:8] = first.base_offset.to_bytes(8, "big")
        content = bytes(data)
    write_file_atomic(backend.fs, leftover, content)
    reopened = PartitionLog.open(
        backend.fs, f"{backend.root}/c-0", "c", 0, _config(), ManualClock(0), clean_shutdown=True
    )
    assert not backend.fs.exists(leftover)
    if stage == "cleaned":
        assert keyed_rows(reopened) == original
    else:
        assert keyed_rows(reopened)[0] == (0, "a", "9")
        assert read_file(backend.fs, first.path) == content
    reopened.close()


def test_the_cleaner_checkpoint_records_the_first_dirty_offset(backend: Any) -> None:
    clock = ManualClock(10_000)
    manager = LogManager.open(backend.fs, backend.root, clock)
    log = manager.create_partition("c", 0, TOPIC_ID, _config())
    _fill(log, [("a", "1"), ("a", "2"), ("a", "3"), ("b", "1")])
    other = manager.create_partition("d", 0, uuid.UUID(int=5), _config(cleanup_policy=frozenset({"delete"})))
    _fill(other, [("a", "1"), ("a", "2")])
    assert manager.clean_logs() == 1
    path = f"{backend.root}/{CLEANER_OFFSET_CHECKPOINT}"
    end = log.segments[-1].base_offset
    assert read_offset_checkpoint(backend.fs, path) == {("c", 0): end}
    assert manager.clean_logs() == 0
    manager.close()
    reopened = LogManager.open(backend.fs, backend.root, clock, config_for=lambda _t: _config())
    assert reopened.clean_logs() == 0, "nothing dirty since the checkpoint"
    reopened.close()
