"""The work on one log's files that runs off the event loop, and what the loop must respect
while it runs: directory fsyncs, the deferred durability queue and a compaction swap's reservation.

The `PartitionLog` holds one `LogBackgroundWork` and delegates to it under its own public names
(``sync_creation``, ``defer_sync``, ``run_deferred``, ``on_sync_deferred``, ``begin_replacement``,
``fail_replacement``, ``end_replacement``, ``swap_lock``); the log keeps its segment list and
every change to it.

Directory entries: a log created with ``durable=False`` (thousands of partitions in one
request) fsyncs partition.metadata and its directory entries in `LogBackgroundWork.sync_creation`,
on the log manager's worker or at the log's first flush.  The entries of segments a roll created
or retention renamed are fsynced by a deferred job (`LogBackgroundWork.sync_new_entries_later`),
or by the next flush if it comes first.

Deferred queue (`odradek.storage.sync_queue`):
- `LogBackgroundWork.defer_sync` queues a job to run after every job queued before it, on a
  worker: ``on_sync_deferred`` (set by whoever owns a worker, the log manager) hears of each job
  on the loop and arranges a `LogBackgroundWork.run_deferred` there; without it the job runs at
  once, on the caller's thread;
- a job only writes, fsyncs or removes files of the log's directory that nothing on the loop
  reads or writes meanwhile; it never touches in-memory state;
- a job failing with `OSError` takes the log offline, as a failed flush does, and drops the
  jobs after it;
- the log's ``flush`` fsyncs pending directory entries itself, its ``close`` runs what is left
  on the closing thread (unhooked first, so a job queued while closing wakes no worker), and
  its ``discard`` drops it.

Swap reservation (a compaction swap, `odradek.storage.cleaner`):
- one swap at a time, of segments the log still holds as consecutive closed segments;
- the reserved segments stop writing their index files and keep serving reads from memory and
  their open log files while a worker renames their files ``.deleted``;
- retention leaves the reserved segments, and the segments after them, alone until the swap
  finishes or fails (as Kafka's retention waits for the log's lock held by a swap);
- the swap's renames hold ``swap_lock`` on their worker thread; the log's ``close`` and
  ``discard`` wait for it, so whoever copies, renames or deletes the directory after them sees
  a finished swap;
- renames that fail part way take the log offline: the next open completes or discards the
  swap, as after a crash.

Thread-safe where it says so (the directory fsyncs, the queue's runs, ``swap_lock``); the rest
belongs to the loop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from odradek.storage.errors import StorageError
from odradek.storage.filesystem import FileSystem
from odradek.storage.log_creation import sync_log_directory
from odradek.storage.segment import LogSegment
from odradek.storage.sync_queue import SyncQueue

__all__ = ["LogBackgroundWork", "closed_run_of"]

LogT = TypeVar("LogT")


def closed_run_of(log_segments: Sequence[LogSegment], segments: Sequence[LogSegment]) -> bool:
    """Whether ``segments`` are consecutive segments of ``log_segments`` (a log's, the last one
    active) and closed: not empty, and ending before the active segment."""
    if not segments:
        return False
    try:
        index = log_segments.index(segments[0])
    except ValueError:
        return False
    end = index + len(segments)
    return end < len(log_segments) and list(log_segments[index:end]) == list(segments)


class LogBackgroundWork(Generic[LogT]):
    """The off-loop work on the files of ``log``, whose directory is ``directory`` (module
    docstring).  ``log`` is what `on_sync_deferred` is called with; ``go_offline`` takes the log
    offline with the message it is given (a failed job or swap)."""

    def __init__(self, log: LogT, fs: FileSystem, directory: str, go_offline: Callable[[str], None]) -> None:
        self._log = log
        self._fs = fs
        self._directory = directory
        self._go_offline = go_offline
        self.creation_unsynced = False
        """Whether the log was created without fsyncs and `sync_creation` has not run since."""
        self._entries_unsynced = False
        self._deferred = SyncQueue()
        self.on_sync_deferred: Callable[[LogT], None] | None = None
        """Called (on the loop) with the log each time a job joins the deferred queue: whoever
        owns a worker arranges a `run_deferred` on it.  Without one the job runs at once."""
        self.replacing: tuple[LogSegment, ...] = ()
        """The segments a compaction swap in progress replaces (`begin_replacement`)."""
        self.swap_lock = threading.Lock()
        """Held by a swap's renames on their worker thread (module docstring)."""

    def sync_creation(self, *, parent: bool) -> None:
        """Make a non-durable creation durable: partition.metadata and the directory entries
        (the data directory's entry for this log too, unless ``parent`` is False because the
        caller fsyncs the data directory once for many logs).

        May run on a worker thread: it only fsyncs, and doing it twice is harmless."""
        if self.creation_unsynced:
            sync_log_directory(self._fs, self._directory, parent=parent)
            self.creation_unsynced = False

    def sync_new_entries_later(self) -> None:
        """The log created or renamed files in its directory: queue the fsync of its entries."""
        self._entries_unsynced = True
        self.defer_sync(self.sync_new_entries)

    def sync_new_entries(self) -> None:
        """Make the directory entries changed since the last call durable (a deferred job, or
        the log's flush)."""
        if self._entries_unsynced:
            self._entries_unsynced = False
            self._fs.fsync_dir(self._directory)

    def defer_sync(self, job: Callable[[], None]) -> None:
        """Queue ``job`` behind the jobs queued before it and have a worker run it (see
        `on_sync_deferred`)."""
        self._deferred.append(job)
        if self.on_sync_deferred is None:
            self.run_deferred()
        else:
            self.on_sync_deferred(self._log)

    def run_deferred(self) -> None:
        """Run the queued jobs in order (safe on a worker thread; a second caller waits until
        the first is done)."""
        self._deferred.run(self._go_offline_after_background_sync)

    def drop_deferred(self) -> None:
        """Forget the queued jobs, after any job running now (the log is being deleted)."""
        self._deferred.drop()

    def _go_offline_after_background_sync(self, exc: OSError) -> None:
        self._go_offline(f"{self._directory} is offline after a failed background sync: {exc}")

    def begin_replacement(self, old: Sequence[LogSegment], *, held: bool) -> None:
        """Reserve ``old`` for a swap; ``held``: whether the log still holds them as consecutive
        closed segments.  Raises `StorageError` when a swap is in progress or ``held`` is False."""
        if self.replacing:
            raise StorageError(f"{self._directory}: a segment swap is already in progress")
        if not held:
            raise StorageError(f"{self._directory}: the segments to replace changed")
        for segment in old:
            segment.retire()
        self.replacing = tuple(old)

    def end_replacement(self) -> tuple[LogSegment, ...]:
        """Release the reservation; return the segments it held."""
        old, self.replacing = self.replacing, ()
        return old

    def fail_replacement(self, exc: OSError) -> StorageError:
        """Release the reservation of a swap whose renames failed part way, take the log offline
        and return the error to raise."""
        self.replacing = ()
        message = f"{self._directory} is offline after a failed segment swap: {exc}"
        self._go_offline(message)
        return StorageError(message)

    def wait_for_swap(self) -> None:
        """Return once no swap's renames are in flight (rare: a swap is milliseconds)."""
        with self.swap_lock:
            pass
