"""File parts (record sets left in a segment file) through the Writer and the generated encoder."""

from __future__ import annotations

from odradek.storage.filesystem import MemoryFileSystem
from odradek.storage.region import FileRegion
from odradek.wire.codec import decode, encode_into
from odradek.wire.messages.fetch import FetchResponse
from odradek.wire.primitives import Writer


def _region(data: bytes, position: int = 0) -> FileRegion:
    fs = MemoryFileSystem()
    fs.makedirs("/d")
    handle = fs.open_append("/d/00000000000000000000.log")
    handle.write(b"-" * position + data + b"+" * 7)
    return FileRegion(handle, position, len(data))


def test_a_file_part_is_kept_as_a_part_of_its_own_even_when_small() -> None:
    region = _region(b"batches", position=3)
    w = Writer()
    w.int8(1)
    w.bytes_(region)
    w.int16(2)
    parts = w.parts()
    assert [type(part) for part in parts] == [bytearray, FileRegion, bytearray]
    assert parts[1] is region
    assert w.size() == 1 + 4 + 7 + 2
    assert w.getvalue() == b"\x01\x00\x00\x00\x07batches\x00\x02"


def test_a_fetch_response_carries_a_file_region_to_the_parts_unread() -> None:
    records = bytes(range(256)) * 300
    region = _region(records, position=100)
    partition = FetchResponse.FetchableTopicResponse.PartitionData(partition_index=0, records=region)
    value = FetchResponse(responses=[FetchResponse.FetchableTopicResponse(topic="t", partitions=[partition])])
    for version in (4, 12, 16):
        w = Writer()
        encode_into(FetchResponse, version, value, w)
        assert sum(part is region for part in w.parts()) == 1
        decoded = decode(FetchResponse, version, w.getvalue())
        assert bytes(decoded.responses[0].partitions[0].records) == records
        assert w.size() == len(w.getvalue())
