"""The toolkit of the generated codec: what generated code may call, and how it is built.

`odradek.wire.compiler` writes Python source for each (struct, version, flexible); this module gives
that source its vocabulary and turns it into functions:

- `Source` collects lines and the namespace they resolve in, and compiles them with `exec`
  (registering the text with `linecache`, so tracebacks through generated code show its lines);
- the namespace always holds the runtime helpers named in ``_RUNTIME`` (uvarint tails, tagged-
  section writing, error builders, cached array layouts, ``DecodeError``, ``UnsupportedFieldError``,
  ``Writer``) plus the constants and functions the source bound with `Source.const`/`Source.bind`;
- `defaults_of` generates, once per struct, ``new()`` (a value with every field at its default,
  as ``cls()`` builds it) and ``is_default(x)`` (``x == new()`` without building one);
- `Unit` records a piece of generated source and the pieces it calls; `render` prints them.

Invariants:
- generated code reads from a memoryview ``buf`` that ends where the input ends; helpers that read
  raise `DecodeError`, or ``IndexError`` at the end of ``buf`` (callers translate that);
- generated code appends to a bytearray and calls `Writer.payload` for byte payloads;
- struct and field names must be Python identifiers (`check_name`): they become function and
  attribute names in the source;
- lists and structs used as defaults are new objects each time; immutable defaults are shared.
"""

from __future__ import annotations

import itertools
import keyword
import linecache
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from odradek.wire.primitives import DecodeError, Writer
from odradek.wire.schema import MISSING, ArrayOf, Field, Primitive, Struct

__all__ = [
    "FIXED",
    "SIZED",
    "Defaults",
    "Source",
    "Unit",
    "UnsupportedFieldError",
    "array_layouts",
    "check_name",
    "default_expr",
    "defaults_of",
    "is_default_expr",
    "put_uvarint",
    "render",
    "type_name",
    "uvarint_tail",
]


class UnsupportedFieldError(ValueError):
    """A non-default value was given for a field the target version cannot carry."""


# Fixed-size primitives: struct format code and size in bytes.  '?' reads any non-zero byte as
# True and writes truthiness as 0/1; '16s' reads 16 raw bytes (the length is checked on write).
FIXED: dict[Primitive, tuple[str, int]] = {
    Primitive.BOOL: ("?", 1),
    Primitive.INT8: ("b", 1),
    Primitive.INT16: ("h", 2),
    Primitive.UINT16: ("H", 2),
    Primitive.INT32: ("i", 4),
    Primitive.INT64: ("q", 8),
    Primitive.FLOAT64: ("d", 8),
    Primitive.UUID: ("16s", 16),
}
SIZED = {Primitive.STRING: "string", Primitive.BYTES: "bytes", Primitive.RECORDS: "records"}
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")


def uvarint_tail(buf: memoryview, pos: int, first: int) -> tuple[int, int]:
    """Finish an unsigned varint whose first byte ``first`` had the continuation bit set."""
    result = first & 0x7F
    shift = 7
    for _ in range(4):  # at most 5 bytes in all, as Kafka's readUnsignedVarint
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
    raise DecodeError("varint is too long")


def put_uvarint(buf: bytearray, value: int) -> None:
    """Append an unsigned varint (``value >= 0``; generated code inlines the one-byte case)."""
    while value > 0x7F:
        buf.append((value & 0x7F) | 0x80)
        value >>= 7
    buf.append(value)


def put_string(buf: bytearray, text: str | None, flexible: bool) -> None:
    """Append a (nullable) string as the hand-written answer encoders need it: a compact length
    (length + 1, 0 for null) when ``flexible``, else an int16 length (-1 for null)."""
    if text is None:
        buf += b"\x00" if flexible else b"\xff\xff"
        return
    data = text.encode()
    if flexible:
        put_uvarint(buf, len(data) + 1)
    else:
        buf += _I16.pack(len(data))
    buf += data


def _truncated(pos: int, stop: int, end: int) -> DecodeError:
    return DecodeError(f"need {stop - pos} bytes at {pos}, have {end - pos}")


