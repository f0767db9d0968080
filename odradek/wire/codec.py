"""Encode and decode schema values for one version of a message.

Each (struct, version) pair is compiled once into a `_Plan`: the ordered regular fields with
their read/write functions, the tagged fields by tag, and the fields the version lacks.
Flexible versions use compact strings/bytes/arrays and end every struct with a tagged-field
section: uvarint count, then per field uvarint tag, uvarint size, payload, in ascending tag order.

Invariants:
- decoding fills absent fields with their defaults; unknown tags are kept raw in ``unknown_tags``;
- encoding a non-default value into a version lacking its field raises `UnsupportedFieldError`
  unless the field is ignorable;
- ``encode(m, v, decode(m, v, b)) == b`` for every well-formed ``b``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from odradek.wire.primitives import DecodeError, Reader, Writer
from odradek.wire.schema import ArrayOf, Field, Message, Primitive, Struct, StructValue

__all__ = ["DecodeError", "UnsupportedFieldError", "decode", "decode_from", "encode", "encode_into"]

ReadFn = Callable[[Reader], Any]
WriteFn = Callable[[Writer, Any], None]


class UnsupportedFieldError(ValueError):
    """A non-default value was given for a field the target version cannot carry."""


@dataclass(slots=True)
class _FieldPlan:
    name: str
    field: Field
    read: ReadFn
    write: WriteFn


@dataclass(slots=True)
class _Plan:
    cls: type[StructValue]
    regular: list[_FieldPlan]
    tagged: dict[int, _FieldPlan]
    absent: list[Field]
    flexible: bool
    shared_defaults: list[tuple[str, Any]] = field(default_factory=list)
    """Absent and tagged fields whose default is immutable: set as is on decode."""
    fresh_defaults: list[Field] = field(default_factory=list)
    """Absent and tagged fields whose default is a list or struct: built anew on decode."""
    guarded: list[Field] = field(default_factory=list)
    """Absent fields that are not ignorable: a non-default value there is an error."""


_plans: dict[tuple[int, int, bool], _Plan] = {}


def _primitive_codec(kind: Primitive, flexible: bool, nullable: bool) -> tuple[ReadFn, WriteFn]:
    if kind is Primitive.STRING:
        read_s = Reader.compact_string if flexible else Reader.string
        write_s = Writer.compact_string if flexible else Writer.string
        return _guard_null(read_s, write_s, nullable, "string")
    if kind is Primitive.RECORDS:
        # Records stay a zero-copy view into the request frame: the produce path patches them.
        read_records: ReadFn = Reader.compact_bytes if flexible else Reader.bytes_
        write_records: WriteFn = Writer.compact_bytes if flexible else Writer.bytes_
        return _guard_null(read_records, write_records, nullable, "records")
    if kind is Primitive.BYTES:
        read_view: ReadFn = Reader.compact_bytes if flexible else Reader.bytes_
        write_bytes: WriteFn = Writer.compact_bytes if flexible else Writer.bytes_

        def read_bytes(r: Reader) -> Any:
            view = read_view(r)
            return None if view is None else bytes(view)

        return _guard_null(read_bytes, write_bytes, nullable, "bytes")
    return _FIXED[kind]


_FIXED: dict[Primitive, tuple[ReadFn, WriteFn]] = {
    Primitive.BOOL: (Reader.boolean, Writer.boolean),
    Primitive.INT8: (Reader.int8, Writer.int8),
    Primitive.INT16: (Reader.int16, Writer.int16),
    Primitive.UINT16: (Reader.uint16, Writer.uint16),
    Primitive.INT32: (Reader.int32, Writer.int32),
    Primitive.INT64: (Reader.int64, Writer.int64),
    Primitive.FLOAT64: (Reader.float64, Writer.float64),
    Primitive.UUID: (Reader.uuid, Writer.uuid),
}


def _guard_null(read: ReadFn, write: WriteFn, nullable: bool, what: str) -> tuple[ReadFn, WriteFn]:
    if nullable:
        return read, write

    def read_non_null(r: Reader) -> Any:
        value = read(r)
        if value is None:
            raise DecodeError(f"null {what} where the version does not allow null")
        return value

    def write_non_null(w: Writer, value: Any) -> None:
        if value is None:
            raise ValueError(f"null {what} where the version does not allow null")
        write(w, value)

    return read_non_null, write_non_null


def _array_codec(element: Primitive | Struct, version: int, flexible: bool, nullable: bool) -> tuple[ReadFn, WriteFn]:
    if isinstance(element, Struct):
        read_el, write_el = _struct_codec(element, version, flexible, nullable=False)
    else:
        read_el, write_el = _primitive_codec(element, flexible, nullable=False)
    read_len = Reader.compact_array_length if flexible else Reader.array_length

    def read(r: Reader) -> Any:
        count = read_len(r)
        if count < 0:
            if not nullable:
                raise DecodeError("null array where the version does not allow null")
            return None
        return [read_el(r) for _ in range(count)]

    def write(w: Writer, value: Any) -> None:
        if value is None:
            if not nullable:
                raise ValueError("null array where the version does not allow null")
            if flexible:
                w.uvarint(0)
            else:
                w.int32(-1)
            return
        if flexible:
            w.uvarint(len(value) + 1)
        else:
            w.int32(len(value))
        for item in value:
            write_el(w, item)

    return read, write


def _struct_codec(struct: Struct, version: int, flexible: bool, nullable: bool) -> tuple[ReadFn, WriteFn]:
    # The plan object is registered before it is filled, so taking it here is safe even for a
    # struct that contains itself; it is complete by the time anything is read or written.
    plan = _plan(struct, version, flexible)

    def read(r: Reader) -> Any:
        if nullable and r.int8() < 0:
            return None
        return _read_struct(plan, r)

    def write(w: Writer, value: Any) -> None:
        if nullable:
            if value is None:
                w.int8(-1)
                return
            w.int8(1)
        elif value is None:
            raise ValueError(f"null {struct.name} where the version does not allow null")
        _write_struct(plan, w, value)

    return read, write


def _field_codec(f: Field, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
    nullable = version in f.nullable
    if isinstance(f.type, ArrayOf):
        return _array_codec(f.type.element, version, flexible, nullable)
    if isinstance(f.type, Struct):
        return _struct_codec(f.type, version, flexible, nullable)
    return _primitive_codec(f.type, flexible, nullable)


def _plan(struct: Struct, version: int, flexible: bool) -> _Plan:
    key = (id(struct), version, flexible)
    plan = _plans.get(key)
    if plan is not None:
        return plan
    plan = _Plan(struct.cls, [], {}, [], flexible)
    _plans[key] = plan  # registered before filling so recursive structs terminate
    for f in struct.fields:
        if version not in f.versions:
            plan.absent.append(f)
            continue
        is_tagged = flexible and f.tag is not None and version in f.tagged
        if f.tag is not None and version in f.tagged and not flexible:
            raise ValueError(f"{struct.name}.{f.name}: tagged in non-flexible version {version}")
        read, write = _field_codec(f, version, flexible)
        entry = _FieldPlan(f.name, f, read, write)
        if is_tagged:
            assert f.tag is not None
            plan.tagged[f.tag] = entry
        else:
            plan.regular.append(entry)
    plan.tagged = dict(sorted(plan.tagged.items()))
    for f in [*plan.absent, *(entry.field for entry in plan.tagged.values())]:
        if f.needs_fresh_default():
            plan.fresh_defaults.append(f)
        else:
            plan.shared_defaults.append((f.name, f.default_value()))
    plan.guarded = [f for f in plan.absent if not f.ignorable]
    return plan


def _read_struct(plan: _Plan, r: Reader) -> Any:
    value = plan.cls.__new__(plan.cls)
    for entry in plan.regular:
        setattr(value, entry.name, entry.read(r))
    for name, default in plan.shared_defaults:
        setattr(value, name, default)
    for f in plan.fresh_defaults:
        setattr(value, f.name, f.default_value())
    unknown: dict[int, bytes] = {}
    if plan.flexible:
        last_tag = -1
        for _ in range(r.uvarint()):
            tag = r.uvarint()
            if tag <= last_tag:
                raise DecodeError(f"tagged fields out of order: {tag} after {last_tag}")
            last_tag = tag
            size = r.uvarint()
            payload = r.raw(size)
            known = plan.tagged.get(tag)
            if known is None:
                unknown[tag] = bytes(payload)
                continue
            sub = Reader(payload)
            setattr(value, known.name, known.read(sub))
            if sub.remaining():
                raise DecodeError(f"tagged field {known.name} has {sub.remaining()} trailing bytes")
    value.unknown_tags = unknown
    return value


def _write_struct(plan: _Plan, w: Writer, value: Any) -> None:
    for f in plan.guarded:
        if not f.is_default(getattr(value, f.name)):
            raise UnsupportedFieldError(f"{plan.cls.__name__}.{f.name} cannot be sent in this version")
    for entry in plan.regular:
        entry.write(w, getattr(value, entry.name))
    if not plan.flexible:
        return
    payloads: list[tuple[int, bytes | bytearray]] = []
    unknown: dict[int, bytes] = getattr(value, "unknown_tags", None) or {}
    for tag, entry in plan.tagged.items():
        field_value = getattr(value, entry.name)
        if entry.field.is_default(field_value):
            continue
        sub = Writer()
        entry.write(sub, field_value)
        payloads.append((tag, sub.getvalue()))
    if unknown:
        payloads.extend((tag, data) for tag, data in unknown.items() if tag not in plan.tagged)
        payloads.sort(key=lambda item: item[0])
    w.uvarint(len(payloads))
    for tag, data in payloads:
        w.uvarint(tag)
        w.uvarint(len(data))
        w.raw(data)


def _check_version(message: Message, version: int) -> None:
    if version not in message.valid:
        raise UnsupportedFieldError(f"{message.name} has no version {version}")


def decode_from(message: Message, version: int, r: Reader) -> Any:
    """Decode one value of ``message`` at ``version`` from the reader's position."""
    _check_version(message, version)
    return _read_struct(_plan(message.struct, version, message.is_flexible(version)), r)


def decode(message: Message, version: int, data: bytes | bytearray | memoryview) -> Any:
    """Decode a whole buffer; trailing bytes are an error."""
    r = Reader(data)
    value = decode_from(message, version, r)
    if r.remaining():
        raise DecodeError(f"{message.name} v{version}: {r.remaining()} trailing bytes")
    return value


def encode_into(message: Message, version: int, value: Any, w: Writer) -> None:
    _check_version(message, version)
    _write_struct(_plan(message.struct, version, message.is_flexible(version)), w, value)


def encode(message: Message, version: int, value: Any) -> bytes:
    w = Writer()
    encode_into(message, version, value, w)
    return w.getvalue()
