"""Group states, the coordinator partition of a group, and the __consumer_offsets record formats."""

from __future__ import annotations

import itertools

import pytest

from odradek.coordinator.placement import java_string_hash, partition_for
from odradek.coordinator.records import (
    GroupMetadataRecord,
    GroupMetadataValue,
    MemberMetadata,
    OffsetCommitRecord,
    OffsetCommitValue,
    decode_record,
    encode_record,
)
from odradek.coordinator.state import VALID_PREVIOUS, GroupState, IllegalTransition, check_transition
from odradek.wire.primitives import DecodeError

LEGAL = {
    (GroupState.PREPARING_REBALANCE, GroupState.EMPTY),
    (GroupState.STABLE, GroupState.PREPARING_REBALANCE),
    (GroupState.COMPLETING_REBALANCE, GroupState.PREPARING_REBALANCE),
    (GroupState.EMPTY, GroupState.PREPARING_REBALANCE),
    (GroupState.PREPARING_REBALANCE, GroupState.COMPLETING_REBALANCE),
    (GroupState.COMPLETING_REBALANCE, GroupState.STABLE),
} | {(s, GroupState.DEAD) for s in GroupState}


@pytest.mark.parametrize(("old", "new"), list(itertools.product(GroupState, GroupState)))
def test_transition_table(old: GroupState, new: GroupState) -> None:
    if (old, new) in LEGAL:
        check_transition(old, new)
    else:
        with pytest.raises(IllegalTransition):
            check_transition(old, new)
    assert ((old, new) in LEGAL) == (old in VALID_PREVIOUS[new])


def test_state_names_are_kafkas() -> None:
    assert [s.value for s in GroupState] == ["Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"]


def test_java_string_hash() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("polygenelubricants") == -(2**31)
    # A character outside the BMP hashes as its two UTF-16 surrogates.
    assert java_string_hash("\U0001f600") == 0xD83D * 31 + 0xDE00


def test_partition_for_uses_kafka_utils_abs() -> None:
    assert partition_for("polygenelubricants", 50) == 0
    assert partition_for("hello", 50) == 99162322 % 50
    negative = next(g for g in (f"consumer-group-{i}" for i in range(1000)) if java_string_hash(g) < 0)
    assert partition_for(negative, 50) == (-java_string_hash(negative)) % 50


def test_offset_commit_record_bytes() -> None:
    record = OffsetCommitRecord("g", "t", 3, OffsetCommitValue(42, 7, "meta", 1000))
    key, value = encode_record(record)
    assert key == b"\x00\x01" + b"\x00\x01g" + b"\x00\x01t" + b"\x00\x00\x00\x03"
    assert value == (
        b"\x00\x03" + (42).to_bytes(8, "big") + (7).to_bytes(4, "big") + b"\x00\x04meta" + (1000).to_bytes(8, "big")
    )
    assert decode_record(key, value) == record


def test_offset_commit_with_expire_timestamp_is_version_1() -> None:
    record = OffsetCommitRecord("g", "t", 0, OffsetCommitValue(1, -1, "", 10, 99))
    key, value = encode_record(record)
    assert value is not None and value[:2] == b"\x00\x01"
    assert decode_record(key, value) == record


def test_tombstones_round_trip() -> None:
    for record in (OffsetCommitRecord("g", "t", 1, None), GroupMetadataRecord("g", None)):
        key, value = encode_record(record)
        assert value is None
        assert decode_record(key, value) == record


def test_group_metadata_record_round_trip() -> None:
    member = MemberMetadata("m-1", "i-1", "client", "/127.0.0.1", 30000, 10000, b"sub", b"assign")
    record = GroupMetadataRecord("g", GroupMetadataValue("consumer", 4, "range", "m-1", 1234, (member,)))
    key, value = encode_record(record)
    assert key == b"\x00\x02\x00\x01g"
    assert value is not None and value[:2] == b"\x00\x03"
    assert decode_record(key, value) == record


def test_legacy_offset_key_version_0_is_read() -> None:
    key, value = encode_record(OffsetCommitRecord("g", "t", 0, OffsetCommitValue(5, -1, "", 1)))
    legacy = b"\x00\x00" + key[2:]
    decoded = decode_record(legacy, value)
    assert isinstance(decoded, OffsetCommitRecord) and decoded.value is not None and decoded.value.offset == 5


def test_unknown_record_types_are_skipped_and_garbage_rejected() -> None:
    assert decode_record(b"\x00\x03\x00\x01g", b"\x00\x00") is None
    with pytest.raises(DecodeError):
        decode_record(b"\x00\x01\x00", None)
    key, _ = encode_record(OffsetCommitRecord("g", "t", 0, None))
    with pytest.raises(DecodeError):
        decode_record(key, b"\x00\x09")
