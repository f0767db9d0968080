"""Loop lag: what holds odradek's event loop while abusers misbehave, and for how long.

    python benchmarks/loop_lag.py --kind metadata100k --seconds 8
    python benchmarks/loop_lag.py --kind churn --seconds 8 --top 10 --loop asyncio
    PYTHONPATH=/tmp/base python benchmarks/loop_lag.py    # the broker of another source tree

Runs the broker in this process, on a thread (uvloop by default, the loop ``odradek run`` uses),
and ``bench.abuse_load``'s abuser (``--kind``) and well-behaved probe in client processes, as
``benchmarks/abuse.py`` does (broker core and client core apart).  A heartbeat on the broker's
loop runs every millisecond (uvloop's timer resolution) and notes the time and the loop thread's
CPU time; a gap between two beats longer than ``--threshold-ms`` is a stall: something held the
loop.  A sampler thread
records, while a stall lasts, the loop thread's innermost frames in odradek.  Prints the probe's
percentiles, the stalls' count and total, the longest ones (wall and loop-thread CPU time: a
stall with little CPU is the machine's scheduling, not the broker's work) with the frames
sampled during each, and the collector's passes.

The heartbeat and the sampler cost time of their own (the sampler takes the GIL about every
half millisecond): compare stalls between runs of this tool, on one source tree and another, not
its milliseconds with ``benchmarks/abuse.py``'s.  Not a test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvloop
from bench.abuse_load import KINDS
from bench.pinning import Pinning, plan
from bench.scale_load import percentiles
from bench.stall_watch import innermost

import odradek
from odradek.broker import Broker
from odradek.clock import SystemClock
from odradek.config import load_config
from odradek.testing.loop_thread import LoopThread

BENCHMARKS = Path(__file__).resolve().parent
TOPIC = "abuse-probe"
ODRADEK = str(Path(odradek.__file__).parent)  # the tree imported: PYTHONPATH=OTHER_TREE measures that one
BEAT_S = 0.001
SAMPLE_S = 0.0005


class Heartbeat:
    """The loop's beats, and the stalls between them longer than ``threshold_s``."""

    def __init__(self, threshold_s: float) -> None:
        self.threshold_s = threshold_s
        self.beat = (time.perf_counter(), 0.0)  # wall time and loop-thread CPU time of the last beat
        self.frames: collections.Counter[str] = collections.Counter()
        self.stalls: list[tuple[float, float, collections.Counter[str]]] = []
        self.gaps: list[float] = []
        self.recording = False

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        def beat() -> None:
            now = (time.perf_counter(), time.thread_time())
            wall, cpu = now[0] - self.beat[0], now[1] - self.beat[1]
            if self.recording:
                self.gaps.append(wall)
                if wall > self.threshold_s:
                    self.stalls.append((wall, cpu, self.frames))
            self.frames = collections.Counter()
            self.beat = now
            loop.call_later(BEAT_S, beat)

        loop.call_soon_threadsafe(beat)


def sample(heart: Heartbeat, loop_thread: int, stop: threading.Event) -> None:
    while not stop.is_set():
        time.sleep(SAMPLE_S)
        if time.perf_counter() - heart.beat[0] > heart.threshold_s:
            frame = sys._current_frames().get(loop_thread)
            if frame is not None:
                heart.frames[innermost(frame, ODRADEK)] += 1


def _client(pinning: Pinning, *args: str) -> subprocess.Popen[str]:
    argv = [*pinning.client_prefix(), sys.executable, "-m", "bench.abuse_load", *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCHMARKS), str(BENCHMARKS.parent)])}
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=(*KINDS, "all", "quiet"), default="metadata100k")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--threshold-ms", type=float, default=2.0)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    args = parser.parse_args(argv)
    pinning = plan()
    if pinning.broker_core is not None:
        os.sched_setaffinity(0, {pinning.broker_core})
    sys.setswitchinterval(SAMPLE_S)
    heart = Heartbeat(args.threshold_ms / 1000)
    passes: list[tuple[int, float]] = []
    gc_started = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_started[0] = time.perf_counter()
        elif heart.recording:
            passes.append((info["generation"], time.perf_counter() - gc_started[0]))

    gc.callbacks.append(on_gc)
    factory = uvloop.new_event_loop if args.loop == "uvloop" else asyncio.new_event_loop
    with tempfile.TemporaryDirectory(prefix="loop-lag-") as tmp:
        config = load_config(None, ["port=0", f"log.dirs={tmp}", f"queued.max.request.bytes={400 << 20}"])
        broker = Broker(config, SystemClock())
        thread = LoopThread("broker", timeout_s=60, loop_factory=factory)
        thread.start()
        thread.run(broker.start)
        thread.call(lambda: broker.topics.create(TOPIC, 1, {}))
        heart.start(thread.call(asyncio.get_running_loop))
        stop = threading.Event()
        loop_thread = thread.call(threading.get_ident)
        sampler = threading.Thread(target=sample, args=(heart, loop_thread, stop), daemon=True)
        sampler.start()
        bootstrap = f"127.0.0.1:{broker.port}"
        abuser = None
        if args.kind != "quiet":
            abuser = _client(pinning, "abuse", "--bootstrap", bootstrap, "--kind", args.kind,
                             "--seconds", str(args.seconds + 3))  # fmt: skip
            time.sleep(2.0)
        cpu_before = time.process_time()
        heart.recording = True
        probe = _client(pinning, "probe", "--bootstrap", bootstrap, "--topic", TOPIC, "--seconds", str(args.seconds))
        probed, _ = probe.communicate(timeout=args.seconds + 60)
        heart.recording = False
        cpu = time.process_time() - cpu_before
        abused: dict[str, Any] = {}
        for line in abuser.communicate(timeout=60)[0].splitlines() if abuser is not None else []:
            abused.update(json.loads(line))
        stop.set()
        thread.run(broker.stop)
        thread.stop()
    stalls = list(heart.stalls)
    print(f"{args.loop}, {args.kind}: probe {probed.strip()}")
    print(f"abuser: {json.dumps(abused)}")
    print(f"broker process CPU s during the probe: {cpu:.2f}")
    print(f"gaps between beats (every {BEAT_S * 1000} ms): {percentiles([gap * 1000 for gap in heart.gaps])}")
    print(f"stalls > {args.threshold_ms} ms: {len(stalls)}, total {sum(s[0] for s in stalls) * 1000:.0f} ms wall, "
          f"{sum(s[1] for s in stalls) * 1000:.0f} ms loop CPU")  # fmt: skip
    for wall, cpu_s, frames in sorted(stalls, key=lambda s: s[1], reverse=True)[: args.top]:
        print(f"  {wall * 1000:7.1f} ms wall {cpu_s * 1000:7.1f} ms cpu")
        for where, count in frames.most_common(3):
            print(f"      {count:4d} x {where}")
    by_generation = collections.Counter(generation for generation, _ in passes)
    longest = sorted((duration for _, duration in passes), reverse=True)[:5]
    print(json.dumps({"gc_passes": dict(by_generation), "gc_longest_ms": [round(d * 1000, 1) for d in longest]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
