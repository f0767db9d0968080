"""What every coordinator operation returns: its response and the records to persist (Kafka's
CoordinatorResult), and the one place a failed append turns into what the client is told.

The runtime appends ``records`` to ``__consumer_offsets``, applies each appended record, then
calls `settle` with the append's error code, which gives the response to send.  Start-up replay
applies the same records through the same apply code.

Invariants:
- ``on_append`` (when set) is called exactly once, after the append, with the response error:
  NONE on success, else the append error remapped by `response_error`;
- ``on_failure`` (when set) builds the response from the planned one and that remapped error;
  without it the planned response stands (a LeaveGroup is answered whatever the append did).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from odradek.coordinator.records import CoordinatorRecord
from odradek.wire.errors import ErrorCode

__all__ = ["TOO_LARGE_ERRORS", "Result", "append_error_to_response_error", "response_error", "settle"]

T = TypeVar("T")

TOO_LARGE_ERRORS = frozenset(
    {ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.INVALID_FETCH_SIZE}
)


@dataclass(slots=True)
class Result(Generic[T]):
    """``response``: the answer when the records are appended (None for operations that answer
    through ``respond`` callbacks); ``too_large``: what an append refused as too large becomes
    (OffsetCommit: INVALID_COMMIT_OFFSET_SIZE).  ``merge`` never mixes a transactional result
    with another."""

    response: T
    records: list[CoordinatorRecord] = field(default_factory=list)
    on_append: Callable[[ErrorCode], None] | None = None
    on_failure: Callable[[T, ErrorCode], T] | None = None
    too_large: ErrorCode = ErrorCode.UNKNOWN_SERVER_ERROR
    producer: tuple[int, int] | None = None
    """``(producer id, epoch)`` when the records belong to that producer's transaction
    (TxnOffsetCommit): they are appended in a transactional batch and stay pending."""

    def merge(self, other: Result[None]) -> Result[T]:
        """Add ``other``'s records after this one's; both ``on_append`` run, this one's first."""
        self.records.extend(other.records)
        first, second = self.on_append, other.on_append
        if second is not None:
            if first is None:
                self.on_append = second
            else:

                def both(error: ErrorCode) -> None:
                    first(error)
                    second(error)

                self.on_append = both
        return self


def append_error_to_response_error(error: ErrorCode) -> ErrorCode:
    """Kafka's mapping of a failed append of group metadata to what the member is told."""
    if error in (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.REQUEST_TIMED_OUT):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if error in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    if error in TOO_LARGE_ERRORS:
        return ErrorCode.UNKNOWN_SERVER_ERROR
    return error


def response_error(append_error: ErrorCode, too_large: ErrorCode = ErrorCode.UNKNOWN_SERVER_ERROR) -> ErrorCode:
    """What a client is told when an append failed with ``append_error`` (NONE stays NONE)."""
    if append_error in TOO_LARGE_ERRORS:
        return too_large
    return append_error_to_response_error(append_error)


def settle(result: Result[T], append_error: ErrorCode) -> T:
    """The append of ``result.records`` ended with ``append_error``: run ``on_append`` and
    return the response to send."""
    error = response_error(append_error, result.too_large)
    if result.on_append is not None:
        result.on_append(error)
    if error is ErrorCode.NONE or result.on_failure is None:
        return result.response
    return result.on_failure(result.response, error)
