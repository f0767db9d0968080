"""Seed inputs of every fuzz family: generated from the schemas and codecs, plus the captured corpus.

Generated seeds cover every message and version in `ALL_MESSAGES` (a default value, a value with
every field set, and one with every nullable field null), every compression codec and both
snappy framings, control and transactional batches, and valid and nearly valid messages of every
SASL mechanism (`tests.fuzz.sasl.sasl_seeds`).  The captured corpus
(``tests/fuzz/corpus/<family>/``, written by ``python -m tests.fuzz.capture``) holds the frames and
batches real clients sent; ``tests/fuzz/regressions/<family>/`` holds the inputs that once broke a
decoder.  All three are replayed by the test suite and start every fuzz run.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import cramjam

from odradek.wire.api import RequestHeader, encode_request_header, response_header_is_flexible
from odradek.wire.codec import encode_into
from odradek.wire.framing import frame
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.primitives import Writer
from odradek.wire.records.builder import build_batch, build_control_batch
from odradek.wire.records.compression import CompressionType, compress
from odradek.wire.records.record import Record, encode_record_into
from odradek.wire.schema import Message, StructValue
from tests.fuzz.sasl import sasl_seeds
from tests.fuzz.targets import FAMILIES
from tests.wire_samples import sample_value

__all__ = ["CORPUS_DIR", "REGRESSIONS_DIR", "generated_seeds", "stored_inputs"]

HERE = Path(__file__).parent
CORPUS_DIR = HERE / "corpus"
REGRESSIONS_DIR = HERE / "regressions"

_SCHEMA_PREFIX = struct.Struct(">hh")


def _versions(message: Message) -> range:
    assert message.valid.high is not None
    return range(message.valid.low, message.valid.high + 1)


def _values(message: Message, version: int) -> Iterator[StructValue]:
    yield message()
    yield sample_value(message.struct, version, 1, nulls=False)
    yield sample_value(message.struct, version, 2, nulls=True)


def _request_seeds() -> Iterator[bytes]:
    for api_key, (request, _) in ALL_MESSAGES.items():
        for version in _versions(request):
            for value in _values(request, version):
                writer = Writer()
                header = RequestHeader(api_key, version, 7, "fuzz-seed")
                encode_request_header(writer, header, request.is_flexible(version))
                encode_into(request, version, value, writer)
                yield writer.getvalue()


def _response_seeds() -> Iterator[bytes]:
    for api_key, (_, response) in ALL_MESSAGES.items():
        for version in _versions(response):
            for value in _values(response, version):
                writer = Writer()
                writer.raw(_SCHEMA_PREFIX.pack(api_key, version))
                writer.int32(7)
                if response_header_is_flexible(api_key, response.is_flexible(version)):
                    writer.uvarint(0)
                encode_into(response, version, value, writer)
                yield writer.getvalue()


def _records() -> list[Record]:
    return [
        Record(offset_delta=0, timestamp_delta=0, key=b"key", value=b"value"),
        Record(offset_delta=1, timestamp_delta=-5, key=None, value=b"v" * 40, headers=(("h", b"x"), ("n", None))),
        Record(offset_delta=2, timestamp_delta=300, key=b"k" * 3, value=None),
    ]


def _batch_seeds() -> Iterator[bytes]:
    records = _records()
    for codec in CompressionType:
        yield build_batch(records, compression=codec, base_timestamp=1_700_000_000_000)
        yield build_batch(
            records[:1],
            compression=codec,
            producer_id=4,
            producer_epoch=0,
            base_sequence=10,
            is_transactional=True,
            base_timestamp=1_700_000_000_000,
        )
    yield build_batch([], base_timestamp=1_700_000_000_000)
    yield build_control_batch(True, 4, 0, 3, 0, 1_700_000_000_000)
    yield build_control_batch(False, 4, 1, 3, 5, 1_700_000_000_000)


def _records_seeds() -> Iterator[bytes]:
    records = _records()
    for count in range(len(records) + 1):
        buf = bytearray()
        for record in records[:count]:
            encode_record_into(buf, record)
        yield bytes(buf)


def _compression_seeds() -> Iterator[bytes]:
    plain = b"".join(b"record %d " % i for i in range(60))
    for codec in CompressionType:
        yield bytes([codec]) + compress(codec, plain)
        yield bytes([codec]) + compress(codec, b"")
    yield bytes([CompressionType.SNAPPY]) + bytes(cramjam.snappy.compress_raw(plain))
    yield bytes([CompressionType.ZSTD]) + compress(CompressionType.ZSTD, plain[:100]) + compress(4, plain[100:])


def _frames_seeds() -> Iterator[bytes]:
    yield b"\x01" + frame(b"abc") + frame(b"") + frame(b"x" * 200)
    yield b"\x02" + frame(b"y" * 100) + frame(b"z")[:3]
    yield b"\x03" + struct.pack(">i", -1)
    yield b"\x04" + struct.pack(">i", 301) + b"q"


_GENERATORS = {
    "request": _request_seeds,
    "response": _response_seeds,
    "batch": _batch_seeds,
    "records": _records_seeds,
    "compression": _compression_seeds,
    "frames": _frames_seeds,
    "sasl": sasl_seeds,
}
assert _GENERATORS.keys() == FAMILIES.keys()


def generated_seeds(family: str) -> list[bytes]:
    """The seeds built from the schemas and codecs, in a stable order."""
    return list(_GENERATORS[family]())


def stored_inputs(root: Path, family: str) -> list[tuple[str, bytes]]:
    """``(file name, bytes)`` of every file under ``root/family``, sorted by name."""
    directory = root / family
    if not directory.is_dir():
        return []
    return [(path.name, path.read_bytes()) for path in sorted(directory.iterdir()) if path.is_file()]
