"""Workloads W1-W6 and W8 of issues 6 and 19 as cases: one client tool and one setting each.

A case's ``run`` does one run against one broker at a given ``Scale`` (how many records, or how many
seconds for the cases that run for a fixed time) and returns its figures; the runner sizes each run
from the rate the broker showed in the run before (``bench.method``). ``setup`` and ``teardown``
(optional) prepare and remove what all runs of the case share on that broker (W4's prefilled log,
W6's 1000-partition topic). Each run writes to its own fresh topic, deleted after the run, so runs do
not see each other's data. The same client tool and settings go to every broker; Kafka's producer
idempotence is disabled wherever acks=1 is compared. Cases driven by librdkafka also run on the peers
(kfake, Tansu), but for W2 (W1's batching with smaller records); the Java tools' cases run on Kafka and
odradek only, to keep ``make bench`` in budget (``bench.method.share``: what the peers get of a case).
W7 (start-up and footprint) launches brokers itself and lives in ``bench.startup``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import kafka_tools
from bench.admin import create_topic, delete_topic, high_watermark
from bench.brokers import Broker
from bench.measure import Measured, run_client
from bench.method import Timing
from bench.metrics import (
    CREATE,
    JOIN,
    LATENCY_SET,
    MIXED_SET,
    THROUGHPUT_SET,
    Metric,
    RunFailed,
    Sample,
    check,
    finish,
)
from bench.pinning import Pinning

RDKAFKA_LOAD = Path(__file__).resolve().parent / "rdkafka_load.py"
KIB = 1024


@dataclass(frozen=True, slots=True)
class Context:
    """What every run needs to know besides the broker."""

    pinning: Pinning
    kafka_version: str
    timing: Timing
    profile_dir: Path | None = None
    py_spy: str | None = None


@dataclass(frozen=True, slots=True)
class Scale:
    """How big one run is: ``records`` for count-driven cases, ``seconds`` for time-driven ones."""

    records: int
    seconds: float


Setup = dict[str, Any]
RunFn = Callable[[Context, Broker, Setup, str, Scale], Sample]


@dataclass(frozen=True)
class Case:
    """One row of the results: a workload measured with one tool and one setting."""

    key: str
    workload: str
    title: str
    tool: str
    metrics: tuple[Metric, ...]
    run: RunFn
    setup: Callable[[Context, Broker], Setup] | None = None
    teardown: Callable[[Broker, Setup], None] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    records: int = 0  # the size of the first warm-up run; later runs are sized from measured rates
    pace: str = "rec_s"  # the per-run figure warm-up watches and runs are sized by
    measured_s: float | None = None  # a fixed measured length (W8), else the timing's
    peers: bool = False  # also run on kfake and Tansu
    cannot_run: dict[str, str] = field(default_factory=dict)  # peer -> why it cannot run this case
    max_pairs: int | None = None  # at most this many measured runs per broker
    run_extra_s: float = 0.0  # time each run spends outside its measured part (for the time estimate)

    @property
    def pace_higher_is_better(self) -> bool:
        return not self.pace.endswith("_ms")

    @property
    def java_client(self) -> bool:
        return self.tool != "librdkafka"


def _measure(ctx: Context, broker: Broker, argv: Sequence[str], label: str) -> Measured:
    profile = None
    if ctx.profile_dir is not None and ctx.py_spy is not None and broker.name == "odradek":
        profile = (ctx.py_spy, ctx.profile_dir / f"{label}.txt")
    return run_client(broker, argv, ctx.pinning, profile=profile, pause_s=ctx.timing.pause_s)


def _rdkafka(mode: str, broker: Broker, topic: str, *args: str) -> list[str]:
    return [sys.executable, str(RDKAFKA_LOAD), mode, "--bootstrap", broker.bootstrap, "--topic", topic, *args]


def _rdkafka_result(measured: Measured) -> dict[str, Any]:
    if measured.returncode != 0:
        raise RunFailed(f"rdkafka_load exited with {measured.returncode}: {measured.stderr.strip()[-800:]}")
    result: dict[str, Any] = json.loads(measured.stdout.strip().splitlines()[-1])
    if result["errors"]:
        raise RunFailed(f"{result['errors']} delivery errors, first: {result['first_error']}")
    return result


def _props(settings: dict[str, str]) -> list[str]:
    return [f"{key}={value}" for key, value in settings.items()]


# Batching of W1/W2 (and of the W4 prefill): 1 MiB batches, 10 ms linger, no compression.
BULK = {"batch.size": "1048576", "linger.ms": "10", "compression.type": "none", "max.request.size": "2097152"}
ACKS1 = {"acks": "1", "enable.idempotence": "false"}


# A transactional producer (W1-pp-txn): ProducerPerformance commits every --transaction-duration-ms,
# so a fixed rate sets the size of a transaction: 20,000 records/s and 50 ms make ~1,000 records.
TXN_RATE, TXN_DURATION_MS = 20_000, 50


def producer_perf(
    key: str,
    size: int,
    props: dict[str, str],
    topic_config: dict[str, str],
    extra: Sequence[str] = (),
    throughput: int = -1,
) -> RunFn:
    """Kafka's ProducerPerformance into a fresh one-partition topic (``extra``: more arguments,
    ``throughput``: a rate limit in records/s, -1 none)."""

    def run(ctx: Context, broker: Broker, setup: Setup, label: str, scale: Scale) -> Sample:
        topic = f"{key}-{label}"
        create_topic(broker.bootstrap, topic, 1, topic_config)
        try:
            argv = kafka_tools.command(
                ctx.kafka_version,
                "ProducerPerformance",
                "--bootstrap-server",
                broker.bootstrap,
                "--topic",
                topic,
                "--num-records",
                str(scale.records),
                "--record-size",
                str(size),
                "--throughput",
                str(throughput),
                *extra,
                "--command-property",
                *_props(props),
            )
            measured = _measure(ctx, broker, argv, f"{key}-{label}")
            check(measured)
            tool = kafka_tools.parse_producer(measured.stdout, size)
            return finish(measured, tool, tool["records"] * size, tool["records"] / tool["rec_s"])
        finally:
            delete_topic(broker.bootstrap, topic, broker.data_dir)

    return run


def rdkafka_produce(key: str, size: int, extra: Sequence[str]) -> RunFn:
    """The librdkafka producer into a fresh one-partition topic."""

    def run(ctx: Context, broker: Broker, setup: Setup, label: str, scale: Scale) -> Sample:
        topic = f"{key}-{label}"
        create_topic(broker.bootstrap, topic, 1)
        try:
            argv = _rdkafka("produce", broker, topic, "--records", str(scale.records), "--size", str(size), *extra)
            measured = _measure(ctx, broker, argv, f"{key}-{label}")
            result = _rdkafka_result(measured)
            seconds = result["seconds"]
            tool = {
                "records": result["records"],
                "requested": scale.records,
                "rec_s": result["records"] / seconds,
                "mb_s": result["bytes"] / 1e6 / seconds,
            }
            return finish(measured, tool, result["bytes"], seconds)
        finally:
            delete_topic(broker.bootstrap, topic, broker.data_dir)

    return run


def prefill(topic: str, records: int, size: int) -> Callable[[Context, Broker], Setup]:
    """A one-partition topic holding ``records`` records, written with the librdkafka producer.

    Cases that name the same topic share it: a topic already holding the records is reused.
    """

    def setup(ctx: Context, broker: Broker) -> Setup:
        shared = {"topic": topic, "records": records, "size": size}
        if high_watermark(broker.bootstrap, topic) >= records:
            return shared
        create_topic(broker.bootstrap, topic, 1)
        argv = _rdkafka("produce", broker, topic, "--records", str(records), "--size", str(size))
        result = _rdkafka_result(run_client(broker, argv, ctx.pinning))
        if result["records"] != records:
            raise RunFailed(f"prefill wrote {result['records']} of {records} records")
        return {**shared, "prefill_s": result["seconds"]}

    return setup


def drop_topic(broker: Broker, setup: Setup) -> None:
    delete_topic(broker.bootstrap, setup["topic"], broker.data_dir)


def consumer_perf(ctx: Context, broker: Broker, setup: Setup, label: str, scale: Scale) -> Sample:
    """Kafka's ConsumerPerformance (a consumer group of one) over the whole prefilled log: it cannot
    read a log twice, so its runs last as long as one pass over the prefilled log (``scale`` unused)."""
    argv = kafka_tools.command(
        ctx.kafka_version,
        "ConsumerPerformance",
        "--bootstrap-server",
        broker.bootstrap,
        "--topic",
        setup["topic"],
        "--num-records",
        str(setup["records"]),
        "--timeout",
        "60000",
        "--group",
        f"bench-{label}",
    )
    measured = _measure(ctx, broker, argv, f"W4-cp-{label}")
    check(measured)
    tool = kafka_tools.parse_consumer(measured.stdout)
    if tool["records"] < setup["records"]:
        raise RunFailed(f"consumed {tool['records']:.0f} of {setup['records']} records")
    fetch_s = tool["records"] / tool["rec_s"]
    return finish(measured, tool, tool["mb_s"] * 1e6 * fetch_s, fetch_s)


def rdkafka_consume(ctx: Context, broker: Broker, setup: Setup, label: str, scale: Scale) -> Sample:
    """The librdkafka consumer (assign, no group) reading the prefilled log from the beginning,
    pass after pass, until ``scale.records`` records (at least one whole pass) were read; the
    throughput counts the time spent reading, not the restarts between passes (``rdkafka_load``)."""
    wanted = max(scale.records, setup["records"])
    argv = _rdkafka("consume", broker, setup["topic"], "--records", str(wanted))
    measured = _measure(ctx, broker, argv, f"W4-rdkafka-{label}")
    result = _rdkafka_result(measured)
    if result["records"] < wanted:
        raise RunFailed(f"consumed {result['records']} of {wanted} records")
    seconds = result["seconds"]
    tool = {"records": result["records"], "rec_s": result["records"] / seconds, "mb_s": result["bytes"] / 1e6 / seconds}
    return finish(measured, tool, result["bytes"], seconds)


def end_to_end(size: int) -> RunFn:
    """Kafka's EndToEndLatency: send one record, wait for the ack, poll it back; repeat."""

    def run(ctx: Context, broker: Broker, setup: Setup, label: str, scale: Scale) -> Sample:
        records = scale.records
        topic = f"W5-e2e-{label}"
        create_topic(broker.bootstrap, topic, 1)
        try:
            argv = kafka_tools.command(
                ctx.kafka_version, "EndToEndLatency", broker.bootstrap, topic, str(records), "1", str(size)
            )
            measured = _measure(ctx, broker, argv, f"W5-e2e-{label}")
            check(measured)
            tool = kafka_tools.parse_end_to_end(measured.stdout)
            tool["rec_s"] = 1000 / tool["avg_ms"] if tool["avg_ms"] > 0 else 0.0
            return finish(measured, tool, records * size, records * tool["avg_ms"] / 1000)
        finally:
            delete_topic(broker.bootstrap, topic, broker.data_dir)

    return run


