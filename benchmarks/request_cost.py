"""Broker CPU per request: a load-insensitive figure for before/after work on the request path.

Wall-clock throughput on a shared machine measures the neighbours as much as the broker. What the
broker itself spends per request does not depend on them much: this tool sends a fixed number of
identical requests over one connection (``--window`` in flight) and divides the broker process's
CPU time (utime + stime from /proc) by the count. With ``--base DIR`` a second odradek, started from
the source tree DIR (e.g. ``git archive`` of the commit before a change), runs beside this
checkout's, and the two are measured in alternating rounds (A B A B ...) after one warm-up round each.
This checkout's broker runs its sources as pure Python (``odradek-pure``); ``--base`` takes another
source tree, or ``build/compiled`` for the mypyc build that ``make run`` runs.

    .venv/bin/python benchmarks/request_cost.py --mode produce1 --requests 20000 --rounds 7 --base /tmp/base
    .venv/bin/python benchmarks/request_cost.py --mode metadata-many --requests 4 --window 1 --base /tmp/base
    .venv/bin/python benchmarks/request_cost.py --mode metadata-one --partitions 1 --window 1 --base /tmp/base
    .venv/bin/python benchmarks/request_cost.py --mode produce-spread --partitions 1000 --connections 8 --base /tmp/base

Modes: ``produce1`` one 100-byte record per Produce v9 request (W3's shape); ``produce-many`` one
record batch for each of ``--partitions`` partitions per request (W6's shape); ``fetch-many`` a
Fetch v12 of ``--partitions`` partitions, each at its end (W6's consumers polling, no data);
``fetch-session`` the same partitions in a fetch session (KIP-227, what librdkafka's and the Java
client's consumers send): one full Fetch opens it on each connection, then every request is an
incremental Fetch v12 naming no partition, answered with the partitions that have news (none here);
``metadata-many`` a Metadata v12 naming ``--topics`` topics that do not exist (the abuse run's
100,000-name request: decoding the names, the unknown-topic entries, the encoding of the answer);
``metadata-one`` a Metadata v12 naming the one topic of ``--partitions`` partitions (what scale.py's
1,000 connections ask, with ``--partitions 1 --window 1``);
``produce-spread`` W6-rdkafka's shape: one one-record Produce v9 of 1 KiB per request, each to the
next of ``--partitions`` partitions (W6: 1,000), over ``--connections`` connections each keeping
``--window`` in flight (librdkafka pipelines), so the broker reads several frames at a time, queues
them behind its connection's worker and appends to a different partition file each time;
``fetch-large`` W4-rdkafka's shape: one partition prefilled with ``--prefill-batches`` batches of
1,000 records of 1 KiB (about 1 MiB each, like W4's prefill), then Fetch v16 requests of 1 MiB
(``max_bytes`` and ``partition_max_bytes``) at successive batches, wrapping to the log start at the
end, window 1: every answer exceeds the broker's 100-KiB send buffer, so it leaves through the
connection's drain with ``sendfile``, as W4's do (use ``--requests`` in the hundreds).
Prints one line per round and the medians, in CPU microseconds per request.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import struct
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import count, cycle
from pathlib import Path

from bench.admin import create_topic
from bench.brokers import BASELINE_ENV, Broker, odradek_base, odradek_pure
from bench.measure import _start_profiler, _stop_profiler
from bench.pinning import plan
from bench.procstat import cpu_times

from odradek.wire.api import RequestHeader, encode_request_header
from odradek.wire.codec import decode, encode_into
from odradek.wire.messages.fetch import FetchRequest
from odradek.wire.messages.metadata import MetadataRequest, MetadataResponse
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.primitives import Writer
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

_SIZE = struct.Struct(">i")
_CORRELATION = struct.Struct(">i")
_OFFSET = struct.Struct(">q")
TOPIC = "request-cost"


def _frame(api_key: int, version: int, message: object, body: object) -> bytes:
    w = Writer()
    encode_request_header(w, RequestHeader(api_key, version, 0, "request-cost"), True)
    encode_into(message, version, body, w)  # type: ignore[arg-type, type-var]
    payload = w.getvalue()
    return _SIZE.pack(len(payload)) + payload


def produce_frame(partitions: int) -> bytes:
    batch = build_batch([Record(0, 0, None, b"x" * 100)], base_timestamp=int(time.time() * 1000))
    data = [ProduceRequest.TopicProduceData.PartitionProduceData(index=p, records=batch) for p in range(partitions)]
    topic = ProduceRequest.TopicProduceData(name=TOPIC, partition_data=data)
    request = ProduceRequest(transactional_id=None, acks=1, timeout_ms=30_000, topic_data=[topic])
    return _frame(0, 9, ProduceRequest, request)


SPREAD_RECORD_BYTES = 1024
_PARTITION_MARK = 0x0DDA_5EED


def spread_frame() -> tuple[bytes, int]:
    """A Produce v9 (acks=1) of one `SPREAD_RECORD_BYTES` record, and where its partition index is
    in the frame (`drive` writes each request's partition there; the batch's CRC does not cover it)."""
    batch = build_batch([Record(0, 0, None, b"x" * SPREAD_RECORD_BYTES)], base_timestamp=int(time.time() * 1000))
    data = [ProduceRequest.TopicProduceData.PartitionProduceData(index=_PARTITION_MARK, records=batch)]
    topic = ProduceRequest.TopicProduceData(name=TOPIC, partition_data=data)
    request = ProduceRequest(transactional_id=None, acks=1, timeout_ms=30_000, topic_data=[topic])
    frame = _frame(0, 9, ProduceRequest, request)
    return frame, frame.index(_CORRELATION.pack(_PARTITION_MARK))


def fetch_frame(partitions: int, session_id: int = 0, session_epoch: int = -1) -> bytes:
    wanted = [
        FetchRequest.FetchTopic.FetchPartition(
            partition=p, current_leader_epoch=-1, fetch_offset=0, log_start_offset=-1, partition_max_bytes=1_048_576
        )
        for p in range(partitions)
    ]
    request = FetchRequest(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=52_428_800,
        isolation_level=0,
        session_id=session_id,
        session_epoch=session_epoch,
        topics=[FetchRequest.FetchTopic(topic=TOPIC, partitions=wanted)] if wanted else [],
        forgotten_topics_data=[],
        rack_id="",
    )
    return _frame(1, 12, FetchRequest, request)


LARGE_BATCH_RECORDS = 1000
LARGE_RECORD_BYTES = 1024
LARGE_FETCH_BYTES = 1_048_576
_FETCH_OFFSET_MARK = 0x0DDA_0DE0_FF5E_7000


def large_fetch_frame(topic_id: bytes) -> tuple[bytes, int]:
    """A Fetch v16 of partition 0 of the topic ``topic_id`` for 1 MiB, as librdkafka sends it, and
    where its fetch offset is in the frame (`drive` writes each request's offset there)."""
    wanted = FetchRequest.FetchTopic.FetchPartition(
        partition=0,
        current_leader_epoch=-1,
        fetch_offset=_FETCH_OFFSET_MARK,
        log_start_offset=-1,
        partition_max_bytes=LARGE_FETCH_BYTES,
    )
    request = FetchRequest(
        max_wait_ms=500,
        min_bytes=1,
        max_bytes=LARGE_FETCH_BYTES,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[FetchRequest.FetchTopic(topic_id=topic_id, partitions=[wanted])],
        forgotten_topics_data=[],
        rack_id="",
    )
    frame = _frame(1, 16, FetchRequest, request)
    return frame, frame.index(_OFFSET.pack(_FETCH_OFFSET_MARK))


def large_produce_frame() -> bytes:
    """A Produce v9 of one batch of `LARGE_BATCH_RECORDS` records of `LARGE_RECORD_BYTES` to partition 0."""
    records = [Record(i, i, None, bytes([i % 251]) * LARGE_RECORD_BYTES) for i in range(LARGE_BATCH_RECORDS)]
    batch = build_batch(records, base_timestamp=int(time.time() * 1000))
    data = [ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=batch)]
    topic = ProduceRequest.TopicProduceData(name=TOPIC, partition_data=data)
    request = ProduceRequest(transactional_id=None, acks=1, timeout_ms=30_000, topic_data=[topic])
    return _frame(0, 9, ProduceRequest, request)


