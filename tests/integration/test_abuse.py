"""Clients that abuse the broker on real sockets: its memory stays bounded and others are served.

- A client that pipelines requests and never reads its answers: the broker stops reading that
  connection once its answers back up (Kafka mutes the channel), so the client can only fill its
  own socket buffers; every request is still answered, in order, once it reads.
- Announced huge frames trickled in: memory follows the bytes sent, not the sizes announced.
- ``queued.max.request.bytes``: once the requests held reach it, no connection starts a new frame
  until memory is released; a connection that closes gives its reservations back.
- Slow-loris connections (a partial size prefix each) and connection churn leave no memory,
  file descriptors or connections behind.
- A compressed batch a few KiB long that stands for a GiB is refused (CORRUPT_MESSAGE) once its
  records pass ``MAX_DECOMPRESSED_BYTES``, instead of being decompressed whole.
- A Metadata request for 100,000 topics is answered in slices: other tasks on the broker's loop
  run while it is answered, and the answer is whole.

Memory is the broker process's resident set (``/proc/PID/status``); the bounds asserted are
loose multiples of what the design allows and far below what the abuse would cost without it.
"""

from __future__ import annotations

import asyncio
import gc
import os
import select
import socket
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import zstandard

from odradek.handlers import slices
from odradek.handlers.interception import Answer, Call
from odradek.handlers.metadata_order import missing_topics_order
from odradek.java_order import scala_immutable_set_order, string_hash
from odradek.server.backpressure import MAX_QUEUED_FRAMES, Hold
from odradek.wire.api import ApiKey, RequestHeader, encode_request_header
from odradek.wire.codec import encode_into
from odradek.wire.errors import ErrorCode
from odradek.wire.framing import DEFAULT_READ_BYTES
from odradek.wire.messages.api_versions import ApiVersionsRequest
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.primitives import Writer
from odradek.wire.records.batch import BATCH_OVERHEAD, read_header, write_header
from odradek.wire.records.builder import MAX_DECOMPRESSED_BYTES, build_batch
from odradek.wire.records.varint import write_varint, write_varlong
from tests.integration.conftest import BrokerProcess
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection

MIB = 1024 * 1024
_HELLO = ApiVersionsRequest(client_software_name="abuse", client_software_version="1")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _api_versions_frame(correlation_id: int, client_id: str = "abuse") -> bytes:
    writer = Writer()
    encode_request_header(writer, RequestHeader(ApiKey.API_VERSIONS, 3, correlation_id, client_id), True)
    encode_into(ApiVersionsRequest, 3, _HELLO, writer)
    body = writer.getvalue()
    return struct.pack(">i", len(body)) + body


def _ping(bootstrap: str) -> None:
    """A well-behaved client's round trip."""
    conn = RawConnection(bootstrap)
    try:
        answer = conn.request(ApiKey.API_VERSIONS, 3, _HELLO)
        assert answer.error_code == 0
    finally:
        conn.close()


def _send_until_stalled(sock: socket.socket, data: bytes, stall_s: float = 2.0, cap: int = 256 * MIB) -> int:
    """Send ``data`` over and over without reading until the socket stays unwritable for
    ``stall_s`` (the peer stopped reading) or ``cap`` bytes went out; the bytes sent."""
    sock.setblocking(False)
    view, position, sent = memoryview(data), 0, 0
    while sent < cap:
        _, writable, _ = select.select([], [sock], [], stall_s)
        if not writable:
            break
        try:
            count = sock.send(view[position:])
        except BlockingIOError:
            continue
        sent += count
        position = (position + count) % len(data)
    return sent


@pytest.fixture(scope="module")
def process_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path_factory.mktemp("abuse"))
    proc.start()
    yield proc
    proc.stop()


