"""Soak: odradek under steady traffic for a long time, with rebalances, retention and compaction.

    python benchmarks/soak.py --minutes 60          # make soak
    python benchmarks/soak.py --seconds 45 --json   # the short run the test suite makes

One broker (loopback, its own data directory), two topics and three kinds of clients, all
librdkafka (confluent-kafka), for the whole run:

- ``soak-plain`` (6 partitions, 1 MiB segments, retention 3 minutes): an idempotent producer
  (acks=all) writes numbered records at ``rate`` a second; a consumer group of three members reads
  them, and every ``rebalance_s`` one member leaves and a new one joins;
- ``soak-compact`` (2 partitions, compacted, segments rolled every 10 s): a second producer
  overwrites 200 keys at ``rate``/4 a second, each value carrying its sequence number;
- the broker runs retention every second and the cleaner with a one-second back-off.

Checked at the end:
- no acknowledged loss: every record the plain producer saw acknowledged was read by the group
  (at least once, across all the rebalances); for every key of the compacted topic, read from the
  beginning after the run, the value is the last one acknowledged for it or a later one;
- no leak: the broker's RSS and open file descriptors, sampled every ``sample_s``, grow no more
  than ``leak_mib`` / ``leak_fds`` between the first sample after the warm-up and the last one
  (retention and compaction keep the data, and so the files, bounded);
- no drift: the p99 of acknowledgement latency over the last window is within 2x of the first
  window's after the warm-up;
- no slow window: no window after the first (which holds the clients' start) has an
  acknowledgement p99 above ``--ack-p99-bound-ms`` (500 ms, see `ACK_P99_BOUND_MS`).

``--stall-log FILE`` runs the broker under ``bench/stall_watch.py``: every stall of its event
loop longer than 200 ms is logged with the loop thread's stack, summarised in the report, and
the broker's log is kept beside FILE.  ``--disk-pressure-mib`` adds another writer fsyncing that
much to the same disk every ``--disk-pressure-s`` (issue 18's stalls came with such writes).
``--broker odradek`` (the default) is the mypyc build ``make run`` runs; ``--broker odradek-base``
runs the tree of ``$ODRADEK_BASELINE_SRC``, so a before/after pair of source trees compares it with
``--broker odradek-pure`` (this checkout's sources).

Writes ``<out>/soak-<date>.json`` and ``.md`` (one row per window), or with ``--json`` prints the
verdict document only.  Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.admin import create_topic
from bench.brokers import launcher
from bench.pinning import plan
from bench.procstat import cpu_seconds, rss_mib
from confluent_kafka import OFFSET_BEGINNING, Consumer, Message, Producer, TopicPartition

RESULTS = Path(__file__).resolve().parent / "results"
PLAIN, COMPACT = "soak-plain", "soak-compact"
PLAIN_PARTITIONS, COMPACT_PARTITIONS, KEYS = 6, 2, 200
GROUP = "soak-group"
BROKER_CONFIGS = {
    "group.initial.rebalance.delay.ms": "0",
    "log.retention.check.interval.ms": "1000",
    "log.cleaner.backoff.ms": "1000",
}


#: No window's acknowledgement p99 may pass this.  Scheduling noise on this 2-core machine, loaded
#: to a 1-minute average of 3.5 by other work, lifts a window's p99 from 7 ms to 15 ms (the hour's
#: run of 2026-11-25); a broker that holds its loop or a client that backs off and retries (librdkafka's
#: retry.backoff.ms 100 doubling to retry.backoff.max.ms 1000, request.timeout.ms 30 s) costs hundreds
#: of milliseconds to seconds.  500 ms is 30x the noise and below one maximal back-off.
ACK_P99_BOUND_MS = 500.0


def _percentile(samples: list[float], fraction: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))], 2)


class Ledger:
    """What was acknowledged and what was read; thread-safe, a byte per plain record."""

    def __init__(self, capacity: int) -> None:
        self.lock = threading.Lock()
        self.acked = bytearray(capacity)
        self.read = bytearray(capacity)
        self.sent = 0
        self.ack_count = 0
        self.failed = 0
        self.client_errors: list[str] = []  # librdkafka's error_cb: what a client saw go wrong
        self.latencies: list[float] = []  # ms, acknowledged records of the current window
        self.last_acked_per_key: dict[bytes, int] = {}

    def window(self) -> list[float]:
        with self.lock:
            samples, self.latencies = self.latencies, []
        return samples


def _producer(bootstrap: str, ledger: Ledger, name: str) -> Producer:
    def on_error(error: Any) -> None:
        with ledger.lock:
            ledger.client_errors.append(f"{time.strftime('%H:%M:%S')} {name}: {error}")

    return Producer(
        {
            "bootstrap.servers": bootstrap,
            "enable.idempotence": True,
            "acks": "all",
            "linger.ms": 5,
            "error_cb": on_error,
        }
    )


def _plain_producer(bootstrap: str, ledger: Ledger, rate: float, stop: threading.Event) -> None:
    producer = _producer(bootstrap, ledger, "plain")

    def delivered(error: Any, message: Message, sequence: int, sent_at: float) -> None:
        with ledger.lock:
            if error is None:
                ledger.acked[sequence] = 1
                ledger.ack_count += 1
                ledger.latencies.append((time.perf_counter() - sent_at) * 1000)
            else:
                ledger.failed += 1

    started = time.perf_counter()
    while not stop.is_set() and ledger.sent < len(ledger.acked):
        wait = started + ledger.sent / rate - time.perf_counter()
        if wait > 0:
            producer.poll(min(0.01, wait))  # never a negative timeout: that waits for ever
            continue
        sequence, sent_at = ledger.sent, time.perf_counter()
        producer.produce(
            PLAIN,
            value=sequence.to_bytes(8, "big") + b"p" * 200,
            key=b"%d" % (sequence % 1000),
            on_delivery=lambda e, m, s=sequence, t=sent_at: delivered(e, m, s, t),
        )
        producer.poll(0)
        ledger.sent += 1
    producer.flush(60)


def _compact_producer(bootstrap: str, ledger: Ledger, rate: float, stop: threading.Event) -> None:
    producer = _producer(bootstrap, ledger, "compact")
    sent = 0
    started = time.perf_counter()

    def delivered(error: Any, message: Message, key: bytes, sequence: int) -> None:
        if error is None:
            with ledger.lock:
                if sequence > ledger.last_acked_per_key.get(key, -1):
                    ledger.last_acked_per_key[key] = sequence

    while not stop.is_set():
        wait = started + sent / rate - time.perf_counter()
        if wait > 0:
            producer.poll(min(0.01, wait))
            continue
        key = b"key-%03d" % (sent % KEYS)
        producer.produce(
            COMPACT,
            key=key,
            value=sent.to_bytes(8, "big") + b"c" * 100,
            on_delivery=lambda e, m, k=key, s=sent: delivered(e, m, k, s),
        )
        producer.poll(0)
        sent += 1
    producer.flush(60)


def _member(bootstrap: str, ledger: Ledger, leave: threading.Event) -> None:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": GROUP,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": True,
            "auto.commit.interval.ms": 1000,
            "session.timeout.ms": 10_000,
            "heartbeat.interval.ms": 1000,
        }
    )
    consumer.subscribe([PLAIN])
    while not leave.is_set():
        for message in consumer.consume(500, 0.2):
            if message.error() is None and message.value():
                sequence = int.from_bytes((message.value() or b"")[:8], "big")
                if sequence < len(ledger.read):
                    ledger.read[sequence] = 1
    consumer.close()


class Group:
    """Three members; `rotate` makes the oldest leave and a new one join (a rebalance each way)."""

    def __init__(self, bootstrap: str, ledger: Ledger) -> None:
        self.bootstrap, self.ledger = bootstrap, ledger
        self.members: list[tuple[threading.Thread, threading.Event]] = []
        self.rebalances = 0
        for _ in range(3):
            self._join()

    def _join(self) -> None:
        leave = threading.Event()
        thread = threading.Thread(target=_member, args=(self.bootstrap, self.ledger, leave), daemon=True)
        thread.start()
        self.members.append((thread, leave))

    def rotate(self) -> None:
        thread, leave = self.members.pop(0)
        leave.set()
        thread.join(60)
        self._join()
        self.rebalances += 2

    def stop(self) -> None:
        for _, leave in self.members:
            leave.set()
        for thread, _ in self.members:
            thread.join(60)


def _compacted_values(bootstrap: str) -> dict[bytes, int]:
    """The last value of every key in the compacted topic, read from the beginning."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "soak-check", "enable.auto.commit": False})
    consumer.assign([TopicPartition(COMPACT, p, OFFSET_BEGINNING) for p in range(COMPACT_PARTITIONS)])
    latest: dict[bytes, int] = {}
    idle_since = time.monotonic()
    while time.monotonic() - idle_since < 5:
        batch = consumer.consume(1000, 0.5)
        if batch:
            idle_since = time.monotonic()
        for message in batch:
            if message.error() is None and message.key() is not None and message.value():
                latest[message.key() or b""] = int.from_bytes((message.value() or b"")[:8], "big")
    consumer.close()
    return latest


