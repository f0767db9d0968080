"""The data directories as request handlers see them: which partitions each holds, and moving a
partition from one to another (AlterReplicaLogDirs).

A move runs as a task: its early copy on a worker thread while the partition keeps serving, its
last step (close, copy the rest, swap, reopen) on the event loop, after which a new `Partition`
takes the moved log over (`Partitions.relocate`).  A request to move a partition where it
already is, or where it is already going, changes nothing; one naming another directory while
a move runs cancels it first (moving it back where it is just cancels).  The request is answered
before the copy finishes, as Kafka's is.  `stop` cancels the moves still copying; a cancelled move leaves the partition
where it was.

Invariant: at most one move per partition at a time; a move never runs past `stop`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from odradek.partition.service import Partitions
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.wire.errors import ErrorCode

if TYPE_CHECKING:
    from odradek.storage.cleaner import Job

__all__ = ["LogDirs", "StoredReplica"]

log = logging.getLogger("odradek.partition.log_dirs")

RunOffloaded = Callable[[Generator["Job", object, PartitionLog | None]], Awaitable[PartitionLog | None]]


@dataclass(frozen=True, slots=True)
class StoredReplica:
    """One partition in one data directory."""

    data_dir: str
    topic: str
    partition: int
    size: int


class LogDirs:
    """Placement and moves of partition logs across ``log.dirs``."""

    def __init__(self, logs: LogManager, partitions: Partitions, run_offloaded: RunOffloaded) -> None:
        self._logs = logs
        self._partitions = partitions
        self._run_offloaded = run_offloaded
        self._moves: dict[tuple[str, int], tuple[str, asyncio.Task[None]]] = {}

    @property
    def data_dirs(self) -> list[str]:
        """Every data directory, absolute, in ``log.dirs`` order."""
        return [os.path.abspath(d) for d in self._logs.data_dirs]

    def replicas(self) -> Iterator[StoredReplica]:
        """Every partition with its data directory (absolute) and size in bytes."""
        for partition in self._partitions:
            data_dir = os.path.abspath(self._logs.dir_of(partition.log))
            yield StoredReplica(data_dir, partition.topic, partition.index, partition.log.size_bytes)

    def move(self, topic: str, partition: int, path: str) -> ErrorCode:
        """Start moving ``topic-partition`` into the data directory ``path`` (absolute);
        Kafka's error when it cannot."""
        targets = {os.path.abspath(d): d for d in self._logs.data_dirs}
        if not os.path.isabs(path) or os.path.normpath(path) not in targets:
            return ErrorCode.LOG_DIR_NOT_FOUND
        current = self._partitions.get(topic, partition)
        if current is None:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        target = targets[os.path.normpath(path)]
        key = (topic, partition)
        running = self._moves.pop(key, None)
        if running is not None:
            if running[0] == target:
                self._moves[key] = running
                return ErrorCode.NONE
            running[1].cancel()
        if self._logs.dir_of(current.log) == target:
            return ErrorCode.NONE
        previous = running[1] if running is not None else None
        task = asyncio.get_running_loop().create_task(self._move(topic, partition, target, previous))
        self._moves[key] = (target, task)
        task.add_done_callback(lambda done: self._forget(key, done))
        return ErrorCode.NONE

    def _forget(self, key: tuple[str, int], done: asyncio.Task[None]) -> None:
        if key in self._moves and self._moves[key][1] is done:
            del self._moves[key]

    async def _move(self, topic: str, partition: int, target: str, previous: asyncio.Task[None] | None) -> None:
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        try:
            moved = await self._run_offloaded(self._logs.moving(topic, partition, target, self._partitions.relocate))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("moving %s-%d to %s failed; it stays where it was", topic, partition, target)
            return
        if moved is not None:
            log.info("moved %s-%d to %s", topic, partition, target)

    async def stop(self) -> None:
        """Cancel the moves still running and wait for them to let go."""
        tasks = [task for _, task in self._moves.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
