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

Bounded output.  A few bytes of zstd (an RLE block) stand for 128 KiB, so a 1 MiB batch can
claim tens of GiB.  `decompress` never produces more than ``max_bytes``: gzip and lz4 are read
with the libraries' output limits, a snappy block's declared length is checked before it is
decoded, and zstd input is fed in fixed slices, each of which stands for at most 32 MiB.

Invariants:
- ``decompress(c, compress(c, data)) == data`` for every codec ``c``;
- each codec's library is imported by the first batch that needs it (together they cost a
  starting broker a few milliseconds, and most brokers in tests never see a compressed batch);
- an unknown codec raises `UnknownCodecError`; corrupt input raises `CorruptCompressedDataError`,
  and so does output that would exceed ``max_bytes`` (`DecompressedTooLargeError`); all are
  `CompressionError`, a `ValueError`.
"""

from __future__ import annotations

import struct
import zlib
from enum import IntEnum

__all__ = [
    "CompressionError",
    "CompressionType",
    "CorruptCompressedDataError",
    "DecompressedTooLargeError",
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


class DecompressedTooLargeError(CorruptCompressedDataError):
    """The compressed bytes stand for more than the caller's limit."""


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
        import lz4.frame  # type: ignore[import-untyped]

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
        import zstandard

        compressor = zstandard.ZstdCompressor(level=ZSTD_DEFAULT_LEVEL if level is None else level)
        return compressor.compress(data)
    raise UnknownCodecError(f"unknown compression codec {codec}")


def decompress(codec: int, data: Data, max_bytes: int | None = None) -> bytes:
    """Decompress ``data`` written with ``codec``, into at most ``max_bytes`` (None: no limit)."""
    limit = _UNLIMITED if max_bytes is None else max_bytes
    if codec == CompressionType.NONE:
        if len(data) > limit:
            raise DecompressedTooLargeError(f"{len(data)} bytes exceed the limit of {limit}")
        return bytes(data)
    if codec == CompressionType.GZIP:
        try:
            return _gzip_decompress(data, limit)
        except zlib.error as exc:
            raise CorruptCompressedDataError(f"corrupt gzip data: {exc}") from exc
    if codec == CompressionType.SNAPPY:
        import cramjam

        try:
            return _snappy_decompress(data, limit)
        except cramjam.DecompressionError as exc:
            raise CorruptCompressedDataError(f"corrupt snappy data: {exc}") from exc
    if codec == CompressionType.LZ4:
        try:
            return _lz4_decompress(data, limit)
        except RuntimeError as exc:
            raise CorruptCompressedDataError(f"corrupt lz4 data: {exc}") from exc
    if codec == CompressionType.ZSTD:
        import zstandard

        try:
            return _zstd_decompress(data, limit)
        except zstandard.ZstdError as exc:
            raise CorruptCompressedDataError(f"corrupt zstd data: {exc}") from exc
    raise UnknownCodecError(f"unknown compression codec {codec}")


_UNLIMITED = 1 << 62


def _too_large(limit: int) -> DecompressedTooLargeError:
    return DecompressedTooLargeError(f"the data decompresses to more than {limit} bytes")


def _gzip_decompress(data: Data, limit: int) -> bytes:
    """Every gzip member in turn (a producer may concatenate several), as `gzip.decompress`."""
    out = bytearray()
    view = memoryview(data)
    while view:
        member = zlib.decompressobj(wbits=31)
        out += member.decompress(view, limit + 1 - len(out))
        if len(out) > limit or member.unconsumed_tail:
            raise _too_large(limit)
        if not member.eof:
            raise CorruptCompressedDataError("corrupt gzip data: truncated member")
        view = memoryview(member.unused_data)
    return bytes(out)


def _lz4_decompress(data: Data, limit: int) -> bytes:
    import lz4.frame

    frame = lz4.frame.LZ4FrameDecompressor()
    out: bytes = frame.decompress(data, max_length=-1 if limit == _UNLIMITED else limit + 1)
    if len(out) > limit or (not frame.eof and not frame.needs_input):
        raise _too_large(limit)
    if not frame.eof:
        raise CorruptCompressedDataError("corrupt lz4 data: truncated frame")
    return out


def _snappy_xerial_compress(data: Data) -> bytes:
    import cramjam

    view = memoryview(data)
    out = bytearray(_XERIAL_HEADER.pack(_XERIAL_MAGIC, _XERIAL_VERSION, _XERIAL_VERSION))
    for start in range(0, len(view), _XERIAL_BLOCK_SIZE):
        block = cramjam.snappy.compress_raw(view[start : start + _XERIAL_BLOCK_SIZE])
        out += _CHUNK_LENGTH.pack(len(block))
        out += block
    return bytes(out)


def _snappy_decompress(data: Data, limit: int) -> bytes:
    view = memoryview(data)
    if len(view) < _XERIAL_HEADER.size or view[: len(_XERIAL_MAGIC)] != _XERIAL_MAGIC:
        return _snappy_block(view, limit)
    chunks: list[bytes] = []
    produced = 0
    pos = _XERIAL_HEADER.size
    end = len(view)
    while pos < end:
        if end - pos < _CHUNK_LENGTH.size:
            raise CorruptCompressedDataError("truncated xerial snappy chunk length")
        (length,) = _CHUNK_LENGTH.unpack_from(view, pos)
        pos += _CHUNK_LENGTH.size
        if length < 0 or length > end - pos:
            raise CorruptCompressedDataError(f"xerial snappy chunk length {length} exceeds the data")
        chunk = _snappy_block(view[pos : pos + length], limit - produced)
        produced += len(chunk)
        chunks.append(chunk)
        pos += length
    return b"".join(chunks)


def _snappy_block(block: memoryview, limit: int) -> bytes:
    """One raw snappy block: it starts with its decompressed length (an unsigned varint, at most
    32 bits), checked against ``limit`` before the library allocates it."""
    declared, shift = 0, 0
    for position in range(min(len(block), 5)):
        declared |= (block[position] & 0x7F) << shift
        if not block[position] & 0x80:
            break
        shift += 7
    if declared > limit:
        raise _too_large(limit)
    import cramjam

    return bytes(cramjam.snappy.decompress_raw(block))


# One input byte of zstd never stands for more than one 128 KiB block, so a slice of input never
# stands for more than 32 MiB.  The slices are the same whatever the limit: zstd's streaming
# decoder can judge malformed input differently when it is fed in other pieces (found by fuzzing),
# and a limit must only ever refuse, never change, an answer.
_ZSTD_MAX_EXPANSION = 128 * 1024
_ZSTD_SLICE = 256


def _zstd_decompress(data: Data, limit: int) -> bytes:
    """Every frame in turn (streaming writers leave out the content size, and some concatenate
    frames); the input goes in fixed slices, and the output is checked after each, so it passes
    the limit by at most what one slice stands for."""
    import zstandard

    decompressor = zstandard.ZstdDecompressor()
    view = memoryview(data)
    out = bytearray()
    while True:  # at least one frame: empty input is a truncated frame
        stream = decompressor.decompressobj()
        rest = b""
        while view and not stream.eof:
            out += stream.decompress(view[:_ZSTD_SLICE])
            if len(out) > limit:
                raise _too_large(limit)
            view = view[_ZSTD_SLICE:]
            rest = stream.unused_data
        if not stream.eof:
            raise CorruptCompressedDataError("truncated zstd frame")
        view = memoryview(rest + bytes(view)) if rest else view
        if not view:
            return bytes(out)