def _disk_pressure(directory: Path, every_s: float, mib: int, stop: threading.Event) -> None:
    """Another process's heavy writes on a shared machine: every ``every_s``, ``mib`` MiB written
    to the broker's disk and fsynced, then deleted (issue 18's stalls came with such writes: the
    broker's own fsyncs and unlinks then wait for the filesystem's journal)."""
    block = bytes(1 << 20)
    path = directory / "disk-pressure"
    while not stop.wait(every_s):
        with path.open("wb") as out:
            for _ in range(mib):
                if stop.is_set():
                    break
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        path.unlink()


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def soak(args: argparse.Namespace) -> dict[str, Any]:
    duration = args.seconds if args.seconds else args.minutes * 60
    warm_up = min(300.0, duration / 4)
    capacity = int(args.rate * (duration + 120))
    ledger = Ledger(capacity)
    stop = threading.Event()
    windows: list[dict[str, Any]] = []
    with (
        tempfile.TemporaryDirectory(prefix="soak-") as tmp,
        launcher(args.broker)(Path(tmp), plan(not args.no_pin), BROKER_CONFIGS, args.stall_log) as broker,
    ):
        bootstrap, pid = broker.bootstrap, broker.pid
        create_topic(bootstrap, PLAIN, PLAIN_PARTITIONS, {"segment.bytes": str(1 << 20), "retention.ms": "180000"})
        create_topic(
            bootstrap,
            COMPACT,
            COMPACT_PARTITIONS,
            {"cleanup.policy": "compact", "segment.ms": "10000", "min.cleanable.dirty.ratio": "0.01",
             "delete.retention.ms": "10000"},
        )  # fmt: skip
        threads = [
            threading.Thread(target=_plain_producer, args=(bootstrap, ledger, args.rate, stop), daemon=True),
            threading.Thread(target=_compact_producer, args=(bootstrap, ledger, args.rate / 4, stop), daemon=True),
        ]
        if args.disk_pressure_mib:
            pressure = (Path(tmp), args.disk_pressure_s, args.disk_pressure_mib, stop)
            threads.append(threading.Thread(target=_disk_pressure, args=pressure, daemon=True))
        for thread in threads:
            thread.start()
        group = Group(bootstrap, ledger)
        started = time.monotonic()
        next_rotation = started + args.rebalance_s
        while time.monotonic() - started < duration:
            time.sleep(min(args.sample_s, max(0.0, duration - (time.monotonic() - started))))
            now = time.monotonic()
            if now >= next_rotation:
                group.rotate()
                next_rotation = now + args.rebalance_s
            samples = ledger.window()
            windows.append(
                {
                    "at_s": round(now - started, 1),
                    "acked": ledger.ack_count,
                    "read": ledger.read.count(1),
                    "ack_p50_ms": _percentile(samples, 0.5),
                    "ack_p99_ms": _percentile(samples, 0.99),
                    "rss_mib": round(rss_mib(pid), 1),
                    "open_fds": _open_fds(pid),
                    "broker_cpu_s": round(cpu_seconds(pid), 1),
                    "load_1m": round(os.getloadavg()[0], 2),
                }
            )
            if args.verbose:
                print(json.dumps(windows[-1]), flush=True)
        stop.set()
        for thread in threads:
            thread.join(120)
        catch_up = time.monotonic() + 120
        while time.monotonic() < catch_up and any(a and not r for a, r in zip(ledger.acked, ledger.read, strict=True)):
            time.sleep(1)
        group.stop()
        compacted = _compacted_values(bootstrap)
        final_rss, final_fds = rss_mib(pid), _open_fds(pid)
    return _verdict(args, ledger, windows, compacted, warm_up, final_rss, final_fds, group.rebalances)


