"""A partition's transactions: transactional appends open a producer's transaction, markers close
it with Kafka's epoch rules, the last stable offset follows the oldest open transaction, aborts
go to the ``.txnindex``, read_committed reads stop at the LSO with the aborted transactions of
the range, and the state survives a clean or a crashed restart; compaction drops aborted data,
keeps markers while their data is there, then removes them once their delete horizon passed."""

from __future__ import annotations

import uuid
from typing import Any

from odradek.clock import ManualClock
from odradek.partition.partition import Partition
from odradek.storage.cleaner import clean
from odradek.storage.filesystem import MemoryFileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import PartitionLog
from odradek.storage.txn_index import AbortedTxn
from odradek.txn.markers import Marker
from odradek.wire.errors import ErrorCode
from odradek.wire.records.batch import iter_batches
from odradek.wire.records.builder import build_batch, decode_batch
from odradek.wire.records.record import Record

DIRECTORY = "/data/t-0"
T0 = 1_000_000


def _batch(
    producer_id: int, epoch: int, sequence: int, *values: str, transactional: bool = True, key: str | None = None
) -> bytearray:
    records = [Record(i, 0, (key or v).encode(), v.encode()) for i, v in enumerate(values)]
    return bytearray(
        build_batch(
            records,
            producer_id=producer_id,
            producer_epoch=epoch,
            base_sequence=sequence,
            is_transactional=transactional,
            base_timestamp=T0,
        )
    )


class Harness:
    def __init__(self, config: LogConfig | None = None) -> None:
        self.fs = MemoryFileSystem()
        self.fs.makedirs("/data")
        self.clock = ManualClock(T0)
        self.config = config or LogConfig()
        log = PartitionLog.create(self.fs, DIRECTORY, "t", 0, uuid.uuid4(), self.config, self.clock)
        self.partition = Partition.open(self.fs, log, leader_epoch=0)

    def append(self, batch: bytearray, verified: bool = True) -> Any:
        return self.partition.append(batch, self.clock.time_ms(), transaction_verified=verified)

    def marker(self, producer_id: int, epoch: int, commit: bool, version: int = 0, coordinator_epoch: int = 0) -> Any:
        marker = Marker(commit, producer_id, epoch, coordinator_epoch)
        return self.partition.append_marker(marker, version, self.clock.time_ms())

    def reopen(self, *, clean: bool) -> Partition:
        if clean:
            self.partition.log.close()
        else:
            self.fs.crash()
        log = PartitionLog.open(self.fs, DIRECTORY, "t", 0, self.config, self.clock, clean_shutdown=clean)
        self.partition = Partition.open(self.fs, log, leader_epoch=0)
        return self.partition

    def batches(self) -> list[tuple[int, bool, bool, list[str]]]:
        """``(base offset, transactional, control, values)`` of every batch from the log start."""
        out = []
        log = self.partition.log
        offset = log.log_start_offset
        while (region := log.read(offset, 1 << 20)) is not None:
            data = region.read()
            for position, _ in iter_batches(data):
                header, records = decode_batch(data, position)
                values = [] if header.is_control else [(r.value or b"").decode() for r in records]
                out.append((header.base_offset, header.is_transactional, header.is_control, values))
                offset = header.next_offset
        return out


def test_the_last_stable_offset_follows_the_oldest_open_transaction() -> None:
    h = Harness()
    assert h.append(_batch(1, 0, 0, "a", "b")).base_offset == 0
    assert h.append(_batch(2, 0, 0, "c", transactional=False)).base_offset == 2
    assert h.append(_batch(3, 0, 0, "d")).base_offset == 3
    assert (h.partition.high_watermark, h.partition.last_stable_offset) == (4, 0)
    assert h.marker(1, 0, commit=True).error is ErrorCode.NONE
    assert h.partition.last_stable_offset == 3, "producer 3's transaction is still open"
    assert h.marker(3, 0, commit=False).error is ErrorCode.NONE
    assert h.partition.last_stable_offset == h.partition.high_watermark == 6
    assert h.partition.log.segments[-1].txn_index.last_offset == 5
    assert list(h.partition.log.segments[-1].txn_index) == [AbortedTxn(3, 3, 5, 6)]


