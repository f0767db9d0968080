"""Zigzag varints as used inside v2 records (protobuf encoding).

A signed value ``n`` is zigzag-mapped to ``(n << 1) ^ (n >> 63)`` (so small magnitudes of either
sign stay short) and written as unsigned LEB128: seven bits per byte, least significant group
first, high bit set on every byte but the last.

Invariants:
- a varint carries an int32 and takes at most 5 bytes; a varlong carries an int64 and takes
  at most 10 bytes;
- encoding a value outside its range raises `ValueError`;
- decoding a truncated, over-long or out-of-range value raises `CorruptBatchError`.
"""

from __future__ import annotations

from odradek.wire.records.batch import CorruptBatchError

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "read_varint",
    "read_varlong",
    "size_of_varint",
    "write_varint",
    "write_varlong",
    "zigzag_decode",
    "zigzag_encode",
]

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

_UINT32_MAX = (1 << 32) - 1
_UINT64_MAX = (1 << 64) - 1


def zigzag_encode(value: int) -> int:
    """Map a signed int64 to an unsigned one: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ..."""
    return (value << 1) ^ (value >> 63)


def zigzag_decode(value: int) -> int:
    """Inverse of `zigzag_encode`."""
    return (value >> 1) ^ -(value & 1)


def size_of_varint(value: int) -> int:
    """Bytes taken by the zigzag varint (or varlong) encoding of ``value``."""
    raw = (value << 1) ^ (value >> 63)
    return (raw.bit_length() + 6) // 7 or 1


def _write_unsigned(buf: bytearray, raw: int) -> None:
    while raw >= 0x80:
        buf.append((raw & 0x7F) | 0x80)
        raw >>= 7
    buf.append(raw)


def write_varint(buf: bytearray, value: int) -> None:
    """Append ``value`` (an int32) to ``buf`` as a zigzag varint."""
    if 0 <= value < 0x40:
        buf.append(value << 1)
        return
    if not INT32_MIN <= value <= INT32_MAX:
        raise ValueError(f"varint value {value} is outside the int32 range")
    _write_unsigned(buf, (value << 1) ^ (value >> 63))


def write_varlong(buf: bytearray, value: int) -> None:
    """Append ``value`` (an int64) to ``buf`` as a zigzag varlong."""
    if 0 <= value < 0x40:
        buf.append(value << 1)
        return
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError(f"varlong value {value} is outside the int64 range")
    _write_unsigned(buf, (value << 1) ^ (value >> 63))


def _read_unsigned(data: bytes, pos: int, max_bytes: int, what: str) -> tuple[int, int]:
    result = 0
    shift = 0
    limit = pos + max_bytes
    try:
        while pos < limit:
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result, pos
            shift += 7
    except IndexError:
        raise CorruptBatchError(f"truncated {what}") from None
    raise CorruptBatchError(f"{what} is longer than {max_bytes} bytes")


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Decode a zigzag varint (int32) at ``pos``; return ``(value, next position)``."""
    byte = data[pos] if pos < len(data) else -1
    if 0 <= byte < 0x80:
        return (byte >> 1) ^ -(byte & 1), pos + 1
    raw, pos = _read_unsigned(data, pos, 5, "varint")
    if raw > _UINT32_MAX:
        raise CorruptBatchError("varint does not fit in an int32")
    return (raw >> 1) ^ -(raw & 1), pos


def read_varlong(data: bytes, pos: int) -> tuple[int, int]:
    """Decode a zigzag varlong (int64) at ``pos``; return ``(value, next position)``."""
    byte = data[pos] if pos < len(data) else -1
    if 0 <= byte < 0x80:
        return (byte >> 1) ^ -(byte & 1), pos + 1
    raw, pos = _read_unsigned(data, pos, 10, "varlong")
    if raw > _UINT64_MAX:
        raise CorruptBatchError("varlong does not fit in an int64")
    return (raw >> 1) ^ -(raw & 1), pos
