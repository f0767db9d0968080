"""benchmarks/abuse.py's summary table: a column group for every broker that ran (a before/after pair
with ``odradek-base`` included), Kafka's last, each cell from its own broker's phases."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

import abuse


def _run(broker: str, metadata_p99: float) -> dict[str, Any]:
    phases: dict[str, Any] = {
        phase: {
            "metadata_ms": {"p99": metadata_p99},
            "produce_ms": {"p99": metadata_p99 + 1},
            "broker_cpu_s": 1.5,
            "peak_rss_mib": 40.0,
            "abuser": {"churn_connections": 7},
        }
        for phase in abuse.PHASES
    }
    return {"broker": broker, "phases": phases, "machine_busy_cores": 1.0}


def _document(brokers: list[tuple[str, float]]) -> dict[str, Any]:
    return {
        "machine": {"load_start": [0.1], "load_end": [0.2], "cores": 2, "busiest_at_start": []},
        "settings": {"seconds": 5},
        "pinning": "broker on core 0",
        "runs": [_run(broker, p99) for broker, p99 in brokers],
    }


def _table(text: str) -> list[list[str]]:
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_every_broker_that_ran_has_its_columns_with_kafka_last() -> None:
    text = abuse.markdown(_document([("odradek-base", 3.0), ("kafka", 9.0), ("odradek", 2.0)]))
    header, *rows = _table(text)
    assert header[1::4] == ["odradek-base Metadata p99", "odradek Metadata p99", "Kafka Metadata p99"]
    assert len(rows) == len(abuse.REPORTED)
    for row in rows:
        assert len(row) == len(header)
        assert row[1::4] == ["3.00 (1.0x)", "2.00 (1.0x)", "9.00 (1.0x)"]
    assert "odradek-base: churn_connections 7" in text


def test_one_broker_alone_has_one_column_group() -> None:
    header, *_ = _table(abuse.markdown(_document([("odradek", 2.0)])))
    assert header == ["phase", "odradek Metadata p99", "odradek Produce p99", "odradek CPU s", "odradek peak RSS (MiB)"]
