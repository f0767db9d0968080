"""The message compiler: generated decoders and encoders for one version of a message's structs.

Each (struct, version, flexible) is compiled once, on first use, into two generated functions
(`odradek.wire.codegen` is their toolkit; `odradek.wire.codec` is the public way to call them):

    decode(buf: memoryview, pos: int) -> (value, new_pos)
    encode(w: Writer, value) -> None

and, for the codec's `decode_in_slices`/`encode_in_slices`, once more as generators ("sliced") that stop after
every `SLICE_ELEMENTS` elements of a top-level array of structs.

Wire grammar (`primitives`): flexible versions use compact strings/bytes/arrays (uvarint length
+ 1, 0 for null) and end every struct with a tagged-field section: uvarint count, then per field
uvarint tag, uvarint size, payload, in ascending tag order; classic versions use int16 string
lengths and int32 bytes/array lengths (-1 for null) and have no tagged fields.

Shape of the generated code:
- consecutive fixed-size fields (bool, int8/16/32/64, uint16, float64, uuid) are read with one
  precompiled ``struct.Struct.unpack_from`` at the running position and written with one ``pack``;
- the common one-byte uvarint is inlined; longer ones go through a helper;
- nested structs and arrays of structs call the nested struct's own generated functions; an array
  of structs that never sets a payload aside is written from its kept bytes when it is an
  `odradek.wire.encoded_once.EncodedOnce` (a list many answers share), element by element otherwise;
  fixed-size primitive arrays are read and written with one ``struct`` call for the whole array.

Invariants:
- each (struct, version, flexible, sliced) is generated at most once, under one lock, and a struct
  that contains itself is refused with ``ValueError``;
- generated decoders raise `DecodeError` for malformed input: strings, bytes, arrays and tagged
  fields check their bounds explicitly; a fixed field or varint past the end surfaces as
  ``struct.error``/``IndexError`` and invalid UTF-8 as ``UnicodeDecodeError`` (`odradek.wire.codec`
  translates both);
- an array count larger than the bytes left is refused before anything is allocated;
- a tagged field is decoded from ``buf[:tag_end]``, so it cannot read into its neighbours, and bytes
  it leaves unread are an error; unknown tags are kept raw in ``unknown_tags`` and written back;
- decoding fills absent fields, and tagged fields not sent, with their defaults;
- decoded records are zero-copy views of the input; encoded byte payloads go through
  `Writer.payload` (large ones are referenced, not copied), after which ``w.buf`` is reloaded;
- encoding a non-default value into a version lacking its field raises `UnsupportedFieldError`
  unless the field is ignorable, before anything is written; null where the version forbids it
  raises `DecodeError` on decode and ``ValueError`` on encode.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from odradek.wire.codegen import (
    FIXED,
    SIZED,
    Source,
    Unit,
    UnsupportedFieldError,
    array_layouts,
    check_name,
    default_expr,
    is_default_expr,
    type_name,
)
from odradek.wire.encoded_once import EncodedOnce
from odradek.wire.schema import ArrayOf, Field, Message, Primitive, Struct

__all__ = ["SLICE_ELEMENTS", "Compiled", "compiled_message", "compiled_struct"]


SLICE_ELEMENTS = 256
"""Elements of a top-level array of structs decoded or encoded between two steps of a generator."""


_compiled: dict[tuple[Struct, int, bool, bool], Compiled] = {}
_in_progress: set[tuple[Struct, int, bool, bool]] = set()
_generating = threading.RLock()


def compiled_message(message: Message, version: int, *, sliced: bool = False) -> Compiled:
    """The generated functions of ``message`` at ``version``; a version it lacks raises
    `UnsupportedFieldError`."""
    if version not in message.valid:
        raise UnsupportedFieldError(f"{message.name} has no version {version}")
    return compiled_struct(message.struct, version, message.is_flexible(version), sliced=sliced)


@dataclass(frozen=True, slots=True)
class Compiled(Unit):
    """The generated decoder and encoder of one (struct, version, flexible)."""

    decode: Callable[..., Any]
    encode: Callable[..., Any]
    may_spill: bool
    """Whether ``encode`` may call `Writer.payload`, which can replace ``w.buf``."""


def compiled_struct(struct_def: Struct, version: int, flexible: bool, *, sliced: bool = False) -> Compiled:
    """The generated functions of ``struct_def`` at ``version``, generated on first use; ``sliced``:
    the generators of `odradek.wire.codec.decode_in_slices` and `encode_in_slices`."""
    key = (struct_def, version, flexible, sliced)
    found = _compiled.get(key)
    if found is not None:
        return found
    with _generating:  # one generator at a time; re-entered for nested structs
        found = _compiled.get(key)
        if found is None:
            if key in _in_progress:
                raise ValueError(f"{struct_def.name} contains itself")
            _in_progress.add(key)
            try:
                found = _CodecWriter(struct_def, version, flexible, sliced=sliced).build()
            finally:
                _in_progress.discard(key)
            _compiled[key] = found
    return found


class _CodecWriter:
    """Writes the decoder and encoder source of one (struct, version, flexible)."""

    def __init__(self, struct_def: Struct, version: int, flexible: bool, *, sliced: bool = False) -> None:
        self.struct = struct_def
        self.version = version
        self.flexible = flexible
        self.sliced = sliced
        mode = ("flexible" if flexible else "classic") + (" in slices" if sliced else "")
        check_name(struct_def.name)
        self.src = Source(f"{struct_def.name} v{version} {mode}")
        self.regular: list[Field] = []
        self.tagged: list[Field] = []
        self.absent: list[Field] = []
        for f in struct_def.fields:
            check_name(f"{struct_def.name}.{f.name}")
            if version not in f.versions:
                self.absent.append(f)
            elif f.tag is not None and version in f.tagged:
                if not flexible:
                    raise ValueError(f"{struct_def.name}.{f.name}: tagged in non-flexible version {version}")
                self.tagged.append(f)
            else:
                self.regular.append(f)
        self.tagged.sort(key=lambda f: f.tag or 0)
        self.may_spill = any(self._spills(f.type) for f in self.regular)
        self.uses_end = False

    def _spills(self, f_type: Primitive | ArrayOf | Struct) -> bool:
        if isinstance(f_type, ArrayOf):
            return self._spills(f_type.element)
        if isinstance(f_type, Struct):
            return self._nested(f_type).may_spill
        return f_type in (Primitive.BYTES, Primitive.RECORDS)

    def _nested(self, struct_def: Struct) -> Compiled:
        nested = compiled_struct(struct_def, self.version, self.flexible)
        self.src.requires[id(nested)] = nested
        return nested

    def _nested_names(self, struct_def: Struct) -> tuple[str, str, bool]:
        nested = self._nested(struct_def)
        return (
            self.src.bind(f"_decode_{struct_def.name}", nested.decode),
            self.src.bind(f"_encode_{struct_def.name}", nested.encode),
            nested.may_spill,
        )

    def build(self) -> Compiled:
        src, name, version = self.src, self.struct.name, self.version
        mode = "flexible" if self.flexible else "classic"
        suffix = "_in_slices" if self.sliced else ""
        self._decoder(f"decode_{name}_v{version}{suffix}", f"{name} v{version} ({mode})")
        src.emit("")
        self._encoder(f"encode_{name}_v{version}{suffix}", f"{name} v{version} ({mode})")
        source, ns = src.compile()
        return Compiled(
            source,
            tuple(src.requires.values()),
            ns[f"decode_{name}_v{version}{suffix}"],
            ns[f"encode_{name}_v{version}{suffix}"],
            self.may_spill,
        )

    def _slice_end(self, index: str) -> None:
        """In a sliced top-level function: stop after every `SLICE_ELEMENTS` elements."""
        with self.src.block(f"if {index} % {SLICE_ELEMENTS} == {SLICE_ELEMENTS - 1}:"):
            self.src.emit("yield")

    def _runs(self) -> Iterator[list[Field]]:
        """The regular fields in order, consecutive fixed-size ones grouped into one run."""
        run: list[Field] = []
        for f in self.regular:
            if isinstance(f.type, Primitive) and f.type in FIXED:
                run.append(f)
                continue
            if run:
                yield run
                run = []
            yield [f]
        if run:
            yield run

    def _layout(self, run: list[Field]) -> tuple[str, int, str]:
        fmt = ">" + "".join(FIXED[f.type][0] for f in run if isinstance(f.type, Primitive))
        size = struct.calcsize(fmt)
        note = ", ".join(f"{f.name} {type_name(f.type)}" for f in run)
        return fmt, size, note

    @staticmethod
    def _is_fixed_run(run: list[Field]) -> bool:
        return isinstance(run[0].type, Primitive) and run[0].type in FIXED

    def _describe(self, f: Field) -> str:
        nullable = ", nullable" if self.version in f.nullable else ""
        return f"# {f.name}: {type_name(f.type)}{nullable}"

    # ---- decoding ------------------------------------------------------------------------------

    def _decoder(self, fn_name: str, title: str) -> None:
        src = self.src
        cls = src.bind("_cls", self.struct.cls)
        with src.block(f"def {fn_name}(buf, pos):"):
            src.emit(f'"""Decode {title} at buf[pos:]; return (value, position after it)."""')
            src.emit("end = len(buf)")
            end_line = len(src.lines) - 1
            self.uses_end = False
            src.emit(f"v = _new({cls})")
            for run in self._runs():
                if self._is_fixed_run(run):
                    fmt, size, note = self._layout(run)
                    unpack = src.const("unpack", struct.Struct(fmt).unpack_from)
                    targets = ", ".join(f"v.{f.name}" for f in run)
                    src.emit(f"# {note}")
                    src.emit(f"{targets if len(run) > 1 else f'({targets},)'} = {unpack}(buf, pos)  # {fmt}")
                    src.emit(f"pos += {size}")
                    continue
                f = run[0]
                src.emit(self._describe(f))
                self._read(f.type, self.version in f.nullable, f"v.{f.name}", "buf", "end")
            for f in self.absent:
                src.emit(f"v.{f.name} = {default_expr(src, f)}  # absent in this version")
            for f in self.tagged:
                src.emit(f"v.{f.name} = {default_expr(src, f)}  # tagged: the default unless sent")
            if self.flexible:
                self._read_tags()
            else:
                src.emit("v.unknown_tags = {}")
            src.emit("return v, pos")
        if not self.uses_end:
            del src.lines[end_line]

    def _uvarint(self, var: str, buf: str) -> None:
        src = self.src
        src.emit(f"{var} = {buf}[pos]")
        src.emit("pos += 1")
        with src.block(f"if {var} & 0x80:"):
            src.emit(f"{var}, pos = _uvarint_tail({buf}, pos, {var})")

    def _null(self, nullable: bool, target: str, what: str) -> None:
        if nullable:
            self.src.emit(f"{target} = None")
        else:
            self.src.emit(f'raise DecodeError("null {what} where the version does not allow null")')

    def _read(self, f_type: Primitive | ArrayOf | Struct, nullable: bool, target: str, buf: str, end: str) -> None:
        src = self.src
        if isinstance(f_type, ArrayOf):
            self._read_array(f_type.element, nullable, target, buf, end)
        elif isinstance(f_type, Struct):
            decode = self._nested_names(f_type)[0]
            if nullable:
                src.emit(f"flag = {buf}[pos]")
                src.emit("pos += 1")
                with src.block("if flag & 0x80:  # a negative int8: null"):
                    src.emit(f"{target} = None")
                with src.block("else:"):
                    src.emit(f"{target}, pos = {decode}({buf}, pos)")
            else:
                src.emit(f"{target}, pos = {decode}({buf}, pos)")
        elif f_type in FIXED:
            fmt = ">" + FIXED[f_type][0]
            unpack = src.const("unpack", struct.Struct(fmt).unpack_from)
            src.emit(f"({target},) = {unpack}({buf}, pos)  # {fmt}")
            src.emit(f"pos += {FIXED[f_type][1]}")
        else:
            self._read_sized(f_type, nullable, target, buf, end)

    def _read_sized(self, kind: Primitive, nullable: bool, target: str, buf: str, end: str) -> None:
        src, what = self.src, SIZED[kind]
        self.uses_end |= end == "end"
        if self.flexible:
            self._uvarint("n", buf)
            with src.block("if n == 0:"):
                self._null(nullable, target, what)
            stop = "pos + n - 1"
        else:
            src.emit(f"(n,) = {'_unpack_i16' if kind is Primitive.STRING else '_unpack_i32'}({buf}, pos)")
            src.emit(f"pos += {2 if kind is Primitive.STRING else 4}")
            with src.block("if n < 0:"):
                with src.block("if n != -1:"):
                    src.emit(f'raise DecodeError(f"negative {what} length {{n}}")')
                self._null(nullable, target, what)
            stop = "pos + n"
        with src.block("else:"):
            src.emit(f"stop = {stop}")
            with src.block(f"if stop > {end}:"):
                src.emit(f"raise _truncated(pos, stop, {end})")
            view = f"{buf}[pos:stop]"
            if kind is Primitive.STRING:
                src.emit(f'{target} = str({view}, "utf-8")')
            elif kind is Primitive.BYTES:
                src.emit(f"{target} = bytes({view})")
            else:
                src.emit(f"{target} = {view}  # zero-copy view")
            src.emit("pos = stop")

    def _read_array(self, element: Primitive | Struct, nullable: bool, target: str, buf: str, end: str) -> None:
        src = self.src
        self.uses_end |= end == "end"
        if self.flexible:
            self._uvarint("count", buf)
            src.emit("count -= 1")
        else:
            src.emit(f"(count,) = _unpack_i32({buf}, pos)")
            src.emit("pos += 4")
            with src.block("if count < -1:"):
                src.emit('raise DecodeError(f"negative array length {count}")')
        with src.block(f"if count > {end} - pos:"):
            src.emit(f"raise _too_many(count, pos, {end})")
        with src.block("if count < 0:"):
            self._null(nullable, target, "array")
        with src.block("else:"):
            if isinstance(element, Struct):
                decode = self._nested_names(element)[0]
                src.emit("items = []")
                with src.block(f"for {'index' if self.sliced else '_'} in range(count):"):
                    src.emit(f"item, pos = {decode}({buf}, pos)")
                    src.emit("items.append(item)")
                    if self.sliced:
                        self._slice_end("index")
                src.emit(f"{target} = items")
            elif element is Primitive.UUID:
                src.emit("stop = pos + 16 * count")
                with src.block(f"if stop > {end}:"):
                    src.emit(f"raise _truncated(pos, stop, {end})")
                src.emit(f"{target} = [bytes({buf}[p : p + 16]) for p in range(pos, stop, 16)]")
                src.emit("pos = stop")
            elif element in FIXED:
                code = FIXED[element][0]
                cache = src.bind(f"_{element.value}_arrays", array_layouts(code))
                src.emit(f'layout = {cache}.get(count) or _array_struct("{code}", count)')
                src.emit(f"{target} = list(layout.unpack_from({buf}, pos))")
                src.emit("pos += layout.size")
            else:
                src.emit("items = []")
                with src.block("for _ in range(count):"):
                    self._read_sized(element, False, "item", buf, end)
                    src.emit("items.append(item)")
                src.emit(f"{target} = items")

    def _read_tags(self) -> None:
        src = self.src
        src.emit("# tagged fields: count, then (tag, size, payload) in ascending tag order")
        self.uses_end = True
        src.emit("v.unknown_tags = unknown = {}")
        src.emit("ntags = buf[pos]")
        src.emit("pos += 1")
        with src.block("if ntags:"):
            with src.block("if ntags & 0x80:"):
                src.emit("ntags, pos = _uvarint_tail(buf, pos, ntags)")
            self._tag_loop()

    def _tag_loop(self) -> None:
        src = self.src
        src.emit("last = -1")
        with src.block("for _ in range(ntags):"):
            self._uvarint("tag", "buf")
            with src.block("if tag <= last:"):
                src.emit('raise DecodeError(f"tagged fields out of order: {tag} after {last}")')
            src.emit("last = tag")
            self._uvarint("tlen", "buf")
            src.emit("tend = pos + tlen")
            with src.block("if tend > end:"):
                src.emit("raise _truncated(pos, tend, end)")
            branch = "if"
            for f in self.tagged:
                with src.block(f"{branch} tag == {f.tag}:  {self._describe(f)}"):
                    src.emit("sub = buf[:tend]")
                    self._read(f.type, self.version in f.nullable, f"v.{f.name}", "sub", "tend")
                    with src.block("if pos != tend:"):
                        src.emit(f'raise DecodeError(f"tagged field {f.name} has {{tend - pos}} trailing bytes")')
                branch = "elif"
            if self.tagged:
                with src.block("else:"):
                    self._keep_unknown()
            else:
                self._keep_unknown()

    def _keep_unknown(self) -> None:
        self.src.emit("unknown[tag] = bytes(buf[pos:tend])")
        self.src.emit("pos = tend")

    # ---- encoding ------------------------------------------------------------------------------

    def _encoder(self, fn_name: str, title: str) -> None:
        src = self.src
        with src.block(f"def {fn_name}(w, v):"):
            src.emit(f'"""Append {title} to the writer ``w``."""')
            for f in self.absent:
                if f.ignorable:
                    continue
                with src.block(f"if not {is_default_expr(src, f, 'v.' + f.name)}:"):
                    message = f"{self.struct.cls.__name__}.{f.name} cannot be sent in this version"
                    src.emit(f"raise UnsupportedFieldError({message!r})")
            src.emit("buf = w.buf")
            for run in self._runs():
                if self._is_fixed_run(run):
                    fmt, _, note = self._layout(run)
                    pack = src.const("pack", struct.Struct(fmt).pack)
                    src.emit(f"# {note}")
                    for f in run:
                        if f.type is Primitive.UUID:
                            self._check_uuid(f"v.{f.name}")
                    values = ", ".join(f"v.{f.name}" for f in run)
                    src.emit(f"buf += {pack}({values})  # {fmt}")
                    continue
                f = run[0]
                src.emit(self._describe(f))
                src.emit(f"x = v.{f.name}")
                self._write(f.type, self.version in f.nullable, "x", "w", "buf")
            if self.flexible:
                self._write_tags()

    def _check_uuid(self, value: str) -> None:
        with self.src.block(f"if len({value}) != 16:"):
            self.src.emit('raise ValueError("a uuid is 16 bytes")')

    def _put_uvarint(self, value: str, buf: str) -> None:
        src = self.src
        src.emit(f"n = {value}")
        with src.block("if n < 0x80:"):
            src.emit(f"{buf}.append(n)")
        with src.block("else:"):
            src.emit(f"_put_uvarint({buf}, n)")

    def _null_write(self, nullable: bool, null_bytes: str, buf: str, what: str) -> None:
        if nullable:
            self.src.emit(f"{buf} += {null_bytes}")
        else:
            self.src.emit(f'raise ValueError("null {what} where the version does not allow null")')

    def _write(self, f_type: Primitive | ArrayOf | Struct, nullable: bool, x: str, w: str, buf: str) -> None:
        src = self.src
        if isinstance(f_type, ArrayOf):
            self._write_array(f_type.element, nullable, x, w, buf)
        elif isinstance(f_type, Struct):
            _, encode, spills = self._nested_names(f_type)
            with src.block(f"if {x} is None:"):
                self._null_write(nullable, 'b"\\xff"', buf, f_type.name)
            with src.block("else:"):
                if nullable:
                    src.emit(f"{buf}.append(1)")
                src.emit(f"{encode}({w}, {x})")
                if spills:
                    src.emit(f"{buf} = {w}.buf")
        elif f_type in FIXED:
            if f_type is Primitive.UUID:
                self._check_uuid(x)
            fmt = ">" + FIXED[f_type][0]
            src.emit(f"{buf} += {src.const('pack', struct.Struct(fmt).pack)}({x})  # {fmt}")
        else:
            self._write_sized(f_type, nullable, x, w, buf)

    def _write_sized(self, kind: Primitive, nullable: bool, x: str, w: str, buf: str) -> None:
        src, what = self.src, SIZED[kind]
        if self.flexible:
            null_bytes = 'b"\\x00"'
        else:
            null_bytes = 'b"\\xff\\xff"' if kind is Primitive.STRING else 'b"\\xff\\xff\\xff\\xff"'
        with src.block(f"if {x} is None:"):
            self._null_write(nullable, null_bytes, buf, what)
        with src.block("else:"):
            data = "data" if kind is Primitive.STRING else x
            if kind is Primitive.STRING:
                src.emit(f"data = {x}.encode()")
            if self.flexible:
                self._put_uvarint(f"len({data}) + 1", buf)
            else:
                src.emit(f"{buf} += {'_pack_i16' if kind is Primitive.STRING else '_pack_i32'}(len({data}))")
            if kind is Primitive.STRING:
                src.emit(f"{buf} += data")
            else:
                src.emit(f"{w}.payload({x})  # large payloads are referenced, not copied")
                src.emit(f"{buf} = {w}.buf")

    def _write_encoded_once(self, encode: str, x: str, w: str, buf: str) -> None:
        """The elements of an array of structs that never set a payload aside: an `EncodedOnce`
        list as the bytes its first encoding kept, any other list element by element."""
        src = self.src
        with src.block(f"if {x}.__class__ is {src.bind('_EncodedOnce', EncodedOnce)}:"):
            src.emit(f"{buf} += {x}.encoded({encode})")
        with src.block("else:"), src.block(f"for item in {x}:"):
            src.emit(f"{encode}({w}, item)")

    def _write_array(self, element: Primitive | Struct, nullable: bool, x: str, w: str, buf: str) -> None:
        src = self.src
        with src.block(f"if {x} is None:"):
            self._null_write(nullable, 'b"\\x00"' if self.flexible else 'b"\\xff\\xff\\xff\\xff"', buf, "array")
        with src.block("else:"):
            if self.flexible:
                self._put_uvarint(f"len({x}) + 1", buf)
            else:
                src.emit(f"{buf} += _pack_i32(len({x}))")
            if isinstance(element, Struct):
                _, encode, spills = self._nested_names(element)
                if not (spills or self.sliced):
                    self._write_encoded_once(encode, x, w, buf)
                    return
                with src.block(f"for {'index, item in enumerate(' + x + ')' if self.sliced else 'item in ' + x}:"):
                    src.emit(f"{encode}({w}, item)")
                    if self.sliced:
                        self._slice_end("index")
                src.emit(f"{buf} = {w}.buf")  # a payload or a slice boundary may set the buffer aside
            elif element is Primitive.UUID:
                with src.block(f"for item in {x}:"):
                    self._check_uuid("item")
                    src.emit(f"{buf} += item")
            elif element in FIXED:
                code = FIXED[element][0]
                cache = src.bind(f"_{element.value}_arrays", array_layouts(code))
                src.emit(f'layout = {cache}.get(len({x})) or _array_struct("{code}", len({x}))')
                src.emit(f"{buf} += layout.pack(*{x})")
            else:
                with src.block(f"for item in {x}:"):
                    self._write_sized(element, False, "item", w, buf)

    def _write_tags(self) -> None:
        src = self.src
        src.emit("# tagged fields: count, then (tag, size, payload) in ascending tag order")
        if not self.tagged:
            src.emit('unknown = getattr(v, "unknown_tags", None)')
            with src.block("if unknown:"):
                src.emit("_write_tags(buf, sorted(unknown.items(), key=_tag_of))")
            with src.block("else:"):
                src.emit("buf.append(0)")
            return
        src.emit("tags = []")
        for f in self.tagged:
            src.emit(self._describe(f))
            src.emit(f"x = v.{f.name}")
            with src.block(f"if not {is_default_expr(src, f, 'x')}:"):
                src.emit("sub = _Writer()")
                if not isinstance(f.type, Struct):
                    src.emit("tbuf = sub.buf")
                self._write(f.type, self.version in f.nullable, "x", "sub", "tbuf")
                src.emit(f"tags.append(({f.tag}, sub.getvalue()))")
        known = src.const("known_tags", frozenset(f.tag for f in self.tagged))
        src.emit('unknown = getattr(v, "unknown_tags", None)')
        with src.block("if unknown:"):
            src.emit(f"tags.extend(item for item in unknown.items() if item[0] not in {known})")
            src.emit("tags.sort(key=_tag_of)")
        with src.block("if tags:"):
            src.emit("_write_tags(buf, tags)")
        with src.block("else:"):
            src.emit("buf.append(0)")