def rdkafka_latency(rate: int, size: int) -> RunFn:
    """The librdkafka probe: a fixed send rate for ``scale.seconds``, send->receive percentiles in µs."""

    def run(ctx: Context, broker: Broker, setup: Setup, label: str, scale: Scale) -> Sample:
        seconds = scale.seconds
        topic = f"W5-rdkafka-{label}"
        create_topic(broker.bootstrap, topic, 1)
        try:
            argv = _rdkafka(
                "latency", broker, topic, "--rate", str(rate), "--seconds", str(seconds), "--size", str(size)
            )
            measured = _measure(ctx, broker, argv, f"W5-rdkafka-{label}")
            result = _rdkafka_result(measured)
            if result["records"] < rate * seconds:
                raise RunFailed(f"received {result['records']} of {rate * seconds:.0f} records")
            tool = {name: result[name] for name in ("p50_ms", "p99_ms", "p999_ms", "avg_ms")}
            return finish(measured, tool, result["bytes"], result["seconds"])
        finally:
            delete_topic(broker.bootstrap, topic, broker.data_dir)

    return run


def many_partitions(partitions: int) -> Callable[[Context, Broker], Setup]:
    def setup(ctx: Context, broker: Broker) -> Setup:
        topic = "W6-scale"
        return {"topic": topic, "create_s": create_topic(broker.bootstrap, topic, partitions)}

    return setup


