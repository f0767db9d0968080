"""Transaction markers as the batches a partition log holds (the control batches of EndTxn).

A marker is a transactional control batch of one record (see `odradek.wire.records.builder`)::

    key   => version int16 (0), type int16 (0 ABORT, 1 COMMIT)
    value => version int16 (0), coordinatorEpoch int32

carrying the producer id and epoch of the transaction it ends; its base sequence is -1.
`marker_batch` builds one with the shared record builder; `read_marker` tells whether a batch is
a marker and what it says, reading the batch header and its one control record.

Invariant: ``read_marker(marker_batch(m, ...)) == m`` for every `Marker`.
"""

from __future__ import annotations

from dataclasses import dataclass

from odradek.wire.records.batch import NO_PARTITION_LEADER_EPOCH, Buffer
from odradek.wire.records.builder import ControlRecordType, build_control_batch, decode_batch, parse_control_record

__all__ = ["Marker", "marker_batch", "read_marker"]


@dataclass(frozen=True, slots=True)
class Marker:
    """The end of one producer's transaction on one partition."""

    commit: bool
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int


def marker_batch(
    marker: Marker,
    timestamp: int,
    *,
    base_offset: int = 0,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
) -> bytes:
    """The control batch of ``marker`` (the log patches ``base_offset`` on append)."""
    return build_control_batch(
        marker.commit,
        marker.producer_id,
        marker.producer_epoch,
        marker.coordinator_epoch,
        base_offset,
        timestamp,
        partition_leader_epoch=partition_leader_epoch,
    )


def read_marker(batch: Buffer) -> Marker | None:
    """The marker ``batch`` holds, or None when it is not a transaction marker.

    Raises `CorruptBatchError` for a malformed batch or control record.
    """
    header, records = decode_batch(batch)
    if not (header.is_control and header.is_transactional) or len(records) != 1:
        return None
    control = parse_control_record(records[0])
    if control.type not in (ControlRecordType.COMMIT, ControlRecordType.ABORT) or control.coordinator_epoch is None:
        return None
    return Marker(
        control.type is ControlRecordType.COMMIT, header.producer_id, header.producer_epoch, control.coordinator_epoch
    )