def _exchange(sock: socket.socket, frame: bytes) -> bytes:
    """Send one request; its answer without the size (correlation id first)."""
    sock.sendall(frame)
    scratch = bytearray(4)
    _recv_exact(sock, 4, scratch)
    (size,) = _SIZE.unpack_from(scratch)
    answer = bytearray(size)
    _recv_exact(sock, size, answer)
    return bytes(answer)


def prefill_large(broker: Broker, batches: int) -> bytes:
    """Append ``batches`` large batches to partition 0 of `TOPIC` (acks=1); the topic's id."""
    host, port = broker.bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port))) as sock:
        frame = large_produce_frame()
        for _ in range(batches):
            _exchange(sock, frame)
        answer = _exchange(sock, metadata_frame_for([TOPIC]))
    # Metadata v12's answer: correlation id, an empty tagged section, then the body.
    (topic,) = decode(MetadataResponse, 12, answer[5:]).topics
    return topic.topic_id


def metadata_frame_for(names: list[str]) -> bytes:
    topics = [MetadataRequest.MetadataRequestTopic(name=name) for name in names]
    return _frame(3, 12, MetadataRequest, MetadataRequest(topics=topics, allow_auto_topic_creation=False))


def metadata_frame(topics: int) -> bytes:
    return metadata_frame_for([f"no-such-topic-{i:06d}" for i in range(topics)])


