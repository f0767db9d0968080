"""Fetch answers shaped as Apache Kafka 4.3.1 shapes them (compared with the raw probes in
compat-tests/probes/storage.py): the byte slice that may end inside a batch, and the fields of
refused partitions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from inprocess import raw_broker
from rawclient import RawConnection

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.fetch import FetchRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.records.batch import iter_batches
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

_Produce = ProduceRequest.TopicProduceData
_Fetch = FetchRequest.FetchTopic


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawConnection]:
    with raw_broker(tmp_path_factory.mktemp("fetch-answers")) as (_, connection):
        connection.create_topic("t")
        _produce_ten(connection)
        yield connection


def _produce_ten(connection: RawConnection) -> None:
    for i in range(10):
        batch = build_batch([Record(offset_delta=0, timestamp_delta=0, key=b"k", value=b"v%d" % i)], base_timestamp=1)
        data = [_Produce(name="t", partition_data=[_Produce.PartitionProduceData(index=0, records=batch)])]
        connection.request(ApiKey.PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=data))


def _fetch(conn: RawConnection, partition: int, offset: int, max_bytes: int, isolation: int = 0) -> Any:
    part = _Fetch.FetchPartition(partition=partition, fetch_offset=offset, partition_max_bytes=max_bytes)
    request = FetchRequest(
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=max_bytes,
        isolation_level=isolation,
        topics=[_Fetch(topic="t", partitions=[part])],
    )
    return conn.request(ApiKey.FETCH, 12, request).responses[0].partitions[0]


def test_a_read_is_a_byte_slice_that_may_cut_the_last_batch(conn: RawConnection) -> None:
    answer = _fetch(conn, 0, 0, 200)
    records = bytes(answer.records)
    assert len(records) == 200
    whole = list(iter_batches(records))
    size = whole[0][1].total_size
    assert 200 % size != 0, "the test needs a limit that falls inside a batch"
    assert [header.base_offset for _, header in whole] == list(range(200 // size))


def test_the_first_batch_comes_whole_even_above_the_limit(conn: RawConnection) -> None:
    answer = _fetch(conn, 0, 4, 10)
    (only,) = list(iter_batches(bytes(answer.records)))
    assert only[1].base_offset == 4 and len(answer.records) == only[1].total_size


def test_an_out_of_range_read_reports_no_offsets(conn: RawConnection) -> None:
    answer = _fetch(conn, 0, 99, 1 << 20)
    fields = (answer.error_code, answer.high_watermark, answer.last_stable_offset, answer.log_start_offset)
    assert fields == (ErrorCode.OFFSET_OUT_OF_RANGE, -1, -1, -1)
    assert answer.aborted_transactions is None


@pytest.mark.parametrize("isolation", [0, 1])
def test_an_unknown_partition_has_an_empty_aborted_list(conn: RawConnection, isolation: int) -> None:
    answer = _fetch(conn, 5, 0, 1 << 20, isolation)
    assert (answer.error_code, answer.high_watermark) == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1)
    assert answer.aborted_transactions == []


def test_a_read_uncommitted_read_has_no_aborted_list(conn: RawConnection) -> None:
    assert _fetch(conn, 0, 0, 1 << 20).aborted_transactions is None
    assert _fetch(conn, 0, 0, 1 << 20, isolation=1).aborted_transactions == []


def test_only_a_diverging_partition_carries_a_diverging_epoch(conn: RawConnection) -> None:
    # The log is ten records, all in leader epoch 0: a client at offset 11 that last fetched in epoch 0
    # is past that epoch's end (10), so its answer names (0, 10) and carries no records. The untouched
    # tagged fields of every answer are one shared default value: a diverging answer in between must
    # leave the plain answers' fields at their defaults (not sent).
    def read(offset: int, last_fetched_epoch: int) -> Any:
        part = _Fetch.FetchPartition(
            partition=0, fetch_offset=offset, last_fetched_epoch=last_fetched_epoch, partition_max_bytes=1 << 20
        )
        topics = [_Fetch(topic="t", partitions=[part])]
        request = FetchRequest(max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, topics=topics)
        return conn.request(ApiKey.FETCH, 12, request).responses[0].partitions[0]

    def tagged(answer: Any) -> tuple[int, ...]:
        diverging, leader, snapshot = answer.diverging_epoch, answer.current_leader, answer.snapshot_id
        return (diverging.epoch, diverging.end_offset, leader.leader_id, leader.leader_epoch, snapshot.end_offset)

    plain_before = read(5, -1)
    diverged = read(11, 0)
    plain_after = read(5, 0)
    assert diverged.error_code == ErrorCode.NONE
    assert tagged(diverged) == (0, 10, -1, -1, -1) and not diverged.records
    assert tagged(plain_before) == tagged(plain_after) == (-1, -1, -1, -1, -1)
    assert plain_before.records and plain_after.records
