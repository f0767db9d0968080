"""The summary writer (benchmarks/bench/report.py): it says whether the run was quiet, what the
peers got when they got less than Kafka and odradek, where the CPU of a missed target's request shape
goes (results/budget.json), and the newest security results."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.analysis import TARGETS, Figure, evaluate, explain
from bench.method_wording import CURRENT_METHOD
from bench.metrics import BROKER_COMPILER, BROKER_UTIL, CLIENT_UTIL, MB_S, Metric
from bench.report import newest_security, summary_markdown
from bench.stats import Summary
from bench.stored import StoredRow


def _document(contended_runs: int, peer_share: dict[str, float] | None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "date": "2026-11-25",
        "arguments": "",
        "method": CURRENT_METHOD,
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


def test_the_method_counts_the_cold_starts_w7_measured_per_broker() -> None:
    runs = [
        {"broker": broker, "warmup": index == 0}
        for broker, starts in (("kafka", 6), ("odradek", 6), ("kfake", 3))
        for index in range(starts)
    ]
    with_w7 = {**_document(0, SHARE), "cases": [{"key": "W7-start", "runs": runs}]}
    summary = summary_markdown(with_w7, [], [], chart=False)
    assert "measured cold starts: kafka 5, odradek 5, kfake 2." in summary
    assert "measured cold starts" not in summary_markdown(_document(0, SHARE), [], [], chart=False)


def test_a_run_of_the_method_before_brokers_were_kept_is_described_as_measured() -> None:
    older = _document(1, SHARE)
    del older["method"]
    summary = summary_markdown(older, [], [], chart=False)
    assert "per case, fresh brokers, a warm-up per broker until its figure stopped rising, then 3 measured" in summary
    assert "- Every case starts every broker again on a fresh data directory;" in summary
    assert "(at least 2, at most 6;" in summary
    assert "ran while other processes took CPU" in summary
    for current in ("start once", "JIT went quiet", "JIT compiler", "steal"):
        assert current not in summary
    kept = summary_markdown(_document(1, SHARE), [], [], chart=False)
    assert "brokers started once (the peers once per case)" in kept
    assert "- Kafka and odradek start once on fresh data directories" in kept
    assert "ran while other processes or the hypervisor's other guests (steal) took CPU" in kept


def test_results_from_before_the_peers_share_render_without_it() -> None:
    summary = summary_markdown(_document(0, None), [], [], chart=False)
    assert "at most 2, see Method" not in summary
    assert "as many runs as Kafka and odradek" in summary


def test_the_header_names_the_cpu_and_kernel_the_run_recorded() -> None:
    document = _document(0, SHARE)
    document["machine"] |= {"cpu": "AMD EPYC (family 25, model 1)", "kernel": "6.18.44-fc-v657"}
    summary = summary_markdown(document, [], [], chart=False)
    assert "load generator on core 1 (cpu AMD EPYC (family 25, model 1), kernel 6.18.44-fc-v657);" in summary
    older = summary_markdown(_document(0, SHARE), [], [], chart=False)
    assert "load generator on core 1;" in older
    assert "kernel" not in older


# The budget table of profiles.md as the report reads it (bench.budget.table_from_profiles).
BUDGET = {
    "source": "benchmarks/profiles.md",
    "measured": "2026-11-25",
    "unit": "broker CPU µs per request",
    "workloads": {"W3": ["produce1"], "W6": ["produce-many", "fetch-many"]},
    "shapes": {
        "produce1": {
            "when": "after",
            "total_us": 50.0,
            "stages_us": {"decode": 5, "dispatch": 5, "handler": 10, "storage": 20, "encode": 4, "write": 5, "loop": 1},
        },
        "produce-many": {
            "when": "after",
            "total_us": 1600.0,
            "stages_us": {"decode": 80, "dispatch": 30, "handler": 200, "storage": 1200, "encode": 40, "write": 40},
        },
        "fetch-many": {
            "when": "after",
            "total_us": 700.0,
            "stages_us": {"decode": 40, "dispatch": 40, "handler": 350, "storage": 120, "encode": 80, "write": 70},
        },
    },
}


def _target(workload: str, case: str, met: bool) -> dict[str, Any]:
    return {
        "target": f"{workload} target",
        "workload": workload,
        "case": case,
        "tool": "librdkafka",
        "ratio": 1.2 if met else 0.5,
        "met": met,
        "noisy": False,
        "reason": "" if met else "odradek's core was saturated.",
    }


def _target_rows(summary: str) -> dict[str, str]:
    return {
        line.split(" | ")[1]: line for line in summary.splitlines() if line.startswith("| W") and " target |" in line
    }


def test_a_missed_target_says_where_the_cpu_of_its_request_shape_goes() -> None:
    targets = [_target("W3", "W3-rdkafka", False), _target("W6", "W6-rdkafka", False)]
    rows = _target_rows(summary_markdown(_document(0, SHARE), [], targets, chart=False, budget=BUDGET))
    assert rows["W3-rdkafka"].endswith(
        "| **no** | odradek's core was saturated. Per request (the budget of 2026-11-25): produce1 50.0 µs of "
        "broker CPU, storage 20.0 (40%), handler 10.0 (20%), decode 5.0 (10%). |"
    )
    assert (
        "produce-many 1600 µs of broker CPU, storage 1200 (75%), handler 200 (12%), decode 80.0 (5%); "
        in (rows["W6-rdkafka"])
    )
    assert (
        "fetch-many 700 µs of broker CPU, handler 350 (50%), storage 120 (17%), encode 80.0 (11%)."
        in (rows["W6-rdkafka"])
    )


def test_a_met_target_or_a_workload_the_budget_does_not_cover_gets_no_stages() -> None:
    targets = [_target("W3", "W3-pp", True), _target("W7", "W7-start", False)]
    summary = summary_markdown(_document(0, SHARE), [], targets, chart=False, budget=BUDGET)
    assert "Per request" not in summary
    assert _target_rows(summary)["W7-start"].endswith("| **no** | odradek's core was saturated. |")
    without = summary_markdown(_document(0, SHARE), [], [_target("W3", "W3-pp", False)], chart=False)
    assert "Per request" not in without


def test_a_target_is_claimed_only_on_a_figure_that_is_not_noisy() -> None:
    met_noisy, missed_noisy = _target("W4", "W4-cp", True), _target("W4", "W4-rdkafka", False)
    met_noisy["noisy"] = missed_noisy["noisy"] = True
    targets = [_target("W3", "W3-rdkafka", True), met_noisy, missed_noisy]
    rows = _target_rows(summary_markdown(_document(1, SHARE), [], targets, chart=False))
    assert "| 1.2 | yes |" in rows["W3-rdkafka"]
    assert "| 1.2 ⚠ | not claimed (⚠ noisy) |" in rows["W4-cp"]
    assert "| 0.5 ⚠ | **no** |" in rows["W4-rdkafka"]


W2_ROW = StoredRow("W2-rdkafka", "W2", "small records", "librdkafka", (MB_S, BROKER_COMPILER))


def _figure(metric: Metric, kafka: float, odradek: float, row: StoredRow = W2_ROW) -> Figure:
    per_broker: dict[str, Summary | None] = {"kafka": Summary(kafka, 0.01, 3), "odradek": Summary(odradek, 0.01, 3)}
    return Figure(row, metric, per_broker, Summary(odradek / kafka, 0.01, 3), False, {})


def _row_of(summary: str, label: str) -> str:
    return next(line for line in summary.splitlines() if line.startswith("| W2-rdkafka |") and label in line)


def test_a_jvm_still_compiling_in_its_measured_runs_is_named_beside_the_headline_figures() -> None:
    compiling = {"kafka": Summary(0.12, 0.2, 3), "odradek": None}
    jit = Figure(W2_ROW, BROKER_COMPILER, compiling, None, False, {})
    summary = summary_markdown(_document(0, SHARE), [_figure(MB_S, 140.0, 150.0), jit], [], chart=False)
    assert _row_of(summary, "throughput").endswith("| kafka still compiling (12% of its CPU in its JIT) |")
    assert "| broker CPU in the JIT compiler (fraction) | 0.12 (±20%) | - |" in _row_of(summary, "JIT compiler")
    quiet = {"kafka": Summary(0.03, 0.2, 3), "odradek": None}
    settled = Figure(jit.row, BROKER_COMPILER, quiet, None, False, {})
    calm = summary_markdown(_document(0, SHARE), [_figure(MB_S, 140.0, 150.0), settled], [], chart=False)
    assert _row_of(calm, "throughput").endswith("| **1.07** | - |  |")


def _security_json(path: Path, kafka: list[float], odradek: list[float], **arguments: Any) -> Path:
    def median(values: list[float]) -> float:
        return sorted(values)[len(values) // 2]

    key = "W1-sasl-ssl MB/s"
    summary = {key: {"kafka": median(kafka), "odradek": median(odradek), "ratio": median(odradek) / median(kafka)}}
    document = {**arguments, "runs": {"kafka": {key: kafka}, "odradek": {key: odradek}}, "summary": summary}
    path.write_text(json.dumps(document))
    return path


def _plaintext_figure(ratio: float, spread: float) -> Figure:
    row = StoredRow("W1-rdkafka-acks1", "W1", "bulk produce", "librdkafka", (MB_S,))
    per_broker: dict[str, Summary | None] = {"kafka": Summary(400.0, 0.01, 3), "odradek": Summary(380.0, 0.01, 3)}
    return Figure(row, MB_S, per_broker, Summary(ratio, spread, 3), False, {})


def test_the_newest_security_results_are_the_security_section(tmp_path: Path) -> None:
    _security_json(tmp_path / "security-2026-11-20.json", [100.0, 100.0, 100.0], [50.0, 50.0, 50.0])
    newest = _security_json(
        tmp_path / "security-2026-11-25.json", [234.1, 233.4, 234.3], [408.3, 394.3, 395.2], pairs=3, records=2_000_000
    )
    assert newest_security(tmp_path) == newest
    figures = [_plaintext_figure(0.952, 0.15)]
    summary = summary_markdown(_document(0, SHARE), figures, [], chart=False, security=newest_security(tmp_path))
    section = summary[summary.index("## Security cases") :]
    assert "(`security-2026-11-25.json`), measured 2026-11-25:" in section
    assert "3 runs per broker alternating, 2,000,000 records of 1 KiB a run." in section
    assert (
        "| W1-sasl-ssl produce 1 KiB records | 234.1 (233.4-234.3) | 395.2 (394.3-408.3) | **1.69** | "
        "0.952 ⚠ (W1-rdkafka-acks1) |"
    ) in section
    assert "A run lasts (at the median): W1-sasl-ssl Kafka 8.7 s, odradek 5.2 s (the main run's measured runs" in (
        section
    )


def test_security_results_of_another_day_say_so_and_none_leave_the_section_out(tmp_path: Path) -> None:
    assert newest_security(tmp_path) is None
    assert "## Security cases" not in summary_markdown(_document(0, SHARE), [], [], chart=False, security=None)
    older = _security_json(tmp_path / "security-2026-11-20.json", [100.0], [150.0])
    summary = summary_markdown(_document(0, SHARE), [], [], chart=False, security=older)
    assert "measured 2026-11-20, not the day of this run: read the ratios, not the figures" in summary
    assert "| W1-sasl-ssl produce 1 KiB records | 100.0 (100.0-100.0) | 150.0 (150.0-150.0) | **1.5** | - |" in summary
    assert "A run lasts" not in summary


def _throughput_figure(settings: dict[str, Any], ratio: float) -> Figure:
    row = StoredRow("W1-pp-txn", "W1", "transactional produce", "ProducerPerformance", (MB_S,), settings)
    per_broker: dict[str, Summary | None] = {"kafka": Summary(20.44, 0.0, 3), "odradek": Summary(20.44, 0.0, 3)}
    return Figure(row, MB_S, per_broker, Summary(ratio, 0.0, 3), False, {})


def test_a_paced_case_keeps_its_throughput_target_within_the_pacing_s_jitter_and_says_why() -> None:
    paced = evaluate([_throughput_figure({"throughput": 20_000}, 0.9999)])
    assert [(row["met"], row["reason"]) for row in paced] == [
        (
            True,
            "paced by the load generator at 20,000 records/s on both brokers: the same throughput by "
            "construction, the efficiency row decides",
        )
    ]
    slow = evaluate([_throughput_figure({"throughput": 20_000}, 0.95)])
    assert [(row["met"], row["reason"]) for row in slow] == [
        (False, "odradek did not keep the load generator's pace of 20,000 records/s")
    ]
    unpaced = evaluate([_throughput_figure({}, 0.9999)])
    assert [row["met"] for row in unpaced] == [False]


W6_ROW = StoredRow("W6-rdkafka", "W6", "many partitions", "librdkafka", (MB_S, BROKER_UTIL, CLIENT_UTIL))


def _w6_figure(metric: Metric, kafka: float, odradek: float) -> Figure:
    return _figure(metric, kafka, odradek, W6_ROW)


def test_a_throughput_missed_on_a_saturated_core_says_how_much_less_cpu_would_close_it() -> None:
    w6 = next(target for target in TARGETS if target.workload == "W6")
    busy = [_w6_figure(BROKER_UTIL, 1.05, 0.99), _w6_figure(CLIENT_UTIL, 0.96, 0.80)]
    reason = explain(w6, [_w6_figure(MB_S, 14.8, 11.7), *busy])
    assert "odradek's core was saturated" in reason
    assert "closing it takes 21% less broker CPU for the same work" in reason
    idle = [_w6_figure(BROKER_UTIL, 1.05, 0.40), _w6_figure(CLIENT_UTIL, 0.96, 0.50)]
    assert "closing it" not in explain(w6, [_w6_figure(MB_S, 14.8, 11.7), *idle])


def _with_canaries(document: dict[str, Any], broker_core_ms: list[float]) -> dict[str, Any]:
    runs = [{"broker": "odradek", "warmup": True, "sample": {"broker_core_canary_ms": 9.0}}]
    runs += [{"broker": "kafka", "warmup": False, "sample": {"broker_core_canary_ms": ms}} for ms in broker_core_ms]
    return {**document, "cases": [{"key": "W6-rdkafka", "runs": runs}]}


def test_a_run_with_canaries_says_how_far_the_vcpus_speed_moved_and_how_it_was_measured() -> None:
    summary = summary_markdown(_with_canaries(_document(0, SHARE), [0.2, 0.25, 0.4]), [], [], chart=False)
    assert "**vCPU speed:** the canary's fixed loop took 0.2 to 0.4 ms (median 0.25)" in summary
    assert "across the 3 measured runs" in summary  # the warm-up's 9 ms is not one of them
    assert "2.00 times slower" in summary
    assert "a canary on each pinned core repeats a fixed loop every 0.1 s" in summary


def test_a_run_without_canaries_says_nothing_of_them() -> None:
    summary = summary_markdown(_document(0, SHARE), [], [], chart=False)
    assert "vCPU speed" not in summary
    assert "canary" not in summary
