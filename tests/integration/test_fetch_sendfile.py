"""Fetch answers with sendfile: real clients read several MiB over many partitions, byte-exact.

The broker runs in process (on asyncio's loop and on uvloop) so the test can watch
``os.sendfile``: the zero-copy path must be taken on segment files, carry on as a socket too
small for one answer drains (every byte of the record sets still goes out by sendfile), and be
skipped for the in-memory filesystem, whose files have no descriptor.
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import uvloop

import odradek.broker
from odradek.server.connection import Connection
from odradek.storage.filesystem import MemoryFileSystem
from odradek.wire.api import ApiKey, RequestHeader, encode_request_header
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.messages.api_versions import ApiVersionsRequest
from odradek.wire.messages.fetch import FetchRequest, FetchResponse
from odradek.wire.primitives import Reader, Writer
from tests.integration.inprocess import InProcessBroker

PARTITIONS = 4
RECORDS = 96  # per partition
SIZE = 16 * 1024  # 4 partitions x 96 records x 16 KiB = 6 MiB
LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,
}


def value(partition: int, i: int) -> bytes:
    head = struct.pack(">HI", partition, i)
    return head + random.Random(partition << 20 | i).randbytes(SIZE - len(head))


class SendfileSpy:
    """Wraps ``os.sendfile`` (the broker runs in this process): bytes asked and sent per call."""

    def __init__(self) -> None:
        self._real = os.sendfile
        self._lock = threading.Lock()
        self.calls: list[tuple[int, int]] = []

    def __call__(self, out_fd: int, in_fd: int, offset: int, count: int) -> int:
        try:
            sent = self._real(out_fd, in_fd, offset, count)
        except BlockingIOError:
            sent = 0
            raise
        finally:
            with self._lock:
                self.calls.append((count, sent))
        return sent

    def sent(self) -> int:
        with self._lock:
            return sum(sent for _, sent in self.calls)

    def partial(self) -> bool:
        with self._lock:
            return any(sent < count for count, sent in self.calls)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> SendfileSpy:
    found = SendfileSpy()
    monkeypatch.setattr(os, "sendfile", found)
    return found


@pytest.fixture
def small_send_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every accepted socket gets a 4 KiB send buffer, so one answer never fits in it."""
    made = Connection.connection_made

    def connection_made(self: Connection, transport: asyncio.BaseTransport) -> None:
        transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        made(self, transport)

    monkeypatch.setattr(Connection, "connection_made", connection_made)


def _start(data_dir: Path, loop: str) -> InProcessBroker:
    broker = InProcessBroker(data_dir, loop_factory=LOOPS[loop])
    broker.start()
    return broker


@pytest.fixture(params=list(LOOPS))
def broker(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[InProcessBroker]:
    proc = _start(tmp_path / "data", request.param)
    yield proc
    proc.stop()


def _fill(bootstrap: str, topic: str) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 262144, "compression.type": "none"}
    )
    for i in range(RECORDS):
        for partition in range(PARTITIONS):
            producer.produce(topic, value=value(partition, i), partition=partition)
        producer.poll(0)
    assert producer.flush(60) == 0


def _check(got: dict[int, list[tuple[int, bytes]]]) -> None:
    """Every partition came back whole, in offset order, with every byte of every value."""
    assert sorted(got) == list(range(PARTITIONS))
    for partition, records in got.items():
        assert [offset for offset, _ in records] == list(range(RECORDS)), f"partition {partition}"
        indexes = [struct.unpack_from(">HI", v)[1] for _, v in records]
        assert sorted(indexes) == list(range(RECORDS)), f"partition {partition}"
        for _, v in records:
            assert v == value(partition, struct.unpack_from(">HI", v)[1])


def _confluent(bootstrap: str, topic: str) -> dict[int, list[tuple[int, bytes]]]:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    got: dict[int, list[tuple[int, bytes]]] = {p: [] for p in range(PARTITIONS)}
    deadline = time.monotonic() + 60
    while sum(map(len, got.values())) < PARTITIONS * RECORDS and time.monotonic() < deadline:
        for msg in consumer.consume(num_messages=500, timeout=0.5):
            assert msg.error() is None, msg.error()
            got[cast(int, msg.partition())].append((cast(int, msg.offset()), cast(bytes, msg.value())))
    consumer.close()
    return got


def _kafka_python(bootstrap: str, topic: str) -> dict[int, list[tuple[int, bytes]]]:
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None)
    tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    consumer.assign(tps)
    for tp in tps:
        consumer.seek(tp, 0)
    got: dict[int, list[tuple[int, bytes]]] = {p: [] for p in range(PARTITIONS)}
    deadline = time.monotonic() + 60
    while sum(map(len, got.values())) < PARTITIONS * RECORDS and time.monotonic() < deadline:
        for tp, messages in consumer.poll(timeout_ms=500, max_records=500).items():
            got[tp.partition] += [(m.offset, m.value) for m in messages]
    consumer.close()
    return got


async def _aiokafka_async(bootstrap: str, topic: str) -> dict[int, list[tuple[int, bytes]]]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    got: dict[int, list[tuple[int, bytes]]] = {p: [] for p in range(PARTITIONS)}
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        for tp in tps:
            consumer.seek(tp, 0)
        deadline = time.monotonic() + 60
        while sum(map(len, got.values())) < PARTITIONS * RECORDS and time.monotonic() < deadline:
            for tp, messages in (await consumer.getmany(timeout_ms=500, max_records=500)).items():
                got[tp.partition] += [(m.offset, m.value) for m in messages]
    finally:
        await consumer.stop()
    return got


