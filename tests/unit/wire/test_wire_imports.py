"""The wire layer's boundary: its modules and stubs import nothing of odradek outside
`odradek.wire`, and never asyncio or socket (the codec is sans-IO)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import odradek.wire

WIRE = Path(odradek.wire.__file__).parent
SOURCES = sorted([*WIRE.rglob("*.py"), *WIRE.rglob("*.pyi")])
FORBIDDEN = ("asyncio", "socket")


def _imported(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(WIRE)) for p in SOURCES])
def test_wire_module_stays_inside_its_boundary(path: Path) -> None:
    for name in _imported(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN, f"{path.name} imports {name}"
        if top == "odradek":
            assert name == "odradek.wire" or name.startswith("odradek.wire."), f"{path.name} imports {name}"


def test_the_stubs_are_among_the_checked_files() -> None:
    assert any(p.suffix == ".pyi" for p in SOURCES)
    assert any(p.name == "stubgen.py" for p in SOURCES)
