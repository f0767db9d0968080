"""``odradek dump-log`` against Kafka's DumpLogSegments on the same files, field by field.

Files: every producer ``.snapshot`` in each broker's data directory (``__cluster_metadata`` aside) and
every non-empty ``__transaction_state`` segment. Both tools decode each file; Kafka's text is parsed
into the names ``dump-log --json`` uses (`kafka_snapshot_entries`, `kafka_transaction_records`) and
the two are compared entry by entry. A file set that a broker did not write fails: both brokers
write producer snapshots and ``__transaction_state`` during the run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_tools import DUMP_LOG_SEGMENTS, Tools

from odradek.txn.txn_state import TxnState

REPO = Path(__file__).resolve().parents[2]
_FIELD = re.compile(r"(\w+): (\S+)")
_RECORD = re.compile(r"^\| offset: (\d+) .*? key: (\{.*?\}) payload: (.*)$")
_SNAPSHOT_NAMES = {
    "producerId": "producer_id",
    "producerEpoch": "producer_epoch",
    "coordinatorEpoch": "coordinator_epoch",
    "currentTxnFirstOffset": "current_txn_first_offset",
    "lastTimestamp": "last_timestamp",
    "firstSequence": "first_sequence",
    "lastSequence": "last_sequence",
    "lastOffset": "last_offset",
    "offsetDelta": "offset_delta",
    "timestamp": "timestamp",
}


@dataclass(slots=True)
class DumpResult:
    name: str
    status: str = "pass"
    problems: list[str] = field(default_factory=list)
    detail: str = ""


def _by_file(text: str) -> Iterator[tuple[str, list[str]]]:
    """Kafka's output cut at its ``Dumping PATH`` lines."""
    path, lines = None, []
    for line in text.splitlines():
        if line.startswith("Dumping "):
            if path is not None:
                yield path, lines
            path, lines = line.removeprefix("Dumping ").strip(), []
        elif path is not None:
            lines.append(line)
    if path is not None:
        yield path, lines


def _optional(text: str) -> int | None:
    match = re.fullmatch(r"OptionalLong\[(-?\d+)\]", text)
    return int(match[1]) if match else None


def kafka_snapshot_entries(lines: list[str]) -> list[dict[str, Any]]:
    entries = []
    for line in lines:
        fields = dict(_FIELD.findall(line))
        if "producerId" not in fields:
            continue
        entry: dict[str, Any] = {}
        for kafka_name, name in _SNAPSHOT_NAMES.items():
            if kafka_name in fields:
                text = fields[kafka_name]
                entry[name] = _optional(text) if kafka_name == "currentTxnFirstOffset" else int(text)
        entries.append(entry)
    return entries


def _partitions(value: list[dict[str, Any]] | None) -> dict[str, list[int]] | None:
    if value is None:
        return None
    merged: dict[str, list[int]] = {}
    for item in value:
        merged.setdefault(item["topic"], []).extend(item["partitionIds"])
    return {topic: sorted(ids) for topic, ids in merged.items()}


def kafka_transaction_records(lines: list[str]) -> dict[int, dict[str, Any]]:
    """offset -> the record as ``dump-log`` names it."""
    records = {}
    for line in lines:
        match = _RECORD.match(line)
        if not match:
            continue
        key = json.loads(match[2])["data"]["transactionalId"]
        try:
            payload = json.loads(match[3])
        except json.JSONDecodeError:
            records[int(match[1])] = {"transactional_id": key, "value": "tombstone"}
            continue
        data = payload["data"]
        records[int(match[1])] = {
            "transactional_id": key,
            "value_version": int(payload["version"]),
            "producer_id": data["producerId"],
            "previous_producer_id": data.get("previousProducerId", -1),
            "next_producer_id": data.get("nextProducerId", -1),
            "producer_epoch": data["producerEpoch"],
            "next_producer_epoch": data.get("nextProducerEpoch", -1),
            "timeout_ms": data["transactionTimeoutMs"],
            "state": TxnState(data["transactionStatus"]).display_name,
            "partitions": _partitions(data["transactionPartitions"]),
            "last_update_timestamp_ms": data["transactionLastUpdateTimestampMs"],
            "start_timestamp_ms": data["transactionStartTimestampMs"],
            "client_transaction_version": data.get("clientTransactionVersion", 0),
        }
    return records