def _stalls(stall_log: Path | None, traffic_s: float) -> dict[str, Any] | None:
    """The stall watchdog's summary: how many stalls while the traffic ran, their total and the
    longest five; and how many came after it (the catch-up, the broker's closing flush).  The
    watchdog counts from the broker's start, a few seconds before the traffic's."""
    if stall_log is None or not stall_log.exists():
        return None
    every = [json.loads(line) for line in stall_log.read_text().splitlines() if line.strip()]
    stalls = [stall for stall in every if stall["at_s"] <= traffic_s]
    longest = sorted(stalls, key=lambda stall: stall["wall_ms"], reverse=True)[:5]
    return {
        "after_traffic": len(every) - len(stalls),
        "count": len(stalls),
        "total_ms": round(sum(stall["wall_ms"] for stall in stalls)),
        "longest": [{k: stall[k] for k in ("at_s", "wall_ms", "loop_cpu_ms", "frames")} for stall in longest],
    }


def _verdict(
    args: argparse.Namespace,
    ledger: Ledger,
    windows: list[dict[str, Any]],
    compacted: dict[bytes, int],
    warm_up: float,
    final_rss: float,
    final_fds: int,
    rebalances: int,
) -> dict[str, Any]:
    lost = [i for i, (a, r) in enumerate(zip(ledger.acked, ledger.read, strict=True)) if a and not r]
    stale_keys = sorted(
        key.decode() for key, last in ledger.last_acked_per_key.items() if compacted.get(key, -1) < last
    )
    steady = [w for w in windows if w["at_s"] >= warm_up] or windows
    first, last = steady[0], steady[-1]
    p99_first = next((w["ack_p99_ms"] for w in steady if w["ack_p99_ms"] is not None), None)
    p99_last = next((w["ack_p99_ms"] for w in reversed(steady) if w["ack_p99_ms"] is not None), None)
    # The first window holds the clients' start (connections, the group's first join).
    slow = [w for w in windows[1:] if (w["ack_p99_ms"] or 0) > args.ack_p99_bound_ms]
    checks = {
        "no_acknowledged_loss": not lost and not stale_keys,
        "no_memory_leak": last["rss_mib"] - first["rss_mib"] <= args.leak_mib,
        "no_descriptor_leak": last["open_fds"] - first["open_fds"] <= args.leak_fds,
        "no_latency_drift": p99_first is None or p99_last is None or p99_last <= 2 * max(p99_first, 1.0),
        "no_slow_window": not slow,
    }
    stalls = _stalls(args.stall_log, args.seconds if args.seconds else args.minutes * 60)
    return {
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items() if k != "out"},
        "acknowledged": ledger.ack_count,
        "failed_deliveries": ledger.failed,
        "lost": len(lost),
        "first_lost": lost[:10],
        "compacted_keys": len(compacted),
        "stale_keys": stale_keys[:10],
        "rebalances": rebalances,
        "warm_up_s": warm_up,
        "rss_mib": {"after_warm_up": first["rss_mib"], "last": last["rss_mib"], "final": round(final_rss, 1)},
        "open_fds": {"after_warm_up": first["open_fds"], "last": last["open_fds"], "final": final_fds},
        "ack_p99_ms": {
            "first_steady_window": p99_first,
            "last_window": p99_last,
            "worst_window": max((w["ack_p99_ms"] or 0 for w in windows[1:]), default=None),
            "windows_over_bound": [w["at_s"] for w in slow],
        },
        "client_errors": ledger.client_errors[:50],
        "loop_stalls": stalls,
        "checks": checks,
        "passed": all(checks.values()),
        "windows": windows,
    }