def _too_many(count: int, pos: int, end: int) -> DecodeError:
    # Every element takes at least one byte, so a count larger than what is left is a lie;
    # refusing it here stops a forged length from making us allocate a huge list.
    return DecodeError(f"array of {count} elements cannot fit in {end - pos} bytes")


def _write_tags(buf: bytearray, tags: list[tuple[int, bytes | bytearray]]) -> None:
    """Append a tagged-field section: count, then tag, size, payload for each (sorted) entry."""
    put_uvarint(buf, len(tags))
    for tag, data in tags:
        put_uvarint(buf, tag)
        put_uvarint(buf, len(data))
        buf += data


_ARRAY_CACHE_LIMIT = 256
_array_structs: dict[str, dict[int, struct.Struct]] = {code: {} for code, _ in FIXED.values()}


def _array_struct(code: str, count: int) -> struct.Struct:
    """The `struct.Struct` of ``count`` big-endian ``code`` values; small counts are cached."""
    layout = struct.Struct(f">{count}{code}")
    if count <= _ARRAY_CACHE_LIMIT:
        _array_structs[code][count] = layout
    return layout


def array_layouts(code: str) -> dict[int, struct.Struct]:
    """The cache `_array_struct` fills for format ``code``; generated code looks counts up in it."""
    return _array_structs[code]


def _tag_of(entry: tuple[int, bytes | bytearray]) -> int:
    return entry[0]


_RUNTIME: dict[str, Any] = {
    "DecodeError": DecodeError,
    "UnsupportedFieldError": UnsupportedFieldError,
    "_Writer": Writer,
    "_new": object.__new__,
    "_uvarint_tail": uvarint_tail,
    "_put_uvarint": put_uvarint,
    "_truncated": _truncated,
    "_too_many": _too_many,
    "_write_tags": _write_tags,
    "_tag_of": _tag_of,
    "_array_struct": _array_struct,
    "_unpack_i16": _I16.unpack_from,
    "_unpack_i32": _I32.unpack_from,
    "_pack_i16": _I16.pack,
    "_pack_i32": _I32.pack,
}


@dataclass(frozen=True, slots=True)
class Unit:
    """One piece of generated source and the generated pieces it calls."""

    source: str
    requires: tuple[Unit, ...]


@dataclass(frozen=True, slots=True)
class Defaults(Unit):
    """Generated ``new()``, a value with every field at its default, and ``is_default(x)``,
    whether ``x == new()`` (without building one)."""

    new: Callable[..., Any]
    is_default: Callable[..., Any]


_defaults: dict[Struct, Defaults] = {}
_sources = itertools.count(1)


def render(unit: Unit) -> str:
    """The source of ``unit`` and of every generated function it calls, callees first."""
    seen: set[int] = set()
    parts: list[str] = []

    def visit(u: Unit) -> None:
        if id(u) in seen:
            return
        seen.add(id(u))
        for child in u.requires:
            visit(child)
        parts.append(u.source)

    visit(unit)
    return "\n\n".join(parts)


def defaults_of(src: Source, struct_def: Struct) -> tuple[str, str]:
    """Bind the default-value functions of ``struct_def`` in ``src``: (new, is_default) names."""
    found = _defaults.get(struct_def)
    if found is None:
        found = _DefaultsWriter(struct_def).build()
        _defaults[struct_def] = found
    src.requires[id(found)] = found
    name = struct_def.name
    return src.bind(f"_new_{name}", found.new), src.bind(f"_is_default_{name}", found.is_default)


