"""How the benchmark harness tells that a deleted topic's files are gone (benchmarks/bench/admin.py):
Kafka answers DeleteTopics first and removes the partition directories on a background thread."""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.admin import _wait_removed, partition_dirs


def _make(data_dir: Path, *names: str) -> None:
    for name in names:
        (data_dir / name).mkdir()


def test_partition_dirs_are_the_topics_own_and_its_pending_deletions(tmp_path: Path) -> None:
    _make(tmp_path, "W2-run1-0", "W2-run1-1.5d4da3cd62ef45ac8e1e241546fda9dd-delete")
    _make(tmp_path, "W2-run10-0", "W2-run1x-0", "W2-run1-", "W2-run1-0x", "xW2-run1-0", "__cluster_metadata-0")
    assert sorted(entry.name for entry in partition_dirs(tmp_path, "W2-run1")) == [
        "W2-run1-0",
        "W2-run1-1.5d4da3cd62ef45ac8e1e241546fda9dd-delete",
    ]


def test_a_missing_data_dir_holds_no_partition(tmp_path: Path) -> None:
    assert partition_dirs(tmp_path / "gone", "t") == []


def test_waiting_ends_when_a_background_removal_finishes(tmp_path: Path) -> None:
    _make(tmp_path, "t-0.ab-delete", "other-0")
    remover = threading.Timer(0.2, shutil.rmtree, (tmp_path / "t-0.ab-delete",))
    remover.start()
    try:
        assert _wait_removed(tmp_path, "t", timeout_s=30.0)
    finally:
        remover.cancel()
    assert (tmp_path / "other-0").exists()


def test_waiting_gives_up_after_its_timeout(tmp_path: Path) -> None:
    _make(tmp_path, "t-0")
    assert not _wait_removed(tmp_path, "t", timeout_s=0.1)
