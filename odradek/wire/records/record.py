"""One record inside a v2 batch, and its encoding.

Layout (varints are zigzag, see `odradek.wire.records.varint`)::

    Record =>
      length          varint    bytes after this field
      attributes      int8      unused, kept as read
      timestampDelta  varlong   relative to the batch base timestamp
      offsetDelta     varint    relative to the batch base offset
      keyLength       varint    -1 for a null key
      key             bytes
      valueLength     varint    -1 for a null value
      value           bytes
      headersCount    varint
      Header =>
        headerKeyLength    varint
        headerKey          utf-8 string (never null)
        headerValueLength  varint    -1 for a null value
        headerValue        bytes

Invariants:
- `decode_record` consumes exactly ``length`` bytes after the length field or raises
  `CorruptBatchError`;
- ``decode_record(encode_record_into(buf, r)) == r`` for every valid record.
"""

from __future__ import annotations

from dataclasses import dataclass

from odradek.wire.records.batch import CorruptBatchError
from odradek.wire.records.varint import read_varint, read_varlong, size_of_varint, write_varint, write_varlong

__all__ = ["Header", "Record", "decode_record", "encode_record_into", "record_size"]

Header = tuple[str, bytes | None]


@dataclass(frozen=True, slots=True)
class Record:
    """A record as stored in a batch: offsets and timestamps are deltas from the batch header."""

    offset_delta: int
    timestamp_delta: int
    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...] = ()
    attributes: int = 0


def _body_size(record: Record, header_keys: list[bytes]) -> int:
    size = 1 + size_of_varint(record.timestamp_delta) + size_of_varint(record.offset_delta)
    key = record.key
    size += 1 if key is None else size_of_varint(len(key)) + len(key)
    value = record.value
    size += 1 if value is None else size_of_varint(len(value)) + len(value)
    size += size_of_varint(len(header_keys))
    for raw_key, (_, header_value) in zip(header_keys, record.headers, strict=True):
        size += size_of_varint(len(raw_key)) + len(raw_key)
        size += 1 if header_value is None else size_of_varint(len(header_value)) + len(header_value)
    return size


def record_size(record: Record) -> int:
    """Bytes `encode_record_into` appends for ``record``, length prefix included."""
    body = _body_size(record, [name.encode() for name, _ in record.headers])
    return size_of_varint(body) + body


def encode_record_into(buf: bytearray, record: Record) -> None:
    """Append the encoding of ``record`` to ``buf``.

    Raises `ValueError` when a delta is out of range (offset delta int32, timestamp delta
    int64) or the attributes do not fit an int8.
    """
    if not -128 <= record.attributes <= 127:
        raise ValueError(f"record attributes {record.attributes} do not fit in an int8")
    header_keys = [name.encode() for name, _ in record.headers]
    write_varint(buf, _body_size(record, header_keys))
    buf.append(record.attributes & 0xFF)
    write_varlong(buf, record.timestamp_delta)
    write_varint(buf, record.offset_delta)
    key = record.key
    if key is None:
        buf.append(1)
    else:
        write_varint(buf, len(key))
        buf += key
    value = record.value
    if value is None:
        buf.append(1)
    else:
        write_varint(buf, len(value))
        buf += value
    write_varint(buf, len(header_keys))
    for raw_key, (_, header_value) in zip(header_keys, record.headers, strict=True):
        write_varint(buf, len(raw_key))
        buf += raw_key
        if header_value is None:
            buf.append(1)
        else:
            write_varint(buf, len(header_value))
            buf += header_value


def _read_bytes(data: bytes, pos: int, end: int, what: str) -> tuple[bytes | None, int]:
    length, pos = read_varint(data, pos)
    if length < 0:
        if length != -1:
            raise CorruptBatchError(f"invalid {what} length {length}")
        return None, pos
    stop = pos + length
    if stop > end:
        raise CorruptBatchError(f"{what} of {length} bytes overruns its record")
    return data[pos:stop], stop


def decode_record(data: bytes, pos: int) -> tuple[Record, int]:
    """Decode the record at ``pos``; return it and the position after it."""
    length, pos = read_varint(data, pos)
    end = pos + length
    if length < 0 or end > len(data):
        raise CorruptBatchError(f"record length {length} overruns the batch")
    if pos >= end:
        raise CorruptBatchError("empty record")
    attributes = data[pos]
    if attributes > 127:
        attributes -= 256
    timestamp_delta, pos = read_varlong(data, pos + 1)
    offset_delta, pos = read_varint(data, pos)
    key, pos = _read_bytes(data, pos, end, "key")
    value, pos = _read_bytes(data, pos, end, "value")
    count, pos = read_varint(data, pos)
    if not 0 <= count <= (end - pos) // 2:
        raise CorruptBatchError(f"invalid header count {count}")
    headers: list[Header] = []
    for _ in range(count):
        raw_key, pos = _read_bytes(data, pos, end, "header key")
        if raw_key is None:
            raise CorruptBatchError("null header key")
        try:
            name = raw_key.decode()
        except UnicodeDecodeError as exc:
            raise CorruptBatchError(f"header key is not valid UTF-8: {exc}") from None
        header_value, pos = _read_bytes(data, pos, end, "header value")
        headers.append((name, header_value))
    if pos != end:
        raise CorruptBatchError(f"record fields take {length + pos - end} bytes, its length says {length}")
    return Record(offset_delta, timestamp_delta, key, value, tuple(headers), attributes), end