def test_a_client_that_never_reads_its_answers_is_no_longer_read(process_broker: BrokerProcess) -> None:
    assert process_broker.process is not None
    pid = process_broker.process.pid
    before = _rss_mib(pid)
    # Each answer is bigger than its request, so the answers back up before the requests do.
    pipeline = b"".join(_api_versions_frame(i) for i in range(1000))
    sock = socket.create_connection(("127.0.0.1", process_broker.port))
    try:
        sent = _send_until_stalled(sock, pipeline)
        # Before the broker muted such a connection it kept reading: 64 MiB of queued requests,
        # 300 MiB of resident memory.  Now only socket buffers and a bounded queue fill.
        assert sent < 32 * MIB
        assert _rss_mib(pid) - before < 32
        _ping(process_broker.bootstrap)
        # Reading the answers lets the broker read (and answer) the rest, in order.
        sock.setblocking(True)
        sock.settimeout(30)
        frames = min(sent // len(_api_versions_frame(0)), 20_000)
        correlations = []
        buffer = bytearray()
        while len(correlations) < frames:
            chunk = sock.recv(1 << 20)
            assert chunk, "the broker closed the connection"
            buffer += chunk
            while len(buffer) >= 8:
                (size,) = struct.unpack_from(">i", buffer)
                if len(buffer) < 4 + size:
                    break
                correlations.append(struct.unpack_from(">i", buffer, 4)[0])
                del buffer[: 4 + size]
        assert correlations[:frames] == [i % 1000 for i in range(frames)]
    finally:
        sock.close()


def test_the_muted_connection_holds_at_most_a_bounded_queue(tmp_path: Path) -> None:
    broker = InProcessBroker(tmp_path / "data")
    broker.start()
    frame = _api_versions_frame(0)
    sock = socket.create_connection(("127.0.0.1", broker.broker.port))
    try:
        _send_until_stalled(sock, frame * 1000)

        def state() -> tuple[bool, int, int]:
            listener = broker.broker._listener
            assert listener is not None
            (connection,) = listener.connections
            return connection._holds.holds(Hold.ANSWERS), len(connection._pending), broker.broker.request_memory.used

        muted, queued, held = broker.call(state)
        assert muted
        # Reading stops at MAX_QUEUED_FRAMES; the read that crossed it may bring one read's worth more.
        assert queued <= MAX_QUEUED_FRAMES + DEFAULT_READ_BYTES // len(frame)
        assert held <= (queued + 1) * len(frame)  # the queue and the request waiting to be answered
    finally:
        sock.close()
        broker.stop()


def test_a_metadata_request_for_100000_topics_shares_the_loop(tmp_path: Path) -> None:
    """Other tasks run while the handler answers 100,000 names (counted from the interceptor
    around the handler: the request is decoded and its answer encoded in slices the same way,
    `tests/unit/wire/test_codec_slices.py`)."""
    collecting = gc.isenabled()
    broker = InProcessBroker(tmp_path / "data")
    broker.start()
    turns = [0]
    during: list[int] = []

    async def other_work() -> None:
        while True:
            turns[0] += 1
            await asyncio.sleep(0)

    async def count_turns(call: Call, answer: Answer) -> object:
        before = turns[0]
        value = await answer(call.request)
        during.append(turns[0] - before)
        return value

    def install() -> asyncio.Task[None]:
        broker.broker.dispatcher.interceptor = count_turns  # type: ignore[assignment]
        return asyncio.get_running_loop().create_task(other_work())

    ticker = broker.call(install)
    try:
        connection = RawConnection(broker.bootstrap, timeout=120)
        names = [f"no-such-topic-{i:06d}" for i in range(100_000)]
        request = MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=name) for name in names], allow_auto_topic_creation=False
        )
        answer = connection.request(ApiKey.METADATA, 12, request)
        connection.close()
    finally:
        broker.call(ticker.cancel)
        broker.stop()
    # Kafka answers missing names in the order of the Java hash set it copies the names into.
    in_set_order: list[str | None] = list(scala_immutable_set_order(names, string_hash))
    expected = missing_topics_order(in_set_order, len(names), False)
    assert [topic.name for topic in answer.topics] == expected
    assert {topic.error_code for topic in answer.topics} == {ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}
    assert during[0] > 0
    assert gc.isenabled() == collecting  # the handler's own slices resumed the collector they paused


