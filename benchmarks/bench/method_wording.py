"""How the summary describes the method a stored run was measured with.

A results JSON is rendered again long after it was measured (``run.py --report``), by a report
writer that has moved on, so the method sentences come from what the run itself records, not from
the current code: ``run.py`` writes ``"method": CURRENT_METHOD`` into every document, and a document
without the key was measured with `FRESH_BROKERS_PER_CASE`, the method before de605e2 (every case
started every broker again on a fresh data directory, the warm-up waited for the figure only, and
contention counted other processes, not the hypervisor's steal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench.method import COMPILER_BUSY_SHARE, MAX_WARMUP_RUNS
from bench.vcpu_speed import measured_broker_core_ms

#: Kafka and odradek started once per ``make bench`` and kept across cases; a JVM's warm-up also
#: waits for its JIT compiler to go quiet; steal counts as contention.
CURRENT_METHOD = "brokers-once"
#: Every case started every broker on a fresh data directory; warm-up until the figure stopped
#: rising (at most `_FRESH_WARMUP_RUNS` runs); contention was other processes only.
FRESH_BROKERS_PER_CASE = "fresh-brokers-per-case"
_FRESH_WARMUP_RUNS = 6


@dataclass(frozen=True)
class MethodWording:
    """The sentences of a summary that depend on the method its run was measured with."""

    #: The header's clause on starting brokers and warming them up (before "then N measured runs").
    start_and_warmup: str
    #: What took CPU in a contended run ("other processes ..."), for the noise and quiet sentences.
    contention: str
    #: The Method bullets on brokers and data directories, and on the warm-up.
    brokers_bullet: str
    warmup_bullet: str


def method_of(document: dict[str, Any]) -> str:
    """The method ``document`` was measured with (`CURRENT_METHOD` or `FRESH_BROKERS_PER_CASE`)."""
    return str(document.get("method", FRESH_BROKERS_PER_CASE))


def wording(document: dict[str, Any]) -> MethodWording:
    """The method sentences for ``document``'s run."""
    pause = document.get("timing", {}).get("pause_s", "?")
    dirty = (
        f"Before every run the harness calls `sync` and pauses {pause} s, and records the dirty page cache "
        "(/proc/meminfo `Dirty`) at the start of the run ('dirty page cache at run start')."
    )
    if measured_broker_core_ms(document):
        dirty += (
            " Meanwhile a canary on each pinned core repeats a fixed loop every 0.1 s; the median CPU time it took is "
            "'fixed work on the broker core' / 'on the client core' (higher = that vCPU ran slower: the hypervisor "
            "can slow a vCPU without counting steal)."
        )
    sizing = (
        "Measured runs are sized from the rate of the broker's previous run so each lasts at least the measured "
        "length; ConsumerPerformance cannot read a log twice, so W4-cp runs last one pass over the prefilled log."
    )
    if method_of(document) == FRESH_BROKERS_PER_CASE:
        return MethodWording(
            start_and_warmup="per case, fresh brokers, a warm-up per broker until its figure stopped rising",
            contention="other processes",
            brokers_bullet="- Every case starts every broker again on a fresh data directory; each run writes a "
            f"fresh topic, deleted afterwards. {dirty}",
            warmup_bullet="- Warm-up: runs of about the warm-up length repeat until the broker's figure improves by "
            f"no more than 5% on its best earlier run (at least 2, at most {_FRESH_WARMUP_RUNS}; kept in the JSON as "
            f"`warmup` runs with their `round`). {sizing}",
        )
    return MethodWording(
        start_and_warmup="brokers started once (the peers once per case), per case a warm-up per broker until its "
        "figure stopped rising and its JIT went quiet",
        contention="other processes or the hypervisor's other guests (steal)",
        brokers_bullet="- Kafka and odradek start once on fresh data directories and serve every case, as brokers in "
        "service do (a JVM keeps what its JIT compiled); the in-memory peers start again for every case. Each run "
        "writes a fresh topic, deleted afterwards, and the next run starts only once the broker's files for it are "
        f"gone (W4's two cases share one prefilled log). {dirty}",
        warmup_bullet="- Warm-up: runs of about the warm-up length repeat until the broker's figure improves by no "
        "more than 5% on its best earlier run and, for a JVM, its JIT compiler threads used at most "
        f"{COMPILER_BUSY_SHARE * 100:.0f}% of its CPU in the last run (at least 2, at most {MAX_WARMUP_RUNS}; kept "
        "in the JSON as `warmup` runs with their `round`). 'broker CPU in the JIT compiler' is that share in the "
        f"measured runs; where it is above the same limit, the notes say the broker was still compiling. {sizing}",
    )
