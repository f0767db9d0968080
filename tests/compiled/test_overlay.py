"""The mypyc-compiled build is the one running: under ``PYTHONPATH=build/compiled`` (with
``PYTHONSAFEPATH=1``, as ``make test`` runs its compiled subset) odradek comes from the overlay and
every module of ``tools/compile.py``'s list is an extension module there, while the rest, and
`odradek.storage.filesystem` in particular (tests subclass its file systems), stays Python.

Outside such a run (no overlay first on ``PYTHONPATH``) the module skips, saying how to run it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import odradek
from tests.compile_tool import REPO_ROOT, compile_tool


def _overlay() -> Path | None:
    """The first ``PYTHONPATH`` entry when it is an overlay built by tools/compile.py."""
    entries = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    if entries and (Path(entries[0]) / compile_tool.STAMP_NAME).is_file():
        return Path(entries[0]).resolve()
    return None


OVERLAY = _overlay()
pytestmark = pytest.mark.skipif(
    OVERLAY is None,
    reason="runs against the mypyc overlay: make compiled, then "
    "PYTHONSAFEPATH=1 PYTHONPATH=build/compiled:. python -m pytest tests/compiled",
)


def test_odradek_comes_from_the_overlay() -> None:
    assert OVERLAY is not None
    assert Path(odradek.__file__).resolve().is_relative_to(OVERLAY)
    import odradek.server.zerocopy as zerocopy

    assert zerocopy.__file__ is not None
    assert zerocopy.__file__.endswith(".so")
    assert Path(zerocopy.__file__).resolve().is_relative_to(OVERLAY)


@pytest.mark.parametrize("name", compile_tool.COMPILED_MODULES)
def test_every_listed_module_is_compiled(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__file__ is not None and module.__file__.endswith(".so"), module.__file__


def test_subclassed_modules_stay_python() -> None:
    import odradek.storage.filesystem as filesystem

    assert filesystem.__file__ is not None and filesystem.__file__.endswith(".py")


def test_a_process_started_in_the_checkout_runs_the_compiled_build() -> None:
    """What ``make run`` starts: odradek from the checkout's directory (whose ``odradek/`` is the
    pure-Python source), with the overlay first on the path and the current directory off it as the
    script's directory (``make run`` puts it after the overlay, where only a missing overlay reaches it)."""
    env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONPATH": str(OVERLAY)}
    shown = subprocess.run(
        [sys.executable, "-c", "import odradek.server.zerocopy as z; print(z.__file__)"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert OVERLAY is not None
    assert Path(shown.stdout.strip()).is_relative_to(OVERLAY)
    assert shown.stdout.strip().endswith(".so")
    run = subprocess.run(
        [sys.executable, "-m", "odradek", "--help"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert "dump-log" in run.stdout
