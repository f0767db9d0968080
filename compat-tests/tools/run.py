"""Apache Kafka's own tools pointed at odradek (and at Apache Kafka itself, as the reference).

Per broker, in order (each check reports pass/fail with the tool's output):

    topic-create        TopicCommand --create (3 partitions)
    topic-list          TopicCommand --list shows it
    topic-describe      TopicCommand --describe shows 3 partitions, each with a leader
    console-producer    ConsoleProducer writes RECORDS keyed records (key<TAB>value lines)
    console-consumer    ConsoleConsumer (with a group) reads back exactly those records
    dump-log            DumpLogSegments --print-data-log --deep-iteration over the broker's segment files
                        on disk: every batch valid, the same records at the same offsets the consumer saw
    dump-indexes        DumpLogSegments over the .index/.timeindex files: no mismatches, no errors
    dump-offsets        DumpLogSegments --offsets-decoder over __consumer_offsets: the group's metadata and
                        its committed offsets for the topic decode with Kafka's own decoder
    dump-transactions   a committed and an aborted transaction (confluent-kafka), then DumpLogSegments:
                        --transaction-log-decoder over __transaction_state decodes the transactional id's
                        records, the data segment shows both markers, its .txnindex the aborted transaction
    client-compat       ClientCompatibilityTest with the feature flags Apache Kafka 4.x passes with;
                        on odradek, if that fails, once more with the flags odradek's ApiVersions implies
                        (passing only then is "partial")
    topic-add-partitions  TopicCommand --alter --partitions grows a topic; shrinking it is refused
    leader-election     LeaderElectionCommand --election-type PREFERRED: nothing to elect
    reassign-list       ReassignPartitionsCommand --list: no reassignment in progress
    log-dirs            LogDirsCommand --describe: the topic's partitions in the data directory
    metadata-quorum     MetadataQuorumCommand describe --status: this node leads the quorum
    configs-scram       ConfigCommand (kafka-configs) adds SCRAM-SHA-256/512 credentials to a user,
                        describes them, deletes one (config_command.py)
    configs-quotas      ConfigCommand adds, describes and deletes client quotas of a user, a client id,
                        both together and the default client id (config_command.py)
    dump-indexes-stopped  after a clean shutdown: every partition's .index/.timeindex has entries and
                        DumpLogSegments finds no mismatch (odradek writes index entries at flush/close)

A check passing on both brokers whose normalised observation differs between them is reported as
"diff" (not gating). With Apache Kafka running, its raw ApiVersions answer is stored as
report/kafka-api-versions.json (and odradek's as report/odradek-api-versions.json) for ledger.py.

    .venv/bin/python compat-tests/tools/run.py [--brokers odradek,kafka] [--tools-version 4.3.1] [--checks a,b]

Writes report/tools.json and report/tools.md; full tool outputs go to report/logs/tools/.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
COMPAT = HERE.parent
sys.path.insert(0, str(COMPAT))
sys.path.insert(0, str(HERE))

import config_command  # noqa: E402
from harness.broker import REFERENCE, RunningBroker, launchers  # noqa: E402
from kafka_tools import (  # noqa: E402
    CLIENT_COMPATIBILITY_TEST,
    CONSOLE_CONSUMER,
    CONSOLE_PRODUCER,
    DUMP_LOG_SEGMENTS,
    LEADER_ELECTION,
    LOG_DIRS,
    METADATA_QUORUM,
    REASSIGN_PARTITIONS,
    TOPIC_COMMAND,
    ToolRun,
    Tools,
    api_versions,
)

RECORDS = 2000
PARTITIONS = 3
DEFAULT_TOOLS_VERSION = "4.3.1"
_CONSUMED = re.compile(r"^Partition:(\d+)\tOffset:(\d+)\t(.*?)\t(.*)$")
_DUMPED = re.compile(r"^\| offset: (\d+) .*? key: (.*?) payload: (.*)$")
_BATCH = re.compile(r"^baseOffset: \d+ .* isvalid: (\w+)")


@dataclass(slots=True)
class Check:
    name: str
    broker: str
    status: str = "fail"
    problems: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    output: str = ""
    seconds: float = 0.0
    observed: Any = None


@dataclass(slots=True)
class Context:
    tools: Tools
    broker: RunningBroker
    log_dir: Path
    topic: str
    group: str
    produced: list[tuple[str, str]]
    consumed: list[tuple[int, int, str, str]] = field(default_factory=list)


def _record(check: Check, ctx: Context, run: ToolRun) -> None:
    check.commands.append(" ".join(run.argv[run.argv.index("-cp") + 2 :]))
    check.seconds += run.seconds
    text = f"$ {check.commands[-1]}\n[exit {run.returncode}]\n{run.stdout}\n--- stderr\n{run.stderr}\n"
    check.output = (check.output + text)[-6000:]
    path = ctx.log_dir / ctx.broker.name / f"{check.name}.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as log:
        log.write(text)
    if run.returncode != 0:
        check.problems.append(f"exit status {run.returncode}: {(run.stderr or run.stdout).strip()[-400:]}")


def _topic(ctx: Context, *args: str) -> ToolRun:
    return ctx.tools.run(TOPIC_COMMAND, ["--bootstrap-server", ctx.broker.bootstrap, *args])


def check_topic_create(ctx: Context, check: Check) -> None:
    run = _topic(ctx, "--create", "--topic", ctx.topic, "--partitions", str(PARTITIONS), "--replication-factor", "1")
    _record(check, ctx, run)
    if f"Created topic {ctx.topic}." not in run.stdout:
        check.problems.append("no 'Created topic' line")


def check_topic_list(ctx: Context, check: Check) -> None:
    run = _topic(ctx, "--list")
    _record(check, ctx, run)
    if ctx.topic not in run.stdout.split():
        check.problems.append(f"{ctx.topic} not listed")


def check_topic_describe(ctx: Context, check: Check) -> None:
    run = _topic(ctx, "--describe", "--topic", ctx.topic)
    _record(check, ctx, run)
    if f"PartitionCount: {PARTITIONS}" not in run.stdout:
        check.problems.append(f"no 'PartitionCount: {PARTITIONS}'")
    leaders = re.findall(r"Partition: (\d+)\tLeader: (\d+)", run.stdout)
    if sorted(int(p) for p, _ in leaders) != list(range(PARTITIONS)):
        check.problems.append(f"partition lines with a leader: {leaders}")
    normalised = re.sub(r"TopicId: \S+", "TopicId: <id>", run.stdout.replace(ctx.topic, "<topic>"))
    check.observed = normalised.strip().splitlines()


def check_console_producer(ctx: Context, check: Check) -> None:
    lines = "".join(f"{key}\t{value}\n" for key, value in ctx.produced)
    args = [
        "--bootstrap-server", ctx.broker.bootstrap, "--topic", ctx.topic, "--reader-property", "parse.key=true",
        "--reader-property", "key.separator=\t", "--producer-property", "acks=all",
    ]  # fmt: skip
    _record(check, ctx, ctx.tools.run(CONSOLE_PRODUCER, args, stdin=lines))


def check_console_consumer(ctx: Context, check: Check) -> None:
    args = [
        "--bootstrap-server", ctx.broker.bootstrap, "--topic", ctx.topic, "--group", ctx.group, "--from-beginning",
        "--max-messages", str(RECORDS), "--timeout-ms", "30000", "--formatter-property", "print.key=true",
        "--formatter-property", "print.partition=true", "--formatter-property", "print.offset=true",
    ]  # fmt: skip
    run = ctx.tools.run(CONSOLE_CONSUMER, args)
    _record(check, ctx, run)
    for line in run.stdout.splitlines():
        match = _CONSUMED.match(line)
        if match:
            ctx.consumed.append((int(match[1]), int(match[2]), match[3], match[4]))
    got = sorted((key, value) for _, _, key, value in ctx.consumed)
    if got != sorted(ctx.produced):
        check.problems.append(f"consumed {len(got)} records, not the {len(ctx.produced)} produced (or different ones)")
    check.problems.extend(_ordering_problems(ctx.consumed, ctx.produced))
    check.observed = sorted(ctx.consumed)


def _ordering_problems(records: list[tuple[int, int, str, str]], produced: list[tuple[str, str]]) -> list[str]:
    """Per partition: offsets 0..n-1 in order, and the records in the order they were produced."""
    problems: list[str] = []
    position = {record: i for i, record in enumerate(produced)}
    for partition in sorted({p for p, _, _, _ in records}):
        rows = sorted((o, k, v) for p, o, k, v in records if p == partition)
        if [o for o, _, _ in rows] != list(range(len(rows))):
            problems.append(f"partition {partition}: offsets are not 0..{len(rows) - 1}")
        order = [position.get((k, v), -1) for _, k, v in rows]
        if order != sorted(order):
            problems.append(f"partition {partition}: records out of produce order")
    return problems


def _partition_dirs(ctx: Context, topic: str) -> list[Path]:
    assert ctx.broker.data_dir is not None
    pattern = re.compile(re.escape(topic) + r"-(\d+)$")
    found = [d for d in ctx.broker.data_dir.iterdir() if pattern.match(d.name)]
    return sorted(found, key=lambda d: int(d.name.rsplit("-", 1)[1]))


def check_dump_log(ctx: Context, check: Check) -> None:
    dumped: list[tuple[int, int, str, str]] = []
    dirs = _partition_dirs(ctx, ctx.topic)
    if len(dirs) != PARTITIONS:
        check.problems.append(f"{len(dirs)} partition directories for {ctx.topic} in {ctx.broker.data_dir}")
    for directory in dirs:
        partition = int(directory.name.rsplit("-", 1)[1])
        segments = sorted(str(p) for p in directory.glob("*.log"))
        if not segments:
            check.problems.append(f"no .log segment in {directory}")
            continue
        run = ctx.tools.run(DUMP_LOG_SEGMENTS, ["--files", ",".join(segments), "--print-data-log", "--deep-iteration"])
        _record(check, ctx, run)
        check.problems.extend(_dump_problems(run))
        for line in run.stdout.splitlines():
            batch = _BATCH.match(line)
            if batch and batch[1] != "true":
                check.problems.append(f"partition {partition}: invalid batch: {line[:200]}")
            record = _DUMPED.match(line)
            if record:
                dumped.append((partition, int(record[1]), record[2], record[3]))
    if sorted(dumped) != sorted(ctx.consumed):
        check.problems.append(
            f"DumpLogSegments shows {len(dumped)} records that differ from the {len(ctx.consumed)} the consumer read"
        )
    check.problems.extend(_ordering_problems(dumped, ctx.produced))
    check.observed = sorted(dumped)


def _dump_problems(run: ToolRun) -> list[str]:
    text = run.stdout + run.stderr
    markers = ("Exception", "Mismatches", "is corrupt", "Found timestamp mismatch", "Index offset", "ERROR")
    return [f"output contains {marker!r}" for marker in markers if marker in text]


def check_dump_indexes(ctx: Context, check: Check) -> None:
    dirs = _partition_dirs(ctx, ctx.topic)
    files = [str(p) for d in dirs for p in sorted(d.glob("*.index")) + sorted(d.glob("*.timeindex"))]
    if not files:
        check.problems.append("no index files")
        return
    run = ctx.tools.run(DUMP_LOG_SEGMENTS, ["--files", ",".join(files)])
    _record(check, ctx, run)
    check.problems.extend(_dump_problems(run))


def check_dump_indexes_stopped(ctx: Context, check: Check) -> None:
    """After a clean shutdown every partition's .index and .timeindex hold entries Kafka's tool accepts."""
    for directory in _partition_dirs(ctx, ctx.topic):
        files = [str(p) for p in sorted(directory.glob("*.index")) + sorted(directory.glob("*.timeindex"))]
        run = ctx.tools.run(DUMP_LOG_SEGMENTS, ["--files", ",".join(files)])
        _record(check, ctx, run)
        check.problems.extend(_dump_problems(run))
        offsets = len(re.findall(r"^offset: \d+ position: \d+$", run.stdout, re.M))
        times = len(re.findall(r"^timestamp: \d+ offset: \d+$", run.stdout, re.M))
        size = sum(p.stat().st_size for p in directory.glob("*.log"))
        if not offsets or not times:
            check.problems.append(
                f"{directory.name}: {offsets} offset index and {times} time index entries for {size} bytes of log"
            )


def check_dump_offsets(ctx: Context, check: Check) -> None:
    assert ctx.broker.data_dir is not None
    segments = [str(p) for p in sorted(ctx.broker.data_dir.glob("__consumer_offsets-*/*.log")) if p.stat().st_size > 0]
    if not segments:
        check.problems.append("no non-empty __consumer_offsets segment")
        return
    run = ctx.tools.run(DUMP_LOG_SEGMENTS, ["--files", ",".join(segments), "--offsets-decoder"])
    _record(check, ctx, run)
    check.problems.extend(_dump_problems(run))
    if f'"group":"{ctx.group}"' not in run.stdout:
        check.problems.append(f"no record of group {ctx.group}")
    commits = set(re.findall(r'"group":"' + re.escape(ctx.group) + r'","topic":"' + re.escape(ctx.topic)
                             + r'","partition":(\d+)', run.stdout))  # fmt: skip
    if commits != {str(p) for p in range(PARTITIONS)}:
        check.problems.append(f"committed offsets decoded for partitions {sorted(commits)}, expected all {PARTITIONS}")
    check.observed = sorted(commits)


def check_dump_transactions(ctx: Context, check: Check) -> None:
    from confluent_kafka import Producer  # the compat venv's client: the check's load, not the tool under test
    from confluent_kafka.admin import AdminClient, NewTopic

    topic, transactional_id = ctx.topic + "-txn", ctx.group + "-tx"
    admin = AdminClient({"bootstrap.servers": ctx.broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": ctx.broker.bootstrap, "transactional.id": transactional_id})
    producer.init_transactions(30)
    for commit in (True, False):
        producer.begin_transaction()
        producer.produce(topic, key=b"k", value=b"committed" if commit else b"aborted", partition=0)
        producer.flush(30)
        (producer.commit_transaction if commit else producer.abort_transaction)(30)
    time.sleep(1)  # Kafka writes its markers after the answer
    assert ctx.broker.data_dir is not None
    state = [str(p) for p in sorted(ctx.broker.data_dir.glob("__transaction_state-*/*.log")) if p.stat().st_size > 0]
    data = sorted(str(p) for p in ctx.broker.data_dir.glob(f"{topic}-0/*.log"))
    indexes = sorted(str(p) for p in ctx.broker.data_dir.glob(f"{topic}-0/*.txnindex"))
    if not state or not data or not indexes:
        check.problems.append(f"files: {len(state)} state segments, {len(data)} data segments, {len(indexes)} txnindex")
        return
    decoded = ctx.tools.run(DUMP_LOG_SEGMENTS, ["--files", ",".join(state), "--transaction-log-decoder"])
    _record(check, ctx, decoded)
    check.problems.extend(_dump_problems(decoded))
    records = [line for line in decoded.stdout.splitlines() if transactional_id in line]
    if len(records) < 4:
        check.problems.append(f"{len(records)} decoded records of {transactional_id}, expected at least 4")
    dumped = ctx.tools.run(DUMP_LOG_SEGMENTS, ["--files", ",".join(data + indexes), "--print-data-log"])
    _record(check, ctx, dumped)
    check.problems.extend(_dump_problems(dumped))
    markers = re.findall(r"endTxnMarker: (\w+)", dumped.stdout)
    aborted = re.findall(r"producerId: \d+ firstOffset: (\d+) lastOffset: (\d+)", dumped.stdout)
    if markers != ["COMMIT", "ABORT"] or aborted != [("2", "3")]:
        check.problems.append(f"markers {markers}, aborted transactions {aborted}")
    check.observed = {"markers": markers, "aborted": aborted, "state_records": len(records) >= 4}


#: ClientCompatibilityTest's feature flags as Apache Kafka 4.x passes them.
KAFKA_FLAGS = {
    "offsets-for-times-supported": True, "cluster-id-supported": True, "expect-record-too-large-exception": False,
    "create-topics-supported": True, "describe-acls-supported": True, "describe-configs-supported": True,
    "idempotent-producer-supported": True,
}  # fmt: skip


def _flags_from(ranges: dict[int, tuple[int, int]]) -> dict[str, bool]:
    """The flags a broker advertising ``ranges`` should pass with."""
    flags = dict(KAFKA_FLAGS)
    flags["offsets-for-times-supported"] = ranges.get(2, (0, 0))[1] >= 1
    flags["create-topics-supported"] = 19 in ranges
    flags["describe-acls-supported"] = 29 in ranges
    flags["describe-configs-supported"] = 32 in ranges
    flags["idempotent-producer-supported"] = 22 in ranges
    return flags


def _client_compat(ctx: Context, check: Check, topic: str, flags: dict[str, bool]) -> ToolRun:
    args = ["--topic", topic, "--bootstrap-server", ctx.broker.bootstrap, "--num-cluster-nodes", "1"]
    for name, value in flags.items():
        args += [f"--{name}", str(value).lower()]
    run = ctx.tools.run(CLIENT_COMPATIBILITY_TEST, args, timeout_s=300.0)
    _record(check, ctx, run)
    return run


def check_client_compat(ctx: Context, check: Check) -> None:
    run = _client_compat(ctx, check, ctx.topic + "-cct", KAFKA_FLAGS)
    if run.returncode == 0 and "SUCCESS" in run.stdout:
        check.observed = "SUCCESS with Apache Kafka's flags"
        return
    failure = next((line for line in run.stdout.splitlines() if line.startswith("FAILED")), "no SUCCESS line")
    check.problems = [f"with Apache Kafka's flags: {failure}"]
    if ctx.broker.name == REFERENCE:
        return
    host, port = ctx.broker.bootstrap.rsplit(":", 1)
    flags = _flags_from(api_versions(host, int(port)))
    _record(check, ctx, _topic(ctx, "--delete", "--if-exists", "--topic", "newtopic"))
    check.problems = check.problems[:1]
    retry = _client_compat(ctx, check, ctx.topic + "-cct2", flags)
    off = sorted(name for name, value in flags.items() if value != KAFKA_FLAGS[name])
    if retry.returncode == 0 and "SUCCESS" in retry.stdout:
        check.status = "partial"
        check.problems.append(f"passes with the flags odradek's ApiVersions implies (differing: {', '.join(off)})")
    else:
        failure = next((line for line in retry.stdout.splitlines() if line.startswith("FAILED")), "no SUCCESS line")
        check.problems.append(f"also with odradek's own flags ({', '.join(off)}): {failure}")


def _admin(ctx: Context, main_class: str, *args: str) -> ToolRun:
    return ctx.tools.run(main_class, ["--bootstrap-server", ctx.broker.bootstrap, *args])


def check_topic_add_partitions(ctx: Context, check: Check) -> None:
    """TopicCommand --alter --partitions grows a topic of its own from 2 to 5 partitions."""
    grown = ctx.topic + "-grown"
    _record(check, ctx, _topic(ctx, "--create", "--topic", grown, "--partitions", "2", "--replication-factor", "1"))
    _record(check, ctx, _topic(ctx, "--alter", "--topic", grown, "--partitions", "5"))
    run = _topic(ctx, "--describe", "--topic", grown)
    _record(check, ctx, run)
    if "PartitionCount: 5" not in run.stdout:
        check.problems.append("no 'PartitionCount: 5' after --alter --partitions 5")
    refused = _topic(ctx, "--alter", "--topic", grown, "--partitions", "3")
    check.commands.append("TopicCommand --alter --partitions 3 (a shrink, refused)")
    if refused.returncode == 0 or "InvalidPartitionsException" not in refused.stdout + refused.stderr:
        check.problems.append("shrinking was not refused with InvalidPartitionsException")
    check.observed = [line for line in run.stdout.replace(grown, "<topic>").splitlines() if "Partition:" in line]


def check_leader_election(ctx: Context, check: Check) -> None:
    """LeaderElectionCommand: a preferred election of every partition finds nothing to elect."""
    run = ctx.tools.run(LEADER_ELECTION, ["--bootstrap-server", ctx.broker.bootstrap, "--election-type", "PREFERRED",
                                          "--topic", ctx.topic, "--partition", "0"])  # fmt: skip
    _record(check, ctx, run)
    if "Valid replica already elected" not in run.stdout:
        check.problems.append("no 'Valid replica already elected' line")
    check.observed = run.stdout.replace(ctx.topic, "<topic>").strip().splitlines()


def check_reassign_list(ctx: Context, check: Check) -> None:
    """ReassignPartitionsCommand --list: no reassignment is in progress."""
    run = _admin(ctx, REASSIGN_PARTITIONS, "--list")
    _record(check, ctx, run)
    if "No partition reassignments found." not in run.stdout:
        check.problems.append("no 'No partition reassignments found.' line")
    check.observed = run.stdout.strip().splitlines()


def check_log_dirs(ctx: Context, check: Check) -> None:
    """LogDirsCommand --describe: the topic's partitions, each with its size, in one directory."""
    run = _admin(ctx, LOG_DIRS, "--describe", "--topic-list", ctx.topic)
    _record(check, ctx, run)
    document = next((line for line in run.stdout.splitlines() if line.startswith("{")), "{}")
    brokers = json.loads(document).get("brokers", [])
    partitions = sorted(p["partition"] for b in brokers for d in b["logDirs"] for p in d["partitions"])
    if partitions != [f"{ctx.topic}-{i}" for i in range(PARTITIONS)]:
        check.problems.append(f"partitions described: {partitions}")
    check.observed = [len(brokers), [len(b["logDirs"]) for b in brokers], len(partitions)]


