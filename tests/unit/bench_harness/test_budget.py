"""The per-request CPU budget (benchmarks/bench/budget.py): each py-spy sample goes to the stage of
its innermost stage-naming frame, and only the event-loop thread counts; the budget table of
profiles.md is kept as data for the summary writer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.budget import BUDGET_FILE, STAGES, classify, shares, table_from_profiles

LOOP = "<module> (odradek/__main__.py:5);_run_event_loop (odradek/cli/main.py:80);run (uvloop/__init__.py:96)"
WORK = LOOP + ";_work (odradek/server/connection.py:262)"
DISPATCH = WORK + ";__call__ (odradek/handlers/dispatch.py:115)"


def test_a_helper_frame_takes_the_stage_of_its_caller() -> None:
    decode = DISPATCH + ";decode_from (odradek/wire/codec.py:104);int32 (odradek/wire/primitives.py:40)"
    assert classify(decode) == "decode"
    storage = DISPATCH + ";produce (odradek/handlers/produce.py:189);append (odradek/partition/service.py:183)"
    assert classify(storage + ";write (odradek/storage/filesystem.py:175)") == "storage"
    assert classify(DISPATCH + ";produce (odradek/handlers/produce.py:189)") == "handler"
    assert classify(DISPATCH + ";encode_response_frame (odradek/handlers/dispatch.py:66)") == "encode"
    assert classify(WORK + ";_send (odradek/server/connection.py:290);write_parts (odradek/server/zerocopy.py:66)") == (
        "write"
    )
    assert classify(DISPATCH) == "dispatch"
    assert classify(LOOP) == "loop"


def test_other_threads_do_not_count() -> None:
    idle = "_bootstrap (threading.py:1002);_worker (concurrent/futures/thread.py:81)"
    assert classify(idle) is None
    found = shares([f"{idle} 90", f"{DISPATCH} 5", f"{LOOP} 5"])
    assert found["dispatch"] == 0.5 and found["loop"] == 0.5
    assert set(found) == set(STAGES)
    assert sum(found.values()) == 1.0


REPO = Path(__file__).resolve().parents[3]
TABLE = """# Profiles

## Per-request CPU budget (issue 19, 2026-11-25)

| shape | when | total | decode | dispatch | handler | storage | encode | write | loop |
|---|---|---|---|---|---|---|---|---|---|
| produce1 | before | 54.3 | 6.3 | 6.2 | 8.2 | 15.4 | 3.4 | 10.0 | 4.9 |
| produce1 | after | 51.7 | 6.5 | 6.9 | 7.2 | 15.1 | 3.9 | 7.3 | 4.8 |
| produce-many | after | 1667 | 88 | 34 | 221 | 1193 | 49 | 66 | 15 |
| fetch-many | after | 690 | 46 | 41 | 367 | 115 | 78 | 29 | 13 |
| produce-spread | after | 74.0 | 9.0 | 7.0 | 5.0 | 30.0 | 3.0 | 12.0 | 8.0 |

| shape | something else |
"""


def test_the_budget_table_keeps_each_shapes_newest_row_and_its_sections_date() -> None:
    table = table_from_profiles(TABLE)
    assert table["measured"] == "2026-11-25"
    assert table["workloads"] == {"W3": ["produce1"], "W6": ["produce-spread"]}
    produce1 = table["shapes"]["produce1"]
    assert produce1["when"] == "after" and produce1["total_us"] == 51.7
    assert produce1["stages_us"] == dict(zip(STAGES, (6.5, 6.9, 7.2, 15.1, 3.9, 7.3, 4.8), strict=True))


def test_a_row_that_names_its_date_dates_the_budget() -> None:
    """A row added to the table later says when in its ``when`` cell; the section's date is older."""
    dated = TABLE.replace("| produce1 | after |", "| produce1 | after (2026-11-27, fc-v657) |")
    assert table_from_profiles(dated)["measured"] == "2026-11-27"
    # A newer date on a shape no workload reads does not date the budget.
    other = TABLE.replace("| fetch-many | after |", "| fetch-many | after (2026-11-28) |")
    assert table_from_profiles(other)["measured"] == "2026-11-25"


def test_a_budget_table_without_a_shape_a_workload_needs_is_refused() -> None:
    with pytest.raises(ValueError, match="no row for produce1"):
        table_from_profiles(TABLE.replace("| produce1 |", "| produce2 |"))
    with pytest.raises(ValueError, match="no row for produce-spread"):
        table_from_profiles(TABLE.replace("| produce-spread |", "| produce-wide |"))
    with pytest.raises(ValueError, match="no budget table"):
        table_from_profiles(TABLE.replace("| write | loop |", "| loop | write |"))


def test_the_committed_budget_is_the_table_of_profiles_md() -> None:
    """results/budget.json is written from profiles.md (budget.py --from-profiles); a changed table
    needs the file written again, or the summary names stale stages."""
    committed = json.loads((REPO / "benchmarks" / "results" / BUDGET_FILE).read_text())
    assert committed == table_from_profiles((REPO / "benchmarks" / "profiles.md").read_text())
