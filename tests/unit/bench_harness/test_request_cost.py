"""request_cost.py's frames: the fetch offset fetch-large rewrites before each request is the
partition's ``fetch_offset`` field, the partition index produce-spread rewrites is the partition's
``index``, and the prefill batch holds the records it says."""

from __future__ import annotations

import sys
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from request_cost import (
    LARGE_BATCH_RECORDS,
    LARGE_FETCH_BYTES,
    LARGE_RECORD_BYTES,
    SPREAD_RECORD_BYTES,
    Successive,
    large_fetch_frame,
    large_produce_frame,
    spread_frame,
)

from odradek.wire.api import decode_request_header
from odradek.wire.codec import decode_from
from odradek.wire.messages.fetch import FetchRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.primitives import Reader
from odradek.wire.records.batch import iter_batches

TOPIC_ID = bytes(range(16))


def _body(frame: bytes | bytearray, version: int, message: object) -> object:
    r = Reader(memoryview(frame)[4:])
    header = decode_request_header(r, lambda _key, _version: True)
    assert header.api_version == version
    return decode_from(message, version, r)  # type: ignore[arg-type]


def test_successive_offsets_land_in_the_fetch_offset_field() -> None:
    frame, at = large_fetch_frame(TOPIC_ID)
    successive = Successive(at, count(7 * LARGE_BATCH_RECORDS, LARGE_BATCH_RECORDS), wide=True)
    template = bytearray(frame)
    for expected in (7000, 8000):
        successive.write(template)
        request = _body(template, 16, FetchRequest)
        (topic,) = request.topics  # type: ignore[attr-defined]
        (partition,) = topic.partitions
        assert topic.topic_id == TOPIC_ID
        assert (partition.fetch_offset, partition.partition_max_bytes) == (expected, LARGE_FETCH_BYTES)
        assert request.max_bytes == LARGE_FETCH_BYTES  # type: ignore[attr-defined]


def test_the_prefill_request_carries_one_batch_of_the_large_records() -> None:
    request = _body(large_produce_frame(), 9, ProduceRequest)
    (topic,) = request.topic_data  # type: ignore[attr-defined]
    (data,) = topic.partition_data
    ((_, batch),) = list(iter_batches(data.records))
    assert batch.records_count == LARGE_BATCH_RECORDS
    assert len(data.records) > LARGE_BATCH_RECORDS * LARGE_RECORD_BYTES


def test_successive_partitions_land_in_the_spread_frames_partition_index() -> None:
    """produce-spread rewrites the partition index before each request; the record batch (and its
    CRC, which does not cover the index) stays as built."""
    frame, at = spread_frame()
    template = bytearray(frame)
    for expected in (0, 999):
        Successive(at, iter([expected])).write(template)
        request = _body(template, 9, ProduceRequest)
        (topic,) = request.topic_data  # type: ignore[attr-defined]
        (data,) = topic.partition_data
        ((_, batch),) = list(iter_batches(data.records))
        assert data.index == expected
        assert batch.records_count == 1
        assert len(data.records) > SPREAD_RECORD_BYTES
