"""What the partition layer answers: typed results that carry Kafka error codes as values.

Handlers translate these to wire responses field by field; nothing here knows a message class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from odradek.storage.region import FileRegion
from odradek.storage.txn_index import AbortedTxn
from odradek.wire.errors import ErrorCode

__all__ = ["AppendResult", "EpochEndOffset", "Leadership", "OffsetResult", "ReadResult"]


class AppendResult(NamedTuple):
    """An append, or why not.  ``base_offset`` -1 unless written (or a duplicate's original);
    ``log_append_time_ms`` -1 unless the topic uses log append time (a duplicate: the original
    batch's max timestamp); ``log_start_offset`` -1 when the refusal came before the log was
    consulted; ``record_errors`` are ``(index in batch, message)``.  A named tuple: every
    partition of every Produce builds one, and a tuple costs half a frozen dataclass."""

    error: ErrorCode = ErrorCode.NONE
    base_offset: int = -1
    log_append_time_ms: int = -1
    log_start_offset: int = -1
    message: str | None = None
    record_errors: tuple[tuple[int, str], ...] = ()


@dataclass(slots=True)
class ReadResult:
    """One read of one partition; offsets are -1 when the read failed; ``records`` None when
    there was nothing to read (or nothing that fit); ``aborted``: the aborted transactions a
    read_committed read reports."""

    error: ErrorCode
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: FileRegion | None = None
    diverging_epoch: EpochEndOffset | None = None
    """Set (with no records) when the client's last fetched epoch ends before its fetch offset."""
    aborted: tuple[AbortedTxn, ...] = ()


@dataclass(frozen=True, slots=True)
class EpochEndOffset:
    """Where a leader epoch ends in the log (OffsetForLeaderEpoch); -1 and -1 when unknown."""

    error: ErrorCode = ErrorCode.NONE
    leader_epoch: int = -1
    end_offset: int = -1


@dataclass(frozen=True, slots=True)
class OffsetResult:
    """A ListOffsets lookup: the record's timestamp, offset and leader epoch (-1 when none)."""

    error: ErrorCode
    timestamp: int = -1
    offset: int = -1
    leader_epoch: int = -1


@dataclass(frozen=True, slots=True)
class Leadership:
    """Who leads a partition at which epoch, and its replicas (this node alone for now)."""

    leader_id: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline: tuple[int, ...] = ()
    """Replicas whose broker is gone (this node, once it unregistered itself)."""


SHARED_LEADERSHIP_PARTITIONS = 64
"""Topics of at least this many partitions get a `TopicLeadership` that is kept and shared; a
smaller one is cheap to build again, and a catalog of a hundred thousand small topics would
otherwise keep as many objects (and what callers derive from them) alive."""


class TopicLeadership:
    """The `Leadership` of partitions 0..n-1 of one topic, as of one state of this node and its
    catalog.  For a topic of `SHARED_LEADERSHIP_PARTITIONS` or more, `Partitions.topic_leadership`
    hands out the same object until something that decides a partition's leader, epoch or replicas
    changes, so what a caller derives from it may be kept beside it, weakly keyed by it (the
    Metadata handler keeps its answer's partitions so)."""

    __slots__ = ("__weakref__", "partitions")

    def __init__(self, partitions: tuple[Leadership, ...]) -> None:
        self.partitions = partitions