def test_an_abort_records_the_stable_offset_it_leaves() -> None:
    h = Harness()
    h.append(_batch(1, 0, 0, "a"))
    h.append(_batch(2, 0, 0, "b"))
    h.marker(2, 0, commit=False)
    assert list(h.partition.log.segments[-1].txn_index) == [AbortedTxn(2, 1, 2, 0)], "producer 1 holds the LSO at 0"


def test_transactional_checks_in_kafkas_order() -> None:
    h = Harness()
    assert h.append(_batch(1, 0, 0, "a"), verified=False).error is ErrorCode.INVALID_TXN_STATE, "not verified"
    assert h.append(_batch(1, 0, 0, "a")).base_offset == 0
    assert h.append(_batch(1, 0, 0, "a"), verified=False).base_offset == 0, "a duplicate answers first"
    assert h.append(_batch(1, 0, 1, "b"), verified=False).base_offset == 1, "an open transaction needs no check"
    assert h.append(_batch(1, 0, 2, "c", transactional=False)).error is ErrorCode.INVALID_TXN_STATE
    assert h.append(_batch(1, 0, 7, "d")).error is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert h.marker(1, 0, commit=True, coordinator_epoch=5).error is ErrorCode.NONE
    assert h.marker(1, 0, commit=True, coordinator_epoch=4).error is ErrorCode.TRANSACTION_COORDINATOR_FENCED
    assert h.append(_batch(1, 1, 0, "e")).error is ErrorCode.NONE, "the next transaction at a new epoch"
    assert h.marker(1, 0, commit=False).error is ErrorCode.INVALID_PRODUCER_EPOCH, "an older epoch"
    assert h.append(_batch(1, 0, 3, "f")).error is ErrorCode.INVALID_PRODUCER_EPOCH


def test_transactions_v2_markers_must_bump_the_epoch_except_a_repeated_one() -> None:
    h = Harness()
    h.append(_batch(1, 4, 0, "a"))
    assert h.marker(1, 4, commit=True, version=2).error is ErrorCode.INVALID_PRODUCER_EPOCH
    assert h.marker(1, 5, commit=True, version=2).error is ErrorCode.NONE
    assert h.marker(1, 5, commit=True, version=2).error is ErrorCode.NONE, "the marker that closed it, again"
    h.append(_batch(1, 5, 0, "b"))
    assert h.marker(1, 5, commit=True, version=2).error is ErrorCode.INVALID_PRODUCER_EPOCH, "it is open again"


def test_a_partition_added_by_transactions_v2_takes_a_new_producer_from_sequence_0_only() -> None:
    h = Harness()
    batch = _batch(1, 0, 3, "a")
    refused = h.partition.append(batch, h.clock.time_ms(), transaction_verified=True, verified_v2=True)
    assert refused.error is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert h.partition.high_watermark == 0, "nothing written"
    assert h.append(_batch(1, 0, 3, "a")).base_offset == 0, "without transactions v2 Kafka takes it"
    first = h.partition.append(_batch(2, 0, 0, "b"), h.clock.time_ms(), transaction_verified=True, verified_v2=True)
    assert first.base_offset == 1
    later = h.partition.append(_batch(1, 0, 4, "c"), h.clock.time_ms(), transaction_verified=True, verified_v2=True)
    assert later.base_offset == 2, "a producer known here continues its sequence"


def test_read_committed_stops_at_the_lso_with_the_aborted_transactions_of_the_range() -> None:
    h = Harness()
    h.append(_batch(1, 0, 0, "a1", "a2"))
    h.marker(1, 0, commit=False)
    h.append(_batch(2, 0, 0, "c1"))
    h.marker(2, 0, commit=True)
    h.append(_batch(1, 0, 2, "open"))
    read = h.partition.read_committed(0, 1 << 20, min_one_batch=True)
    assert read.aborted == (AbortedTxn(1, 0, 2, 3),)
    assert read.records is not None
    assert [header.base_offset for _, header in iter_batches(read.records.read())] == [0, 2, 3, 4]
    assert h.partition.read_committed(6, 1 << 20, min_one_batch=True).records is None, "the LSO is 6"