def _ours(files: list[Path], *flags: str) -> list[dict[str, Any]]:
    argv = [sys.executable, "-m", "odradek", "dump-log", "--json", *flags, *map(str, files)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=REPO, check=True)
    dumped: list[dict[str, Any]] = json.loads(done.stdout)
    return dumped


def _our_transactions(dump: dict[str, Any]) -> dict[int, dict[str, Any]]:
    records = {}
    for batch in dump.get("batches", []):
        for record in batch.get("records", []):
            state = record.get("transaction_state")
            if state is not None:
                ours = dict(state)
                if isinstance(ours.get("partitions"), dict):
                    ours["partitions"] = {t: sorted(ids) for t, ids in ours["partitions"].items()}
                records[record["offset"]] = ours
    return records


def _log(log_dir: Path, name: str, text: str) -> None:
    path = log_dir / "dumps" / f"{name}.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _compare_files(result: DumpResult, theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    for path in sorted(set(theirs) | set(ours)):
        if path not in ours or path not in theirs:
            result.problems.append(f"{path}: decoded by only one tool")
        elif ours[path] != theirs[path]:
            result.problems.append(f"{path}: dump-log {json.dumps(ours[path])[:300]} vs DumpLogSegments "
                                   f"{json.dumps(theirs[path])[:300]}")  # fmt: skip
    if result.problems:
        result.status = "fail"


def compare_dumps(tools: Tools, data_dirs: dict[str, Path], log_dir: Path) -> list[DumpResult]:
    results = []
    for broker, data_dir in data_dirs.items():
        snapshots = sorted(p for p in data_dir.glob("*/*.snapshot") if not p.parent.name.startswith("__cluster"))
        result = DumpResult(f"{broker} .snapshot files")
        if not snapshots:
            result.status, result.problems = "fail", [f"no .snapshot file in {data_dir}"]
        else:
            run = tools.run(DUMP_LOG_SEGMENTS, ["--files", ",".join(map(str, snapshots))])
            _log(log_dir, f"{broker}-snapshots", run.stdout + run.stderr)
            theirs = {path: kafka_snapshot_entries(lines) for path, lines in _by_file(run.stdout)}
            ours = {d["file"]: d["producers"] for d in _ours(snapshots)}
            _compare_files(result, theirs, ours)
            entries = sum(map(len, ours.values()))
            result.detail = f"{len(snapshots)} files, {entries} producer entries"
            if entries == 0:
                result.status = "fail"
                result.problems.append("no producer entry in any snapshot: nothing was compared")
        results.append(result)

        segments = sorted(p for p in data_dir.glob("__transaction_state-*/*.log") if p.stat().st_size > 0)
        result = DumpResult(f"{broker} __transaction_state segments")
        if not segments:
            result.status = "fail"
            result.problems = [f"no __transaction_state record in {data_dir}"]
        else:
            run = tools.run(DUMP_LOG_SEGMENTS, ["--transaction-log-decoder", "--files", ",".join(map(str, segments))])
            _log(log_dir, f"{broker}-transactions", run.stdout + run.stderr)
            theirs = {path: kafka_transaction_records(lines) for path, lines in _by_file(run.stdout)}
            ours = {d["file"]: _our_transactions(d) for d in _ours(segments, "--deep-iteration")}
            _compare_files(result, theirs, {p: {int(k): v for k, v in r.items()} for p, r in ours.items()})
            result.detail = f"{len(segments)} segments, {sum(map(len, ours.values()))} records"
        results.append(result)
    return results
