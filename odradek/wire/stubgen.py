"""Type stubs for the message value classes, written from the definitions the codec compiles.

``python -m odradek.wire.stubgen`` writes one ``.pyi`` beside each family module of
`odradek.wire.messages`; with ``--check`` it writes nothing and exits 1 with a diff when a
checked-in stub is stale (a unit test does the same).  Mypy reads a stub instead of the module
beside it, so the stub declares everything the module exports.

For a message ``X`` (say ``ProduceResponse``) a stub declares:

- ``class XValue(StructValue)``: the value class (the family module binds ``XValue = X.cls``, so
  the name exists at run time too); inside it one class per nested struct, by struct name, as the
  runtime class hangs them (``ProduceResponseValue.TopicProduceResponse``); a struct used in two
  places is declared at the first and aliased at the others, since it is one class at run time;
- its fields, then a keyword-only ``__init__`` in which every argument has its default;
- ``class _X(Message[XValue])`` with the same nested classes and a ``__call__`` taking the same
  keywords, and ``X: _X``, so ``X(...)`` and ``X.TopicProduceResponse(...)`` are typed.

Field types are what the codec decodes and accepts (`odradek.wire.codec`):

- bool -> ``bool``; int8, int16, uint16, int32, int64 -> ``int``; float64 -> ``float``;
- string -> ``str``; bytes -> ``bytes`` (decoded as a copy); uuid -> ``bytes`` (16 raw bytes);
- records -> ``Part``: decoding yields a zero-copy ``memoryview``, and encoding takes any `Part`,
  bytes or a `FilePart` a fetch response sends from its segment file;
- an array -> ``list[element]``; a struct -> its class;
- ``| None`` when the field is nullable in some version it exists in, or its default is None
  (records always default to None).

Invariant: rendering is a pure function of the definitions, so the stubs can be regenerated and
compared byte for byte; the output is already in ``ruff format`` style.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from odradek.wire.messages import FAMILIES
from odradek.wire.schema import MISSING, ArrayOf, Field, Message, Primitive, Struct, Versions

__all__ = ["PRIMITIVE_TYPES", "annotation", "check", "main", "render", "stub_path", "value_name", "write"]

LINE_LENGTH = 120
_INDENT = "    "

PRIMITIVE_TYPES: dict[Primitive, str] = {
    Primitive.BOOL: "bool",
    Primitive.INT8: "int",
    Primitive.INT16: "int",
    Primitive.UINT16: "int",
    Primitive.INT32: "int",
    Primitive.INT64: "int",
    Primitive.FLOAT64: "float",
    Primitive.STRING: "str",
    Primitive.BYTES: "bytes",
    Primitive.UUID: "bytes",
    Primitive.RECORDS: "Part",
}
"""The Python type of each primitive, as the stubs spell it."""

_UNKNOWN_TAGS = "unknown_tags: dict[int, bytes] | None = None"


def value_name(message: Message) -> str:
    """The name of a message's value class in its stub and its family module."""
    return f"{message.name}Value"


def stub_path(module: ModuleType) -> Path:
    """Where the stub of a family module lives: beside it, same name, ``.pyi``."""
    if module.__file__ is None:
        raise ValueError(f"{module.__name__} has no file")
    return Path(module.__file__).with_suffix(".pyi")


def _overlap(*ranges: Versions) -> bool:
    """Whether some version lies in every range."""
    low = max(r.low for r in ranges)
    highs = [r.high for r in ranges if r.high is not None]
    return not highs or low <= min(highs)


def _versions_text(v: Versions) -> str:
    if v.high is None:
        return f"{v.low}+"
    return str(v.low) if v.low == v.high else f"{v.low}-{v.high}"


def _nested(struct_def: Struct) -> list[Struct]:
    """The structs of a struct's fields, once each, in field order (its runtime nested classes)."""
    found: dict[str, Struct] = {}
    for f in struct_def.fields:
        element = f.type.element if isinstance(f.type, ArrayOf) else f.type
        if not isinstance(element, Struct):
            continue
        other = found.setdefault(element.name, element)
        if other is not element:
            raise ValueError(f"{struct_def.name} has two different nested structs named {element.name}")
    return list(found.values())