def check_metadata_quorum(ctx: Context, check: Check) -> None:
    """MetadataQuorumCommand describe --status: this node leads the quorum alone."""
    run = _admin(ctx, METADATA_QUORUM, "describe", "--status")
    _record(check, ctx, run)
    fields = dict(line.split(":", 1) for line in run.stdout.splitlines() if ":" in line)
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    if fields.get("LeaderId") != "1" or fields.get("CurrentVoters", "").find('"id": 1') < 0:
        check.problems.append(f"LeaderId {fields.get('LeaderId')!r}, CurrentVoters {fields.get('CurrentVoters')!r}")
    check.observed = {key: fields.get(key) for key in ("LeaderId", "MaxFollowerLag", "CurrentObservers")}


CHECKS: list[tuple[str, Callable[[Context, Check], None]]] = [
    ("topic-create", check_topic_create),
    ("topic-list", check_topic_list),
    ("topic-describe", check_topic_describe),
    ("console-producer", check_console_producer),
    ("console-consumer", check_console_consumer),
    ("dump-log", check_dump_log),
    ("dump-indexes", check_dump_indexes),
    ("dump-offsets", check_dump_offsets),
    ("dump-transactions", check_dump_transactions),
    ("client-compat", check_client_compat),
    ("topic-add-partitions", check_topic_add_partitions),
    ("leader-election", check_leader_election),
    ("reassign-list", check_reassign_list),
    ("log-dirs", check_log_dirs),
    ("metadata-quorum", check_metadata_quorum),
    ("configs-scram", lambda ctx, check: config_command.scram_users(ctx, check, _record)),
    ("configs-quotas", lambda ctx, check: config_command.client_quotas(ctx, check, _record)),
]

