"""Encode and decode schema values for one version of a message: the public entry points.

`decode`, `decode_from`, `encode` and `encode_into` run the generated functions of the message at
that version (`odradek.wire.compiler` generates them on first use; `generated_source` shows their
Python source); `decode_in_slices` and `encode_in_slices` run their generator forms, which stop
every `SLICE_ELEMENTS` elements of a top-level array of structs so a huge request or answer can
share the event loop.

Invariants:
- malformed or truncated input raises `DecodeError` and nothing else: the generated decoders raise
  it for what they check, and a fixed field or varint past the end (``struct.error``/``IndexError``
  inside generated code) or invalid UTF-8 is translated here;
- `decode_from` advances the reader past the value and never reads beyond ``reader.end``; `decode`
  refuses trailing bytes;
- a version the message does not have raises `UnsupportedFieldError` before anything is read or
  written;
- `encode_in_slices` sets the buffer aside (`Writer.set_aside`) only between two slices, once it
  holds `SET_ASIDE_BYTES` or more;
- ``encode(m, v, decode(m, v, b)) == b`` for every well-formed ``b``.
"""

from __future__ import annotations

import inspect
import struct
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from odradek.wire.codegen import UnsupportedFieldError, render
from odradek.wire.compiler import SLICE_ELEMENTS, Compiled, compiled_message
from odradek.wire.primitives import DecodeError, Reader, Writer
from odradek.wire.schema import Message, StructValue

__all__ = [
    "SLICE_ELEMENTS",
    "DecodeError",
    "UnsupportedFieldError",
    "decode",
    "decode_from",
    "decode_in_slices",
    "encode",
    "encode_in_slices",
    "encode_into",
    "generated_source",
]


T = TypeVar("T", bound=StructValue)
"""A message's value class: `decode` of a ``Message[T]`` gives a ``T``, `encode` takes one."""

SET_ASIDE_BYTES = 256 * 1024
"""`encode_in_slices` sets the buffer written so far aside as a part once it holds this much, so
a multi-MB answer is never grown by copying megabytes at once (``bytearray`` growth reallocates)."""

_decoders: dict[tuple[Message, int], Callable[..., Any]] = {}
_encoders: dict[tuple[Message, int], Callable[..., Any]] = {}
_sliced: dict[tuple[Message, int], Compiled] = {}


def _sliced_message(message: Message, version: int) -> Compiled:
    found = _sliced.get((message, version))
    if found is None:
        found = _sliced[message, version] = compiled_message(message, version, sliced=True)
    return found


def _run_decoder(message: Message, version: int, buf: memoryview, pos: int) -> tuple[Any, int]:
    decoder = _decoders.get((message, version))
    if decoder is None:
        decoder = _decoders[message, version] = compiled_message(message, version).decode
    try:
        value, end = decoder(buf, pos)
    except (struct.error, IndexError) as exc:
        raise DecodeError(f"{message.name} v{version}: the input ends inside a value ({exc})") from None
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8 in string: {exc}") from None
    return value, end


def decode_in_slices(message: Message[T], version: int, r: Reader) -> Generator[None, None, T]:
    """`decode_from` as a generator that stops after every `SLICE_ELEMENTS` elements of the
    message's top-level arrays of structs; its return value is the decoded value."""
    buf = r.buf if r.end == len(r.buf) else r.buf[: r.end]
    decoder = _sliced_message(message, version).decode
    try:
        if inspect.isgeneratorfunction(decoder):
            value, r.pos = yield from decoder(buf, r.pos)
        else:
            value, r.pos = decoder(buf, r.pos)
    except (struct.error, IndexError) as exc:
        raise DecodeError(f"{message.name} v{version}: the input ends inside a value ({exc})") from None
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8 in string: {exc}") from None
    decoded: T = value
    return decoded


def encode_in_slices(message: Message[T], version: int, value: T, w: Writer) -> Generator[None, None, None]:
    """`encode_into` as a generator that stops after every `SLICE_ELEMENTS` elements of the
    message's top-level arrays of structs; ``w`` is complete once it is exhausted.  At each stop
    a buffer of `SET_ASIDE_BYTES` or more becomes a part of ``w`` of its own (`Writer.set_aside`)."""
    encoder = _sliced_message(message, version).encode
    if inspect.isgeneratorfunction(encoder):
        for _ in encoder(w, value):
            w.set_aside(SET_ASIDE_BYTES)
            yield
    else:
        encoder(w, value)


def decode_from(message: Message[T], version: int, r: Reader) -> T:
    """Decode one value of ``message`` at ``version`` from the reader's position, advancing it."""
    buf = r.buf if r.end == len(r.buf) else r.buf[: r.end]
    value: T
    value, r.pos = _run_decoder(message, version, buf, r.pos)
    return value


def decode(message: Message[T], version: int, data: bytes | bytearray | memoryview) -> T:
    """Decode a whole buffer; trailing bytes are an error."""
    buf = data if isinstance(data, memoryview) else memoryview(data)
    value: T
    value, pos = _run_decoder(message, version, buf, 0)
    if pos != len(buf):
        raise DecodeError(f"{message.name} v{version}: {len(buf) - pos} trailing bytes")
    return value


def encode_into(message: Message[T], version: int, value: T, w: Writer) -> None:
    """Append ``value`` as ``message`` at ``version`` to ``w``."""
    encoder = _encoders.get((message, version))
    if encoder is None:
        encoder = _encoders[message, version] = compiled_message(message, version).encode
    encoder(w, value)


def encode(message: Message[T], version: int, value: T) -> bytes:
    w = Writer()
    encode_into(message, version, value, w)
    return w.getvalue()


def generated_source(message: Message, version: int) -> str:
    """The generated Python source behind ``message`` at ``version`` (for debugging)."""
    return render(compiled_message(message, version))
