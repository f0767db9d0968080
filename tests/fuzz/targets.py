"""Fuzz targets: one per family of decoders that read bytes a peer controls.

A target takes any bytes and returns normally when the decoder behaved.  A decoder behaves when
it either refuses the input with its documented error, or decodes it into a value that
round-trips:

- the documented errors: `DecodeError` for request and response headers and bodies,
  `CorruptBatchError` for record batches and records, `CompressionError` for the codecs,
  `FrameError` for the frame splitter, `SaslAuthenticationError` for the SASL mechanisms (whose
  own checks are in `tests.fuzz.sasl`); any other exception escaping a decoder is a crash (the
  dispatcher would answer UNKNOWN_SERVER_ERROR or drop the connection for our bug, not the
  peer's);
- round trip: re-encoding the decoded value gives bytes that decode to an equal value and
  re-encode to themselves, and are never longer than the input (Kafka's wire formats admit a
  few non-canonical spellings, a varint with redundant continuation bytes or a boolean byte
  other than 0 and 1, so the input itself is only the canonical form when it used none);
  every seed, being canonical, must re-encode byte for byte (`replay_seed` checks that).

A failed check raises `RoundTripError`.  Message decoders are enumerated from
`odradek.wire.messages.ALL_MESSAGES`, so a message added to the registry is fuzzed without a
line written here.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass

from odradek.partition.produce_checks import check_produce
from odradek.storage.log_config import LogConfig, TopicCompression
from odradek.wire.api import (
    RequestHeader,
    decode_request_header,
    encode_request_header,
    read_tagged_section,
    response_header_is_flexible,
)
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.framing import FrameDecoder, FrameError
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.primitives import DecodeError, Reader, Writer
from odradek.wire.records.batch import (
    ATTRIBUTES_OFFSET,
    BATCH_OVERHEAD,
    CRC_OFFSET,
    LENGTH_OFFSET,
    LOG_OVERHEAD,
    BatchHeader,
    CorruptBatchError,
)
from odradek.wire.records.builder import build_batch_like, decode_batch, parse_control_record
from odradek.wire.records.compression import (
    CompressionError,
    CompressionType,
    DecompressedTooLargeError,
    compress,
    decompress,
)
from odradek.wire.records.record import Record, decode_record, encode_record_into
from odradek.wire.schema import Message, StructValue
from tests.fuzz.sasl import SASL_TOKENS, fuzz_sasl

__all__ = [
    "FAMILIES",
    "Family",
    "RoundTripError",
    "decode_request",
    "decoded_schema",
    "fix_batch_crc",
    "message_versions",
    "replay_seed",
]

_CRC = struct.Struct(">I")
_LENGTH = struct.Struct(">i")
_SCHEMA_PREFIX = struct.Struct(">hh")


class RoundTripError(AssertionError):
    """A decoded value did not survive re-encoding (see the module docstring)."""


def _same(a: object, b: object) -> bool:
    # NaN float64 fields compare unequal to themselves; their repr still tells values apart.
    return a == b or repr(a) == repr(b)


def _request_flexible(api_key: int, version: int) -> bool:
    pair = ALL_MESSAGES.get(api_key)
    return pair is not None and pair[0].is_flexible(version)


# ---- requests ------------------------------------------------------------------------------


def decode_request(data: bytes) -> tuple[RequestHeader, Message, StructValue, int] | None:
    """The header, schema, body and bytes consumed; None when refused with DecodeError."""
    reader = Reader(data)
    try:
        header = decode_request_header(reader, _request_flexible)
    except DecodeError:
        return None
    pair = ALL_MESSAGES.get(header.api_key)
    if pair is None or header.api_version not in pair[0].valid:
        return None
    try:
        body = decode_from(pair[0], header.api_version, reader)
    except DecodeError:
        return None
    return header, pair[0], body, reader.pos


def _encode_request(header: RequestHeader, schema: Message, body: StructValue) -> bytes:
    writer = Writer()
    encode_request_header(writer, header, schema.is_flexible(header.api_version))
    encode_into(schema, header.api_version, body, writer)
    return writer.getvalue()


def fuzz_request(data: bytes) -> bytes | None:
    """A request frame body (header then message), decoded as the dispatcher decodes it.

    Returns the re-encoding (None when refused).  Bytes after the message are ignored, as the
    dispatcher ignores them; the round trip covers the bytes the decoder consumed."""
    decoded = decode_request(data)
    if decoded is None:
        return None
    header, schema, body, consumed = decoded
    again = _encode_request(header, schema, body)
    _check_round_trip(f"{schema.name} v{header.api_version}", data[:consumed], again, (header, body), _redecode_request)
    return again


def _redecode_request(data: bytes) -> tuple[object, object]:
    decoded = decode_request(data)
    if decoded is None or decoded[3] != len(data):
        raise RoundTripError("the re-encoded request does not decode")
    header, schema, body, _ = decoded
    if _encode_request(header, schema, body) != data:
        raise RoundTripError(f"{schema.name} v{header.api_version}: the re-encoding is not a fixpoint")
    return header, body


# ---- responses -----------------------------------------------------------------------------


def _decode_response(data: bytes) -> tuple[int, int, int, dict[int, bytes], StructValue, Message, int] | None:
    if len(data) < _SCHEMA_PREFIX.size:
        return None
    api_key, version = _SCHEMA_PREFIX.unpack_from(data)
    pair = ALL_MESSAGES.get(api_key)
    if pair is None or version not in pair[1].valid:
        return None
    schema = pair[1]
    reader = Reader(data, _SCHEMA_PREFIX.size)
    try:
        correlation_id = reader.int32()
        flexible = response_header_is_flexible(api_key, schema.is_flexible(version))
        tags = read_tagged_section(reader) if flexible else {}
        body = decode_from(schema, version, reader)
    except DecodeError:
        return None
    return api_key, version, correlation_id, tags, body, schema, reader.pos


def _encode_response(
    api_key: int, version: int, correlation_id: int, tags: dict[int, bytes], body: StructValue
) -> bytes:
    schema = ALL_MESSAGES[api_key][1]
    writer = Writer()
    writer.raw(_SCHEMA_PREFIX.pack(api_key, version))
    writer.int32(correlation_id)
    if response_header_is_flexible(api_key, schema.is_flexible(version)):
        # The response header's tagged section has no known fields: written back raw.
        writer.uvarint(len(tags))
        for tag in sorted(tags):
            writer.uvarint(tag)
            writer.uvarint(len(tags[tag]))
            writer.raw(tags[tag])
    encode_into(schema, version, body, writer)
    return writer.getvalue()


def fuzz_response(data: bytes) -> bytes | None:
    """int16 API key and int16 version (a response does not name its API: the client knows it
    from the request), then a response header and message, decoded as a client of any broker
    (the command line) decodes them."""
    decoded = _decode_response(data)
    if decoded is None:
        return None
    api_key, version, correlation_id, tags, body, schema, consumed = decoded
    again = _encode_response(api_key, version, correlation_id, tags, body)
    _check_round_trip(
        f"{schema.name} v{version}", data[:consumed], again, (correlation_id, tags, body), _redecode_response
    )
    return again


def _redecode_response(data: bytes) -> tuple[object, object, object]:
    decoded = _decode_response(data)
    if decoded is None or decoded[6] != len(data):
        raise RoundTripError("the re-encoded response does not decode")
    api_key, version, correlation_id, tags, body, schema, _ = decoded
    if _encode_response(api_key, version, correlation_id, tags, body) != data:
        raise RoundTripError(f"{schema.name} v{version}: the re-encoding is not a fixpoint")
    return correlation_id, tags, body


def _check_round_trip(
    what: str, original: bytes, again: bytes, value: object, redecode: Callable[[bytes], object]
) -> None:
    if len(again) > len(original):
        raise RoundTripError(f"{what}: re-encoded to {len(again)} bytes from {len(original)}")
    if not _same(redecode(again), value):
        raise RoundTripError(f"{what}: the re-encoding decodes to a different value")


# ---- record batches ------------------------------------------------------------------------


def fix_batch_crc(data: bytes | bytearray) -> bytearray:
    """The bytes with the CRC of the batch they start with recomputed, when the length field
    fits: a fuzzer that had to guess CRCs would never get past `verify_batch`."""
    from crc32c import crc32c

    buf = bytearray(data)
    if len(buf) >= BATCH_OVERHEAD:
        (length,) = _LENGTH.unpack_from(buf, LENGTH_OFFSET)
        end = length + LOG_OVERHEAD
        if BATCH_OVERHEAD <= end <= len(buf):
            _CRC.pack_into(buf, CRC_OFFSET, crc32c(memoryview(buf)[ATTRIBUTES_OFFSET:end]))
    return buf


# Topic settings under which the produce path decodes records: compaction (keys), a bound on old
# timestamps, and a compression.type that rewrites the batch.
_PRODUCE_CONFIGS = (
    LogConfig(),
    LogConfig(cleanup_policy=frozenset({"compact"})),
    LogConfig(message_timestamp_before_max_ms=3_600_000),
    LogConfig(compression_type=TopicCompression.GZIP),
    LogConfig(compression_type=TopicCompression.UNCOMPRESSED, cleanup_policy=frozenset({"compact"})),
)
_NOW_MS = 1_700_000_000_000
_COMPARED_HEADER = tuple(name for name in BatchHeader._fields if name not in ("crc", "batch_length", "attributes"))
_KNOWN_ATTRIBUTES = 0x7F


def _header_fields(header: BatchHeader) -> tuple[object, ...]:
    return (*(getattr(header, name) for name in _COMPARED_HEADER), header.attributes & _KNOWN_ATTRIBUTES)


def fuzz_batch(data: bytes) -> bytes | None:
    """A record set as a Produce request carries it (CRC repaired first): the full decode of every
    record in every codec, control records, and the checks the produce path makes before an
    append under topic settings that make it decode records."""
    buf = fix_batch_crc(data)
    for config in _PRODUCE_CONFIGS:
        check_produce(
            memoryview(bytearray(buf)),
            topic="fuzz",
            index=0,
            version=9,
            config=config,
            now_ms=_NOW_MS,
            log_start_offset=0,
        )
    try:
        header, records = decode_batch(buf)
    except CorruptBatchError:
        return None
    if header.is_control:
        for record in records:
            with contextlib.suppress(CorruptBatchError):
                parse_control_record(record)
    deltas = [-1, *(record.offset_delta for record in records)]
    if any(b <= a for a, b in itertools.pairwise(deltas)):
        return None  # build_batch writes only increasing offset deltas from 0; nothing to compare with
    again = build_batch_like(header, records)
    header2, records2 = decode_batch(again)
    if records2 != records or _header_fields(header2) != _header_fields(header):
        raise RoundTripError("a rebuilt batch decodes to different records or header fields")
    if header.compression == CompressionType.NONE:
        if len(again) > header.total_size:
            raise RoundTripError(f"an uncompressed batch grew from {header.total_size} to {len(again)} bytes")
        if build_batch_like(header2, records2) != again:
            raise RoundTripError("an uncompressed batch's rebuild is not a fixpoint")
    return again


def fuzz_records(data: bytes) -> bytes | None:
    """The uncompressed records section of a batch: records one after the other to the end."""
    records: list[Record] = []
    pos = 0
    try:
        while pos < len(data):
            record, pos = decode_record(data, pos)
            records.append(record)
    except CorruptBatchError:
        return None
    again = bytearray()
    for record in records:
        encode_record_into(again, record)
    if len(again) > len(data):
        raise RoundTripError(f"records grew from {len(data)} to {len(again)} bytes")
    decoded: list[Record] = []
    pos = 0
    while pos < len(again):
        record, pos = decode_record(bytes(again), pos)
        decoded.append(record)
    if decoded != records:
        raise RoundTripError("re-encoded records decode to different records")
    return bytes(again)


_FUZZ_OUTPUT_LIMIT = 16 * 1024 * 1024


def fuzz_compression(data: bytes) -> bytes | None:
    """One byte naming the codec (its low three bits, as in batch attributes) and an output limit
    (its high five bits, in 64-byte steps), then compressed bytes as a producer sent them: the
    output within the limit is the whole output, or the limit is refused, and the output
    round-trips through the codec."""
    if not data:
        return None
    codec, limit = data[0] & 0x07, (data[0] >> 3) * 64
    try:
        plain = decompress(codec, data[1:], _FUZZ_OUTPUT_LIMIT)
    except CompressionError:
        return None
    try:
        bounded = decompress(codec, data[1:], limit)
    except DecompressedTooLargeError:
        if len(plain) <= limit:
            raise RoundTripError(f"codec {codec}: {len(plain)} bytes refused under a limit of {limit}") from None
    else:
        if bounded != plain:
            raise RoundTripError(f"codec {codec}: a limit of {limit} changed the output")
    packed = compress(codec, plain)
    if decompress(codec, packed) != plain:
        raise RoundTripError(f"codec {codec} does not round-trip {len(plain)} bytes")
    return bytes([codec]) + packed


# ---- frames --------------------------------------------------------------------------------

_FRAME_LIMIT = 300
_READ_BUFFER = 64
_CHUNK = 40


def _reference_frames(stream: bytes) -> tuple[list[bytes], bool]:
    """The frames a correct splitter cuts from ``stream``, and whether it must refuse a prefix."""
    frames: list[bytes] = []
    pos = 0
    while len(stream) - pos >= 4:
        (size,) = _LENGTH.unpack_from(stream, pos)
        if size < 0 or size > _FRAME_LIMIT:
            return frames, True
        if len(stream) - pos - 4 < size:
            break
        frames.append(stream[pos + 4 : pos + 4 + size])
        pos += 4 + size
    return frames, False


def fuzz_frames(data: bytes) -> bytes | None:
    """One byte seeding how reads are split and which reservations are refused, then a byte
    stream: the frames cut from reads of those sizes (through a small read buffer and small
    chunks, so every path is taken: whole in a read, read in place, chunked, held back by a
    refused reservation and resumed) must be the frames of the whole stream, their
    reservations must add up to their sizes, and a bad size prefix must be refused."""
    if not data:
        return None
    rng = random.Random(data[0])
    stream = data[1:]
    expected, refused = _reference_frames(stream)
    granted: list[int] = []

    def reserve(size: int) -> bool:
        if rng.random() < 0.2:
            return False
        granted.append(size)
        return True

    decoder = FrameDecoder(_FRAME_LIMIT, read_buffer=bytearray(_READ_BUFFER), reserve=reserve, chunk_bytes=_CHUNK)
    got: list[bytes] = []
    view = memoryview(stream)
    try:
        while view or decoder.blocked:
            if decoder.blocked:
                got.extend(bytes(f) for f in decoder.resume())
                continue
            target = decoder.get_buffer()
            if not target:
                raise RoundTripError("the frame decoder offered an empty buffer")
            count = min(len(target), len(view), rng.randint(1, 97))
            target[:count] = view[:count]
            view = view[count:]
            got.extend(bytes(f) for f in decoder.buffer_updated(count))
    except FrameError:
        if not refused:
            raise RoundTripError("a valid stream was refused") from None
        if got != expected[: len(got)]:
            raise RoundTripError("frames before the refusal differ") from None
        return None
    if refused:
        raise RoundTripError("a bad size prefix was accepted")
    if got != expected:
        raise RoundTripError(f"cut {len(got)} frames, expected {len(expected)}")
    if sum(granted) != sum(len(f) for f in got) + decoder.reserved_in_progress():
        raise RoundTripError("reservations do not add up to the frames received")
    return b"".join(expected)


# ---- the families --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Family:
    """A fuzz target and how to drive it: the longest input worth mutating (libFuzzer's
    ``-max_len``), what the long run (`make fuzz`) executes at least, and the tokens the mutator
    may insert (libFuzzer's ``-dict``: words of a text format it would not spell by chance)."""

    name: str
    target: Callable[[bytes], bytes | None]
    max_len: int
    doc: str
    tokens: tuple[bytes, ...] = ()


FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        Family("request", fuzz_request, 4096, "request header and body, every API and version"),
        Family("response", fuzz_response, 4096, "response header and body, every API and version"),
        Family("batch", fuzz_batch, 4096, "record batches in every codec and the produce checks"),
        Family("records", fuzz_records, 2048, "records of an uncompressed batch"),
        Family("compression", fuzz_compression, 2048, "gzip, snappy (raw and xerial), lz4 and zstd"),
        Family("frames", fuzz_frames, 2048, "size-prefixed frames cut from split reads"),
        Family("sasl", fuzz_sasl, 1024, "PLAIN, SCRAM-SHA-256/512 and OAUTHBEARER messages and JWTs", SASL_TOKENS),
    )
}


def replay_seed(family: Family, data: bytes) -> None:
    """Run a seed (a canonical input) and also require it to re-encode byte for byte."""
    again = family.target(data)
    if again is None or family.name not in ("request", "response", "records"):
        return
    if family.name == "request":
        decoded = decode_request(data)
        consumed = decoded[3] if decoded is not None else len(data)
    elif family.name == "response":
        decoded_response = _decode_response(data)
        consumed = decoded_response[6] if decoded_response is not None else len(data)
    else:
        consumed = len(data)
    if again != data[:consumed]:
        raise RoundTripError(f"a canonical {family.name} seed re-encoded to different bytes")


def decoded_schema(family: str, data: bytes) -> tuple[int, int] | None:
    """The (API key, version) a request or response input decodes as, None when refused."""
    if family == "request":
        request = decode_request(data)
        return None if request is None else (request[0].api_key, request[0].api_version)
    response = _decode_response(data)
    return None if response is None else (response[0], response[1])


def message_versions() -> int:
    """How many (API key, version) pairs the registry defines: each has a request and a response decoder."""
    return sum(len(range(request.valid.low, (request.valid.high or 0) + 1)) for request, _ in ALL_MESSAGES.values())
