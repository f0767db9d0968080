"""The generated stubs: checked in fresh, true to the runtime classes, true to what the codec yields.

- freshness: regenerating every stub in memory gives the checked-in text (else a diff and the
  command that fixes it);
- structure: parsed with `ast`, every class a stub declares is reachable at run time by the same
  dotted path, with the same fields in the same order, every alias names the very class it stands
  for, and every ``<Name>Value`` the handlers import exists;
- types: every message, in every valid version, is filled with a value in each field (and then
  with null wherever the version allows it), encoded and decoded, and each decoded field is an
  instance of the type its stub annotation names;
- the command: ``--check`` passes on the repository and fails with a diff on a stale stub.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from odradek.wire import stubgen
from odradek.wire.codec import decode, encode
from odradek.wire.messages import FAMILIES
from odradek.wire.schema import (
    INT32,
    RECORDS,
    STRING,
    ArrayOf,
    Field,
    Kind,
    Message,
    Primitive,
    Struct,
    StructValue,
    Versions,
)

FAMILY_IDS = [module.__name__.rsplit(".", 1)[-1] for module in FAMILIES]
MESSAGES: list[Message] = [getattr(module, name) for module in FAMILIES for name in module.__all__]

# What an annotation's type name admits at run time (``Part`` as the codec decodes it: a view).
RUNTIME_TYPES: dict[str, type | tuple[type, ...]] = {
    "bool": bool,
    "int": int,
    "float": float,
    "str": str,
    "bytes": bytes,
    "Part": memoryview,
}


@pytest.mark.parametrize("module", FAMILIES, ids=FAMILY_IDS)
def test_checked_in_stub_is_what_the_definitions_generate(module: ModuleType) -> None:
    diff = stubgen.check([module])
    assert not diff, f"stale stub; run `python -m odradek.wire.stubgen` to rewrite it:\n{diff}"


def _resolve(root: Any, dotted: str) -> Any:
    value = root
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


def _check_value_class(module: ModuleType, node: ast.ClassDef, runtime: type) -> None:
    """The class ``node`` declares is ``runtime``: same nested classes, aliases and fields."""
    assert issubclass(runtime, StructValue)
    fields: list[str] = []
    for item in node.body:
        if isinstance(item, ast.ClassDef):
            _check_value_class(module, item, getattr(runtime, item.name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            name = item.target.id
            if ast.unparse(item.annotation) == "TypeAlias":
                assert item.value is not None
                assert getattr(runtime, name) is _resolve(module, ast.unparse(item.value)), name
            else:
                fields.append(name)
    assert tuple(fields) == runtime.__slots__, runtime


@pytest.mark.parametrize("module", FAMILIES, ids=FAMILY_IDS)
def test_stub_declares_the_runtime_classes(module: ModuleType) -> None:
    tree = ast.parse(stubgen.stub_path(module).read_text(encoding="utf-8"))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    declared = [
        node.target.id for node in tree.body if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    ]
    assert declared == list(module.__all__)
    for name in module.__all__:
        message = getattr(module, name)
        value_class = getattr(module, stubgen.value_name(message))
        assert value_class is message.cls
        _check_value_class(module, classes[stubgen.value_name(message)], value_class)
        for item in classes[f"_{name}"].body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                assert item.value is not None
                assert getattr(message, item.target.id) is _resolve(module, ast.unparse(item.value))


def _sample(struct_def: Struct, version: int, nulls: bool) -> StructValue:
    """Every field present in ``version`` set: null where allowed (``nulls``), else a value."""
    values: dict[str, Any] = {}
    for f in struct_def.fields:
        if version not in f.versions:
            continue
        if nulls and version in f.nullable:
            values[f.name] = None
        elif isinstance(f.type, Struct):
            values[f.name] = _sample(f.type, version, nulls)
        elif isinstance(f.type, ArrayOf) and isinstance(f.type.element, Struct):
            values[f.name] = [_sample(f.type.element, version, nulls)]
        elif isinstance(f.type, ArrayOf):
            values[f.name] = [_primitive(f.type.element)]
        else:
            values[f.name] = _primitive(f.type)
    return struct_def.cls(**values)


def _primitive(kind: Primitive) -> Any:
    samples: dict[Primitive, Any] = {
        Primitive.BOOL: True,
        Primitive.FLOAT64: 2.5,
        Primitive.STRING: "s",
        Primitive.BYTES: b"b",
        Primitive.UUID: bytes(range(16)),
        Primitive.RECORDS: b"records",
    }
    return samples.get(kind, 7)


def _assert_typed(struct_def: Struct, value: StructValue, valid: Versions, where: str) -> int:
    """Check every field of ``value`` against its stub annotation; return how many were checked."""
    checked = 0
    for f in struct_def.fields:
        text = stubgen.annotation(f, valid)
        got = getattr(value, f.name)
        label = f"{where}.{f.name}: {text} holds {got!r}"
        checked += 1
        if got is None:
            assert text.endswith(" | None"), label
            continue
        base = text.removesuffix(" | None")
        if isinstance(f.type, ArrayOf):
            assert isinstance(got, list), label
            element = f.type.element
            for item in got:
                if isinstance(element, Struct):
                    checked += _assert_typed(element, item, valid, f"{where}.{f.name}[]")
                else:
                    assert isinstance(item, RUNTIME_TYPES[base.removeprefix("list[").removesuffix("]")]), label
        elif isinstance(f.type, Struct):
            assert type(got) is getattr(type(value), base), label
            checked += _assert_typed(f.type, got, valid, f"{where}.{f.name}")
        else:
            assert isinstance(got, RUNTIME_TYPES[base]), label
    return checked


CASES = [
    (message, version, nulls)
    for message in MESSAGES
    for version in range(message.valid.low, (message.valid.high or message.valid.low) + 1)
    for nulls in (False, True)
]


@pytest.mark.parametrize(
    ("message", "version", "nulls"), CASES, ids=[f"{m.name}-v{v}{'-nulls' if n else ''}" for m, v, n in CASES]
)
def test_decoded_fields_have_their_stub_types(message: Message, version: int, nulls: bool) -> None:
    decoded = decode(message, version, encode(message, version, _sample(message.struct, version, nulls)))
    assert type(decoded) is message.cls
    assert _assert_typed(message.struct, decoded, message.valid, message.name) > 0


def test_a_field_nullable_in_some_versions_is_typed_nullable() -> None:
    valid = Versions.parse("0-5")
    assert stubgen.annotation(Field("a", STRING, "0+", nullable="3+"), valid) == "str | None"
    assert stubgen.annotation(Field("a", STRING, "0+"), valid) == "str"
    # Nullable only in versions the message does not have: never null on the wire.
    assert stubgen.annotation(Field("a", STRING, "0+", nullable="7+"), valid) == "str"
    assert stubgen.annotation(Field("a", STRING, "0+", default=None), valid) == "str | None"
    assert stubgen.annotation(Field("r", RECORDS, "0+"), valid) == "Part | None"
    assert stubgen.annotation(Field("xs", ArrayOf(INT32), "2+", nullable="2+"), valid) == "list[int] | None"


def _fake_family(directory: Path) -> ModuleType:
    module = ModuleType("fake_family")
    module.__file__ = str(directory / "fake_family.py")
    module.__all__ = ["FakeRequest"]
    module.FakeRequest = Message(  # type: ignore[attr-defined]
        "FakeRequest",
        api_key=1002,
        kind=Kind.REQUEST,
        valid="0-1",
        flexible="1+",
        fields=[Field("count", INT32), Field("name", STRING, "1+", nullable="1+", default=None)],
    )
    return module


def test_check_reports_a_stale_stub_with_a_diff(tmp_path: Path) -> None:
    module = _fake_family(tmp_path)
    assert stubgen.check([module]) != ""  # no stub yet
    assert stubgen.write([module]) == [tmp_path / "fake_family.pyi"]
    assert stubgen.check([module]) == ""
    assert stubgen.write([module]) == []
    stub = tmp_path / "fake_family.pyi"
    stub.write_text(stub.read_text(encoding="utf-8").replace("count: int", "count: str"), encoding="utf-8")
    diff = stubgen.check([module])
    assert "-    count: str" in diff
    assert "+    count: int" in diff


def test_command_check_passes_on_the_repository(capsys: pytest.CaptureFixture[str]) -> None:
    assert stubgen.main(["--check"]) == 0
    assert capsys.readouterr().out == ""
