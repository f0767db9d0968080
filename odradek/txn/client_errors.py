"""What a client of the transaction APIs is told when something failed: Kafka's mappings of a
failed ``__transaction_state`` append, and of PRODUCER_FENCED for clients older than KIP-588.

Pure functions over error codes, kept apart from the coordinator's values so that the handlers
can use them without importing the coordinator.
"""

from __future__ import annotations

from odradek.wire.errors import ErrorCode

__all__ = ["append_error_to_response_error", "fenced_error_for_version"]


def append_error_to_response_error(error: ErrorCode) -> ErrorCode:
    """Kafka's mapping of a failed ``__transaction_state`` append to what the client is told."""
    if error in (
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.NOT_ENOUGH_REPLICAS,
        ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        ErrorCode.REQUEST_TIMED_OUT,
    ):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if error in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    if error in (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE):
        return ErrorCode.UNKNOWN_SERVER_ERROR
    return error


# The first version of each API that may answer PRODUCER_FENCED (KIP-588); older clients are told
# INVALID_PRODUCER_EPOCH instead.  Keyed by API key: InitProducerId, AddPartitionsToTxn,
# AddOffsetsToTxn, EndTxn.
_FIRST_VERSION_WITH_PRODUCER_FENCED = {22: 4, 24: 2, 25: 2, 26: 2}


def fenced_error_for_version(api_key: int, api_version: int, error: ErrorCode) -> ErrorCode:
    """``error`` as a client of ``api_version`` of ``api_key`` understands it."""
    first = _FIRST_VERSION_WITH_PRODUCER_FENCED.get(api_key)
    if error is ErrorCode.PRODUCER_FENCED and first is not None and api_version < first:
        return ErrorCode.INVALID_PRODUCER_EPOCH
    return error
