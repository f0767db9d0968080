"""Record-level produce checks: future and past timestamps, keyless records on compacted topics,
batch shapes Kafka refuses from a client, and the rewrite to the topic's codec."""

from __future__ import annotations

from typing import Any

from odradek.storage.validator import UNBOUNDED, RecordRefusal, Refusal, batch_shape_error, check_records, recompress
from odradek.wire.records.batch import BATCH_OVERHEAD, CONTROL_MASK, read_header, write_header
from odradek.wire.records.builder import build_batch, decode_batch
from odradek.wire.records.record import Record, encode_record_into

NOW = 1_800_000_000_000
HOUR = 3_600_000


def _batch(timestamps: list[int], keys: list[bytes | None] | None = None) -> memoryview:
    keys = keys or [b"k"] * len(timestamps)
    records = [
        Record(offset_delta=i, timestamp_delta=ts - timestamps[0], key=key, value=b"v")
        for i, (ts, key) in enumerate(zip(timestamps, keys, strict=True))
    ]
    return memoryview(build_batch(records, base_timestamp=timestamps[0]))


def _check(batch: memoryview, **overrides: Any) -> RecordRefusal | None:
    settings: dict[str, Any] = {
        "now_ms": NOW,
        "create_time": True,
        "before_max_ms": UNBOUNDED,
        "after_max_ms": HOUR,
        "compacted": False,
        "partition_name": "t-0",
    }
    settings.update(overrides)
    return check_records(batch, read_header(batch), **settings)


def test_records_within_bounds_pass() -> None:
    assert _check(_batch([NOW - 10 * HOUR, NOW, NOW + HOUR])) is None


def test_a_record_too_far_in_the_future_is_named() -> None:
    refusal = _check(_batch([NOW, NOW + HOUR + 1, NOW]))
    assert refusal is not None
    assert refusal.kind is Refusal.INVALID_TIMESTAMP
    assert [i for i, _ in refusal.record_errors] == [1]


def test_old_records_are_refused_only_with_a_before_limit() -> None:
    old = _batch([NOW - 2 * HOUR, NOW])
    assert _check(old) is None
    refusal = _check(old, before_max_ms=HOUR)
    assert refusal is not None
    assert [i for i, _ in refusal.record_errors] == [0]


def test_log_append_time_topics_do_not_check_timestamps() -> None:
    assert _check(_batch([NOW + 10 * HOUR]), create_time=False) is None


def test_compacted_topics_refuse_keyless_records() -> None:
    batch = _batch([NOW, NOW, NOW], keys=[b"a", None, b"c"])
    assert _check(batch) is None
    refusal = _check(batch, compacted=True)
    assert refusal is not None
    assert refusal.kind is Refusal.INVALID_RECORD
    assert [i for i, _ in refusal.record_errors] == [1]


def test_keyless_refusals_are_worded_as_kafka_words_them() -> None:
    """Wording as Apache Kafka 4.3.1 answered the same batch (compat-tests/probes): at most
    three record errors are quoted in the partition's message, every one in record_errors."""
    refusal = _check(_batch([NOW] * 5, keys=[None, b"k", None, None, None]), compacted=True)
    assert refusal is not None
    per_record = "Compacted topic cannot accept message without key in topic partition t-0"
    assert refusal.record_errors == tuple((i, per_record) for i in (0, 2, 3, 4))
    assert refusal.message == (
        "One or more records have been rejected due to 4 record errors in total, and only showing the first "
        f"three errors at most: [RecordError(batchIndex=0, message='{per_record}'), "
        f"RecordError(batchIndex=2, message='{per_record}'), RecordError(batchIndex=3, message='{per_record}')]"
    )


def _shaped(deltas: list[int], **header: int) -> memoryview:
    """A batch with exactly these offset deltas, header fields overridden after building."""
    buf = bytearray(BATCH_OVERHEAD)
    for i, delta in enumerate(deltas):
        encode_record_into(buf, Record(offset_delta=delta, timestamp_delta=i, key=b"k", value=b"v%d" % i))
    plain = read_header(build_batch([], base_timestamp=NOW))
    shape = {"last_offset_delta": deltas[-1] if deltas else 0, "records_count": len(deltas), **header}
    write_header(buf, 0, plain._replace(batch_length=len(buf) - 12, **shape))
    return memoryview(buf)


def test_batch_shapes_kafka_refuses_from_a_client() -> None:
    assert batch_shape_error(read_header(_shaped([0, 5, 2]))) is None  # inner deltas are not checked
    refused = [
        _shaped([0, 2, 1]),  # last delta 1 for three records
        _shaped([0, 1, 2], last_offset_delta=5),
        _shaped([]),
        _shaped([0], last_offset_delta=-1),
        _shaped([0, 1], producer_id=7, base_sequence=-1),
        _shaped([0], attributes=CONTROL_MASK),
    ]
    assert all(batch_shape_error(read_header(batch)) is not None for batch in refused)


def test_recompress_numbers_records_from_zero_whatever_the_producer_wrote() -> None:
    """Found by fuzzing: deltas that do not increase made the rewrite raise (an
    UNKNOWN_SERVER_ERROR to the producer); Kafka numbers the rewritten records 0, 1, 2."""
    batch = _shaped([0, 5, 2])
    header, records = decode_batch(recompress(batch, read_header(batch), 1, None))
    assert header.compression == 1
    assert (header.records_count, header.last_offset_delta) == (3, 2)
    assert [r.offset_delta for r in records] == [0, 1, 2]
    assert [r.value for r in records] == [b"v0", b"v1", b"v2"]