def _recv_exact(sock: socket.socket, size: int, into: bytearray) -> None:
    view = memoryview(into)[:size]
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            raise ConnectionError("broker closed the connection")
        got += n


# A Fetch v12 without topics ends with the session epoch, then topics, forgotten topics, rack id and
# tags (one byte each).
_SESSION_EPOCH_AT = len(_frame(1, 12, FetchRequest, FetchRequest(topics=[], forgotten_topics_data=[]))) - 8
_SESSION_ID_IN_ANSWER = 4 + 1 + 4 + 2  # correlation id, header tags, throttle time, error code


@dataclass(frozen=True)
class Successive:
    """What varies between the requests of one round besides the correlation id: the frame's int32
    at ``at`` (session epochs) or int64 (fetch offsets), taken from ``values``."""

    at: int
    values: Iterator[int]
    wide: bool = False

    def write(self, frame: bytearray) -> None:
        (_OFFSET if self.wide else _CORRELATION).pack_into(frame, self.at, next(self.values))


def drive(sock: socket.socket, frame: bytes, requests: int, window: int, successive: Successive | None = None) -> None:
    """Send ``requests`` copies of ``frame`` (fresh correlation ids, and the next of ``successive``
    when given), at most ``window`` unanswered."""
    template = bytearray(frame)
    sent = answered = 0
    scratch = bytearray(1 << 20)
    while answered < requests:
        burst = bytearray()
        while sent < requests and sent - answered < window:
            _CORRELATION.pack_into(template, 8, sent)
            if successive is not None:
                successive.write(template)
            burst += template
            sent += 1
        if burst:
            sock.sendall(burst)
        _recv_exact(sock, 4, scratch)
        (size,) = _SIZE.unpack_from(scratch)
        if size > len(scratch):
            scratch = bytearray(size)
        _recv_exact(sock, size, scratch)
        if _CORRELATION.unpack_from(scratch)[0] != answered:
            raise RuntimeError("answers out of order")
        answered += 1


def _open_session(sock: socket.socket, full_fetch: bytes) -> int:
    """Send the full fetch that opens a session; its id."""
    (session_id,) = _SIZE.unpack_from(_exchange(sock, full_fetch), _SESSION_ID_IN_ANSWER)
    if session_id == 0:
        raise RuntimeError("the broker opened no fetch session")
    return int(session_id)


def _round(
    broker: Broker,
    frame: bytes,
    requests: int,
    window: int,
    mode: str,
    large: tuple[bytes, int, int] | None,
) -> tuple[float, float]:
    """One measured round on a fresh connection: the broker's CPU µs per request, and the part of it
    in user mode (Python; the rest is mostly the kernel sending).  ``large`` is fetch-large's frame,
    the place of its fetch offset and the batches prefilled."""
    host, port = broker.bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port))) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        successive = None
        if mode == "fetch-session":
            frame = fetch_frame(0, _open_session(sock, frame), 1)
            successive = Successive(_SESSION_EPOCH_AT, count(1))
        elif large is not None:
            frame, at, batches = large
            offsets = (batch * LARGE_BATCH_RECORDS for batch in cycle(range(batches)))
            successive = Successive(at, offsets, wide=True)

        def one_connection(count: int) -> int:
            drive(sock, frame, count, window, successive)
            return count

        return _per_request(broker, one_connection, min(1000, requests), requests)


def _per_request(broker: Broker, run: Callable[[int], int], warm: int, measured: int) -> tuple[float, float]:
    """``run(warm)`` unmeasured (the connections' own start-up), then ``run(measured)``: the broker's
    CPU µs per request ``run`` says it sent, and the part of it in user mode."""
    run(warm)
    before = cpu_times(broker.pid)
    sent = run(measured)
    spent = cpu_times(broker.pid) - before
    return spent.total / sent * 1e6, spent.user / sent * 1e6