#: Run once the broker has been stopped cleanly, on the data directory it left behind.
STOPPED_CHECKS: list[tuple[str, Callable[[Context, Check], None]]] = [
    ("dump-indexes-stopped", check_dump_indexes_stopped),
]


def run_broker(
    name: str, tools: Tools, report_dir: Path, run_id: str, wanted: frozenset[str] | None = None
) -> tuple[list[Check], str]:
    """Every check (or those named in ``wanted``) against a fresh broker ``name``."""
    log_dir = report_dir / "logs" / "tools"
    checks: list[Check] = []
    with tempfile.TemporaryDirectory(prefix="tools-") as tmp:
        data_dir = Path(tmp) / "kept-data"
        launch: Any = launchers()[name]
        with launch(Path(tmp), log_dir / f"{name}.log", data_dir=data_dir) as broker:
            info, ctx = _live_checks(name, tools, broker, report_dir, log_dir, run_id, checks, wanted)
        for check_name, fn in STOPPED_CHECKS:
            if wanted is not None and check_name not in wanted:
                continue
            checks.append(_run_check(check_name, name, fn, ctx))
    return checks, info


def _run_check(check_name: str, broker_name: str, fn: Callable[[Context, Check], None], ctx: Context) -> Check:
    check = Check(check_name, broker_name)
    started = time.monotonic()
    try:
        fn(ctx, check)
    except Exception as exc:
        check.problems.append(f"{type(exc).__name__}: {exc}")
    if check.status != "partial":
        check.status = "fail" if check.problems else "pass"
    check.seconds = round(time.monotonic() - started, 2)
    print(f"   {broker_name:8} {check_name:20} {check.status} ({check.seconds}s)", flush=True)
    for problem in check.problems[:3]:
        print(f"      {problem[:300]}")
    return check


