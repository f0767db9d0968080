"""Batch compression codecs: round trips, Kafka's framings, and corrupt input."""

from __future__ import annotations

import gzip
import io
import struct
import zlib

import cramjam
import lz4.frame  # type: ignore[import-untyped]
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from odradek.wire.records.compression import (
    CompressionError,
    CompressionType,
    CorruptCompressedDataError,
    DecompressedTooLargeError,
    UnknownCodecError,
    compress,
    decompress,
)

CODECS = list(CompressionType)
XERIAL_HEADER = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)

payloads = st.one_of(
    st.binary(max_size=4096),
    st.builds(lambda chunk, n: chunk * n, st.binary(min_size=1, max_size=64), st.integers(1, 3000)),
)


@settings(deadline=None)
@given(codec=st.sampled_from(CODECS), data=payloads)
def test_round_trip(codec: CompressionType, data: bytes) -> None:
    compressed = compress(codec, data)
    assert decompress(codec, compressed) == data
    assert decompress(codec, memoryview(bytearray(b"__" + compressed))[2:]) == data


@pytest.mark.parametrize("codec", CODECS)
def test_round_trip_of_large_input(codec: CompressionType) -> None:
    data = bytes(range(256)) * 4096 + b"tail"
    assert decompress(codec, compress(codec, data)) == data


@pytest.mark.parametrize("codec", [CompressionType.GZIP, CompressionType.LZ4, CompressionType.ZSTD])
def test_level_is_honoured(codec: CompressionType) -> None:
    data = b"abcdefgh" * 10000 + bytes(range(256)) * 40
    assert decompress(codec, compress(codec, data, level=1)) == data


def test_none_codec_is_identity() -> None:
    assert compress(0, memoryview(b"abc")) == b"abc"
    assert decompress(0, bytearray(b"abc")) == b"abc"


def test_gzip_writes_a_gzip_member_and_reads_several() -> None:
    compressed = compress(CompressionType.GZIP, b"hello")
    assert compressed[:2] == b"\x1f\x8b"
    assert compressed[9] == 0xFF  # OS "unknown", as Java writes it: the bytes Kafka stores after a rewrite
    assert zlib.decompress(compressed, wbits=31) == b"hello"
    two_members = gzip.compress(b"ab", mtime=0) + gzip.compress(b"cd", mtime=0)
    assert decompress(CompressionType.GZIP, two_members) == b"abcd"


def test_snappy_writes_xerial_framing_in_32k_chunks() -> None:
    data = bytes(range(256)) * 400  # 102400 bytes -> 4 chunks of at most 32 KiB input
    compressed = compress(CompressionType.SNAPPY, data)
    assert compressed[:16] == XERIAL_HEADER
    pos = 16
    pieces = []
    while pos < len(compressed):
        (length,) = struct.unpack_from(">i", compressed, pos)
        pieces.append(bytes(cramjam.snappy.decompress_raw(compressed[pos + 4 : pos + 4 + length])))
        pos += 4 + length
    assert pos == len(compressed)
    assert [len(p) for p in pieces] == [32768, 32768, 32768, 4096]
    assert b"".join(pieces) == data


def test_snappy_empty_input_is_a_bare_xerial_header() -> None:
    assert compress(CompressionType.SNAPPY, b"") == XERIAL_HEADER
    assert decompress(CompressionType.SNAPPY, XERIAL_HEADER) == b""


def test_snappy_reads_raw_blocks() -> None:
    data = b"raw snappy as librdkafka writes it " * 50
    raw = bytes(cramjam.snappy.compress_raw(data))
    assert decompress(CompressionType.SNAPPY, raw) == data


@pytest.mark.parametrize(
    "tail",
    [
        b"\x00\x00",  # torn chunk length
        struct.pack(">i", 100) + b"\x00" * 10,  # chunk length beyond the data
        struct.pack(">i", -1),  # negative chunk length
        struct.pack(">i", 3) + b"\xff\xff\xff",  # chunk that is not snappy
    ],
)
def test_snappy_corrupt_xerial_chunks(tail: bytes) -> None:
    with pytest.raises(CorruptCompressedDataError):
        decompress(CompressionType.SNAPPY, XERIAL_HEADER + tail)


