"""Checkpoint files written off the event loop, newest content only.

A checkpoint write is a file write, an fsync, a rename and a directory fsync.  On a quiet disk
that is a millisecond or two; while another process writes heavily it can take hundreds of
milliseconds or seconds, and on the event loop that is a pause for every client.  Kafka writes
its checkpoint files from its scheduler threads; odradek's loop computes what a checkpoint says
(`odradek.storage.data_dir_checkpoints`) and hands the bytes here, and a worker thread writes them.

Invariants:
- per path, the content written last is the content handed over last (`put` replaces a pending
  content that was not written yet, and writes never run concurrently);
- `write_pending` may run on any thread; a second caller waits until the first is done, so the
  loop's `write_pending` at close returns only when everything handed over is on disk;
- a write that fails is logged and dropped (the next `put` for the path tries again), as a
  failed periodic checkpoint in Kafka does not stop the broker by itself.
"""

from __future__ import annotations

import logging
import threading

from odradek.storage.filesystem import FileSystem, write_file_atomic

__all__ = ["CheckpointWriter"]

_log = logging.getLogger(__name__)


class CheckpointWriter:
    """The checkpoint contents waiting to be written, by path."""

    __slots__ = ("_fs", "_pending", "_pending_lock", "_write_lock")

    def __init__(self, fs: FileSystem) -> None:
        self._fs = fs
        self._pending: dict[str, bytes] = {}
        self._pending_lock = threading.Lock()
        self._write_lock = threading.Lock()

    def put(self, path: str, content: bytes) -> None:
        """Have ``path`` replaced with ``content`` by the next `write_pending`."""
        with self._pending_lock:
            self._pending[path] = content

    @property
    def pending(self) -> int:
        """How many paths wait to be written."""
        return len(self._pending)

    def drop(self) -> None:
        """Forget the pending contents (their directories are being thrown away)."""
        with self._pending_lock:
            self._pending.clear()

    def write_pending(self) -> None:
        """Write every pending content (atomically, durably), including what is handed over
        while this runs."""
        with self._write_lock:
            while True:
                with self._pending_lock:
                    batch, self._pending = self._pending, {}
                if not batch:
                    return
                for path, content in batch.items():
                    try:
                        write_file_atomic(self._fs, path, content)
                    except OSError:
                        _log.exception("writing the checkpoint %s failed", path)