def rdkafka_multi(producers: int, partitions: int, size: int) -> RunFn:
    """``producers`` librdkafka producers (one connection each) over ``partitions`` partitions."""

    def run(ctx: Context, broker: Broker, setup: Setup, label: str, scale: Scale) -> Sample:
        records = max(scale.records, producers)
        argv = _rdkafka(
            "multi",
            broker,
            setup["topic"],
            "--records",
            str(records),
            "--size",
            str(size),
            "--producers",
            str(producers),
            "--partitions",
            str(partitions),
        )
        measured = _measure(ctx, broker, argv, f"W6-{label}")
        result = _rdkafka_result(measured)
        seconds = result["seconds"]
        tool = {
            "records": result["records"],
            "rec_s": result["records"] / seconds,
            "mb_s": result["bytes"] / 1e6 / seconds,
            "create_s": setup["create_s"],
        }
        return finish(measured, tool, result["bytes"], seconds)

    return run


def mixed(producers: int, partitions: int, rate: int, size: int) -> RunFn:
    """W8: ``producers`` producers at ``rate`` records/s in all, a consumer group of 3 committing
    every half second, all at once for ``scale.seconds``; per-role throughput and p99."""

    def run(ctx: Context, broker: Broker, setup: Setup, label: str, scale: Scale) -> Sample:
        topic = f"W8-mixed-{label}"
        create_topic(broker.bootstrap, topic, partitions)
        try:
            argv = _rdkafka(
                "mixed",
                broker,
                topic,
                "--seconds",
                f"{scale.seconds:g}",
                "--rate",
                str(rate),
                "--size",
                str(size),
                "--producers",
                str(producers),
                "--partitions",
                str(partitions),
                "--group",
                f"W8-{label}",
            )
            measured = _measure(ctx, broker, argv, f"W8-{label}")
            result = _rdkafka_result(measured)
            names = ("produce_mb_s", "consume_mb_s", "commit_s", "produce_p99_ms", "e2e_p99_ms", "commit_p99_ms")
            tool = {name: float(result[name]) for name in names}
            tool["records"] = result["records"]
            tool["rec_s"] = result["records"] / result["seconds"]
            tool["mb_s"] = tool["produce_mb_s"] + tool["consume_mb_s"]
            return finish(measured, tool, result["bytes"], result["seconds"])
        finally:
            delete_topic(broker.bootstrap, topic, broker.data_dir)

    return run


