"""Run ``python -m odradek ARGS`` with a watchdog on its event loop: a stall log for long runs.

    python benchmarks/bench/stall_watch.py --log stalls.jsonl --threshold-ms 200 -- run --port ...

A heartbeat on the broker's loop notes the time every ``BEAT_S``; a watchdog thread checks it
every ``CHECK_S`` and, while the loop has missed its beat by more than ``--threshold-ms``, samples
the loop thread's stack (its innermost odradek frames, and the whole stack once per stall).  When
the loop beats again it appends one JSON line to ``--log``: when the stall began (seconds since the
watchdog started), how long it lasted, how much CPU the loop thread spent in it (a stall with little
CPU is a block: an fsync, a lock, the machine's scheduling; one with CPU is work) and the frames
seen.  The sampler wakes every ``CHECK_S`` only: it costs the loop nothing between stalls.

Run as a script (the benchmark launcher's ``stall_log`` does so); odradek comes from ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys
import threading
import time
import traceback
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TextIO

BEAT_S = 0.02
CHECK_S = 0.01


def innermost(frame: Any, root: str) -> str:
    """The three innermost frames of ``root``'s package, as ``module:function:line < ...``."""
    found: list[str] = []
    while frame is not None and len(found) < 3:
        path = frame.f_code.co_filename
        if path.startswith(root):
            found.append(f"{Path(path).stem}:{frame.f_code.co_name}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(found) or "(outside odradek)"


class Watchdog:
    """The loop's last beat, and a thread that reports every gap longer than ``threshold_s``."""

    def __init__(self, out: TextIO, threshold_s: float, root: str) -> None:
        self.out, self.threshold_s, self.root = out, threshold_s, root
        self.started = time.perf_counter()
        self.beat = (self.started, 0.0)  # wall time and loop-thread CPU time of the last beat
        self.loop_thread: int | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop_thread = threading.get_ident()

        def beat() -> None:
            self.beat = (time.perf_counter(), time.thread_time())
            loop.call_later(BEAT_S, beat)

        beat()
        threading.Thread(target=self._watch, name="stall-watch", daemon=True).start()

    def _watch(self) -> None:
        frames: collections.Counter[str] = collections.Counter()
        stack: list[str] = []
        stalled_since: tuple[float, float] | None = None
        while True:
            time.sleep(CHECK_S)
            beat = self.beat
            late = time.perf_counter() - beat[0] - BEAT_S
            if late > self.threshold_s:
                stalled_since = stalled_since or beat
                frame = sys._current_frames().get(self.loop_thread or 0)
                if frame is not None:
                    frames[innermost(frame, self.root)] += 1
                    if not stack:
                        stack = traceback.format_stack(frame)[-12:]
            elif stalled_since is not None and beat[0] > stalled_since[0]:
                record = {
                    "at_s": round(stalled_since[0] - self.started, 2),
                    "wall_ms": round((beat[0] - stalled_since[0] - BEAT_S) * 1000, 1),
                    "loop_cpu_ms": round((beat[1] - stalled_since[1]) * 1000, 1),
                    "frames": frames.most_common(5),
                    "stack": [line.rstrip() for line in stack],
                }
                self.out.write(json.dumps(record) + "\n")
                self.out.flush()
                frames, stack, stalled_since = collections.Counter(), [], None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--threshold-ms", type=float, default=200.0)
    parser.add_argument("odradek_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    import gc

    import odradek
    from odradek.cli.entry import THRESHOLDS

    gc.set_threshold(*THRESHOLDS)  # as `python -m odradek` does, before the command line's imports
    import odradek.cli.main as cli

    out = args.log.open("a")
    watchdog = Watchdog(out, args.threshold_ms / 1000, str(Path(odradek.__file__).parent))
    run_event_loop = cli._run_event_loop

    async def watched(main: Coroutine[Any, Any, None]) -> None:
        watchdog.attach(asyncio.get_running_loop())
        await main

    cli._run_event_loop = lambda main: run_event_loop(watched(main))
    odradek_args = args.odradek_args[1:] if args.odradek_args[:1] == ["--"] else args.odradek_args
    return int(cli.main(odradek_args) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