def test_a_metadata_request_for_100000_topic_ids_shares_the_loop(tmp_path: Path) -> None:
    """By topic id: each id answered once, the unknown ones first in request order, then the known."""
    broker = InProcessBroker(tmp_path / "data")
    broker.start()
    turns = [0]
    during: list[int] = []

    async def other_work() -> None:
        while True:
            turns[0] += 1
            await asyncio.sleep(0)

    async def count_turns(call: Call, answer: Answer) -> object:
        before = turns[0]
        value = await answer(call.request)
        during.append(turns[0] - before)
        return value

    def install() -> asyncio.Task[None]:
        broker.broker.dispatcher.interceptor = count_turns  # type: ignore[assignment]
        return asyncio.get_running_loop().create_task(other_work())

    known = broker.call(lambda: broker.broker.topics.create("known-topic", 1, {}))
    ticker = broker.call(install)
    try:
        connection = RawConnection(broker.bootstrap, timeout=120)
        ids = [i.to_bytes(16, "big") for i in range(1, 100_001)]
        wanted = [known.topic_id, *ids, ids[0], known.topic_id]
        request = MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(topic_id=topic_id) for topic_id in wanted],
            allow_auto_topic_creation=False,
        )
        answer = connection.request(ApiKey.METADATA, 12, request)
        connection.close()
    finally:
        broker.call(ticker.cancel)
        broker.stop()
    assert [topic.topic_id for topic in answer.topics] == [*ids, known.topic_id]
    assert {topic.error_code for topic in answer.topics[:-1]} == {ErrorCode.UNKNOWN_TOPIC_ID}
    assert answer.topics[-1].name == "known-topic"
    assert during[0] > 0


