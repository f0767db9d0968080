"""COMMIT/ABORT marker batches built with the shared record builder and read back."""

from __future__ import annotations

import struct

import pytest

from odradek.txn.markers import Marker, marker_batch, read_marker
from odradek.wire.records.batch import CorruptBatchError, read_header, verify_batch
from odradek.wire.records.builder import build_batch, build_control_batch, decode_batch
from odradek.wire.records.record import Record


@pytest.mark.parametrize("commit", [True, False])
def test_marker_batch_is_a_transactional_control_batch(commit: bool) -> None:
    marker = Marker(commit, producer_id=4242, producer_epoch=7, coordinator_epoch=3)
    batch = marker_batch(marker, 1_700_000_000_000, base_offset=55, partition_leader_epoch=2)
    header = verify_batch(batch, 0)
    assert header.is_control and header.is_transactional
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (4242, 7, -1)
    assert (header.base_offset, header.partition_leader_epoch, header.records_count) == (55, 2, 1)
    assert header.base_timestamp == header.max_timestamp == 1_700_000_000_000
    _, (record,) = decode_batch(batch)
    assert record.key == struct.pack(">hh", 0, 1 if commit else 0)
    assert record.value == struct.pack(">hi", 0, 3)
    assert read_marker(batch) == marker


def test_ordinary_batches_are_not_markers() -> None:
    plain = build_batch([Record(0, 0, b"k", b"v")], producer_id=1, producer_epoch=0, is_transactional=True)
    assert read_marker(plain) is None
    leader_change = build_batch(
        [Record(0, 0, struct.pack(">hh", 0, 2), b"\x00\x00")], is_control=True, is_transactional=True
    )
    assert read_marker(leader_change) is None
    not_transactional = build_batch([Record(0, 0, struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 0))], is_control=True)
    assert read_marker(not_transactional) is None


def test_corrupt_marker_raises() -> None:
    batch = bytearray(build_control_batch(True, 1, 0, 0, 0, 0))
    batch[-1] ^= 0xFF
    with pytest.raises(CorruptBatchError):
        read_marker(bytes(batch))
    assert read_header(bytes(batch), 0).is_control
