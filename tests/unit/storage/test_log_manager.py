"""LogManager: directory names, loading, deletion, the clean-shutdown marker, on every backend."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.storage.errors import InconsistentTopicId
from odradek.storage.filesystem import MemoryFileSystem, write_file_atomic
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import (
    CLEAN_SHUTDOWN_FILE,
    LogManager,
    StoredPartition,
    delete_dir_name,
    parse_partition_dir_name,
)
from odradek.storage.log_observer import AppendInfo
from odradek.storage.partition_log import PartitionLog

MakeBatch = Callable[..., bytearray]
ID_A = uuid.UUID(int=0xA)
ID_B = uuid.UUID(int=0xB)


def _open(backend: Any, **kwargs: Any) -> LogManager:
    return LogManager.open(backend.fs, backend.root, ManualClock(0), **kwargs)


def test_directory_names_split_at_the_last_dash() -> None:
    assert parse_partition_dir_name("my.topic-with-dashes-12") == ("my.topic-with-dashes", 12)
    assert parse_partition_dir_name("t-0") == ("t", 0)
    assert parse_partition_dir_name("t-x") is None
    assert parse_partition_dir_name("-3") is None
    assert parse_partition_dir_name("nodash") is None
    assert parse_partition_dir_name("t--1") == ("t-", 1)


def test_delete_directory_names_are_kafkas() -> None:
    name = delete_dir_name("orders", 4)
    prefix, _, rest = name.partition(".")
    assert prefix == "orders-4"
    assert rest.endswith("-delete") and len(rest) == 32 + len("-delete")
    long_name = delete_dir_name("t" * 249, 10)
    assert len(long_name) == 255 and long_name.endswith("-delete")


def test_partitions_are_listed_after_restart(backend: Any, make_batch: MakeBatch) -> None:
    manager = _open(backend)
    assert not manager.clean_shutdown
    created = manager.create_partition("my.topic-with-dashes", 12, ID_A, LogConfig())
    manager.create_partition("other", 0, ID_B, LogConfig())
    manager.create_partition("other", 1, ID_B, LogConfig())
    created.append(make_batch(3), leader_epoch=0, now_ms=0)
    manager.close()
    reopened = _open(backend)
    assert reopened.clean_shutdown
    assert reopened.partitions() == [
        StoredPartition("my.topic-with-dashes", 12, ID_A),
        StoredPartition("other", 0, ID_B),
        StoredPartition("other", 1, ID_B),
    ]
    log = reopened.get("my.topic-with-dashes", 12)
    assert log is not None and log.log_end_offset == 3
    assert reopened.get("other", 2) is None
    reopened.close()


def test_create_is_idempotent_for_the_same_topic_id(backend: Any) -> None:
    manager = _open(backend)
    first = manager.create_partition("t", 0, ID_A, LogConfig())
    assert manager.create_partition("t", 0, ID_A, LogConfig()) is first
    with pytest.raises(InconsistentTopicId):
        manager.create_partition("t", 0, ID_B, LogConfig())
    manager.close()


def test_delete_topic_removes_its_directories(backend: Any) -> None:
    manager = _open(backend)
    for partition in range(3):
        manager.create_partition("doomed", partition, ID_A, LogConfig())
    manager.create_partition("doomed-keep", 0, ID_B, LogConfig())
    assert manager.delete_topic("doomed") == 3
    assert manager.delete_topic("doomed") == 0
    assert not manager.delete_partition("doomed", 0)
    assert backend.fs.listdir(backend.root) == ["doomed-keep-0"]
    assert [p.topic for p in manager.partitions()] == ["doomed-keep"]
    manager.close()


def test_leftovers_are_cleaned_or_ignored_at_start(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    fs.makedirs(f"{root}/gone-0.0123456789abcdef0123456789abcdef-delete/sub")
    fs.makedirs(f"{root}/moving-0.0123456789abcdef0123456789abcdef-future")
    fs.makedirs(f"{root}/not a partition")
    write_file_atomic(fs, f"{root}/meta.properties", b"node.id=1\n")
    manager = _open(backend)
    assert manager.partitions() == []
    assert fs.listdir(root) == ["meta.properties", "not a partition"]  # a move the restart interrupted is dropped
    manager.close()


def test_clean_shutdown_marker_lifecycle(backend: Any) -> None:
    marker = f"{backend.root}/{CLEAN_SHUTDOWN_FILE}"
    manager = _open(backend)
    assert not backend.fs.exists(marker)
    manager.close()
    assert backend.fs.exists(marker)
    reopened = _open(backend)
    assert reopened.clean_shutdown
    assert not backend.fs.exists(marker)
    reopened.close()


def test_crash_after_open_means_unclean_start(make_batch: MakeBatch) -> None:
    fs = MemoryFileSystem()
    manager = LogManager.open(fs, "/data", ManualClock(0))
    log = manager.create_partition("t", 0, ID_A, LogConfig())
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    manager.close()
    manager = LogManager.open(fs, "/data", ManualClock(0))
    log_again = manager.get("t", 0)
    assert log_again is not None
    log_again.append(make_batch(2), leader_epoch=0, now_ms=0)
    fs.crash()
    after_crash = LogManager.open(fs, "/data", ManualClock(0))
    assert not after_crash.clean_shutdown
    recovered = after_crash.get("t", 0)
    assert recovered is not None and recovered.log_end_offset == 2
    assert after_crash.partitions() == [StoredPartition("t", 0, ID_A)]
    after_crash.close()


def test_append_listeners_reach_created_and_loaded_logs(backend: Any, make_batch: MakeBatch) -> None:
    manager = _open(backend)
    manager.create_partition("loaded", 0, ID_A, LogConfig())
    manager.close()
    manager = _open(backend)
    seen: list[tuple[str, int, int]] = []

    def listener(log: PartitionLog, info: AppendInfo) -> None:
        seen.append((log.topic, log.partition, info.base_offset))

    manager.add_append_listener(listener)
    created = manager.create_partition("created", 5, ID_B, LogConfig())
    loaded = manager.get("loaded", 0)
    assert loaded is not None
    loaded.append(make_batch(1), leader_epoch=0, now_ms=0)
    created.append(make_batch(1), leader_epoch=0, now_ms=0)
    manager.remove_append_listener(listener)
    created.append(make_batch(1), leader_epoch=0, now_ms=0)
    assert seen == [("loaded", 0, 0), ("created", 5, 0)]
    manager.close()


def test_topic_configs_apply_at_load_and_on_change(backend: Any, make_batch: MakeBatch) -> None:
    size = len(make_batch(1))
    manager = _open(backend)
    manager.create_partition("small", 0, ID_A, LogConfig())
    manager.close()
    configs = {"small": LogConfig(segment_bytes=size * 2)}
    manager = _open(backend, config_for=lambda topic: configs.get(topic, LogConfig()))
    log = manager.get("small", 0)
    assert log is not None and log.config.segment_bytes == size * 2
    for _ in range(3):
        log.append(make_batch(1), leader_epoch=0, now_ms=0)
    assert [s.base_offset for s in log.segments] == [0, 2]
    manager.set_topic_config("small", LogConfig())
    for _ in range(3):
        log.append(make_batch(1), leader_epoch=0, now_ms=0)
    assert [s.base_offset for s in log.segments] == [0, 2]
    manager.close()


@pytest.mark.parametrize("checkpointed", [True, False], ids=["with-recovery-point", "without"])
def test_after_a_crash_only_segments_past_the_recovery_point_are_scanned(
    make_batch: MakeBatch, checkpointed: bool
) -> None:
    fs = MemoryFileSystem()
    manager = LogManager.open(fs, "/data", ManualClock(0))
    log = manager.create_partition("t", 0, ID_A, LogConfig(segment_bytes=2_000))
    for _ in range(6):
        log.append(make_batch(5, value_size=200), leader_epoch=0, now_ms=0)
    assert len(log.segments) >= 3
    if checkpointed:
        manager.flush()
    log.append(make_batch(2), leader_epoch=0, now_ms=0)
    log.flush()  # the data survives the crash; only the checkpoint is as old as manager.flush()
    fs.crash()
    after_crash = LogManager.open(fs, "/data", ManualClock(0))
    recovered = after_crash.get("t", 0)
    assert recovered is not None and recovered.log_end_offset == 32
    expected_scanned = 1 if checkpointed else len(recovered.segments)
    assert recovered.recovered_segments == expected_scanned
    after_crash.close()


@pytest.mark.parametrize("made_durable_by", ["flush", "sync_creations", "nothing"])
def test_non_durable_creations_survive_a_crash_once_synced_or_flushed(made_durable_by: str) -> None:
    fs = MemoryFileSystem()
    manager = LogManager.open(fs, "/data", ManualClock(0))
    log = manager.create_partition("t", 0, ID_A, LogConfig(), durable=False)
    if made_durable_by == "flush":
        log.flush()
    elif made_durable_by == "sync_creations":
        manager.sync_creations()
    fs.crash()
    after = LogManager.open(fs, "/data", ManualClock(0))
    kept = {(p.topic, p.partition): p.topic_id for p in after.partitions()}
    if made_durable_by == "nothing":
        assert kept.get(("t", 0)) is None, "never synced: gone, or left without its topic id"
    else:
        assert kept[("t", 0)] == ID_A
    assert after.create_partition("t", 0, ID_A, LogConfig()).topic_id == ID_A
    after.close()