@dataclass(frozen=True, slots=True)
class _Param:
    """One field as the stubs show it: annotation, default, and a note on its versions."""

    name: str
    annotation: str
    default: str
    note: str


class _StubWriter:
    """Writes the stub of one family module."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.places: dict[Struct, str] = {}
        self.uses_alias = False
        self.uses_part = False

    def render(self) -> str:
        messages = [getattr(self.module, name) for name in self.module.__all__]
        body: list[str] = []
        for message in messages:
            if not isinstance(message, Message):
                raise ValueError(f"{self.module.__name__}: {message!r} is not a Message")
            body.extend(self._message(message))
        head = [
            f'"""Types of `{self.module.__name__}`, written by `python -m odradek.wire.stubgen`: do not edit."""',
            "",
        ]
        if self.uses_alias:
            head += ["from typing import TypeAlias", ""]
        if self.uses_part:
            head.append("from odradek.wire.primitives import Part")
        head.append("from odradek.wire.schema import Message, StructValue")
        exported = [f'"{name}"' for name in self.module.__all__]
        one_line = f"__all__ = [{', '.join(exported)}]"
        if len(one_line) <= LINE_LENGTH:
            head += ["", one_line]
        else:
            head += ["", "__all__ = [", *(f"{_INDENT}{name}," for name in exported), "]"]
        return "\n".join(head + body) + "\n"

    # ---- one message ---------------------------------------------------------------------------

    def _message(self, message: Message) -> Iterator[str]:
        value = value_name(message)
        self.places[message.struct] = value
        flexible = _versions_text(message.flexible) if not message.flexible.is_empty() else "none"
        doc = (
            f"{message.name} (api key {message.api_key}), versions {_versions_text(message.valid)}, "
            f"flexible {flexible}."
        )
        yield ""
        yield from self._class(message.struct, value, message.valid, 0, doc)
        params = self._params(message.struct, message.valid)
        yield ""
        yield f"class _{message.name}(Message[{value}]):"
        for nested in _nested(message.struct):
            yield from self._alias(nested.name, self.places[nested], 1)
        yield from self._signature("__call__", params, value, 1)
        yield ""
        yield f"{message.name}: _{message.name}"

    def _class(self, struct_def: Struct, path: str, valid: Versions, depth: int, doc: str | None) -> Iterator[str]:
        pad = _INDENT * depth
        yield f"{pad}class {path.rsplit('.', 1)[-1]}(StructValue):"
        if doc is not None:
            yield f'{pad}{_INDENT}"""{doc}"""'
            yield ""
        for nested in _nested(struct_def):
            place = self.places.get(nested)
            if place is None:
                self.places[nested] = f"{path}.{nested.name}"
                yield from self._class(nested, f"{path}.{nested.name}", valid, depth + 1, None)
                yield ""
            else:
                yield from self._alias(nested.name, place, depth + 1)
        params = self._params(struct_def, valid)
        for p in params:
            yield _with_note(f"{pad}{_INDENT}{p.name}: {p.annotation}", p.note)
        yield from self._signature("__init__", params, "None", depth + 1)

    def _alias(self, name: str, target: str, depth: int) -> Iterator[str]:
        self.uses_alias = True
        pad = _INDENT * depth
        line = f"{pad}{name}: TypeAlias = {target}"
        if len(line) <= LINE_LENGTH:
            yield line
        else:
            yield f"{pad}{name}: TypeAlias = ("
            yield f"{pad}{_INDENT}{target}"
            yield f"{pad})"

    # ---- fields --------------------------------------------------------------------------------

    def _params(self, struct_def: Struct, valid: Versions) -> list[_Param]:
        return [self._param(f, valid) for f in struct_def.fields]

    def _param(self, f: Field, valid: Versions) -> _Param:
        self.uses_part |= f.type is Primitive.RECORDS or f.type == ArrayOf(Primitive.RECORDS)
        always = f.versions.low <= valid.low and f.versions.high is None
        note = [] if always else [f"v{_versions_text(f.versions)}"]
        if not f.nullable.is_empty():
            note.append(f"nullable v{_versions_text(f.nullable)}")
        if f.tag is not None and not f.tagged.is_empty():
            tagged = "" if f.tagged == f.versions else f" in v{_versions_text(f.tagged)}"
            note.append(f"tag {f.tag}{tagged}")
        return _Param(f.name, annotation(f, valid), _default_text(f), ", ".join(note))

    def _signature(self, name: str, params: Sequence[_Param], returns: str, depth: int) -> Iterator[str]:
        """A keyword-only signature, on one line if it fits, else wrapped as ``ruff format`` does."""
        pad = _INDENT * depth
        args = ["self", "*", *(f"{p.name}: {p.annotation} = {p.default}" for p in params), _UNKNOWN_TAGS]
        one_line = f"{pad}def {name}({', '.join(args)}) -> {returns}: ..."
        if len(one_line) <= LINE_LENGTH:
            yield one_line
            return
        inner = f"{pad}{_INDENT}{', '.join(args)}"
        if len(inner) <= LINE_LENGTH:
            yield f"{pad}def {name}("
            yield inner
            yield f"{pad}) -> {returns}: ..."
            return
        yield f"{pad}def {name}("
        for arg in args:
            yield f"{pad}{_INDENT}{arg},"
        yield f"{pad}) -> {returns}: ..."


def annotation(f: Field, valid: Versions) -> str:
    """The type of field ``f`` of a message whose valid versions are ``valid``, as the stub spells
    it; a nested struct is named by its class name, which its owner's class body resolves."""
    element = f.type.element if isinstance(f.type, ArrayOf) else f.type
    base = element.name if isinstance(element, Struct) else PRIMITIVE_TYPES[element]
    text = f"list[{base}]" if isinstance(f.type, ArrayOf) else base
    if _overlap(valid, f.versions, f.nullable) or f.default_value() is None:
        text += " | None"
    return text


