"""The soak (``benchmarks/soak.py``, ``make soak`` runs it for an hour) for 40 seconds.

An idempotent producer, a consumer group whose members leave and join every 12 s, a compacted
topic being cleaned and a plain one under retention: nothing acknowledged is lost, and the broker's
memory and open files after the warm-up do not grow past the soak's bounds.  Latency drift is
measured and reported by the soak but not asserted here (speed belongs to benchmarks).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SOAK = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"


def test_a_short_soak_loses_nothing_and_leaks_nothing() -> None:
    argv = [sys.executable, str(SOAK), "--seconds", "40", "--rate", "100", "--rebalance-s", "12", "--sample-s", "4"]
    done = subprocess.run([*argv, "--json", "--no-pin"], capture_output=True, text=True, timeout=600, check=False)
    assert done.stdout, done.stderr[-3000:]
    verdict = json.loads(done.stdout.splitlines()[-1])
    assert verdict["acknowledged"] > 2000
    assert verdict["rebalances"] >= 4
    assert verdict["lost"] == 0, verdict["first_lost"]
    assert verdict["stale_keys"] == []
    assert verdict["compacted_keys"] == 200
    assert verdict["checks"]["no_memory_leak"], verdict["rss_mib"]
    assert verdict["checks"]["no_descriptor_leak"], verdict["open_fds"]