#: Why W8 does not run on Tansu (0.6.0, measured with librdkafka 2.16): it answers a new group's
#: JoinGroup only after half the session timeout, so the group would still be forming when W8's clock
#: starts and its figures would measure that wait.
TANSU_GROUP_JOIN = (
    "its consumer group forms only after half the session timeout (JoinGroup answered after 22.5 s at "
    "librdkafka's default session.timeout.ms of 45 s), while W8 gives the group 3 s before its clock starts"
)


@dataclass(frozen=True, slots=True)
class Sizes:
    """The first warm-up run of each case (later runs are sized from measured rates), the shape of
    W6 and W8, and the prefilled log of W4; ``quick`` shrinks everything for a fast look."""

    w1_records: int
    w1_flush_records: int
    w2_records: int
    w2_rdkafka_records: int
    w3_records: int
    w4_records: int
    w5_records: int
    w6_partitions: int
    w6_producers: int
    w6_records: int
    w8_seconds: float
    w8_rate: int


FULL = Sizes(100_000, 20_000, 300_000, 300_000, 5_000, 1_000_000, 2_000, 1_000, 200, 20_000, 60.0, 20_000)
QUICK = Sizes(30_000, 5_000, 100_000, 100_000, 2_000, 200_000, 300, 200, 20, 20_000, 10.0, 5_000)
SMOKE = Sizes(20_000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0, 0)


