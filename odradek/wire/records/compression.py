"""Record batch compression codecs, byte-compatible with the Java client.

Codec ids are the low three bits of the batch attributes: 0 none, 1 gzip, 2 snappy, 3 lz4,
4 zstd.  Every codec comes from a library; only the snappy framing is ours.

Snappy framing.  The Java client writes xerial's ``SnappyOutputStream`` format; librdkafka
and some others write one raw snappy block.  Both are accepted; we write the xerial format::

    XerialSnappy => magic version compatibleVersion chunk*
      magic              8 bytes   0x82 'S' 'N' 'A' 'P' 'P' 'Y' 0x00
      version            int32     1
      compatibleVersion  int32     1
      chunk => length int32, raw snappy block of ``length`` bytes
                                   (each block holds at most 32 KiB of input)

LZ4 is the LZ4 frame format with independent 64 KiB blocks, no content size and no
checksums, as Kafka's own writer produces.  zstd frames written by streaming clients carry
no content size, so decompression streams and accepts several concatenated frames.

Invariants:
- ``decompress(c, compress(c, data)) == data`` for every codec ``c``;
- an unknown codec raises `UnknownCodecError`; corrupt input raises `CorruptCompressedDataError`;
  both are `CompressionError`, a `ValueError`.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from enum import IntEnum

import cramjam
import lz4.frame  # type: ignore[import-untyped]
import zstandard

__all__ = [
    "CompressionError",
    "CompressionType",
    "CorruptCompressedDataError",
    "UnknownCodecError",
    "compress",
    "decompress",
]

Data = bytes | bytearray | memoryview


class CompressionType(IntEnum):
    """Codec ids as stored in the batch attributes."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4


class CompressionError(ValueError):
    """Base class of compression failures."""


class UnknownCodecError(CompressionError):
    """The codec id is not one of `CompressionType`."""


class CorruptCompressedDataError(CompressionError):
    """The compressed bytes cannot be decoded by their codec."""


GZIP_DEFAULT_LEVEL = 6
LZ4_DEFAULT_LEVEL = 9
ZSTD_DEFAULT_LEVEL = 3

# The gzip header's OS byte (RFC 1952): zlib writes its build's OS, Java (and so Kafka) 255.
_GZIP_OS_OFFSET = 9
_GZIP_OS_UNKNOWN = 0xFF

_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = struct.Struct(">8sii")
_XERIAL_VERSION = 1
_XERIAL_BLOCK_SIZE = 32 * 1024
_CHUNK_LENGTH = struct.Struct(">i")


def compress(codec: int, data: Data, level: int | None = None) -> bytes:
    """Compress ``data`` with ``codec``; ``level`` None means the codec's Kafka default."""
    if codec == CompressionType.NONE:
        return bytes(data)
    if codec == CompressionType.GZIP:
        member = bytearray(zlib.compress(data, GZIP_DEFAULT_LEVEL if level is None else level, wbits=31))
        member[_GZIP_OS_OFFSET] = _GZIP_OS_UNKNOWN  # as Java's GZIPOutputStream writes it
        return bytes(member)
    if codec == CompressionType.SNAPPY:
        return _snappy_xerial_compress(data)
    if codec == CompressionType.LZ4:
        framed: bytes = lz4.frame.compress(
            data,
            compression_level=LZ4_DEFAULT_LEVEL if level is None else level,
            block_size=lz4.frame.BLOCKSIZE_MAX64KB,
            block_linked=False,
            content_checksum=False,
            block_checksum=False,
            store_size=False,
        )
        return framed
    if codec == CompressionType.ZSTD:
        compressor = zstandard.ZstdCompressor(level=ZSTD_DEFAULT_LEVEL if level is None else level)
        return compressor.compress(data)
    raise UnknownCodecError(f"unknown compression codec {codec}")


def decompress(codec: int, data: Data) -> bytes:
    """Decompress ``data`` written with ``codec``."""
    if codec == CompressionType.NONE:
        return bytes(data)
    if codec == CompressionType.GZIP:
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise CorruptCompressedDataError(f"corrupt gzip data: {exc}") from exc
    if codec == CompressionType.SNAPPY:
        try:
            return _snappy_decompress(data)
        except cramjam.DecompressionError as exc:
            raise CorruptCompressedDataError(f"corrupt snappy data: {exc}") from exc
    if codec == CompressionType.LZ4:
        try:
            plain: bytes = lz4.frame.decompress(data)
            return plain
        except RuntimeError as exc:
            raise CorruptCompressedDataError(f"corrupt lz4 data: {exc}") from exc
    if codec == CompressionType.ZSTD:
        try:
            return _zstd_decompress(data)
        except zstandard.ZstdError as exc:
            raise CorruptCompressedDataError(f"corrupt zstd data: {exc}") from exc
    raise UnknownCodecError(f"unknown compression codec {codec}")


def _snappy_xerial_compress(data: Data) -> bytes:
    view = memoryview(data)
    out = bytearray(_XERIAL_HEADER.pack(_XERIAL_MAGIC, _XERIAL_VERSION, _XERIAL_VERSION))
    for start in range(0, len(view), _XERIAL_BLOCK_SIZE):
        block = cramjam.snappy.compress_raw(view[start : start + _XERIAL_BLOCK_SIZE])
        out += _CHUNK_LENGTH.pack(len(block))
        out += block
    return bytes(out)


def _snappy_decompress(data: Data) -> bytes:
    view = memoryview(data)
    if len(view) < _XERIAL_HEADER.size or view[: len(_XERIAL_MAGIC)] != _XERIAL_MAGIC:
        return bytes(cramjam.snappy.decompress_raw(view))
    chunks: list[bytes] = []
    pos = _XERIAL_HEADER.size
    end = len(view)
    while pos < end:
        if end - pos < _CHUNK_LENGTH.size:
            raise CorruptCompressedDataError("truncated xerial snappy chunk length")
        (length,) = _CHUNK_LENGTH.unpack_from(view, pos)
        pos += _CHUNK_LENGTH.size
        if length < 0 or length > end - pos:
            raise CorruptCompressedDataError(f"xerial snappy chunk length {length} exceeds the data")
        chunks.append(bytes(cramjam.snappy.decompress_raw(view[pos : pos + length])))
        pos += length
    return b"".join(chunks)


def _zstd_decompress(data: Data) -> bytes:
    decompressor = zstandard.ZstdDecompressor()
    view = memoryview(data)
    chunks: list[bytes] = []
    while True:
        stream = decompressor.decompressobj()
        chunks.append(stream.decompress(view))
        if not stream.eof:
            raise CorruptCompressedDataError("truncated zstd frame")
        rest = stream.unused_data
        if not rest:
            return b"".join(chunks)
        view = memoryview(rest)
