"""tools/compile.py, the build of the mypyc overlay: its module list names real modules that may be
compiled, and its up-to-date check follows every file of the package (the compiled build itself is
checked by tests/compiled, which ``make test`` runs against the overlay)."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from tests.compile_tool import REPO_ROOT, compile_tool


def test_every_listed_module_exists_once() -> None:
    modules = compile_tool.COMPILED_MODULES
    assert len(set(modules)) == len(modules)
    for module in modules:
        assert (REPO_ROOT / compile_tool.module_path(module)).is_file(), module


def test_no_listed_module_defines_a_runtime_checkable_protocol() -> None:
    """mypyc refuses them at import time; the overlay would build and then fail to start."""
    for module in compile_tool.COMPILED_MODULES:
        source = (REPO_ROOT / compile_tool.module_path(module)).read_text()
        assert not re.search(r"^@(typing\.)?runtime_checkable", source, re.MULTILINE), module


def test_subclassed_file_systems_stay_interpreted() -> None:
    """Tests subclass MemoryFileSystem and OsFileSystem; an interpreted class cannot subclass a compiled one."""
    assert "odradek.storage.filesystem" not in compile_tool.COMPILED_MODULES


def _classes_of_compiled_modules() -> dict[str, set[str]]:
    """Each compiled module's top-level class names."""
    classes: dict[str, set[str]] = {}
    for module in compile_tool.COMPILED_MODULES:
        tree = ast.parse((REPO_ROOT / compile_tool.module_path(module)).read_text())
        classes[module] = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    return classes


def _interpreted_subclasses_of_compiled_classes(path: Path, compiled: dict[str, set[str]]) -> list[str]:
    """Classes of ``path`` whose base is a compiled class imported by name (``from M import C``) or
    reached through its module (``M.C`` after ``import M`` or ``from P import M``)."""
    tree = ast.parse(path.read_text())
    by_name: dict[str, str] = {}
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if node.module in compiled and alias.name in compiled[node.module]:
                    by_name[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if f"{node.module}.{alias.name}" in compiled:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in compiled and alias.asname:
                    modules[alias.asname] = alias.name
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in by_name:
                found.append(f"{path.relative_to(REPO_ROOT)}: {node.name}({by_name[base.id]})")
            elif (
                isinstance(base, ast.Attribute)
                and isinstance(base.value, ast.Name)
                and base.value.id in modules
                and base.attr in compiled[modules[base.value.id]]
            ):
                found.append(f"{path.relative_to(REPO_ROOT)}: {node.name}({modules[base.value.id]}.{base.attr})")
    return found


def test_no_interpreted_class_subclasses_a_compiled_one() -> None:
    """An interpreted class cannot subclass a compiled one: such a module would fail to import in the
    compiled build (compile the subclass's module too, or leave the base's module interpreted)."""
    compiled = _classes_of_compiled_modules()
    compiled_files = {REPO_ROOT / compile_tool.module_path(module) for module in compiled}
    found = [
        line
        for folder in ("odradek", "tests", "benchmarks", "examples", "compat-tests")
        for path in sorted((REPO_ROOT / folder).rglob("*.py"))
        if path not in compiled_files
        for line in _interpreted_subclasses_of_compiled_classes(path, compiled)
    ]
    assert found == []


def _package(root: Path) -> None:
    (root / "odradek" / "sub").mkdir(parents=True)
    (root / "odradek" / "__init__.py").write_text("")
    (root / "odradek" / "sub" / "mod.py").write_text("X = 1\n")
    (root / "odradek" / "sub" / "data.json").write_text("{}\n")


def test_the_digest_follows_every_file_of_the_package(tmp_path: Path) -> None:
    _package(tmp_path)
    first = compile_tool.source_digest(tmp_path, ("odradek.sub.mod",))
    assert compile_tool.source_digest(tmp_path, ("odradek.sub.mod",)) == first
    (tmp_path / "odradek" / "sub" / "__pycache__").mkdir()
    (tmp_path / "odradek" / "sub" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"bytecode")
    assert compile_tool.source_digest(tmp_path, ("odradek.sub.mod",)) == first
    assert compile_tool.source_digest(tmp_path, ()) != first
    (tmp_path / "odradek" / "sub" / "data.json").write_text("{ }\n")
    second = compile_tool.source_digest(tmp_path, ("odradek.sub.mod",))
    assert second != first
    (tmp_path / "odradek" / "sub" / "new.py").write_text("")
    assert compile_tool.source_digest(tmp_path, ("odradek.sub.mod",)) != second


def test_an_overlay_is_up_to_date_only_with_its_digest(tmp_path: Path) -> None:
    out = tmp_path / "compiled"
    assert not compile_tool.is_up_to_date(out, "abc")
    out.mkdir()
    (out / compile_tool.STAMP_NAME).write_text("abc\n")
    assert compile_tool.is_up_to_date(out, "abc")
    assert not compile_tool.is_up_to_date(out, "abd")


def test_an_up_to_date_overlay_is_not_rebuilt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _package(tmp_path)
    out = tmp_path / "compiled"
    out.mkdir()
    digest = compile_tool.source_digest(tmp_path, ("odradek.sub.mod",))
    (out / compile_tool.STAMP_NAME).write_text(digest + "\n")
    (out / "kept").write_text("")
    assert compile_tool.build(out, tmp_path, ("odradek.sub.mod",)) is False
    assert (out / "kept").exists()
    assert "is up to date" in capsys.readouterr().out


def test_a_failed_compile_leaves_no_overlay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make run` puts the overlay first on the path and the checkout's sources second: a half-built
    overlay (a copied package, some extensions) must not be found there; nothing at all falls back."""
    _package(tmp_path)
    out = tmp_path / "compiled"
    out.mkdir()
    (out / compile_tool.STAMP_NAME).write_text("an older digest\n")

    def refused(*_: object) -> None:
        raise subprocess.CalledProcessError(1, ["mypyc"])

    monkeypatch.setattr(compile_tool, "_compile", refused)
    with pytest.raises(subprocess.CalledProcessError):
        compile_tool.build(out, tmp_path, ("odradek.sub.mod",))
    assert not out.exists()


def test_a_failed_build_exits_1_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make run` prints its own line and runs the sources; the tool adds one line, not a traceback."""

    def refused(*_: object) -> None:
        raise subprocess.CalledProcessError(1, ["mypyc"])

    monkeypatch.setattr(compile_tool, "_compile", refused)
    assert compile_tool.main(["--out", str(tmp_path / "compiled")]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"compile.py: mypyc could not build {tmp_path / 'compiled'} (exit 1; its output is above)"
    ]
    assert not (tmp_path / "compiled").exists()
