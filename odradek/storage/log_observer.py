"""What a partition log tells the one object that owns it about changes it made by itself, and
what it tells its append listeners after each append (`AppendInfo`, see `PartitionLog.listeners`).

A log changes under its owner's feet in three ways: it rolls a new segment (inside an append,
or when retention deletes every segment), its log start offset moves (retention, DeleteRecords),
and it closes.  The owner (`odradek.partition`) keeps state derived from the log (producer
state) and needs each moment: a roll is where a snapshot of that state is exact, a new log
start offset drops what no longer exists, a clean close is the last chance to persist.

Invariants: every call happens on the thread that uses the log, after the change (a roll: the
new empty segment is in place, nothing appended to it yet; a close: before any segment is
closed, and never for an offline log).  An exception from the observer is logged by the log
and does not undo the change.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

__all__ = ["AppendInfo", "LogObserver"]


class AppendInfo(NamedTuple):
    """The outcome of an append; ``log_append_time_ms`` is -1 unless log append time was used.
    A named tuple: one is built per append, and a tuple costs less than a frozen dataclass."""

    base_offset: int
    last_offset: int
    log_append_time_ms: int
    log_start_offset: int


class LogObserver(Protocol):
    def rolled(self, base_offset: int) -> None:
        """A new active segment starts at ``base_offset`` (== the log end offset)."""

    def log_start_moved(self, log_start_offset: int) -> None:
        """The log start offset moved up to ``log_start_offset``."""

    def closing(self) -> None:
        """The log is about to close cleanly (flushed, not offline)."""
