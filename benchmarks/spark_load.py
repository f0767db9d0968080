"""Spark reading Kafka into Parquet: odradek against Apache Kafka, and the odradek Python data source
against Spark's JVM connector, on the same data in the same run.

    .venv/bin/python benchmarks/spark_load.py                   # 1 warm-up and 5 measured rounds
    .venv/bin/python benchmarks/spark_load.py --records 20000 --rounds 2   # a quick look

Both brokers run side by side (Kafka from the compat harness launcher, odradek with ``python -m
odradek run``), each holding the same topic: ``--records`` records of 1 KiB values with 8-byte keys
in 2 partitions, written once by librdkafka before measuring. One SparkSession (``local[2]``, Spark's
connector jars, the odradek source registered) then runs, per round and broker (the broker order
alternating between rounds), three jobs that each read the whole topic and write it as Parquet:

* ``loader``: ``odradek spark-load``'s :func:`~odradek.pipeline.loader.load` into a fresh output
  directory (Spark's connector, Parquet partitioned by topic and date, manifest committed);
* ``jvm``: ``spark.read.format("kafka")`` -> ``write.parquet``;
* ``python``: ``spark.read.format("odradek")`` -> ``write.parquet``, the same columns.

Each job's output is checked (its Parquet files hold exactly ``--records`` rows); its wall time
gives rows/s and MB/s (value bytes / 1e6 per second). Reported: per job and
broker the median over the measured rounds, the ratio odradek / Kafka per job (median of per-round
ratios) and python / jvm per broker. Everything shares the machine's two cores: Spark's tasks, the
broker being read and the idle one, so these are end-to-end figures of this machine, not broker
limits. Writes ``benchmarks/results/<date>-spark.json`` and ``benchmarks/results/spark.md``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "compat-tests"))
sys.path.insert(0, str(ROOT))

from harness.broker import RunningBroker, launchers  # noqa: E402

from odradek.pipeline.datasource import register  # noqa: E402
from odradek.pipeline.jars import resolve_connector_jars  # noqa: E402
from odradek.pipeline.loader import LoadRequest, load  # noqa: E402
from odradek.pipeline.session import build_session, spark_version  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
TOPIC = "spark-bench"
PARTITIONS = 2
VALUE_BYTES = 1024
BROKERS = ("kafka", "odradek")
JOBS = ("loader", "jvm", "python")
COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType")

log = logging.getLogger("spark-bench")


def fill(bootstrap: str, records: int) -> None:
    """The benchmark topic with ``records`` 1 KiB records, written by librdkafka."""
    admin = AdminClient({"bootstrap.servers": bootstrap}, logger=log)
    admin.create_topics([NewTopic(TOPIC, num_partitions=PARTITIONS, replication_factor=1)])[TOPIC].result(60)
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 10, "batch.size": 1 << 20, "acks": "all"}, logger=log
    )
    value = bytes(range(256)) * (VALUE_BYTES // 256)
    for i in range(records):
        while True:
            try:
                producer.produce(TOPIC, key=i.to_bytes(8, "big"), value=value, partition=i % PARTITIONS)
                break
            except BufferError:
                producer.poll(0.1)
    if producer.flush(120) != 0:
        raise RuntimeError(f"records for {bootstrap} not delivered within 120 s")


def _plain_write(spark: Any, fmt: str, bootstrap: str, out: Path) -> None:
    frame = spark.read.format(fmt).option("kafka.bootstrap.servers", bootstrap).option("subscribe", TOPIC).load()
    frame.select(*COLUMNS).write.parquet(str(out))


def _loader(spark: Any, bootstrap: str, out: Path) -> None:
    result = load(spark, LoadRequest(bootstrap, out, topics=(TOPIC,)))
    assert result.run is not None, "the loader found nothing to load"


def jobs(spark: Any) -> dict[str, Callable[[str, Path], None]]:
    return {
        "loader": lambda bootstrap, out: _loader(spark, bootstrap, out),
        "jvm": lambda bootstrap, out: _plain_write(spark, "kafka", bootstrap, out),
        "python": lambda bootstrap, out: _plain_write(spark, "odradek", bootstrap, out),
    }


@contextmanager
def brokers(workdir: Path) -> Iterator[dict[str, RunningBroker]]:
    available = launchers()
    with ExitStack() as stack:
        running = {}
        for name in BROKERS:
            running[name] = stack.enter_context(available[name](workdir, workdir / f"{name}.log"))
        yield running


def measure(records: int, rounds: int, workdir: Path) -> dict[str, Any]:
    """Fill both brokers, then run every job on each broker for one warm-up and ``rounds`` rounds."""
    with brokers(workdir) as running:
        for name, broker in running.items():
            started = time.perf_counter()
            fill(broker.bootstrap, records)
            print(f"{name} {broker.version}: {records} records written in {time.perf_counter() - started:.1f} s")
        spark = build_session(
            "local[2]", resolve_connector_jars(spark_version()), "spark-bench", {"spark.sql.shuffle.partitions": "2"}
        )
        spark.sparkContext.setLogLevel("ERROR")
        register(spark)
        runs: list[dict[str, Any]] = []
        try:
            for round_number in range(rounds + 1):
                order = BROKERS if round_number % 2 == 0 else BROKERS[::-1]
                for name in order:
                    for job, run_job in jobs(spark).items():
                        out = workdir / f"out-{round_number}-{name}-{job}"
                        started = time.perf_counter()
                        run_job(running[name].bootstrap, out)
                        seconds = time.perf_counter() - started
                        written = sum(pq.ParquetFile(path).metadata.num_rows for path in out.rglob("*.parquet"))
                        if written != records:
                            raise RuntimeError(f"{job} on {name} wrote {written} rows, not {records}")
                        shutil.rmtree(out)
                        runs.append(
                            {
                                "round": round_number,
                                "warmup": round_number == 0,
                                "broker": name,
                                "job": job,
                                "seconds": seconds,
                                "load_1m": os.getloadavg()[0],
                            }
                        )
                        print(f"round {round_number} {name:8} {job:7} {seconds:6.2f} s {records / seconds:9.0f} rows/s")
        finally:
            spark.stop()
        versions = {name: broker.version for name, broker in running.items()}
    return {"versions": versions, "runs": runs}


def summarise(results: dict[str, Any], records: int) -> dict[str, Any]:
    measured = [run for run in results["runs"] if not run["warmup"]]

    def seconds(broker: str, job: str) -> list[float]:
        return [
            r["seconds"]
            for r in sorted(measured, key=lambda r: r["round"])
            if r["broker"] == broker and r["job"] == job
        ]

    megabytes = records * VALUE_BYTES / 1e6
    table: dict[str, Any] = {}
    for job in JOBS:
        for broker in BROKERS:
            times = seconds(broker, job)
            median = statistics.median(times)
            table[f"{job}/{broker}"] = {
                "median_s": round(median, 2),
                "min_s": round(min(times), 2),
                "max_s": round(max(times), 2),
                "rows_per_s": round(records / median),
                "mb_per_s": round(megabytes / median, 1),
            }
        pairs = zip(seconds("kafka", job), seconds("odradek", job), strict=True)
        table[f"{job}/odradek_over_kafka"] = round(statistics.median(k / o for k, o in pairs), 3)
    for broker in BROKERS:
        pairs = zip(seconds(broker, "jvm"), seconds(broker, "python"), strict=True)
        table[f"python_over_jvm/{broker}"] = round(statistics.median(j / p for j, p in pairs), 3)
    table["load_1m_median"] = round(statistics.median(r["load_1m"] for r in measured), 2)
    return table


def markdown(results: dict[str, Any]) -> str:
    summary, versions = results["summary"], results["versions"]
    lines = [
        "# Spark reading Kafka into Parquet: odradek and Apache Kafka, Python source and JVM connector",
        "",
        f"Measured {results['date']} by `benchmarks/spark_load.py`: Apache Kafka {versions['kafka']} and odradek "
        f"{versions['odradek']}, PySpark {results['pyspark']} `local[2]`, {results['records']} records of "
        f"{VALUE_BYTES} B values ({results['records'] * VALUE_BYTES / 1e6:.0f} MB) in {PARTITIONS} partitions; "
        f"{results['rounds']} measured rounds after one warm-up, brokers alternating. Spark, the broker read and the "
        "idle broker share the machine's 2 cores. Throughput is value bytes per second of wall time; a ratio above 1 "
        "means faster than the reference (median of per-round ratios). The machine's 1-minute load average "
        f"after each job had a median of {summary['load_1m_median']} (other work shared the cores); ⚠ marks a "
        "spread (max-min over median) above 20%.",
        "",
        "| job | broker | median s (min-max) | rows/s | MB/s |",
        "|---|---|---|---|---|",
    ]
    for job in JOBS:
        for broker in BROKERS:
            row = summary[f"{job}/{broker}"]
            noisy = " ⚠" if (row["max_s"] - row["min_s"]) / row["median_s"] > 0.2 else ""
            lines.append(
                f"| {job} | {broker} | {row['median_s']} ({row['min_s']}-{row['max_s']}){noisy} | "
                f"{row['rows_per_s']} | {row['mb_per_s']} |"
            )
    lines += ["", "| ratio | value |", "|---|---|"]
    for job in JOBS:
        lines.append(f"| {job}: odradek / Kafka throughput | **{summary[f'{job}/odradek_over_kafka']}** |")
    for broker in BROKERS:
        lines.append(
            f"| on {broker}: Python source / JVM connector throughput | **{summary[f'python_over_jvm/{broker}']}** |"
        )
    lines += [
        "",
        "Jobs: `loader` is `odradek spark-load` (Spark's connector, Parquet partitioned by topic and date, manifest); "
        '`jvm` and `python` read the whole topic with `format("kafka")` and `format("odradek")` and write the same '
        "seven columns as plain Parquet.",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=100_000, help="1 KiB records in the topic (default 100000)")
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds after the warm-up (default 5)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    import pyspark

    with tempfile.TemporaryDirectory(prefix="spark-bench-") as tmp:
        results = measure(args.records, args.rounds, Path(tmp))
    date = datetime.now(UTC).strftime("%Y-%m-%d")
    results.update(
        {
            "date": date,
            "records": args.records,
            "rounds": args.rounds,
            "pyspark": pyspark.__version__,
            "machine": {"cpus": os.cpu_count(), "arch": platform.machine(), "python": platform.python_version()},
        }
    )
    results["summary"] = summarise(results, args.records)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{date}-spark.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    (args.out / "spark.md").write_text(markdown(results))
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
