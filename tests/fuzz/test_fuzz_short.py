"""A short coverage-guided run of every fuzz family (atheris), as `make fuzz` runs the long one.

Each family runs in its own process for a fixed number of executions from a fixed seed, so a run
is repeatable; a crash fails the test with the crash file and the log it names, and so does a
temporary file left behind, in the system's temporary directory or the work directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.targets import FAMILIES

pytest.importorskip("atheris", reason="atheris (a test extra) runs the coverage-guided fuzzing")

SHORT_RUNS = 10_000


@pytest.mark.parametrize("family", FAMILIES)
def test_short_fuzz_run_finds_no_crash(family: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fuzz.campaign import run_family

    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_temp))  # the run's process inherits it
    result = run_family(family, SHORT_RUNS, tmp_path / "work")
    log = (tmp_path / "work" / family / "log").read_text()
    assert result["exit"] == 0, f"{family} crashed on {result.get('crash')}:\n{log[-4000:]}"
    assert result["executions"] >= SHORT_RUNS
    left = [path.name for path in [*system_temp.iterdir(), *(tmp_path / "work" / family).glob("tmp")]]
    assert left == [], f"the {family} run left temporary files behind"
