"""Probe sequences for a broker with two log directories: where new partitions go (fewest
partitions first), DescribeLogDirs for each directory, AlterReplicaLogDirs moving a partition
for real and its refusals, and what a restart keeps."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import topic_with
from probes.session import Observation, Session, own_broker
from probes.storage import produce_one

__all__ = ["SEQUENCES"]


def _describe(s: Session, label: str, topics: list[dict[str, Any]] | None = None, version: int = 4) -> None:
    """DescribeLogDirs, compared as a summary: Kafka places each new partition in the directory
    with the fewest (a balance the probes compare, as each directory's partition count), but
    which partition of a topic lands first follows a hash map's order."""
    answer = s.call(label, ApiKey.DESCRIBE_LOG_DIRS, version, topics=topics)
    summary = []
    for result in answer["results"]:
        partitions = [(t["name"], p) for t in result["topics"] for p in t["partitions"]]
        entry = {key: value for key, value in result.items() if key != "topics"}
        entry["partition_count"] = len(partitions)
        entry["sizes"] = sorted(p["partition_size"] for _, p in partitions)
        entry["flags"] = sorted({(p["is_future_key"], p["offset_lag"]) for _, p in partitions})
        summary.append(entry)
    answer["results"] = sorted(summary, key=lambda r: r["log_dir"])
    s.observations[-1].response = answer


def _move(s: Session, label: str, moves: list[tuple[str, str, list[int]]], version: int = 2) -> None:
    """AlterReplicaLogDirs: ``(directory, topic, partitions)`` each; directory relative to the data dir."""
    assert s.data_dir is not None
    dirs: dict[str, list[dict[str, Any]]] = {}
    for directory, topic, partitions in moves:
        path = directory if directory.startswith(("/", "relative")) else str(s.data_dir / directory)
        dirs.setdefault(path, []).append({"name": topic, "partitions": partitions})
    s.call(label, ApiKey.ALTER_REPLICA_LOG_DIRS, version,
           dirs=[{"path": path, "topics": topics} for path, topics in dirs.items()])  # fmt: skip


def _moved(s: Session, topic: str, partition: int, directory: str) -> None:
    """Wait until ``topic-partition`` lives in ``directory`` and nowhere else (a move is copied
    in the background, as fast as the broker can; how many checks that takes is timing).  The
    old copy, renamed ``...-delete``, waits for ``file.delete.delay.ms``: not counted."""
    assert s.data_dir is not None
    for _ in range(100):
        found = [path.parent.name for path in s.data_dir.glob(f"*/{topic}-{partition}")]
        if found == [directory]:
            return
        time.sleep(0.1)
    raise RuntimeError(f"{topic}-{partition} not moved to {directory}: {found}")


def _meta_keys(s: Session, directory: str) -> None:
    text = s.read_file(f"meta.properties keys of {directory}", f"{directory}/meta.properties")
    keys = sorted(
        line.split("=", 1)[0] for line in (text or "").splitlines() if "=" in line and not line.startswith("#")
    )
    s.observations[-1].response = keys


def _note(s: Session, label: str, value: object) -> None:
    """Record a fact the sequence derived from the broker's answers (compared like an answer)."""
    s.observations.append(Observation(label, "note", 0, {}, value))


def _directory_of(s: Session, topic: str, partition: int) -> str:
    """The directory name holding ``topic-partition`` (not compared: the hash map's choice)."""
    answer = s.call("locate", ApiKey.DESCRIBE_LOG_DIRS, 4, topics=[{"topic": topic, "partitions": [partition]}])
    s.observations.pop()
    return str(next(r["log_dir"] for r in answer["results"] if r["topics"])).rsplit("/", 1)[-1]


@own_broker(log_dirs=2)
def two_log_dirs(s: Session, names: dict[str, str]) -> None:
    """Placement, DescribeLogDirs, moves and a restart.  Which partition of a topic Kafka puts
    where follows a hash map, so the partition moved is a topic of its own with one partition,
    created when dir1 holds fewer (it goes there) and moved to dir0."""
    topic, other, moving, last = names["topic"], names["other"], names["missing"], names["group"]
    for directory in ("dir0", "dir1"):
        _meta_keys(s, directory)
    topic_with(s, topic, 4)
    _describe(s, "placement of a 4-partition topic", [{"topic": topic, "partitions": list(range(4))}])
    topic_with(s, other, 3)
    _describe(s, "placement of a 3-partition topic after it")
    for version in (1, 2, 3, 4):
        _describe(s, f"describe log dirs v{version}, every partition", version=version)
    topic_with(s, moving, 1)
    _note(s, "a one-partition topic goes to dir1, which holds fewer", _directory_of(s, moving, 0) == "dir1")
    for i in range(3):
        produce_one(s, f"produce {i} to the partition to move", moving, 0, i)
    _describe(s, "sizes after producing")
    _move(s, "move: to the directory it is in", [("dir1", moving, [0])])
    _move(s, "move: an unknown directory", [("/no/such/dir", moving, [0])])
    _move(s, "move: a relative path", [("relative/dir0", moving, [0])])
    _move(s, "move: an unknown partition", [("dir0", moving, [9])])
    _move(s, "move: an unknown topic", [("dir0", names["missing"] + "-none", [0])])
    _move(s, "move: one partition to both directories", [("dir0", moving, [0]), ("dir1", moving, [0])])
    _move(s, "move v1: the partition to dir0", [("dir0", moving, [0])], version=1)
    _moved(s, moving, 0, "dir0")
    _describe(s, "after the move")
    produce_one(s, "produce after the move", moving, 0, 3)
    parts = [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": -2}]
    s.call("list offsets earliest after the move", ApiKey.LIST_OFFSETS, 9, replica_id=-1, isolation_level=0,
           topics=[{"name": moving, "partitions": parts}])  # fmt: skip
    fetch = {"partition": 0, "current_leader_epoch": -1, "fetch_offset": 0, "last_fetched_epoch": -1,
             "log_start_offset": -1, "partition_max_bytes": 1 << 20}  # fmt: skip
    s.call("fetch after the move", ApiKey.FETCH, 12, replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20,
           isolation_level=0, session_id=0, session_epoch=-1, topics=[{"topic": moving, "partitions": [fetch]}],
           forgotten_topics_data=[], rack_id="")  # fmt: skip
    s.read_file("leader-epoch-checkpoint after the move", f"dir0/{moving}-0/leader-epoch-checkpoint")
    topic_with(s, last, 2)
    _describe(s, "placement of a new topic after the move")
    s.restart("graceful restart", kill=False)
    _note(s, "the moved partition is in dir0 after the restart", _directory_of(s, moving, 0) == "dir0")
    topic_with(s, last + "-more", 1)
    _describe(s, "placement after the restart")


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "log_dirs.two_directories": two_log_dirs,
}