def test_lz4_frame_descriptor_matches_kafka() -> None:
    compressed = compress(CompressionType.LZ4, b"x" * 200_000)
    assert compressed[:4] == b"\x04\x22\x4d\x18"
    flg, bd = compressed[4], compressed[5]
    assert flg >> 6 == 1  # version 01
    assert flg & 0x20  # independent blocks
    assert not flg & 0x10  # no block checksum
    assert not flg & 0x08  # no content size
    assert not flg & 0x04  # no content checksum
    assert (bd >> 4) & 0x7 == 4  # 64 KiB maximum block size


def test_lz4_reads_frames_with_content_size_and_linked_blocks() -> None:
    data = b"linked " * 40000
    framed = lz4.frame.compress(data, store_size=True, block_linked=True, content_checksum=True)
    assert decompress(CompressionType.LZ4, framed) == data


def _zstd_streamed(data: bytes) -> bytes:
    sink = io.BytesIO()
    with zstandard.ZstdCompressor().stream_writer(sink, closefd=False) as writer:
        writer.write(data)
    return sink.getvalue()


def test_zstd_reads_frames_without_content_size() -> None:
    data = b"streamed zstd " * 50000
    framed = _zstd_streamed(data)
    assert zstandard.get_frame_parameters(framed).content_size == zstandard.CONTENTSIZE_UNKNOWN
    assert decompress(CompressionType.ZSTD, framed) == data


def test_zstd_reads_concatenated_frames() -> None:
    framed = _zstd_streamed(b"one ") + zstandard.ZstdCompressor().compress(b"two")
    assert decompress(CompressionType.ZSTD, framed) == b"one two"


def test_zstd_truncated_frame_is_corrupt() -> None:
    framed = _zstd_streamed(bytes(range(256)) * 1000)
    with pytest.raises(CorruptCompressedDataError, match="zstd"):
        decompress(CompressionType.ZSTD, framed[:-4])
    with pytest.raises(CorruptCompressedDataError, match="zstd"):
        decompress(CompressionType.ZSTD, b"")


@pytest.mark.parametrize("codec", [c for c in CODECS if c != CompressionType.NONE])
@pytest.mark.parametrize("garbage", [b"not compressed at all, surely", b"\x00" * 64])
def test_corrupt_input_raises_a_value_error(codec: CompressionType, garbage: bytes) -> None:
    if codec == CompressionType.SNAPPY and garbage[0] == 0:
        garbage = b"\x40" + garbage  # a raw snappy block claiming 64 bytes that are not there
    with pytest.raises(CorruptCompressedDataError) as info:
        decompress(codec, garbage)
    assert isinstance(info.value, ValueError)
    assert codec.name.lower() in str(info.value)


@pytest.mark.parametrize("codec", [c for c in CODECS if c != CompressionType.NONE])
def test_truncated_output_of_each_codec_is_corrupt(codec: CompressionType) -> None:
    compressed = compress(codec, bytes(range(256)) * 1000)
    with pytest.raises(CompressionError):
        decompress(codec, compressed[: len(compressed) // 2])


@pytest.mark.parametrize("codec", [-1, 5, 6, 7, 100])
def test_unknown_codec(codec: int) -> None:
    with pytest.raises(UnknownCodecError, match=str(codec)):
        compress(codec, b"x")
    with pytest.raises(UnknownCodecError, match=str(codec)):
        decompress(codec, b"x")
    assert issubclass(UnknownCodecError, ValueError)


@pytest.mark.parametrize("codec", [c for c in CODECS if c != CompressionType.NONE])
def test_output_past_the_limit_is_refused_before_it_is_produced(codec: CompressionType) -> None:
    """Found while bounding memory: 8 KiB of zstd stand for 256 MiB; every codec now stops
    at the caller's limit instead of producing it all."""
    data = b"\x00" * (4 << 20)
    packed = compress(codec, data)
    assert decompress(codec, packed, max_bytes=len(data)) == data
    with pytest.raises(DecompressedTooLargeError):
        decompress(codec, packed, max_bytes=len(data) - 1)
    with pytest.raises(CorruptCompressedDataError):  # the error the batch decoder turns into CORRUPT_MESSAGE
        decompress(codec, packed, max_bytes=1 << 20)


def test_a_snappy_block_declaring_more_than_the_limit_is_not_allocated() -> None:
    claims_4_gib = b"\xff\xff\xff\xff\x0f" + b"\x00" * 16
    with pytest.raises(DecompressedTooLargeError):
        decompress(CompressionType.SNAPPY, claims_4_gib, max_bytes=1 << 20)