def markdown(document: dict[str, Any]) -> str:
    s = document["settings"]
    cores = os.cpu_count() or 1
    busy = sum(1 for w in document["windows"] if w.get("load_1m", 0) > cores)
    length = f"{s['seconds']} s" if s["seconds"] else f"{s['minutes']} min"
    lines = [
        f"# Soak: {length} of traffic, rebalances, retention and compaction",
        "",
        f"Rate {s['rate']} records/s (plain, idempotent, acks=all) + {s['rate'] / 4} records/s (compacted, "
        f"{KEYS} keys); a group of 3 members rotating every {s['rebalance_s']} s; samples every {s['sample_s']} s; "
        f"broker {s['broker']}; disk pressure {s['disk_pressure_mib']} MiB every {s['disk_pressure_s']} s; "
        f"load average at the start {document['machine']['load_start']}, at the end {document['machine']['load_end']}.",
        "",
        f"- acknowledged {document['acknowledged']}, failed deliveries {document['failed_deliveries']}, "
        f"lost {document['lost']}; compacted keys read back {document['compacted_keys']}, stale "
        f"{len(document['stale_keys'])}; rebalances {document['rebalances']}",
        f"- RSS after the {document['warm_up_s']:.0f} s warm-up {document['rss_mib']['after_warm_up']} MiB, at the "
        f"last sample {document['rss_mib']['last']} MiB; open files {document['open_fds']['after_warm_up']} -> "
        f"{document['open_fds']['last']}",
        f"- acknowledgement p99: first steady window {document['ack_p99_ms']['first_steady_window']} ms, last window "
        f"{document['ack_p99_ms']['last_window']} ms, worst window (after the first) "
        f"{document['ack_p99_ms']['worst_window']} ms; windows above the {s['ack_p99_bound_ms']:.0f} ms bound: "
        f"{len(document['ack_p99_ms']['windows_over_bound'])} (at {document['ack_p99_ms']['windows_over_bound']} s)",
        f"- client errors (librdkafka error_cb): {len(document['client_errors'])}",
        "- checks: " + ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in document["checks"].items()),
        f"- windows with a 1-minute load average above the {cores} cores (their latencies carry the machine's "
        f"scheduling delays): {busy} of {len(document['windows'])}",
        *_stall_lines(document["loop_stalls"]),
        "",
        "| at (s) | acknowledged | read by the group | ack p50 (ms) | ack p99 (ms) | RSS (MiB) | open files "
        "| broker CPU (s) | load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for w in document["windows"]:
        lines.append(
            f"| {w['at_s']} | {w['acked']} | {w['read']} | {w['ack_p50_ms']} | {w['ack_p99_ms']} | {w['rss_mib']} "
            f"| {w['open_fds']} | {w['broker_cpu_s']} | {w.get('load_1m', '')} |"
        )
    return "\n".join(lines) + "\n"


