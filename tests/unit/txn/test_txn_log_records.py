"""``__transaction_state`` records: Kafka's byte layout, written by hand from its JSON schema."""

from __future__ import annotations

import struct

import pytest

from odradek.txn.log_records import (
    TransactionLogRecord,
    TransactionLogValue,
    decode_record,
    encode_key,
    encode_record,
    group_partitions,
    value_version_for,
)
from odradek.txn.txn_state import TxnState
from odradek.wire.primitives import DecodeError

ONGOING = TransactionLogValue(
    producer_id=1000,
    producer_epoch=5,
    timeout_ms=60_000,
    state=TxnState.ONGOING,
    partitions=(("t", (0, 1)),),
    last_update_timestamp_ms=2000,
    start_timestamp_ms=1500,
    previous_producer_id=1000,
    client_transaction_version=2,
)

KEY = bytes.fromhex("00000003") + b"tid"


def test_key_is_version_0_then_the_transactional_id() -> None:
    assert encode_key("tid") == KEY
    assert encode_record(TransactionLogRecord("tid", None)) == (KEY, None)


def test_value_v1_golden_bytes() -> None:
    expected = (
        bytes.fromhex("0001")  # value version
        + struct.pack(">qhib", 1000, 5, 60_000, 1)  # producer id, epoch, timeout, status
        + bytes.fromhex("02")  # compact array of 1 topic
        + bytes.fromhex("02")
        + b"t"  # compact string "t"
        + bytes.fromhex("03")
        + struct.pack(">ii", 0, 1)  # compact array of 2 partition ids
        + bytes.fromhex("00")  # the topic's tagged fields
        + struct.pack(">qq", 2000, 1500)  # last update, start
        + bytes.fromhex("02")  # two tagged fields (defaults are not written)
        + bytes.fromhex("0008")
        + struct.pack(">q", 1000)  # tag 0 PreviousProducerId
        + bytes.fromhex("0202")
        + struct.pack(">h", 2)  # tag 2 ClientTransactionVersion
    )
    assert encode_record(TransactionLogRecord("tid", ONGOING)) == (KEY, expected)
    assert decode_record(KEY, expected) == TransactionLogRecord("tid", ONGOING)


def test_value_v0_golden_bytes_drop_the_tagged_fields() -> None:
    expected = (
        bytes.fromhex("0000")
        + struct.pack(">qhib", 1000, 5, 60_000, 1)
        + struct.pack(">i", 1)  # array of 1 topic
        + struct.pack(">h", 1)
        + b"t"
        + struct.pack(">iii", 2, 0, 1)
        + struct.pack(">qq", 2000, 1500)
    )
    assert encode_record(TransactionLogRecord("tid", ONGOING), value_version=0) == (KEY, expected)
    decoded = decode_record(KEY, expected)
    assert decoded is not None and decoded.value is not None
    assert decoded.value.previous_producer_id == -1
    assert decoded.value.client_transaction_version == 0
    assert decoded.value.partitions == (("t", (0, 1)),)


def test_empty_state_writes_null_partitions() -> None:
    value = TransactionLogValue(7, 0, 1000, TxnState.EMPTY, (), 5, -1, previous_producer_id=7)
    _, v1 = encode_record(TransactionLogRecord("tid", value))
    assert v1 == (
        bytes.fromhex("0001")
        + struct.pack(">qhib", 7, 0, 1000, 0)
        + bytes.fromhex("00")  # null compact array
        + struct.pack(">qq", 5, -1)
        + bytes.fromhex("010008")
        + struct.pack(">q", 7)
    )
    _, v0 = encode_record(TransactionLogRecord("tid", value), value_version=0)
    assert v0 == bytes.fromhex("0000") + struct.pack(">qhibiqq", 7, 0, 1000, 0, -1, 5, -1)
    assert decode_record(KEY, v1) == TransactionLogRecord("tid", value)


def test_partitions_of_an_empty_value_are_ignored() -> None:
    raw = bytes.fromhex("0000") + struct.pack(">qhibi", 7, 0, 1000, 0, 1) + struct.pack(">h", 1) + b"x"
    raw += struct.pack(">ii", 1, 3) + struct.pack(">qq", 5, -1)
    decoded = decode_record(KEY, raw)
    assert decoded is not None and decoded.value is not None
    assert decoded.value.partitions == ()


def test_unknown_tags_and_two_phase_commit_epoch_are_read() -> None:
    _, value = encode_record(TransactionLogRecord("tid", ONGOING))
    assert value is not None
    # Rewrite the tag section with tag 3 (NextProducerEpoch, written by newer coordinators) and tag 9.
    head = value[: value.rindex(bytes.fromhex("020008"))]
    tags = bytes.fromhex("02") + bytes.fromhex("0302") + struct.pack(">h", 4) + bytes.fromhex("0901ff")
    decoded = decode_record(KEY, head + tags)
    assert decoded is not None and decoded.value is not None
    assert decoded.value.next_producer_epoch == 4
    assert decoded.value.previous_producer_id == -1


@pytest.mark.parametrize("state", list(TxnState))
def test_round_trip_in_every_state(state: TxnState) -> None:
    partitions = () if state is TxnState.EMPTY else group_partitions([("b", 2), ("a", 9), ("a", 1)])
    value = TransactionLogValue(1, 2, 3, state, partitions, 4, 5, 6, 7, 2, -1)
    record = TransactionLogRecord("id", value)
    assert decode_record(*encode_record(record)) == record


def test_group_partitions_sorts_topics_and_ids() -> None:
    assert group_partitions([("b", 2), ("a", 9), ("a", 1), ("a", 9)]) == (("a", (1, 9)), ("b", (2,)))


def test_unknown_key_version_is_skipped() -> None:
    assert decode_record(bytes.fromhex("0001") + KEY[2:], None) is None


def test_malformed_values_raise() -> None:
    _, value = encode_record(TransactionLogRecord("tid", ONGOING))
    assert value is not None
    with pytest.raises(DecodeError):
        decode_record(KEY, bytes.fromhex("0002") + value[2:])
    with pytest.raises(DecodeError):
        decode_record(KEY, value[:-3])
    with pytest.raises(DecodeError):
        decode_record(KEY, b"\x00")
    bad_state = bytearray(value)
    bad_state[2 + 8 + 2 + 4] = 9
    with pytest.raises(DecodeError):
        decode_record(KEY, bytes(bad_state))


def test_value_version_follows_the_transaction_version_feature() -> None:
    assert [value_version_for(tv) for tv in (0, 1, 2, 3)] == [0, 0, 1, 1]
    with pytest.raises(ValueError):
        encode_record(TransactionLogRecord("tid", ONGOING), value_version=2)
