"""The summary writer (benchmarks/bench/report.py): it says whether the run was quiet, and what the
peers got when they got less than Kafka and odradek."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.report import summary_markdown


def _document(contended_runs: int, peer_share: dict[str, float] | None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "date": "2026-11-25",
        "arguments": "",
        "machine": {"cpus": 2, "pinning": "broker on core 0, load generator on core 1"},
        "brokers": {"kafka": "4.4.0", "odradek": "0.1.0", "kfake": "1", "tansu": "2"},
        "order": ["kafka", "odradek", "kfake", "tansu"],
        "pairs": 3,
        "timing": {"measured_s": 10.0, "pause_s": 1.0},
        "quiet": {"contended_runs": contended_runs, "measured_runs": 60},
    }
    if peer_share is not None:
        document["peer_share"] = peer_share
    return document


SHARE = {"warmup_runs": 1, "max_runs": 2, "long_run_s": 20.0}


def test_a_contended_run_says_it_could_not_be_quiet() -> None:
    summary = summary_markdown(_document(5, SHARE), [], [], chart=False)
    assert "**This run could not be quiet:** 5 of 60 measured runs" in summary
    assert "A quiet run" not in summary


def test_a_quiet_run_says_so() -> None:
    summary = summary_markdown(_document(0, SHARE), [], [], chart=False)
    assert "**A quiet run:** in none of the 60 measured runs" in summary
    assert "could not be quiet" not in summary


def test_the_method_says_what_the_peers_got() -> None:
    summary = summary_markdown(_document(0, SHARE), [], [], chart=False)
    assert "3 measured runs per broker" in summary
    assert "(kfake and tansu: at most 2, see Method)" in summary
    assert "1 warm-up run" in summary
    assert "at most 2 measured runs per case, one measured run of 20 s" in summary
    assert "3 W7 cold starts" in summary


def test_results_from_before_the_peers_share_render_without_it() -> None:
    summary = summary_markdown(_document(0, None), [], [], chart=False)
    assert "at most 2, see Method" not in summary
    assert "as many runs as Kafka and odradek" in summary
