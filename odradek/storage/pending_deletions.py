"""Segments removed from a log whose files wait for ``file.delete.delay.ms`` (Kafka's
asynchronous deletion).

Retention, DeleteRecords-driven retention and a compaction swap take a segment out of its
log's list at once (no new read reaches it); its files are renamed with the ``.deleted``
suffix and wait here until the delay has passed since the removal, then `delete_expired`
closes them and hands the removal of their files to ``remove_files`` (the log's deferred
queue, off the event loop: on a busy disk an unlink waits for the filesystem's journal, up to
seconds, so Kafka deletes on its scheduler thread, not on a request thread).  Until then the
segment's log file stays open, so a `FileRegion` read from it before it left stays readable:
the server reads or sends a region right after the handler returns it, with no ``await`` in
between, so even a zero delay never closes a descriptor under a read in flight.

Not thread-safe: the event loop owns it, with the log it belongs to.
"""

from __future__ import annotations

import logging
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
        """Runs a job that removes closed segments' files (the log's `defer_sync`); at once
        when nothing else is set."""

    def schedule(self, segments: Sequence[LogSegment], due: int) -> None:
        """``segments`` (already renamed ``.deleted``) wait until ``due``."""
        self._waiting.extend((due, segment) for segment in segments)
        if segments and self.on_scheduled is not None:
            self.on_scheduled(due)

    def delete_expired(self, now_ms: int) -> int:
        """Close the segments due by ``now_ms`` and have their files removed; return how many."""
        due = [segment for when, segment in self._waiting if when <= now_ms]
        if not due:
            return 0
        self._waiting = [(when, segment) for when, segment in self._waiting if when > now_ms]
        for segment in due:
            segment.close_without_flush()
        self.remove_files(partial(_remove_deleted_files, due))
        return len(due)

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


def _run_now(job: Callable[[], None]) -> None:
    job()


def _remove_deleted_files(segments: list[LogSegment]) -> None:
    """(May run on a worker thread.)  Remove the closed segments' ``.deleted`` files; a failure
    is logged (the next open removes what is left)."""
    for segment in segments:
        try:
            segment.remove_deleted_files()
        except OSError:
            _log.exception("removing the files of %s failed", segment.path)
