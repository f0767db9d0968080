"""The storage package imports only odradek.wire.records and odradek.clock from odradek."""

from __future__ import annotations

import ast
from pathlib import Path

import odradek.storage

ALLOWED_PREFIXES = ("odradek.storage", "odradek.wire.records", "odradek.clock")
FORBIDDEN_MODULES = {"asyncio", "socket"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.add(node.module)
    return names


def test_storage_depends_only_on_records_and_clock() -> None:
    package = Path(odradek.storage.__file__).parent
    files = sorted(package.glob("*.py"))
    assert len(files) >= 10
    for path in files:
        for name in _imports(path):
            if name.startswith("odradek"):
                assert name.startswith(ALLOWED_PREFIXES), f"{path.name} imports {name}"
            assert name.split(".")[0] not in FORBIDDEN_MODULES, f"{path.name} imports {name}"
