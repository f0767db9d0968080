"""The Fetch fast encoder against the generic codec: the same answer, byte for byte and part for part,
over every version it takes (v4-v18)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from odradek.handlers.frames import encode_response_frame
from odradek.storage.filesystem import MemoryFileSystem
from odradek.storage.region import FileRegion
from odradek.wire.fetch_fast import FIRST_VERSION, LAST_VERSION, PartitionAnswer, TopicAnswer, encode_fetch_answer
from odradek.wire.messages.fetch import FetchResponse, FetchResponseValue
from odradek.wire.primitives import SPILL_BYTES, Part
from odradek.wire.schema import ZERO_UUID

VERSIONS = range(FIRST_VERSION, LAST_VERSION + 1)
_TopicResponse = FetchResponse.FetchableTopicResponse
_PartitionData = _TopicResponse.PartitionData

int16s = st.integers(-(2**15), 2**15 - 1)
int32s = st.integers(-(2**31), 2**31 - 1)
int64s = st.integers(-(2**63), 2**63 - 1)
names = st.text(max_size=12)
# Sizes around the one-byte varint limit (127) exercise multi-byte compact lengths; one record set of
# SPILL_BYTES is referenced as a part of its own by both encoders.
record_sets = (
    st.binary(max_size=4) | st.binary(min_size=126, max_size=130) | st.just(b"\x07" * SPILL_BYTES) | st.just(b"")
)
aborted_lists = st.none() | st.lists(st.tuples(int64s, int64s), max_size=2)


def partitions(version: int) -> st.SearchStrategy[PartitionAnswer]:
    diverging = st.none() | st.just((-1, -1)) | st.tuples(int32s, int64s) if version >= 12 else st.none()
    return st.tuples(int32s, int16s, int64s, int64s, int64s, aborted_lists, record_sets, diverging)


def generic_parts(version: int, error: int, session_id: int, topics: list[TopicAnswer], throttle: int) -> list[Part]:
    """The answer built as value objects, encoded by the generic codec."""
    responses = []
    for name, topic_id, answers in topics:
        data = []
        for index, code, high, stable, start, aborted, records, diverging in answers:
            partition = _PartitionData(
                partition_index=index,
                error_code=code,
                high_watermark=high,
                last_stable_offset=stable,
                log_start_offset=start,
                aborted_transactions=None
                if aborted is None
                else [_PartitionData.AbortedTransaction(producer_id=p, first_offset=f) for p, f in aborted],
                records=records,
            )
            if diverging is not None:
                partition.diverging_epoch = _PartitionData.EpochEndOffset(epoch=diverging[0], end_offset=diverging[1])
            data.append(partition)
        by_id = version >= 13
        responses.append(
            _TopicResponse(topic="" if by_id else name, topic_id=topic_id if by_id else ZERO_UUID, partitions=data)
        )
    value: FetchResponseValue = FetchResponse(
        throttle_time_ms=throttle, error_code=error, session_id=session_id, responses=responses
    )
    return encode_response_frame(1, version, 42, FetchResponse, value)


def _shape(parts: list[Part]) -> list[tuple[bool, bytes]]:
    """Each part's bytes, and whether it is the large record set referenced on its own."""
    return [(len(p) == SPILL_BYTES, bytes(p)) for p in parts if isinstance(p, bytes | bytearray | memoryview) and p]


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_both_encoders_write_the_same_answer(version: int, data: st.DataObject) -> None:
    # Before v7 there is no top-level error or session: the handler leaves them at 0.
    error = data.draw(int16s) if version >= 7 else 0
    session_id = data.draw(int32s) if version >= 7 else 0
    topics: list[TopicAnswer] = [
        (
            data.draw(names),
            data.draw(st.binary(min_size=16, max_size=16)),
            data.draw(st.lists(partitions(version), max_size=3)),
        )
        for _ in range(data.draw(st.integers(0, 3)))
    ]
    throttle = data.draw(st.just(0) | int32s)
    fast = encode_fetch_answer(version, 42, throttle, error, session_id, topics)
    generic = generic_parts(version, error, session_id, topics, throttle)
    assert _shape(fast) == _shape(generic)


@pytest.mark.parametrize("version", VERSIONS)
def test_many_topics_and_partitions_take_multi_byte_counts(version: int) -> None:
    """200 partitions (a two-byte compact count from v12) in 130 topics (two-byte topic count too)."""
    topics: list[TopicAnswer] = [
        (f"topic-{t}", bytes([t]) * 16, [(p, 0, 10, 10, 0, None, b"", None) for p in range(200 if t == 0 else 1)])
        for t in range(130)
    ]
    fast = encode_fetch_answer(version, 42, 0, 0, 0, topics)
    generic = generic_parts(version, 0, 0, topics, 0)
    assert _shape(fast) == _shape(generic)


@pytest.mark.parametrize("version", [4, 11, 12, 13, 18])
def test_a_file_region_stays_a_part_of_its_own(version: int) -> None:
    """A record set left in its segment file is referenced, never read, as the generic codec leaves it
    (the connection sends it with sendfile)."""
    fs = MemoryFileSystem()
    fs.makedirs("/d")
    handle = fs.open_append("/d/00000000000000000000.log")
    handle.write(b"-" * 5 + b"batches" * 20_000)
    region = FileRegion(handle, 5, 7 * 20_000)
    topics: list[TopicAnswer] = [
        ("t", bytes(16), [(0, 0, 9, 9, 0, None, region, None), (1, 0, 0, 0, 0, None, b"", None)])
    ]
    fast = encode_fetch_answer(version, 42, 0, 0, 0, topics)
    generic = generic_parts(version, 0, 0, topics, 0)
    assert [part is region for part in fast] == [part is region for part in generic if part or part is region]
    assert _shape(fast) == _shape(generic)