def _spread_round(
    broker: Broker, frame: bytes, requests: int, window: int, at: int, partitions: int, connections: int
) -> tuple[float, float]:
    """produce-spread's round: ``requests`` over ``connections`` connections at once, one client
    thread each; connection ``i`` starts at partition ``i * partitions // connections``."""
    host, port = broker.bootstrap.rsplit(":", 1)
    each = max(1, requests // connections)
    with ExitStack() as stack:
        socks = [stack.enter_context(socket.create_connection((host, int(port)))) for _ in range(connections)]
        lanes = [
            Successive(at, (p % partitions for p in count(i * partitions // connections))) for i in range(connections)
        ]

        def run(count_each: int) -> int:
            errors: list[BaseException] = []

            def one(sock: socket.socket, lane: Successive) -> None:
                try:
                    drive(sock, frame, count_each, window, lane)
                except BaseException as exc:  # re-raised below, on the caller's thread
                    errors.append(exc)

            threads = [threading.Thread(target=one, args=pair) for pair in zip(socks, lanes, strict=True)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            if errors:
                raise errors[0]
            return count_each * connections

        for sock in socks:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _per_request(broker, run, min(1000, each), each)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--mode",
        choices=(
            "produce1",
            "produce-many",
            "fetch-many",
            "fetch-session",
            "metadata-many",
            "metadata-one",
            "fetch-large",
            "produce-spread",
        ),
        default="produce1",
    )
    parser.add_argument("--requests", type=int, help="per round: 20,000, or 2,000 for fetch-large")
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds per broker after one warm-up")
    parser.add_argument("--window", type=int, default=16, help="requests in flight")
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--connections", type=int, default=8, help="produce-spread's connections")
    parser.add_argument("--topics", type=int, default=100_000, help="names in a metadata-many request")
    parser.add_argument("--prefill-batches", type=int, default=150, help="1-MiB batches before a fetch-large run")
    parser.add_argument("--base", type=Path, help="source tree of the odradek to compare with")
    parser.add_argument("--profile", type=Path, help="py-spy raw stacks of this checkout's broker into this file")
    args = parser.parse_args(argv)
    if args.requests is None:
        args.requests = 2_000 if args.mode == "fetch-large" else 20_000
    partitions = 1 if args.mode in ("produce1", "metadata-many", "fetch-large") else args.partitions
    if args.mode == "metadata-many":
        frame = metadata_frame(args.topics)
    elif args.mode == "metadata-one":
        frame = metadata_frame_for([TOPIC])
    else:
        frame = produce_frame(partitions) if args.mode.startswith("produce") else fetch_frame(partitions)
    if args.mode == "fetch-session":
        frame = fetch_frame(partitions, session_epoch=0)
    spread = None
    if args.mode == "produce-spread":
        frame, at = spread_frame()
        spread = (at, partitions, args.connections)
    pinning = plan(True)
    results: dict[str, list[float]] = {}
    user_results: dict[str, list[float]] = {}
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="request-cost-") as tmp:
        brokers = [stack.enter_context(odradek_pure(Path(tmp), pinning))]
        if args.base is not None:
            os.environ[BASELINE_ENV] = str(args.base)
            brokers.append(stack.enter_context(odradek_base(Path(tmp), pinning)))
        large: dict[str, tuple[bytes, int, int]] = {}  # fetch-large: each broker's topic id differs
        for broker in brokers:
            create_topic(broker.bootstrap, TOPIC, partitions)
            if args.mode == "fetch-large":
                large[broker.name] = (
                    *large_fetch_frame(prefill_large(broker, args.prefill_batches)),
                    args.prefill_batches,
                )
        if args.profile is not None:
            py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
            profiler = _start_profiler(py_spy, brokers[0].pid, args.profile)
            stack.callback(_stop_profiler, profiler)
        for index in range(args.rounds + 1):
            for broker in brokers:
                if spread is None:
                    cost, user = _round(broker, frame, args.requests, args.window, args.mode, large.get(broker.name))
                else:
                    cost, user = _spread_round(broker, frame, args.requests, args.window, *spread)
                label = "warm-up" if index == 0 else f"round {index}"
                print(f"{broker.name:<13} {label:<8} {cost:8.1f} CPU µs/request ({user:.1f} user)", flush=True)
                if index:
                    results.setdefault(broker.name, []).append(cost)
                    user_results.setdefault(broker.name, []).append(user)
    for name, costs in results.items():
        print(f"{name:<13} median {statistics.median(costs):8.1f} CPU µs/request "
              f"({statistics.median(user_results[name]):.1f} user; n={len(costs)}, {args.mode})")  # fmt: skip
    for label, figures in (("", results), ("user ", user_results)):
        if len(figures) == 2:
            ours, base = figures.values()
            ratios = [a / b for a, b in zip(ours, base, strict=True) if b > 0]
            print(f"odradek-pure / odradek-base {label}per round: median {statistics.median(ratios):.3f} "
                  f"(range {min(ratios):.3f}-{max(ratios):.3f}, n={len(ratios)})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
