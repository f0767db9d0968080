"""Idempotent produce over the wire, each answer as Apache Kafka 4.3.1 gave it to the same
requests (compat-tests/probes/idempotence.py): duplicates, gaps, epochs, unknown producers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from inprocess import InProcessBroker, raw_broker
from rawclient import RawConnection

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.messages.txn import InitProducerIdRequest
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

T0 = time.time_ns() // 1_000_000 - 60_000  # within the broker clock's timestamp bounds
_Data = ProduceRequest.TopicProduceData


@pytest.fixture
def conn(tmp_path: Any) -> Iterator[RawConnection]:
    with raw_broker(tmp_path / "data") as (_, connection):
        connection.create_topic("t")
        yield connection


def _send(conn: RawConnection, producer_id: int, epoch: int, sequence: int) -> tuple[int, int, int, int, Any]:
    """(error, base offset, log append time, log start offset, message) of a two-record batch."""
    records = [Record(offset_delta=i, timestamp_delta=i, key=b"k", value=b"v") for i in range(2)]
    batch = build_batch(
        records,
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
        base_timestamp=T0,
        max_timestamp=T0 + 1,
    )
    data = [_Data(name="t", partition_data=[_Data.PartitionProduceData(index=0, records=batch)])]
    answer = conn.request(ApiKey.PRODUCE, 11, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=data))
    p = answer.responses[0].partition_responses[0]
    return p.error_code, p.base_offset, p.log_append_time_ms, p.log_start_offset, p.error_message


def test_sequence_and_epoch_answers_match_kafka(conn: RawConnection) -> None:
    init = conn.request(
        ApiKey.INIT_PRODUCER_ID, 4, InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000)
    )
    pid, epoch = init.producer_id, init.producer_epoch
    out_of_order, fenced = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, ErrorCode.INVALID_PRODUCER_EPOCH
    assert _send(conn, pid, epoch, 0) == (0, 0, -1, 0, None)
    assert _send(conn, pid, epoch, 2) == (0, 2, -1, 0, None)
    assert _send(conn, pid, epoch, 2) == (0, 2, T0 + 1, 0, None), "a duplicate names the original batch"
    assert _send(conn, pid, epoch, 0) == (0, 0, T0 + 1, 0, None), "an older duplicate too"
    assert _send(conn, pid, epoch, 9) == (out_of_order, -1, -1, 0, None)
    assert _send(conn, pid, epoch, 1) == (out_of_order, -1, -1, 0, None)
    assert _send(conn, pid, epoch + 1, 5) == (out_of_order, -1, -1, 0, None), "a new epoch starts at 0"
    assert _send(conn, pid, epoch + 1, 0) == (0, 4, -1, 0, None)
    assert _send(conn, pid, epoch, 4) == (fenced, -1, -1, 0, None)
    assert _send(conn, pid + 1000, 0, 3) == (0, 6, -1, 0, None), "an unknown producer may start anywhere"
    assert _send(conn, pid + 1000, 0, 0) == (out_of_order, -1, -1, 0, None)


def test_a_retried_batch_is_still_a_duplicate_after_compaction_and_a_restart(tmp_path: Any) -> None:
    """Compaction keeps the producer's last batch (emptied), so the state rebuilt after a
    restart still knows the sequence and the retry writes nothing."""
    data_dir = tmp_path / "data"
    broker = InProcessBroker(data_dir, manual_clock=True)
    broker.start()
    conn = RawConnection(broker.bootstrap)
    conn.create_topic("t", configs={"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01"})
    init = conn.request(
        ApiKey.INIT_PRODUCER_ID, 4, InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000)
    )
    pid, epoch = init.producer_id, init.producer_epoch
    assert _send(conn, pid, epoch, 0)[:2] == (0, 0)
    assert _send(conn, pid, epoch, 2)[:2] == (0, 2)
    assert _send(conn, pid + 1, 0, 0)[:2] == (0, 4), "another producer overwrites the key"

    def roll_and_clean() -> int:
        log = broker.broker.partition_log("t", 0)
        assert log is not None
        log.roll(broker.clock.time_ms())
        return broker.broker.run_cleaner()

    assert broker.call(roll_and_clean) == 1
    conn.close()
    broker.stop()

    broker = InProcessBroker(data_dir, manual_clock=True)
    broker.start()
    conn = RawConnection(broker.bootstrap)
    try:
        assert _send(conn, pid, epoch, 2)[:2] == (0, 2), "the retry is recognised, not appended again"
        assert _send(conn, pid, epoch, 4)[:2] == (0, 6)
    finally:
        conn.close()
        broker.stop()