def _stall_lines(stalls: dict[str, Any] | None) -> list[str]:
    if stalls is None:
        return []
    lines = [
        f"- event-loop stalls the watchdog saw while the traffic ran: {stalls['count']}, {stalls['total_ms']} ms in "
        f"all (and {stalls['after_traffic']} after it: catch-up, closing flush); longest:"
    ]
    for stall in stalls["longest"]:
        where = stall["frames"][0][0] if stall["frames"] else "?"
        lines.append(f"  - at {stall['at_s']} s: {stall['wall_ms']} ms ({stall['loop_cpu_ms']} ms loop CPU) in {where}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--seconds", type=float, help="run length in seconds instead of --minutes")
    parser.add_argument("--rate", type=float, default=200.0, help="plain records a second")
    parser.add_argument("--rebalance-s", type=float, default=120.0)
    parser.add_argument("--sample-s", type=float, default=30.0)
    parser.add_argument("--leak-mib", type=float, default=64.0)
    parser.add_argument("--leak-fds", type=int, default=32)
    parser.add_argument(
        "--broker",
        choices=("odradek", "odradek-pure", "odradek-base"),
        default="odradek",
        help="odradek: the mypyc build; odradek-pure: the sources; odradek-base: the tree of $ODRADEK_BASELINE_SRC",
    )
    parser.add_argument("--disk-pressure-mib", type=int, default=0, help="MiB another writer fsyncs every period")
    parser.add_argument("--disk-pressure-s", type=float, default=60.0)
    parser.add_argument("--ack-p99-bound-ms", type=float, default=ACK_P99_BOUND_MS)
    parser.add_argument("--stall-log", type=Path, help="run the broker under bench/stall_watch.py, logging here")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--json", action="store_true", help="print the verdict document only")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--no-pin", action="store_true")
    args = parser.parse_args(argv)
    load_start = [round(x, 2) for x in os.getloadavg()]
    document = soak(args)
    document["machine"] = {"load_start": load_start, "load_end": [round(x, 2) for x in os.getloadavg()]}
    if args.json:
        print(json.dumps(document))
    else:
        stamp = datetime.date.today().isoformat()
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"soak-{stamp}.json").write_text(json.dumps(document, indent=1) + "\n")
        (args.out / f"soak-{stamp}.md").write_text(markdown(document))
        print(markdown(document))
    return 0 if document["passed"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
