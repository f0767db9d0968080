"""The two sides of ``benchmarks/abuse.py``: a well-behaved client that measures its latency, and
the abusers, each in its own process pinned to the client core.

    python -m bench.abuse_load probe --bootstrap H:P --topic T --seconds 20
    python -m bench.abuse_load abuse --bootstrap H:P --kind slowloris --seconds 20

The probe sends, every 5 ms in turn, a Metadata request for one topic and a one-record Produce
(acks=1), each on its own connection, and prints the latency percentiles of each, counted from
when each request was due (a stalled broker holds back the requests behind, and each counts).  Abusers:

- ``slowloris``: 200 connections, each sending one byte of a size prefix a second, never a frame;
- ``trickle``: 5 connections announcing 100 MiB frames and sending 64 KiB a second each;
- ``pipeline``: 5 connections pipelining ApiVersions requests and never reading an answer;
- ``churn``: connect, ApiVersions, close, 200 times a second;
- ``metadata100k``: Metadata for 100,000 topics that do not exist (no auto-creation), one after the other;
- ``all``: every abuser above at once.

The abusers stand for other machines: their process runs at the lowest priority (nice 19), so on
the client core they take only the CPU the probe leaves, and the Metadata abuser encodes its
request once and reads each answer as bytes, never decoding it.  Each abuser reports how much it
did (calls, connections), so that an abuser starved of CPU shows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import struct
import sys
import time

from bench.scale_load import RawClient, emit, percentiles, request_frame
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

_SIZE = struct.Struct(">i")
KINDS = ("slowloris", "trickle", "pipeline", "churn", "metadata100k")


def _metadata(names: list[str]) -> object:
    request = ALL_MESSAGES[3][0]
    return request(topics=[request.cls.MetadataRequestTopic(name=n) for n in names], allow_auto_topic_creation=False)


def _produce(topic: str) -> object:
    request = ALL_MESSAGES[0][0]
    batch = build_batch([Record(offset_delta=0, timestamp_delta=0, key=b"k", value=b"v" * 100)], base_timestamp=0)
    data = request.cls.TopicProduceData
    return request(
        acks=1,
        timeout_ms=5000,
        topic_data=[data(name=topic, partition_data=[data.PartitionProduceData(index=0, records=batch)])],
    )


def _api_versions() -> object:
    return ALL_MESSAGES[18][0](client_software_name="abuse", client_software_version="1")


async def probe(args: argparse.Namespace) -> None:
    """Requests on a fixed schedule; a request's latency runs from when it was due, not from when a
    stalled predecessor let it go, so a stall counts for every request it held back."""
    metadata_client = await RawClient.open(args.bootstrap)
    produce_client = await RawClient.open(args.bootstrap)
    metadata, produce = _metadata([args.topic]), _produce(args.topic)
    samples: dict[str, list[float]] = {"metadata_ms": [], "produce_ms": []}
    started = time.perf_counter()
    turn = 0
    while True:
        due = started + turn * 0.005
        if due >= started + args.seconds:
            break
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        if turn % 2 == 0:
            await metadata_client.call(3, 12, metadata)  # type: ignore[arg-type]
            samples["metadata_ms"].append((time.perf_counter() - due) * 1000)
        else:
            await produce_client.call(0, 9, produce)  # type: ignore[arg-type]
            samples["produce_ms"].append((time.perf_counter() - due) * 1000)
        turn += 1
    emit({name: percentiles(values) for name, values in samples.items()})


async def _connect(bootstrap: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = bootstrap.rsplit(":", 1)
    return await asyncio.open_connection(host, int(port))


async def _slowloris(bootstrap: str, deadline: float) -> None:
    writers = [(await _connect(bootstrap))[1] for _ in range(200)]
    sent = 0
    while time.perf_counter() < deadline and sent < 3:
        for writer in writers:
            writer.write(b"\x00")
        sent += 1
        await asyncio.sleep(1.0)
    while time.perf_counter() < deadline:
        await asyncio.sleep(0.5)
    for writer in writers:
        writer.close()


async def _trickle(bootstrap: str, deadline: float) -> None:
    writers = [(await _connect(bootstrap))[1] for _ in range(5)]
    for writer in writers:
        writer.write(_SIZE.pack(100 * 1024 * 1024))
    chunk = b"\x00" * (64 * 1024)
    while time.perf_counter() < deadline:
        for writer in writers:
            writer.write(chunk)
        await asyncio.sleep(1.0)
    for writer in writers:
        writer.close()


async def _pipeline(bootstrap: str, deadline: float) -> None:
    frames = b"".join(request_frame(18, 3, i, _api_versions()) for i in range(1000))  # type: ignore[arg-type]
    writers = [(await _connect(bootstrap))[1] for _ in range(5)]
    while time.perf_counter() < deadline:
        for writer in writers:
            if writer.transport.get_write_buffer_size() < 1 << 20:
                writer.write(frames)
        await asyncio.sleep(0.05)
    for writer in writers:
        writer.transport.abort()


async def _churn(bootstrap: str, deadline: float) -> None:
    hello = request_frame(18, 3, 1, _api_versions())  # type: ignore[arg-type]
    tick = time.perf_counter()
    connections = 0
    while time.perf_counter() < deadline:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            reader, writer = await _connect(bootstrap)
            writer.write(hello)
            (size,) = _SIZE.unpack(await reader.readexactly(4))
            await reader.readexactly(size)
            writer.close()
            connections += 1
        tick += 0.005
        await asyncio.sleep(max(0.0, tick - time.perf_counter()))
    emit({"churn_connections": connections})


async def _metadata100k(bootstrap: str, deadline: float) -> None:
    host, port = bootstrap.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port), limit=64 << 20)
    request = _metadata([f"no-such-topic-{i:06d}" for i in range(100_000)])
    frame = request_frame(3, 12, 1, request)  # type: ignore[arg-type]
    calls = 0
    while time.perf_counter() < deadline:
        writer.write(frame)
        (size,) = _SIZE.unpack(await reader.readexactly(4))
        await reader.readexactly(size)
        calls += 1
    writer.close()
    emit({"metadata100k_calls": calls})


async def abuse(args: argparse.Namespace) -> None:
    os.nice(19)
    deadline = time.perf_counter() + args.seconds
    kinds = KINDS if args.kind == "all" else (args.kind,)
    runners = {
        "slowloris": _slowloris,
        "trickle": _trickle,
        "pipeline": _pipeline,
        "churn": _churn,
        "metadata100k": _metadata100k,
    }
    await asyncio.gather(*(runners[kind](args.bootstrap, deadline) for kind in kinds))
    emit({"abused": list(kinds)})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("probe", "abuse"))
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", default="abuse-probe")
    parser.add_argument("--kind", choices=(*KINDS, "all"), default="all")
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    asyncio.run(probe(args) if args.mode == "probe" else abuse(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
