"""The dispatcher's one-step request header decoder against the general one: for every API key
and version (served or not, flexible or not) and every shape of client id and tagged section,
the same header, the same position after it, or the same error."""

from __future__ import annotations

import struct

import pytest

from odradek.handlers import load_handlers
from odradek.handlers.dispatch import header_versions
from odradek.wire.api import RequestHeader, decode_request_header, decode_request_header_at_once
from odradek.wire.primitives import DecodeError, Reader

REGISTRY = load_handlers()
VERSIONS = header_versions(REGISTRY)
_HEAD = struct.Struct(">hhi")

CLIENT_IDS: list[bytes] = [
    b"\xff\xff",  # null
    b"\x00\x00",  # empty
    b"\x00\x07rdkafka",
    b"\x00\x06" + "kafké".encode(),  # UTF-8 beyond ASCII
    b"\x00\x02\xc3\x28",  # invalid UTF-8
    b"\xff\xfe",  # length -2
    b"\x00\x40short",  # longer than the frame
]
TAGS: list[bytes] = [b"", b"\x00", b"\x01\x05\x02ab", b"\x01\x05\x09ab", b"\x80"]
TRAILERS: list[bytes] = [b"", b"\x00\x01body"]


def _outcome(decode: object, frame: bytes) -> tuple[RequestHeader | None, int | str]:
    reader = Reader(frame)
    try:
        header = decode(reader)  # type: ignore[operator]
    except DecodeError as exc:
        return None, str(exc)
    return header, reader.pos


def _both(frame: bytes) -> None:
    general = _outcome(lambda r: decode_request_header(r, REGISTRY.is_flexible), frame)
    at_once = _outcome(lambda r: decode_request_header_at_once(r, VERSIONS, REGISTRY.is_flexible), frame)
    assert at_once == general, frame.hex()


def _keys_and_versions() -> list[tuple[int, int]]:
    pairs = []
    for api_key, _low, high in REGISTRY.supported():
        handler = REGISTRY.get(api_key)
        assert handler is not None
        valid = handler.request.valid
        top = high + 2 if valid.high is None else valid.high + 1
        pairs += [(api_key, version) for version in range(-1, top + 1)]
        pairs += [(api_key, 2**15 - 1), (api_key, -(2**15))]
    return [*pairs, (999, 0), (-1, 3)]


@pytest.mark.parametrize(("api_key", "version"), _keys_and_versions())
def test_every_key_and_version_decodes_as_the_general_decoder_does(api_key: int, version: int) -> None:
    head = _HEAD.pack(api_key, version, 0x01020304)
    for client_id in CLIENT_IDS:
        for tags in TAGS:
            for trailer in TRAILERS:
                _both(head + client_id + tags + trailer)


def test_the_common_header_takes_the_one_step_and_stops_where_the_body_starts() -> None:
    frame = _HEAD.pack(1, 16, 7) + b"\x00\x07rdkafka" + b"\x00" + b"body"
    reader = Reader(frame)
    header = decode_request_header_at_once(reader, VERSIONS, lambda key, version: pytest.fail("general decoder"))
    assert header == RequestHeader(1, 16, 7, "rdkafka")
    assert bytes(reader.buf[reader.pos :]) == b"body"


@pytest.mark.parametrize("size", range(12))
def test_truncated_headers_fail_as_in_the_general_decoder(size: int) -> None:
    frame = _HEAD.pack(1, 16, 7) + b"\x00\x01x\x00"
    _both(frame[:size])


def test_the_ranges_agree_with_the_registry_for_every_int16_version() -> None:
    for api_key, (low, high) in VERSIONS.items():
        flexible = [v for v in range(-(2**15), 2**15) if REGISTRY.is_flexible(api_key, v)]
        assert flexible == list(range(low, high + 1)), api_key
