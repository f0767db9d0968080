"""An `EncodedOnce` array of structs: encoded like any list, then written from its kept bytes."""

from __future__ import annotations

import pytest

from odradek.wire.codec import decode, encode
from odradek.wire.encoded_once import EncodedOnce
from odradek.wire.messages.metadata import MetadataResponse, MetadataResponseValue

_Partition = MetadataResponseValue.MetadataResponseTopic.MetadataResponsePartition


def _partitions() -> list[_Partition]:
    return [
        _Partition(
            error_code=5 if index == 3 else 0,
            partition_index=index,
            leader_id=1,
            leader_epoch=index % 4,
            replica_nodes=[1, 2],
            isr_nodes=[1],
            offline_replicas=[2] if index == 3 else [],
        )
        for index in range(300)
    ]


def _answer(partitions: list[_Partition]) -> MetadataResponseValue:
    topic = MetadataResponse.MetadataResponseTopic(name="orders", topic_id=b"\x07" * 16, partitions=partitions)
    return MetadataResponse(topics=[topic, topic])


@pytest.mark.parametrize("version", range(14))
def test_an_encoded_once_array_encodes_as_the_same_list_would_at_every_version(version: int) -> None:
    shared = EncodedOnce(_partitions())
    plain = encode(MetadataResponse, version, _answer(_partitions()))
    assert encode(MetadataResponse, version, _answer(shared)) == plain
    assert encode(MetadataResponse, version, _answer(shared)) == plain  # the second time from its bytes
    assert len(decode(MetadataResponse, version, plain).topics[1].partitions) == 300


def test_the_bytes_are_kept_per_version_and_reused() -> None:
    shared = EncodedOnce(_partitions())
    first = {version: encode(MetadataResponse, version, _answer(shared)) for version in (1, 9, 12, 13)}
    assert len(shared.encodings) == 4
    shared[0].leader_id = 42  # breaks the read-only contract on purpose: the kept bytes must be what is sent
    for version, data in first.items():
        assert encode(MetadataResponse, version, _answer(shared)) == data
    assert encode(MetadataResponse, 13, _answer(list(shared))) != first[13]
