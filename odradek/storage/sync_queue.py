"""An ordered queue of durability jobs for one log, run off the event loop.

A roll must not fsync on the loop (Kafka leaves its roll-time flushes to a background task), so
the log queues them here: the fsync of the new segment's directory entry, and the producer
snapshot the partition took at the roll.  Jobs run in the order queued, one at a time, on
whichever thread calls `SyncQueue.run` (a worker, or the loop at close); a second caller waits
until the first is done.  A job only writes and fsyncs files nothing on the loop touches
meanwhile, and never in-memory state.  A crash before a job ran loses at most what Kafka's
loses: the newest snapshot (the next open replays from an older one) and the directory entry of
a segment whose data was not flushed either.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

__all__ = ["SyncQueue"]


class SyncQueue:
    """Jobs queued by the loop, run in order by `run`."""

    __slots__ = ("_jobs", "_lock")

    def __init__(self) -> None:
        self._jobs: deque[Callable[[], None]] = deque()
        self._lock = threading.Lock()

    def append(self, job: Callable[[], None]) -> None:
        self._jobs.append(job)

    def run(self, on_failure: Callable[[OSError], None]) -> None:
        """Run the queued jobs in order; a job failing with `OSError` drops the jobs after it
        and is passed to ``on_failure``."""
        with self._lock:
            while self._jobs:
                job = self._jobs.popleft()
                try:
                    job()
                except OSError as exc:
                    self._jobs.clear()
                    on_failure(exc)

    def drop(self) -> None:
        """Forget the queued jobs, after any job running now (the log is being deleted)."""
        with self._lock:
            self._jobs.clear()
