"""Kafka's primitive wire types on memoryview (reading) and bytearray (writing).

Grammar (big-endian): int8/16/32/64, uint16, float64; unsigned varint (LEB128, 7 bits a byte);
varint/varlong = zigzag then unsigned varint; string = int16 length (-1 null) + UTF-8;
compact string = uvarint (length + 1, 0 null) + UTF-8; bytes = int32 length (-1 null);
compact bytes = uvarint (length + 1, 0 null); uuid = 16 raw bytes.

Invariant: a `Reader` never reads past the end of its buffer; running out raises `DecodeError`.
"""

from __future__ import annotations

import struct
from typing import Protocol

__all__ = ["DecodeError", "FilePart", "Part", "Reader", "Writer"]

_I8 = struct.Struct(">b")
_I16 = struct.Struct(">h")
_U16 = struct.Struct(">H")
_I32 = struct.Struct(">i")
_U32 = struct.Struct(">I")
_I64 = struct.Struct(">q")
_F64 = struct.Struct(">d")


class DecodeError(ValueError):
    """The bytes do not form a valid value of the expected type."""


class Reader:
    """A cursor over an immutable view of bytes."""

    __slots__ = ("buf", "end", "pos")

    def __init__(self, data: bytes | bytearray | memoryview, pos: int = 0, end: int | None = None) -> None:
        self.buf = data if isinstance(data, memoryview) else memoryview(data)
        self.pos = pos
        self.end = len(self.buf) if end is None else end

    def remaining(self) -> int:
        return self.end - self.pos

    def _take(self, size: int) -> int:
        pos = self.pos
        if size < 0 or pos + size > self.end:
            raise DecodeError(f"need {size} bytes at {pos}, have {self.end - pos}")
        self.pos = pos + size
        return pos

    def int8(self) -> int:
        return int(_I8.unpack_from(self.buf, self._take(1))[0])

    def int16(self) -> int:
        return int(_I16.unpack_from(self.buf, self._take(2))[0])

    def uint16(self) -> int:
        return int(_U16.unpack_from(self.buf, self._take(2))[0])

    def int32(self) -> int:
        return int(_I32.unpack_from(self.buf, self._take(4))[0])

    def uint32(self) -> int:
        return int(_U32.unpack_from(self.buf, self._take(4))[0])

    def int64(self) -> int:
        return int(_I64.unpack_from(self.buf, self._take(8))[0])

    def float64(self) -> float:
        return float(_F64.unpack_from(self.buf, self._take(8))[0])

    def boolean(self) -> bool:
        return self.int8() != 0

    def uvarint(self) -> int:
        """Unsigned varint of at most 5 bytes (32 bits), as Kafka's ByteUtils.readUnsignedVarint."""
        return self._uvarint(5)

    def uvarlong(self) -> int:
        return self._uvarint(10)

    def _uvarint(self, max_bytes: int) -> int:
        result = 0
        shift = 0
        buf = self.buf
        for _ in range(max_bytes):
            if self.pos >= self.end:
                raise DecodeError("varint runs past the end")
            byte = buf[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7
        raise DecodeError("varint is too long")

    def varint(self) -> int:
        raw = self._uvarint(5)
        return (raw >> 1) ^ -(raw & 1)

    def varlong(self) -> int:
        raw = self._uvarint(10)
        return (raw >> 1) ^ -(raw & 1)

    def raw(self, size: int) -> memoryview:
        start = self._take(size)
        return self.buf[start : start + size]

    def uuid(self) -> bytes:
        return bytes(self.raw(16))

    def _text(self, size: int) -> str:
        try:
            return str(self.raw(size), "utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(f"invalid UTF-8 in string: {exc}") from None

    def string(self) -> str | None:
        size = self.int16()
        if size < 0:
            if size != -1:
                raise DecodeError(f"negative string length {size}")
            return None
        return self._text(size)

    def compact_string(self) -> str | None:
        size = self.uvarint() - 1
        return None if size < 0 else self._text(size)

    def bytes_(self) -> memoryview | None:
        size = self.int32()
        if size < 0:
            if size != -1:
                raise DecodeError(f"negative bytes length {size}")
            return None
        return self.raw(size)

    def compact_bytes(self) -> memoryview | None:
        size = self.uvarint() - 1
        return None if size < 0 else self.raw(size)

    def array_length(self) -> int:
        """Classic int32 array length; -1 means null."""
        size = self.int32()
        if size < -1:
            raise DecodeError(f"negative array length {size}")
        self._check_plausible(size)
        return size

    def compact_array_length(self) -> int:
        """Compact array length (uvarint length + 1); -1 means null."""
        size = self.uvarint() - 1
        self._check_plausible(size)
        return size

    def _check_plausible(self, count: int) -> None:
        # Every element takes at least one byte, so a count larger than what is left is a lie;
        # checking here stops a forged length from making us allocate a huge list.
        if count > self.end - self.pos:
            raise DecodeError(f"array of {count} elements cannot fit in {self.end - self.pos} bytes")


SPILL_BYTES = 64 * 1024


class FilePart(Protocol):
    """A payload that stays in a file until the server sends it: ``length`` bytes at
    ``position`` of the file behind `fileno` (None when it is not an OS file: then `read`).

    The wire layer only counts it (``len``) and keeps it as a part of its own; the server
    materialises it, with ``sendfile`` or with `read`.  It must be sent before the server
    awaits anything (the file may be closed once other code runs).
    """

    @property
    def position(self) -> int: ...

    @property
    def length(self) -> int: ...

    def __len__(self) -> int: ...

    def fileno(self) -> int | None: ...

    def read(self) -> bytes:
        """The ``length`` bytes (raises `ValueError` when the file is closed)."""
        ...


Part = bytes | bytearray | memoryview | FilePart
"""One piece of an encoded message: bytes, or a `FilePart` the server sends from its file."""


class Writer:
    """Appends encoded values to a growing bytearray.

    A large byte payload (``SPILL_BYTES`` or more, i.e. record batches in a fetch response) and
    every `FilePart` are not copied in: the buffer so far and the payload itself are set aside
    as parts, and writing goes on in a new buffer.  `parts` returns the pieces in order, ready
    for a vectored write; `getvalue` joins them (reading file parts).  ``buf`` is always the
    tail piece being written.
    """

    __slots__ = ("_parts", "buf")

    def __init__(self, buf: bytearray | None = None) -> None:
        self.buf = bytearray() if buf is None else buf
        self._parts: list[Part] = []

    def parts(self) -> list[Part]:
        return [*self._parts, self.buf]

    def size(self) -> int:
        total = len(self.buf)
        for part in self._parts:
            total += len(part)
        return total

    def getvalue(self) -> bytes:
        return b"".join(
            part if isinstance(part, (bytes, bytearray, memoryview)) else part.read() for part in self.parts()
        )

    def set_aside(self, at_least: int) -> None:
        """End the buffer being written and go on in a new one, if it holds ``at_least`` bytes."""
        if len(self.buf) >= at_least:
            self._parts.append(self.buf)
            self.buf = bytearray()

    def payload(self, data: Part) -> None:
        """Append bytes that may be large; large ones and file parts are referenced, not copied."""
        if isinstance(data, (bytes, bytearray, memoryview)) and len(data) < SPILL_BYTES:
            self.buf += data
            return
        self._parts.append(self.buf)
        self._parts.append(data)
        self.buf = bytearray()

    def int8(self, value: int) -> None:
        self.buf += _I8.pack(value)

    def int16(self, value: int) -> None:
        self.buf += _I16.pack(value)

    def uint16(self, value: int) -> None:
        self.buf += _U16.pack(value)

    def int32(self, value: int) -> None:
        self.buf += _I32.pack(value)

    def uint32(self, value: int) -> None:
        self.buf += _U32.pack(value)

    def int64(self, value: int) -> None:
        self.buf += _I64.pack(value)

    def float64(self, value: float) -> None:
        self.buf += _F64.pack(value)

    def boolean(self, value: bool) -> None:
        self.buf.append(1 if value else 0)

    def uvarint(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"unsigned varint cannot hold {value}")
        buf = self.buf
        while value > 0x7F:
            buf.append((value & 0x7F) | 0x80)
            value >>= 7
        buf.append(value)

    def varint(self, value: int) -> None:
        self.uvarint(((value << 1) ^ (value >> 31)) & 0xFFFFFFFF)

    def varlong(self, value: int) -> None:
        self.uvarint(((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF)

    def raw(self, data: bytes | bytearray | memoryview) -> None:
        self.buf += data

    def uuid(self, value: bytes) -> None:
        if len(value) != 16:
            raise ValueError("a uuid is 16 bytes")
        self.buf += value

    def string(self, value: str | None) -> None:
        if value is None:
            self.int16(-1)
            return
        data = value.encode()
        self.int16(len(data))
        self.buf += data

    def compact_string(self, value: str | None) -> None:
        if value is None:
            self.uvarint(0)
            return
        data = value.encode()
        self.uvarint(len(data) + 1)
        self.buf += data

    def bytes_(self, value: Part | None) -> None:
        if value is None:
            self.int32(-1)
            return
        self.int32(len(value))
        self.payload(value)

    def compact_bytes(self, value: Part | None) -> None:
        if value is None:
            self.uvarint(0)
            return
        self.uvarint(len(value) + 1)
        self.payload(value)