def _default_text(f: Field) -> str:
    """The default as a literal when it is a simple one (as the codec fills it), else ``...``."""
    if f.default is MISSING and isinstance(f.type, ArrayOf | Struct):
        return "..."
    value = f.default_value()
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, str) and value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'
    if value == b"":
        return 'b""'
    return "..."


def _with_note(line: str, note: str) -> str:
    if not note:
        return line
    commented = f"{line}  # {note}"
    return commented if len(commented) <= LINE_LENGTH else line


def render(module: ModuleType) -> str:
    """The stub text of one family module of `odradek.wire.messages`."""
    return _StubWriter(module).render()


def write(modules: Sequence[ModuleType]) -> list[Path]:
    """Write the stubs of ``modules``; return the paths whose content changed."""
    changed: list[Path] = []
    for module in modules:
        path, text = stub_path(module), render(module)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def check(modules: Sequence[ModuleType]) -> str:
    """A unified diff from the checked-in stubs of ``modules`` to fresh ones ("" when all match)."""
    diffs: list[str] = []
    for module in modules:
        path = stub_path(module)
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        new = render(module)
        if old != new:
            name = path.name
            diffs.extend(
                difflib.unified_diff(
                    old.splitlines(True), new.splitlines(True), f"checked-in {name}", f"generated {name}"
                )
            )
    return "".join(diffs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m odradek.wire.stubgen", description="Write the stubs of the message value classes."
    )
    parser.add_argument("--check", action="store_true", help="write nothing; print a diff and exit 1 if stale")
    args = parser.parse_args(argv)
    modules = FAMILIES
    if args.check:
        diff = check(modules)
        sys.stdout.write(diff)
        return 1 if diff else 0
    for path in write(modules):
        sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
