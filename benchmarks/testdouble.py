"""The test double's figures: start-up, reset, footprint, a small-test suite, and the journal's cost.

    .venv/bin/python benchmarks/testdouble.py [--runs 11] [--suite 200] [--no-kafka] [--out DIR]

Each figure is the median of ``--runs`` runs (with the spread), measured in fresh processes:

- ``first_broker``: ``import odradek`` plus the first in-process broker answering ApiVersions
  (wall and CPU time, from before the import; the interpreter's own start-up is not counted);
- ``later_broker``: each further in-process broker, start to ApiVersions;
- ``run_exec_to_ready``: ``odradek run`` from exec to answering ApiVersions (1 ms polls);
- ``kafka_exec_to_ready``: Apache Kafka the same way (compat-tests' launcher; storage format not
  counted), beside its idle RSS;
- ``reset``: `Broker.reset` with 100 topics and 10 groups with committed offsets (memory and disk);
- ``idle_rss_added``: RSS of a process after starting an in-process broker and idling 2 s, minus
  its RSS before ``import odradek``;
- ``suite``: pytest running ``--suite`` small tests (a fresh topic, one record produced and
  consumed through confluent-kafka) on the plugin's fixtures, against odradek and against Kafka;
- ``journal``: broker CPU per request of one-record produce requests (librdkafka, acks=1,
  linger 0) for ``odradek run`` without the control endpoint, with it and the journal off, and
  with the journal on.

Results go to ``DIR/testdouble-<date>.json`` (default ``benchmarks/results``) and are printed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO / "compat-tests")]

from bench.pinning import plan  # noqa: E402
from bench.procstat import cpu_seconds, rss_mib  # noqa: E402

PYTHON = sys.executable
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

_API_VERSIONS = textwrap.dedent(
    """
    def api_versions(port):
        import socket, struct
        s = socket.create_connection(("127.0.0.1", port))
        body = struct.pack(">hhih", 18, 0, 1, 5) + b"bench"
        s.sendall(struct.pack(">i", len(body)) + body)
        size = struct.unpack(">i", s.recv(4))[0]
        data = b""
        while len(data) < size:
            data += s.recv(size - len(data))
        s.close()
    """
)

FIRST = _API_VERSIONS + textwrap.dedent(
    """
    import time
    t0, c0 = time.perf_counter(), time.process_time()
    from odradek import Broker
    broker = Broker(storage="memory").start()
    api_versions(broker.port)
    print(time.perf_counter() - t0, time.process_time() - c0)
    broker.stop()
    """
)

LATER = _API_VERSIONS + textwrap.dedent(
    """
    import time, sys
    from odradek import Broker
    Broker(storage="memory").start().stop()
    times = []
    for _ in range(int(sys.argv[1])):
        t0 = time.perf_counter()
        broker = Broker(storage="memory").start()
        api_versions(broker.port)
        times.append(time.perf_counter() - t0)
        broker.stop()
    print(" ".join(map(str, times)))
    """
)

RESET = textwrap.dedent(
    """
    import sys, time
    from odradek import Broker
    from odradek.wire.api import ApiKey
    from odradek.wire.messages.offsets import OffsetCommitRequest
    from tests.integration.rawclient import RawConnection

    storage, runs = sys.argv[1], int(sys.argv[2])
    Topic = OffsetCommitRequest.OffsetCommitRequestTopic
    times = []
    with Broker(storage=storage) as broker:
        for _ in range(runs):
            for i in range(100):
                broker.create_topic(f"topic-{i}", partitions=1)
            conn = RawConnection(broker.bootstrap_servers)
            for g in range(10):
                part = Topic.OffsetCommitRequestPartition(partition_index=0, committed_offset=0)
                request = OffsetCommitRequest(
                    group_id=f"group-{g}", generation_id_or_member_epoch=-1, member_id="",
                    topics=[Topic(name=f"topic-{g}", partitions=[part])],
                )
                assert conn.request(ApiKey.OFFSET_COMMIT, 8, request).topics[0].partitions[0].error_code == 0
            conn.close()
            t0 = time.perf_counter()
            broker.reset()
            times.append(time.perf_counter() - t0)
            assert broker.topics() == []
    print(" ".join(map(str, times)))
    """
)

RSS = _API_VERSIONS + textwrap.dedent(
    """
    import time

    def rss():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    before = rss()
    from odradek import Broker
    broker = Broker(storage="memory").start()
    api_versions(broker.port)
    time.sleep(2)
    print(before, rss())
    broker.stop()
    """
)

SUITE_TEST = textwrap.dedent(
    """
    import confluent_kafka
    import pytest


    @pytest.mark.parametrize("n", range({count}))
    def test_round_trip(kafka_broker, kafka_topic, n):
        topic = kafka_topic()
        producer = confluent_kafka.Producer({{"bootstrap.servers": kafka_broker.bootstrap_servers, "linger.ms": 0}})
        producer.produce(topic, b"record-%d" % n)
        assert producer.flush(30) == 0
        consumer = confluent_kafka.Consumer(
            {{"bootstrap.servers": kafka_broker.bootstrap_servers, "group.id": "g", "enable.auto.commit": False}}
        )
        consumer.assign([confluent_kafka.TopicPartition(topic, 0, 0)])
        message = None
        for _ in range(300):
            message = consumer.poll(0.1)
            if message is not None and message.error() is None:
                break
        consumer.close()
        assert message is not None and message.value() == b"record-%d" % n
    """
)


def _median(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def _child(code: str, *args: str, cwd: Path = REPO) -> str:
    result = subprocess.run(
        [PYTHON, "-c", code, *args], capture_output=True, text=True, env=ENV, cwd=cwd, timeout=600, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {result.stderr[-2000:]}")
    return result.stdout.strip().splitlines()[-1]


def first_broker(runs: int) -> dict[str, Any]:
    _child(FIRST)  # byte-compile once
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = map(float, _child(FIRST).split())
        walls.append(wall * 1000)
        cpus.append(cpu * 1000)
    return {"wall_ms": _median(walls), "cpu_ms": _median(cpus)}


def later_broker(runs: int) -> dict[str, Any]:
    times = [float(t) * 1000 for t in _child(LATER, str(max(runs, 10))).split()]
    return {"wall_ms": _median(times)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            body = struct.pack(">hhih", 18, 0, 1, 5) + b"bench"
            s.sendall(struct.pack(">i", len(body)) + body)
            return len(s.recv(4)) == 4
    except OSError:
        return False


def _exec_to_ready(
    argv: list[str], port: int, env: dict[str, str] | None = None
) -> tuple[float, subprocess.Popen[bytes]]:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env or ENV)
    while not _answers(port):
        if proc.poll() is not None:
            raise RuntimeError(f"{argv[:4]} exited with {proc.returncode}")
        time.sleep(0.001)
    return time.perf_counter() - started, proc


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_exec_to_ready(runs: int) -> dict[str, Any]:
    walls, cpus, rss = [], [], []
    for index in range(runs + 1):
        with tempfile.TemporaryDirectory(prefix="odradek-bench-") as tmp:
            port = _free_port()
            argv = [PYTHON, "-m", "odradek", "run", "--port", str(port), "--data-dir", f"{tmp}/data"]
            elapsed, proc = _exec_to_ready(argv, port)
            cpu = cpu_seconds(proc.pid)
            time.sleep(2)
            idle = rss_mib(proc.pid)
            _stop(proc)
        if index:  # the first run byte-compiles
            walls.append(elapsed * 1000)
            cpus.append(cpu * 1000)
            rss.append(idle)
    return {"wall_ms": _median(walls), "cpu_ms": _median(cpus), "idle_rss_mib": _median(rss)}


def kafka_exec_to_ready(runs: int) -> dict[str, Any]:
    from bench.brokers import kafka

    walls, cpus, rss = [], [], []
    with tempfile.TemporaryDirectory(prefix="kafka-bench-") as tmp:
        for _ in range(runs):
            with kafka(Path(tmp), plan(False)) as broker:
                walls.append(broker.start_seconds * 1000)
                cpus.append(cpu_seconds(broker.pid) * 1000)
                time.sleep(2)
                rss.append(rss_mib(broker.pid))
    return {"wall_ms": _median(walls), "cpu_ms": _median(cpus), "idle_rss_mib": _median(rss), "version": broker.version}


def reset(runs: int) -> dict[str, Any]:
    out = {}
    for storage in ("memory", "disk"):
        times = [float(t) * 1000 for t in _child(RESET, storage, str(runs)).split()]
        out[storage] = {"wall_ms": _median(times)}
    return out


def idle_rss(runs: int) -> dict[str, Any]:
    added, total = [], []
    for _ in range(max(3, runs // 3)):
        before, after = map(float, _child(RSS).split())
        added.append(after - before)
        total.append(after)
    return {"added_mib": _median(added), "process_mib": _median(total)}


def suite(count: int, bootstrap: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="suite-") as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
        (root / "test_small.py").write_text(SUITE_TEST.format(count=count))
        argv = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(root / "pytest.ini"), str(root)]
        if bootstrap is not None:
            argv.append(f"--kafka-bootstrap={bootstrap}")
        started = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=3600, check=False)
        elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"the suite failed: {result.stdout[-2000:]}")
    return {"tests": count, "wall_s": elapsed}


def _produce_one_per_request(bootstrap: str, records: int) -> None:
    import confluent_kafka

    producer = confluent_kafka.Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 0, "acks": 1, "enable.idempotence": False,
         "max.in.flight.requests.per.connection": 1, "batch.num.messages": 1}
    )  # fmt: skip
    for i in range(records):
        producer.produce("w3", b"x" * 100)
        producer.poll(0)
        if i % 1000 == 999:
            producer.flush(60)
    producer.flush(60)


def journal_cost(records: int, rounds: int, baseline: Path | None) -> dict[str, Any]:
    """Broker CPU microseconds per one-record produce request, in each set-up, alternating;
    ``baseline``: also ``odradek run`` from that source tree (the build before the hook)."""
    setups: dict[str, Callable[[int, str], list[str]]] = {
        "plain": lambda port, data: ["--port", str(port), "--data-dir", data],
        "double_journal_off": lambda port, data: ["--port", str(port), "--data-dir", data, "--control-port", "0"],
        "double_journal_on": lambda port, data: ["--port", str(port), "--data-dir", data, "--control-port", "0"],
    }
    if baseline is not None:
        setups["baseline"] = setups["plain"]
    samples: dict[str, list[float]] = {name: [] for name in setups}
    for _ in range(rounds):
        for name, extra in setups.items():
            env = {**ENV, "PYTHONPATH": str(baseline)} if name == "baseline" and baseline is not None else ENV
            with tempfile.TemporaryDirectory(prefix="journal-bench-") as tmp:
                port = _free_port()
                port_file = Path(tmp) / "ports"
                argv = [PYTHON, "-m", "odradek", "run", *extra(port, f"{tmp}/data"), "-o", "num.partitions=1"]
                if name != "baseline":
                    argv += ["--port-file", str(port_file)]
                _, proc = _exec_to_ready(argv, port, env)
                try:
                    if name == "double_journal_on":
                        while not port_file.exists():  # the control endpoint starts after the listener
                            time.sleep(0.01)
                        control = dict(line.split("=", 1) for line in port_file.read_text().split())["control.port"]
                        request = urllib.request.Request(
                            f"http://127.0.0.1:{control}/journal/start", data=b'{"capacity": 1000}', method="POST"
                        )
                        urllib.request.urlopen(request, timeout=30).close()
                    _produce_one_per_request(f"127.0.0.1:{port}", 500)  # topic auto-created, warm
                    before = cpu_seconds(proc.pid)
                    _produce_one_per_request(f"127.0.0.1:{port}", records)
                    samples[name].append((cpu_seconds(proc.pid) - before) / records * 1e6)
                finally:
                    _stop(proc)
    return {name: {"cpu_us_per_request": _median(values)} for name, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--suite", type=int, default=200, help="tests in the small-test suite (0: skip)")
    parser.add_argument("--journal-records", type=int, default=10_000, help="0: skip the journal's cost")
    parser.add_argument("--no-kafka", action="store_true", help="skip every Apache Kafka figure")
    parser.add_argument("--baseline-src", type=Path, help="a source tree of the build before, for the journal's cost")
    parser.add_argument("--only", help="comma-separated figures to measure (default: all)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    results: dict[str, Any] = {"date": datetime.date.today().isoformat(), "runs": args.runs}

    wanted = set(args.only.split(",")) if args.only else None

    def step(name: str, fn: Callable[[], Any]) -> None:
        if wanted is not None and name not in wanted:
            return
        print(f"{name} ...", flush=True)
        results[name] = fn()
        print(f"  {json.dumps(results[name])}", flush=True)

    step("first_broker", lambda: first_broker(args.runs))
    step("later_broker", lambda: later_broker(args.runs))
    step("run_exec_to_ready", lambda: run_exec_to_ready(args.runs))
    step("reset", lambda: reset(max(3, args.runs // 2)))
    step("idle_rss_added", lambda: idle_rss(args.runs))
    if args.journal_records:
        step("journal", lambda: journal_cost(args.journal_records, max(3, args.runs // 3), args.baseline_src))
    if not args.no_kafka:
        step("kafka_exec_to_ready", lambda: kafka_exec_to_ready(max(3, args.runs // 4)))
    if args.suite:
        step("suite_odradek", lambda: suite(args.suite, None))
        if not args.no_kafka and (wanted is None or "suite_kafka" in wanted):
            from bench.brokers import kafka

            with tempfile.TemporaryDirectory(prefix="kafka-suite-") as tmp, kafka(Path(tmp), plan(False)) as broker:
                step("suite_kafka", lambda: suite(args.suite, broker.bootstrap))
            if "suite_odradek" in results:
                ratio = results["suite_kafka"]["wall_s"] / results["suite_odradek"]["wall_s"]
                results["suite_ratio_kafka_over_odradek"] = ratio
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / f"testdouble-{results['date']}.json"
    target.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