class Source:
    """Lines of generated source plus the namespace its names resolve in."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.ns: dict[str, Any] = dict(_RUNTIME)
        self.lines: list[str] = []
        self.requires: dict[int, Unit] = {}
        self._depth = 0
        self._constants = 0

    def emit(self, text: str) -> None:
        self.lines.append("    " * self._depth + text)

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        self.emit(header)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def const(self, prefix: str, value: Any) -> str:
        name = f"_{prefix}{self._constants}"
        self._constants += 1
        self.ns[name] = value
        return name

    def bind(self, name: str, value: Any) -> str:
        """Bind ``value`` as ``name``, or as ``name`` plus a number if that name is taken."""
        unique, number = name, 1
        while unique in self.ns and self.ns[unique] is not value:
            number += 1
            unique = f"{name}{number}"
        self.ns[unique] = value
        return unique

    def compile(self) -> tuple[str, dict[str, Any]]:
        source = "\n".join(self.lines) + "\n"
        filename = f"<odradek.wire.codegen #{next(_sources)} {self.title}>"
        # Registered so tracebacks through generated code show its lines.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), self.ns)
        return source, self.ns


def check_name(dotted: str) -> None:
    """Refuse a struct or field name (``Struct`` or ``Struct.field``) that is no Python identifier."""
    for name in dotted.split("."):
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"{dotted}: struct and field names must be Python identifiers")


def type_name(f_type: Primitive | ArrayOf | Struct) -> str:
    if isinstance(f_type, ArrayOf):
        return f"[{type_name(f_type.element)}]"
    if isinstance(f_type, Struct):
        return f_type.name
    return f_type.value


def default_expr(src: Source, f: Field) -> str:
    """An expression giving ``f``'s default: shared if immutable, a new object otherwise."""
    if not f.needs_fresh_default():
        return src.const("default", f.default_value())
    if f.default is not MISSING:
        return f"list({src.const('default', f.default)})"
    if isinstance(f.type, Struct):
        return f"{defaults_of(src, f.type)[0]}()"
    return "[]"


def is_default_expr(src: Source, f: Field, value: str) -> str:
    """A boolean expression: ``value`` equals ``f``'s default (as `Field.is_default`)."""
    if f.default is MISSING and isinstance(f.type, ArrayOf):
        return f"({value} is None or len({value}) == 0)"
    if f.default is MISSING and isinstance(f.type, Struct):
        return f"({value} is None or {defaults_of(src, f.type)[1]}({value}))"
    if not f.needs_fresh_default():
        return f"({value} == {src.const('default', f.default_value())})"
    return f"{src.const('field', f)}.is_default({value})"


class _DefaultsWriter:
    def __init__(self, struct_def: Struct) -> None:
        check_name(struct_def.name)
        self.struct = struct_def
        self.src = Source(f"defaults of {struct_def.name}")

    def build(self) -> Defaults:
        src, name = self.src, self.struct.name
        cls = src.bind("_cls", self.struct.cls)
        with src.block(f"def new_{name}():"):
            src.emit(f'"""A new {name} with every field at its default."""')
            src.emit(f"v = _new({cls})")
            for f in self.struct.fields:
                check_name(f"{name}.{f.name}")
                src.emit(f"v.{f.name} = {default_expr(src, f)}")
            src.emit("v.unknown_tags = {}")
            src.emit("return v")
        src.emit("")
        with src.block(f"def is_default_{name}(x):"):
            src.emit(f'"""Whether ``x == new_{name}()``: same class, every field and unknown_tags equal."""')
            src.emit("return (")
            src.emit(f"    type(x) is {cls}")
            for f in self.struct.fields:
                src.emit(f"    and {self._field_is_default(f)}")
            src.emit("    and x.unknown_tags == {}")
            src.emit(")")
        source, ns = src.compile()
        return Defaults(source, tuple(src.requires.values()), ns[f"new_{name}"], ns[f"is_default_{name}"])

    def _field_is_default(self, f: Field) -> str:
        # Mirrors StructValue.__eq__ against a new instance: each field == the field's default.
        value = f"x.{f.name}"
        if isinstance(f.type, Struct) and f.default is MISSING:
            return f"{defaults_of(self.src, f.type)[1]}({value})"
        if isinstance(f.type, ArrayOf) and f.default is MISSING:
            return f"{value} == []"
        return f"{value} == {self.src.const('default', f.default_value())}"
