"""The per-request CPU budget (benchmarks/bench/budget.py): each py-spy sample goes to the stage of
its innermost stage-naming frame, and only the event-loop thread counts."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from bench.budget import STAGES, classify, shares

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