def _live_checks(
    name: str,
    tools: Tools,
    broker: RunningBroker,
    report_dir: Path,
    log_dir: Path,
    run_id: str,
    checks: list[Check],
    wanted: frozenset[str] | None = None,
) -> tuple[str, Context]:
    produced = [(f"key-{i % 7}", f"value-{i:04d}-" + "x" * 48) for i in range(RECORDS)]
    info = f"{broker.version} at {broker.bootstrap}"
    host, port = broker.bootstrap.rsplit(":", 1)
    advertised = api_versions(host, int(port))
    (report_dir / f"{name}-api-versions.json").write_text(
        json.dumps(
            {"broker": name, "version": broker.version, "probe": "ApiVersions v0 over a raw socket",
             "apis": {str(k): list(v) for k, v in sorted(advertised.items())}},
            indent=1,
        ) + "\n"
    )  # fmt: skip
    ctx = Context(tools, broker, log_dir, f"tools-{run_id}", f"tools-{run_id}-group", produced)
    chosen = [(check_name, fn) for check_name, fn in CHECKS if wanted is None or check_name in wanted]
    checks.extend(_run_check(check_name, name, fn, ctx) for check_name, fn in chosen)
    return info, ctx


def compare(checks: list[Check]) -> None:
    reference = {c.name: c for c in checks if c.broker == REFERENCE}
    for check in checks:
        ref = reference.get(check.name)
        if check.broker == REFERENCE or ref is None or ref.status != "pass" or check.status != "pass":
            continue
        if check.observed != ref.observed:
            check.status = "diff"
            ours, theirs = check.observed, ref.observed
            if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
                pairs = [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b]
                check.problems.extend(f"odradek {a!r} vs {REFERENCE} {b!r}" for a, b in pairs[:5])
            else:
                check.problems.append(f"odradek {ours!r:.300} vs {REFERENCE} {theirs!r:.300}")


