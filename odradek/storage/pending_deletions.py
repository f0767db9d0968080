"""Segments removed from a log whose files wait for ``file.delete.delay.ms`` (Kafka's
asynchronous deletion).

Retention, DeleteRecords-driven retention and a compaction swap take a segment out of its
log's list at once (no new read reaches it); its files are renamed with the ``.deleted``
suffix and wait here until the delay has passed since the removal, then `delete_expired`
hands closing them and removing their files to ``remove_files`` (the log's deferred queue,
off the event loop: on a busy disk a close or an unlink waits for the filesystem's journal,
up to seconds, so Kafka deletes on its scheduler thread, not on a request thread).  Until then the
segment's log file stays open, so a `FileRegion` read from it before it left stays readable:
the server reads or sends a region right after the handler returns it, with no ``await`` in
between, so even a zero delay never closes a descriptor under a read in flight.

Not thread-safe: the event loop owns it, with the log it belongs to; only the removal jobs run
elsewhere, and share nothing with the loop but the list of segments they have yet to close.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from functools import partial

from odradek.storage.filesystem import FileSystem
from odradek.storage.segment import LogSegment

__all__ = ["PendingDeletions", "retire_segments"]

_log = logging.getLogger(__name__)


def retire_segments(fs: FileSystem, directory: str, segments: Sequence[LogSegment]) -> None:
    """Rename the files of ``segments`` (removed from the log in ``directory``) ``.deleted``,
    durably; raises `OSError`."""
    for segment in segments:
        segment.rename_for_deletion()
    fs.fsync_dir(directory)


class PendingDeletions:
    """The removed segments of one log, each with the time (clock ms) its files are due."""

    def __init__(self) -> None:
        self._waiting: list[tuple[int, LogSegment]] = []
        self.on_scheduled: Callable[[int], None] | None = None
        """Called with the due time each time segments start waiting: whoever owns the timers
        arranges a `delete_expired` then."""
        self.remove_files: Callable[[Callable[[], None]], None] = _run_now
        """Runs a job that closes segments and removes their files (the log's `defer_sync`); at
        once when nothing else is set."""
        self._removing: list[LogSegment] = []
        """Segments handed to a removal job that has not closed them yet."""
        self._removing_lock = threading.Lock()

    def schedule(self, segments: Sequence[LogSegment], due: int) -> None:
        """``segments`` (already renamed ``.deleted``) wait until ``due``."""
        self._waiting.extend((due, segment) for segment in segments)
        if segments and self.on_scheduled is not None:
            self.on_scheduled(due)

    def delete_expired(self, now_ms: int) -> int:
        """Have the segments due by ``now_ms`` closed and their files removed; return how many."""
        due = [segment for when, segment in self._waiting if when <= now_ms]
        if not due:
            return 0
        self._waiting = [(when, segment) for when, segment in self._waiting if when > now_ms]
        with self._removing_lock:
            self._removing.extend(due)
        self.remove_files(partial(self._close_and_remove, due))
        return len(due)

    def _close_and_remove(self, segments: list[LogSegment]) -> None:
        """(May run on a worker thread.)  Close the segments and remove their ``.deleted``
        files; a failure is logged (the next open removes what is left)."""
        for segment in segments:
            with self._removing_lock:
                if segment not in self._removing:  # closed by `close_all` meanwhile
                    continue
                self._removing.remove(segment)
            try:
                segment.close_without_flush()
                segment.remove_deleted_files()
            except OSError:
                _log.exception("removing the files of %s failed", segment.path)

    @property
    def next_due(self) -> int | None:
        """When `delete_expired` next has files to delete; None: nothing waits."""
        return min((when for when, _ in self._waiting), default=None)

    def __len__(self) -> int:
        return len(self._waiting)

    def close_all(self) -> None:
        """Close the waiting segments without deleting their files (the next open deletes them)."""
        for _, segment in self._waiting:
            segment.close_without_flush()
        self._waiting.clear()
        with self._removing_lock:  # those of removal jobs that never ran (a dropped queue)
            removing, self._removing = self._removing, []
        for segment in removing:
            segment.close_without_flush()


def _run_now(job: Callable[[], None]) -> None:
    job()