def _aiokafka(bootstrap: str, topic: str) -> dict[int, list[tuple[int, bytes]]]:
    return asyncio.run(_aiokafka_async(bootstrap, topic))


CLIENTS: dict[str, Callable[[str, str], dict[int, list[tuple[int, bytes]]]]] = {
    "confluent-kafka": _confluent,
    "kafka-python": _kafka_python,
    "aiokafka": _aiokafka,
}


def test_real_clients_read_segment_files_sent_with_sendfile(
    broker: InProcessBroker, topic_name: str, spy: SendfileSpy
) -> None:
    _fill(broker.bootstrap, topic_name)
    for name, consume in CLIENTS.items():
        before = spy.sent()
        _check(consume(broker.bootstrap, topic_name))
        # Nearly all of the 6 MiB: only record sets under 64 KiB are read into bytes.
        assert spy.sent() - before > PARTITIONS * RECORDS * SIZE // 2, name


def _request(api_key: int, version: int, correlation_id: int, value: Any) -> bytes:
    schema = FetchRequest if api_key == ApiKey.FETCH else ApiVersionsRequest
    writer = Writer()
    encode_request_header(writer, RequestHeader(api_key, version, correlation_id, "raw"), schema.is_flexible(version))
    encode_into(schema, version, value, writer)
    return struct.pack(">i", writer.size()) + writer.getvalue()


def _fetch_everything(topic: str, correlation_id: int) -> bytes:
    partitions = [
        FetchRequest.FetchTopic.FetchPartition(partition=p, fetch_offset=0, partition_max_bytes=16 << 20)
        for p in range(PARTITIONS)
    ]
    request = FetchRequest(
        max_wait_ms=0,
        min_bytes=1,
        max_bytes=64 << 20,
        topics=[FetchRequest.FetchTopic(topic=topic, partitions=partitions)],
    )
    return _request(ApiKey.FETCH, 12, correlation_id, request)


def _read_frame(sock: socket.socket, slow: bool) -> Reader:
    """One response frame, 8 KiB a recv (with a pause between recvs while ``slow``)."""
    data = bytearray()
    while len(data) < 4 or len(data) < 4 + struct.unpack_from(">i", data)[0]:
        want = 4 - len(data) if len(data) < 4 else 4 + struct.unpack_from(">i", data)[0] - len(data)
        chunk = sock.recv(min(want, 8192))
        assert chunk, "the broker closed the connection"
        data += chunk
        if slow and len(data) < 256 * 1024:
            time.sleep(0.001)
    return Reader(data, 4)


def _fetched(reader: Reader, correlation_id: int) -> dict[int, bytes]:
    assert reader.int32() == correlation_id
    reader.uvarint()  # the flexible response header's tagged fields
    response = decode_from(FetchResponse, 12, reader)
    return {p.partition_index: bytes(p.records) for p in response.responses[0].partitions}


def _on_disk(broker: InProcessBroker, topic: str) -> dict[int, bytes]:
    def read() -> dict[int, bytes]:
        found = {}
        for p in range(PARTITIONS):
            log = broker.broker.partition_log(topic, p)
            region = log.read(0, 16 << 20) if log is not None else None
            found[p] = region.read() if region is not None else b""
        return found

    found = broker.call(read)
    assert sum(map(len, found.values())) > PARTITIONS * RECORDS * SIZE
    return found


def test_an_answer_larger_than_the_socket_buffers_arrives_whole(
    small_send_buffers: None, broker: InProcessBroker, topic_name: str, spy: SendfileSpy
) -> None:
    _fill(broker.bootstrap, topic_name)
    host, port = broker.bootstrap.rsplit(":", 1)
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(30)
        sock.connect((host, int(port)))
        sock.sendall(_fetch_everything(topic_name, 7))
        time.sleep(0.3)  # the broker fills every buffer on the way, then sends as the socket drains
        records = _fetched(_read_frame(sock, slow=True), 7)
    sent = spy.sent()
    assert spy.partial(), "a sendfile stopped at a full socket"
    on_disk = _on_disk(broker, topic_name)
    assert records == on_disk
    assert sent == sum(map(len, on_disk.values())), "every byte of the record sets went out by sendfile"
    _check(_confluent(broker.bootstrap, topic_name))


def test_pipelined_answers_keep_their_order_around_file_parts(
    broker: InProcessBroker, topic_name: str, spy: SendfileSpy
) -> None:
    _fill(broker.bootstrap, topic_name)
    expected = _on_disk(broker, topic_name)
    host, port = broker.bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        for _ in range(3):
            versions = ApiVersionsRequest(client_software_name="raw", client_software_version="1")
            sock.sendall(
                _request(ApiKey.API_VERSIONS, 3, 1, versions)
                + _fetch_everything(topic_name, 2)
                + _request(ApiKey.API_VERSIONS, 3, 3, versions)
                + _fetch_everything(topic_name, 4)
                + _fetch_everything(topic_name, 5)
            )
            for correlation_id in (1, 2, 3, 4, 5):
                reader = _read_frame(sock, slow=False)
                if correlation_id % 2:
                    assert reader.int32() == correlation_id
                else:
                    assert _fetched(reader, correlation_id) == expected
    assert spy.sent() > 0


def test_the_in_memory_filesystem_is_answered_from_buffers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, topic_name: str, spy: SendfileSpy
) -> None:
    monkeypatch.setattr(odradek.broker, "OsFileSystem", MemoryFileSystem)
    proc = _start(tmp_path / "data", "uvloop")
    try:
        _fill(proc.bootstrap, topic_name)
        _check(_confluent(proc.bootstrap, topic_name))
    finally:
        proc.stop()
    assert spy.calls == []
