"""bench.brokers.build_of: the results name the build a broker ran from its tree, so a baseline that
is the mypyc overlay (``request_cost.py --base build/compiled``) is not reported as pure Python."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.brokers import COMPILED_BUILD, PURE_BUILD, build_of


def test_a_source_tree_is_pure_python(tmp_path: Path) -> None:
    (tmp_path / "odradek").mkdir()
    (tmp_path / "odradek" / "__init__.py").write_text("")
    assert build_of(tmp_path) == PURE_BUILD


def test_a_tree_with_mypycs_shared_library_is_the_compiled_build(tmp_path: Path) -> None:
    (tmp_path / "odradek").mkdir()
    (tmp_path / "f54ea281b64c919891d6__mypyc.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    assert build_of(tmp_path) == COMPILED_BUILD
