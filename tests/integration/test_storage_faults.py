"""A disk that fails under one partition: that partition's requests get KAFKA_STORAGE_ERROR, the
rest of the broker keeps serving, and nothing acknowledged is lost or written twice.

The broker runs in process on the real disk through a `FileSystem` that fails, on demand, the
writes or fsyncs of the files under one partition's directory (as a full disk or a failing
device would).  Requests go over a real socket.  A failed write is cut back and the partition
serves again once the disk does; a failed fsync takes the partition offline until restart
(produce, fetch and list offsets refused), because what reached the file can no longer be
known to be durable: the refused batch must not reach a consumer.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inprocess import raw_broker
from rawclient import RawConnection

from odradek.storage.filesystem import Buffer, FileHandle, OsFileSystem
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.fetch import FetchRequest
from odradek.wire.messages.list_offsets import ListOffsetsRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.records.batch import iter_batches
from odradek.wire.records.builder import build_batch, decode_batch
from odradek.wire.records.record import Record
from tests.unit.storage.handles import DelegatingHandle

_Produce = ProduceRequest.TopicProduceData
_Fetch = FetchRequest.FetchTopic
FAILING = "/t-0/"


class _FailingHandle(DelegatingHandle):
    def __init__(self, fs: FailingDisk, inner: FileHandle) -> None:
        super().__init__(inner)
        self._fs = fs

    def write(self, data: Buffer) -> int:
        if self._fs.fail_writes:
            raise OSError(errno.ENOSPC, "No space left on device", self.path)
        return super().write(data)

    def fsync(self) -> None:
        if self._fs.fail_fsync:
            raise OSError(errno.EIO, "Input/output error", self.path)
        super().fsync()


class FailingDisk(OsFileSystem):
    """The real disk, except that files under ``FAILING`` fail their writes or fsyncs on demand."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_writes = False
        self.fail_fsync = False

    def open_append(self, path: str) -> FileHandle:
        handle = super().open_append(path)
        return _FailingHandle(self, handle) if FAILING in path else handle


@pytest.fixture
def disk_and_conn(tmp_path: Path) -> Iterator[tuple[FailingDisk, RawConnection]]:
    disk = FailingDisk()
    with raw_broker(tmp_path, fs=disk) as (_, connection):
        connection.create_topic("t", partitions=2, configs={"flush.messages": "1"})
        yield disk, connection


def _produce(conn: RawConnection, partition: int, value: bytes) -> Any:
    batch = build_batch([Record(offset_delta=0, timestamp_delta=0, key=None, value=value)], base_timestamp=1)
    data = [_Produce(name="t", partition_data=[_Produce.PartitionProduceData(index=partition, records=batch)])]
    answer = conn.request(ApiKey.PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=data))
    return answer.responses[0].partition_responses[0]


def _fetch(conn: RawConnection, partition: int) -> Any:
    part = _Fetch.FetchPartition(partition=partition, fetch_offset=0, partition_max_bytes=1 << 20)
    request = FetchRequest(max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, topics=[_Fetch(topic="t", partitions=[part])])
    return conn.request(ApiKey.FETCH, 12, request).responses[0].partitions[0]


def _latest(conn: RawConnection, partition: int) -> Any:
    part = ListOffsetsRequest.ListOffsetsTopic.ListOffsetsPartition(partition_index=partition, timestamp=-1)
    topic = ListOffsetsRequest.ListOffsetsTopic(name="t", partitions=[part])
    answer = conn.request(ApiKey.LIST_OFFSETS, 7, ListOffsetsRequest(replica_id=-1, topics=[topic]))
    return answer.topics[0].partitions[0]


def _values(conn: RawConnection, partition: int) -> list[bytes | None]:
    records = bytes(_fetch(conn, partition).records or b"")
    return [r.value for position, _ in iter_batches(records) for r in decode_batch(records, position)[1]]


def test_a_full_disk_refuses_only_that_partition_and_loses_nothing(
    disk_and_conn: tuple[FailingDisk, RawConnection],
) -> None:
    disk, conn = disk_and_conn
    assert _produce(conn, 0, b"before").error_code == ErrorCode.NONE
    disk.fail_writes = True
    refused = _produce(conn, 0, b"refused")
    assert (refused.error_code, refused.base_offset) == (ErrorCode.KAFKA_STORAGE_ERROR, -1)
    assert _produce(conn, 1, b"elsewhere").error_code == ErrorCode.NONE
    assert _values(conn, 1) == [b"elsewhere"]
    disk.fail_writes = False
    after = _produce(conn, 0, b"after")
    assert (after.error_code, after.base_offset) == (ErrorCode.NONE, 1)
    assert _values(conn, 0) == [b"before", b"after"]


def test_a_failed_fsync_takes_only_that_partition_offline(disk_and_conn: tuple[FailingDisk, RawConnection]) -> None:
    disk, conn = disk_and_conn
    assert _produce(conn, 0, b"durable").error_code == ErrorCode.NONE
    disk.fail_fsync = True
    assert _produce(conn, 0, b"not durable").error_code == ErrorCode.KAFKA_STORAGE_ERROR
    disk.fail_fsync = False
    assert _produce(conn, 0, b"later").error_code == ErrorCode.KAFKA_STORAGE_ERROR
    fetched = _fetch(conn, 0)
    assert (fetched.error_code, fetched.high_watermark, bytes(fetched.records)) == (
        ErrorCode.KAFKA_STORAGE_ERROR,
        -1,
        b"",
    )
    assert _latest(conn, 0).error_code == ErrorCode.KAFKA_STORAGE_ERROR
    assert _produce(conn, 1, b"elsewhere").error_code == ErrorCode.NONE
    assert _values(conn, 1) == [b"elsewhere"]