def test_open_transactions_and_the_txn_index_survive_restarts() -> None:
    h = Harness(LogConfig(segment_bytes=300, flush_messages=1))
    h.append(_batch(1, 0, 0, "x" * 40))
    for i in range(6):
        h.append(_batch(2, 0, i, "y" * 40))
        h.marker(2, 0, commit=i % 2 == 0)
    assert len(h.partition.log.segments) > 2
    aborted = h.partition.log.aborted_txns(0, h.partition.log_end_offset)
    stable = h.partition.last_stable_offset
    for clean_stop in (True, False):
        h.reopen(clean=clean_stop)
        assert h.partition.last_stable_offset == stable == 0, "producer 1's transaction stays open"
        assert h.partition.log.aborted_txns(0, h.partition.log_end_offset) == aborted
        assert len(aborted) == 3
    assert h.marker(1, 0, commit=True).error is ErrorCode.NONE
    assert h.partition.last_stable_offset == h.partition.high_watermark


def test_compaction_drops_aborted_data_and_then_the_markers() -> None:
    config = LogConfig(
        segment_bytes=100_000,
        cleanup_policy=frozenset({"compact"}),
        min_cleanable_dirty_ratio=0.0,
        delete_retention_ms=1_000,
    )
    h = Harness(config)
    h.append(_batch(1, 0, 0, "committed", key="k1"))
    h.marker(1, 0, commit=True)
    h.append(_batch(2, 0, 0, "aborted", key="k2"))
    h.marker(2, 0, commit=False)
    h.append(_batch(3, 0, 0, "plain", key="k3", transactional=False))
    h.partition.log.roll(h.clock.time_ms())
    hints = h.partition.cleaning_hints()
    assert clean(h.fs, h.partition.log, 0, h.clock.time_ms(), hints=hints) is not None
    assert h.batches() == [
        (0, True, False, ["committed"]),
        (1, True, True, []),
        (2, True, False, []),
        (3, True, True, []),
        (4, False, False, ["plain"]),
    ], "the aborted batch stays empty: it is producer 2's last batch; its marker stays with it"
    assert h.partition.log.aborted_txns(0, 5) == (AbortedTxn(2, 2, 3, 4),)
    h.clock.advance(2_000)
    assert h.partition.expire_producers(h.clock.time_ms(), 1_000) == 3
    h.append(_batch(4, 0, 0, "more", key="k4", transactional=False))
    h.partition.log.roll(h.clock.time_ms())
    for _ in range(3):  # the batch goes; the marker gets its delete horizon; the marker goes
        h.clock.advance(2_000)
        clean(h.fs, h.partition.log, 0, h.clock.time_ms(), hints=h.partition.cleaning_hints())
    assert [offset for offset, *_ in h.batches()] == [0, 1, 4, 5], (
        "once producer 2 expired its empty batch went, then its abort marker (after its horizon)"
    )
    assert h.partition.log.aborted_txns(0, 6) == ()


def test_compaction_stops_at_the_first_unstable_offset() -> None:
    config = LogConfig(segment_bytes=100_000, cleanup_policy=frozenset({"compact"}), min_cleanable_dirty_ratio=0.0)
    h = Harness(config)
    h.append(_batch(1, 0, 0, "old", key="k", transactional=False))
    h.partition.log.roll(h.clock.time_ms())
    h.append(_batch(2, 0, 0, "open", key="j"))
    h.partition.log.roll(h.clock.time_ms())
    h.append(_batch(1, 0, 1, "new", key="k", transactional=False))
    h.partition.log.roll(h.clock.time_ms())
    assert clean(h.fs, h.partition.log, 0, h.clock.time_ms(), hints=h.partition.cleaning_hints()) is not None
    assert [values for *_, values in h.batches()] == [["old"], ["open"], ["new"]], "the map ends at the LSO (1)"
