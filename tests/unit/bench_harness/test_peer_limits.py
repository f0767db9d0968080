"""A peer that cannot run a case (benchmarks/bench/runner.py, report.py): it gets no runs, the summary
says why, and only Kafka's or odradek's failed runs fail ``make bench``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.analysis import figures
from bench.method import FULL_TIMING
from bench.metrics import MB_S
from bench.report import summary_markdown
from bench.runner import CANNOT_RUN, CaseRecord, RunRecord, failed_runs, planned
from bench.stored import StoredRow
from bench.workloads import FULL, TANSU_GROUP_JOIN, cases

ORDER = ["kafka", "odradek", "kfake", "tansu"]


def test_tansu_does_not_run_w8_but_the_other_peer_does() -> None:
    w8 = next(case for case in cases(FULL) if case.key == "W8-mixed")
    assert planned(w8, ORDER, FULL_TIMING).brokers == ["kafka", "odradek", "kfake"]
    w4 = next(case for case in cases(FULL) if case.key == "W4-rdkafka")
    assert planned(w4, ORDER, FULL_TIMING).brokers == ORDER


def _run(broker: str, error: str | None) -> RunRecord:
    return RunRecord(broker, 1, False, None if error else {"mb_s": 100.0}, error)


def test_only_kafka_or_odradek_failures_fail_the_bench() -> None:
    row = StoredRow("W1-rdkafka-acks1", "W1", "bulk produce", "librdkafka", (MB_S,))
    peers_only = CaseRecord(row, [_run("kafka", None), _run("odradek", None), _run("tansu", "RunFailed: x")])
    assert failed_runs([peers_only]) == (0, 1)
    both = CaseRecord(row, [_run("kafka", None), _run("odradek", "RunFailed: y"), _run("kfake", "RunFailed: z")])
    assert failed_runs([peers_only, both]) == (1, 2)


def test_the_summary_says_which_peer_cannot_run_a_case_and_why() -> None:
    row = StoredRow("W8-mixed", "W8", "mixed", "librdkafka", (MB_S,))
    runs = [_run(name, None) for name in ORDER[:3]]
    record = CaseRecord(row, runs, {"tansu": {CANNOT_RUN: TANSU_GROUP_JOIN}})
    found = figures(record, ORDER)
    assert found[0].cannot_run == {"tansu": TANSU_GROUP_JOIN}
    assert found[0].failures["tansu"] == 0
    document = {
        "date": "2026-11-26",
        "arguments": "",
        "machine": {"cpus": 2, "pinning": "broker on core 0, load generator on core 1"},
        "brokers": {"kafka": "4.4.0", "odradek": "0.1.0", "kfake": "1", "tansu": "2"},
        "order": ORDER,
        "pairs": 1,
        "timing": {"measured_s": 10.0, "pause_s": 1.0},
    }
    summary = summary_markdown(document, found, [], chart=False)
    table_row = next(line for line in summary.splitlines() if line.startswith("| W8-mixed"))
    assert table_row.endswith("tansu cannot run it (below) |")
    assert f"- W8-mixed on tansu: {TANSU_GROUP_JOIN}." in summary


def test_a_case_every_broker_runs_has_no_such_list() -> None:
    row = StoredRow("W4-rdkafka", "W4", "consume", "librdkafka", (MB_S,))
    record = CaseRecord(row, [_run(name, None) for name in ORDER])
    document = {
        "date": "2026-11-26",
        "arguments": "",
        "machine": {"cpus": 2, "pinning": "not pinned"},
        "brokers": {},
        "order": ORDER,
        "pairs": 1,
        "timing": {},
    }
    assert "cannot run" not in summary_markdown(document, figures(record, ORDER), [], chart=False)