def test_an_every_topic_answer_lists_one_state_of_the_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A topic deleted while an "every topic" answer is built (at a slice boundary, where the loop
    is given back) is not in it: the answer is built again from the catalog after the deletion
    (Kafka answers from one metadata image)."""
    monkeypatch.setattr(slices, "SLICE_SECONDS", -1.0)  # every slice boundary gives the loop back
    broker = InProcessBroker(tmp_path / "data")
    broker.start()
    names = ["t-0", "t-1", "t-2"]

    def create_all() -> None:
        for name in names:
            broker.broker.topics.create(name, 1, {})

    async def delete_last_once_answering(call: Call, answer: Answer) -> object:
        asyncio.get_running_loop().call_soon(broker.broker.topics.delete, names[-1])
        return await answer(call.request)

    def install() -> None:
        broker.broker.dispatcher.interceptor = delete_last_once_answering  # type: ignore[assignment]

    broker.call(create_all)
    broker.call(install)
    try:
        connection = RawConnection(broker.bootstrap, timeout=60)
        answer = connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=None))
        connection.close()
    finally:
        broker.stop()
    listed = [topic.name for topic in answer.topics]
    assert listed == names[:-1]


def test_announced_huge_frames_hold_what_was_sent_not_what_was_announced(process_broker: BrokerProcess) -> None:
    assert process_broker.process is not None
    pid = process_broker.process.pid
    before = _rss_mib(pid)
    socks = []
    try:
        for _ in range(8):
            sock = socket.create_connection(("127.0.0.1", process_broker.port))
            sock.sendall(struct.pack(">i", 100 * MIB) + b"\x00" * (2 * MIB))
            socks.append(sock)
        _ping(process_broker.bootstrap)  # the broker has read what was sent by now
        # 8 x (2 MiB sent + at most one 1 MiB chunk); announcing alone used to cost 800 MiB.
        assert _rss_mib(pid) - before < 8 * 3 + 16
    finally:
        for sock in socks:
            sock.close()


def test_queued_max_request_bytes_holds_new_frames_until_memory_is_released(tmp_path: Path) -> None:
    limit = 2 * MIB
    broker = InProcessBroker(
        tmp_path / "data", [f"socket.request.max.bytes={limit}", f"queued.max.request.bytes={limit}"]
    )
    broker.start()
    hog = socket.create_connection(("127.0.0.1", broker.broker.port))
    waiting = RawConnection(broker.bootstrap)

    def held() -> int:
        return broker.call(lambda: broker.broker.request_memory.used)

    def held_back() -> bool:
        listener = broker.broker._listener
        assert listener is not None
        return any(c._holds.holds(Hold.MEMORY) for c in listener.connections)

    try:
        # Past its first 1 MiB chunk the frame reserves its second: the limit is reached.
        hog.sendall(struct.pack(">i", limit) + b"\x00" * (MIB + 1))
        _wait_for(lambda: held() >= limit, "the hog's chunks were not reserved")
        waiting.send_raw(_api_versions_frame(99))
        _wait_for(lambda: broker.call(held_back), "no connection was held back")
        hog.close()  # its reservations go back: the held request is received and answered
        answer = waiting.recv_frame()
        assert answer is not None and struct.unpack_from(">i", answer)[0] == 99
        assert held() == 0
    finally:
        waiting.close()
        broker.stop()


def _wait_for(condition: Callable[[], bool], failure: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.01)


def test_slow_loris_and_churn_leave_nothing_behind(process_broker: BrokerProcess) -> None:
    assert process_broker.process is not None
    pid = process_broker.process.pid
    # A broker's first accepted connection makes the event loop open a spare descriptor (/dev/null,
    # kept for running out of descriptors) that stays open: count from after it, whichever test of
    # this module ran first on this broker.
    _ping(process_broker.bootstrap)
    fds_before, rss_before = _open_fds(pid), _rss_mib(pid)
    loris = []
    for _ in range(200):
        sock = socket.create_connection(("127.0.0.1", process_broker.port))
        sock.sendall(b"\x00\x00")  # half a size prefix, then nothing
        loris.append(sock)
    _ping(process_broker.bootstrap)
    # Every connection used to carry its own 64 KiB read buffer (12.5 MiB for these 200).
    assert _rss_mib(pid) - rss_before < 8
    for sock in loris:
        sock.close()
    for i in range(1000):
        sock = socket.create_connection(("127.0.0.1", process_broker.port))
        if i % 2:
            sock.sendall(_api_versions_frame(i))
        sock.close()
    _ping(process_broker.bootstrap)
    _wait_for(lambda: _open_fds(pid) <= fds_before, "descriptors were left open")


def _zstd_bomb_batch(value_bytes: int) -> bytes:
    """A batch of one record whose value is ``value_bytes`` zeros, zstd-compressed as it is
    written (the test never holds the zeros): a few KiB that stand for ``value_bytes``."""
    body = bytearray([0])  # attributes
    write_varlong(body, 0)  # timestamp delta
    write_varint(body, 0)  # offset delta
    write_varint(body, 3)
    body += b"key"
    write_varint(body, value_bytes)
    record_head = bytearray()
    write_varint(record_head, len(body) + value_bytes + 1)  # + the header count after the value
    compressor = zstandard.ZstdCompressor().compressobj()
    packed = bytearray(compressor.compress(bytes(record_head + body)))
    zeros = b"\x00" * MIB
    for _ in range(value_bytes // MIB):
        packed += compressor.compress(zeros)
    packed += compressor.compress(b"\x00")  # no headers
    packed += compressor.flush()
    batch = bytearray(BATCH_OVERHEAD) + packed
    header = read_header(build_batch([], base_timestamp=int(time.time() * 1000)))
    write_header(
        batch,
        0,
        header._replace(batch_length=len(batch) - 12, attributes=4, records_count=1, last_offset_delta=0),
    )
    return bytes(batch)


def test_a_compressed_batch_claiming_gibibytes_is_refused_not_decompressed(process_broker: BrokerProcess) -> None:
    assert process_broker.process is not None
    pid = process_broker.process.pid
    conn = RawConnection(process_broker.bootstrap)
    try:
        conn.create_topic("bombed", configs={"cleanup.policy": "compact"})  # keys are checked: records decoded
        batch = _zstd_bomb_batch(1024 * MIB)
        assert len(batch) < 64 * 1024
        before = _rss_mib(pid)
        request = ProduceRequest(
            acks=-1,
            timeout_ms=5000,
            topic_data=[
                ProduceRequest.TopicProduceData(
                    name="bombed",
                    partition_data=[ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=batch)],
                )
            ],
        )
        answer = conn.request(ApiKey.PRODUCE, 9, request)
        assert answer.responses[0].partition_responses[0].error_code == ErrorCode.CORRUPT_MESSAGE
        assert _rss_mib(pid) - before < MAX_DECOMPRESSED_BYTES / MIB + 32
    finally:
        conn.close()