def markdown(meta: dict[str, Any], checks: list[Check]) -> str:
    brokers = list(dict.fromkeys(c.broker for c in checks))
    lines = ["# Apache Kafka's tools against odradek", ""]
    lines += [f"- broker **{b}**: {meta['brokers'].get(b, '')}" for b in brokers]
    lines += [f"- kafka-tools {meta['tools_version']}, {meta['seconds']}s", ""]
    lines.append("| check | " + " | ".join(brokers) + " |")
    lines.append("|---|" + "---|" * len(brokers))
    by_key = {(c.name, c.broker): c for c in checks}
    for name, _ in CHECKS + STOPPED_CHECKS:
        cells = [by_key[(name, b)].status if (name, b) in by_key else "" for b in brokers]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    troubled = [c for c in checks if c.problems]
    if troubled:
        lines += ["", "## Problems", ""]
        for c in troubled:
            lines.append(f"### {c.name} / {c.broker}: {c.status}")
            lines += [f"- {p[:500]}" for p in c.problems]
            lines += ["", "```", c.output[-1500:].strip(), "```", ""]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--brokers", default="kafka,odradek")
    parser.add_argument("--tools-version", default=DEFAULT_TOOLS_VERSION)
    parser.add_argument("--report-dir", type=Path, default=COMPAT / "report")
    parser.add_argument("--checks", default="", help="comma-separated check names (default: all)")
    args = parser.parse_args(argv)
    wanted = frozenset(n.strip() for n in args.checks.split(",") if n.strip()) or None
    started = time.monotonic()
    brokers = sorted((b.strip() for b in args.brokers.split(",") if b.strip()), key=lambda b: b != REFERENCE)
    args.report_dir.mkdir(parents=True, exist_ok=True)
    run_id = time.strftime("%H%M%S")
    checks: list[Check] = []
    meta: dict[str, Any] = {"tools_version": args.tools_version, "brokers": {}}
    with tempfile.TemporaryDirectory(prefix="kafka-tools-") as tmp:
        try:
            tools = Tools(args.tools_version, Path(tmp))
        except Exception as exc:
            print(f"!!! tools: SKIPPED, {exc}", file=sys.stderr)
            return 1
        for name in brokers:
            print(f"== tools against {name}", flush=True)
            try:
                broker_checks, meta["brokers"][name] = run_broker(name, tools, args.report_dir, run_id, wanted)
            except Exception as exc:
                meta["brokers"][name] = f"did not start: {type(exc).__name__}: {exc}"
                print(f"!!! {name}: {meta['brokers'][name]}", file=sys.stderr)
                broker_checks = [Check(n, name, "fail", [meta["brokers"][name]]) for n, _ in CHECKS + STOPPED_CHECKS]
            checks.extend(broker_checks)
    compare(checks)
    meta["seconds"] = round(time.monotonic() - started, 1)
    payload = {**meta, "checks": [{k: v for k, v in asdict(c).items() if k != "observed"} for c in checks]}
    (args.report_dir / "tools.json").write_text(json.dumps(payload, indent=1) + "\n")
    (args.report_dir / "tools.md").write_text(markdown(meta, checks))
    counts = {s: sum(1 for c in checks if c.status == s) for s in ("pass", "partial", "diff", "fail")}
    print(f"tools: {args.report_dir / 'tools.md'}; " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