def smoke_case(sizes: Sizes) -> Case:
    """The harness check run by ``make test``: W1 with librdkafka, no Java needed."""
    extra = ["--acks", "1"]
    return Case(
        "W1-rdkafka-acks1",
        "W1",
        "bulk produce 1 KiB, acks=1",
        "librdkafka",
        THROUGHPUT_SET,
        rdkafka_produce("W1-rdkafka", KIB, extra),
        settings={"size": KIB, "batch.size": 1048576, "linger.ms": 10},
        records=sizes.w1_records,
    )


def cases(sizes: Sizes) -> list[Case]:
    """Every case of W1-W6 and W8, in running order."""
    flush = {"flush.messages": "1"}
    txn = ("--transactional-id", "bench-txn", "--transaction-duration-ms", str(TXN_DURATION_MS))
    return [
        Case(
            "W1-pp-acks1",
            "W1",
            "bulk produce 1 KiB, acks=1",
            "ProducerPerformance",
            THROUGHPUT_SET,
            producer_perf("W1-pp-acks1", KIB, {**BULK, **ACKS1}, {}),
            settings={"size": KIB, **BULK, **ACKS1},
            records=sizes.w1_records,
        ),
        Case(
            "W1-pp-acksall",
            "W1",
            "bulk produce 1 KiB, acks=all (idempotent)",
            "ProducerPerformance",
            THROUGHPUT_SET,
            producer_perf("W1-pp-acksall", KIB, {**BULK, "acks": "all"}, {}),
            settings={"size": KIB, **BULK, "acks": "all"},
            records=sizes.w1_records,
        ),
        Case(
            "W1-rdkafka-acks1",
            "W1",
            "bulk produce 1 KiB, acks=1",
            "librdkafka",
            THROUGHPUT_SET,
            rdkafka_produce("W1-rdkafka", KIB, ["--acks", "1"]),
            settings={"size": KIB, "batch.size": 1048576, "linger.ms": 10},
            records=sizes.w1_records,
            peers=True,
        ),
        Case(
            "W1-pp-txn",
            "W1",
            "transactional produce 1 KiB, ~1,000 records per transaction",
            "ProducerPerformance",
            THROUGHPUT_SET,
            producer_perf("W1-pp-txn", KIB, {**BULK, "acks": "all"}, {}, txn, TXN_RATE),
            settings={
                "size": KIB,
                **BULK,
                "acks": "all",
                "throughput": TXN_RATE,
                "transaction.duration.ms": TXN_DURATION_MS,
            },
            records=sizes.w1_flush_records,
        ),
        Case(
            "W1-pp-flush",
            "W1",
            "bulk produce 1 KiB, acks=1, flush.messages=1",
            "ProducerPerformance",
            THROUGHPUT_SET,
            producer_perf("W1-pp-flush", KIB, {**BULK, **ACKS1}, flush),
            settings={"size": KIB, **BULK, **ACKS1, **flush},
            records=sizes.w1_flush_records,
        ),
        Case(
            "W2-pp",
            "W2",
            "small records 100 B, acks=1",
            "ProducerPerformance",
            THROUGHPUT_SET,
            producer_perf("W2-pp", 100, {**BULK, **ACKS1}, {}),
            settings={"size": 100, **BULK, **ACKS1},
            records=sizes.w2_records,
        ),
        Case(
            "W2-rdkafka",
            "W2",
            "small records 100 B, acks=1",
            "librdkafka",
            THROUGHPUT_SET,
            rdkafka_produce("W2-rdkafka", 100, ["--acks", "1"]),
            settings={"size": 100, "batch.size": 1048576, "linger.ms": 10},
            records=sizes.w2_rdkafka_records,
            peers=True,
        ),
        Case(
            "W3-pp",
            "W3",
            "one 100 B record per request (batch.size=0)",
            "ProducerPerformance",
            THROUGHPUT_SET,
            producer_perf("W3-pp", 100, {"batch.size": "0", "linger.ms": "0", **ACKS1}, {}),
            settings={"size": 100, "batch.size": 0, "linger.ms": 0, **ACKS1},
            records=sizes.w3_records,
        ),
        Case(
            "W3-rdkafka",
            "W3",
            "one 100 B record per request (batch.num.messages=1)",
            "librdkafka",
            THROUGHPUT_SET,
            rdkafka_produce("W3-rdkafka", 100, ["--acks", "1", "--linger-ms", "0", "--batch-messages", "1"]),
            settings={"size": 100, "batch.num.messages": 1, "linger.ms": 0},
            records=sizes.w3_records,
            peers=True,
        ),
        Case(
            "W4-cp",
            "W4",
            f"consume a prefilled {sizes.w4_records * KIB / 2**30:.2f} GiB log (one pass per run)",
            "ConsumerPerformance",
            (*THROUGHPUT_SET, JOIN),
            consumer_perf,
            prefill("W4-log", sizes.w4_records, KIB),
            settings={"log_records": sizes.w4_records, "size": KIB},
            records=sizes.w4_records,
        ),
        Case(
            "W4-rdkafka",
            "W4",
            f"consume a prefilled {sizes.w4_records * KIB / 2**30:.2f} GiB log (passes until the run is long enough)",
            "librdkafka",
            THROUGHPUT_SET,
            rdkafka_consume,
            prefill("W4-log", sizes.w4_records, KIB),
            drop_topic,
            settings={"log_records": sizes.w4_records, "size": KIB},
            records=sizes.w4_records,
            peers=True,
        ),
        Case(
            "W5-e2e",
            "W5",
            "end-to-end latency, one record at a time, 1 KiB",
            "EndToEndLatency",
            LATENCY_SET,
            end_to_end(KIB),
            settings={"size": KIB, "acks": 1},
            records=sizes.w5_records,
            pace="avg_ms",
        ),
        Case(
            "W5-rdkafka",
            "W5",
            "end-to-end latency at 1000 records/s, 1 KiB",
            "librdkafka",
            LATENCY_SET,
            rdkafka_latency(1000, KIB),
            settings={"rate": 1000, "size": KIB, "acks": 1},
            pace="p99_ms",
            peers=True,
        ),
        Case(
            "W6-rdkafka",
            "W6",
            f"{sizes.w6_producers} producers over {sizes.w6_partitions} partitions, 1 KiB",
            "librdkafka",
            (CREATE, *THROUGHPUT_SET),
            rdkafka_multi(sizes.w6_producers, sizes.w6_partitions, KIB),
            many_partitions(sizes.w6_partitions),
            drop_topic,
            settings={"producers": sizes.w6_producers, "partitions": sizes.w6_partitions, "size": KIB},
            records=sizes.w6_records,
            peers=True,
        ),
        Case(
            "W8-mixed",
            "W8",
            f"mixed: 4 producers at {sizes.w8_rate} records/s, a group of 3 consumers committing, 1 KiB",
            "librdkafka",
            MIXED_SET,
            mixed(4, 6, sizes.w8_rate, KIB),
            settings={"producers": 4, "partitions": 6, "rate": sizes.w8_rate, "consumers": 3, "size": KIB},
            pace="e2e_p99_ms",
            measured_s=sizes.w8_seconds,
            peers=True,
            cannot_run={"tansu": TANSU_GROUP_JOIN},
            max_pairs=2,
            run_extra_s=4.0,
        ),
    ]
