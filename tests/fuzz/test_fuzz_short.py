"""A short coverage-guided run of every fuzz family (atheris), as `make fuzz` runs the long one.

Each family runs in its own process for a fixed number of executions from a fixed seed, so a run
is repeatable; a crash fails the test with the crash file and the log it names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.targets import FAMILIES

pytest.importorskip("atheris", reason="atheris (a test extra) runs the coverage-guided fuzzing")

SHORT_RUNS = 10_000


@pytest.mark.parametrize("family", FAMILIES)
def test_short_fuzz_run_finds_no_crash(family: str, tmp_path: Path) -> None:
    from tests.fuzz.campaign import run_family

    result = run_family(family, SHORT_RUNS, tmp_path)
    log = (tmp_path / family / "log").read_text()
    assert result["exit"] == 0, f"{family} crashed on {result.get('crash')}:\n{log[-4000:]}"
    assert result["executions"] >= SHORT_RUNS
