"""``odradek dump-log`` on a data directory a real broker wrote."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path
from typing import Any

import crc32c

from odradek.txn.log_records import TransactionLogRecord, TransactionLogValue, encode_record
from odradek.txn.txn_state import TxnState
from odradek.wire.records import Record, build_batch
from tests.cli.harness import Cli
from tests.integration.conftest import BrokerProcess

SEGMENT = "00000000000000000000"


def _dump(cli: Cli, *argv: str) -> list[dict[str, Any]]:
    result = cli("dump-log", "--json", *argv)
    assert result.code == 0, result.err
    dumped: list[dict[str, Any]] = json.loads(result.out)
    return dumped


def test_batches_records_and_indexes(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    cli("produce", "--topic", topic_name, "--key-separator", ":", "--header", "h=1", *b, stdin=b"k1:v1\nk2:v2\n")
    cli("produce", "--topic", topic_name, "--idempotent", "--compression-codec", "gzip", *b, stdin=b"x" * 2000 + b"\n")
    directory = broker.data_dir / f"{topic_name}-0"

    [index, log, timeindex] = _dump(cli, str(directory), "--print-data-log")
    assert (index["file"], log["file"], timeindex["file"]) == tuple(
        str(directory / f"{SEGMENT}{suffix}") for suffix in (".index", ".log", ".timeindex")
    )
    first, second = log["batches"]
    assert (first["base_offset"], first["last_offset"], first["count"], first["position"]) == (0, 1, 2, 0)
    assert (first["codec"], first["producer_id"], first["valid"], first["magic"]) == ("none", -1, True, 2)
    assert second["position"] == first["size"]
    assert (second["base_offset"], second["codec"], second["base_sequence"], second["valid"]) == (2, "gzip", 0, True)
    assert second["producer_id"] >= 0 and second["producer_epoch"] >= 0
    assert second["size"] < 500
    records = first["records"]
    assert [(r["offset"], r["key"], r["value"], r["headers"]) for r in records] == [
        (0, "k1", "v1", [["h", "1"]]),
        (1, "k2", "v2", [["h", "1"]]),
    ]
    assert second["records"][0]["value"] == "x" * 2000 and second["records"][0]["sequence"] == 0
    assert all(e["offset"] >= 0 for e in index["entries"] + timeindex["entries"])

    shallow = _dump(cli, "--files", str(directory / f"{SEGMENT}.log"))
    assert "records" not in shallow[0]["batches"][0]
    deep = _dump(cli, str(directory / f"{SEGMENT}.log"), "--deep-iteration")
    assert deep[0]["batches"][0]["records"][0]["key_size"] == 2 and "key" not in deep[0]["batches"][0]["records"][0]

    text = cli("dump-log", str(directory / f"{SEGMENT}.log"), "--print-data-log").out.splitlines()
    assert text[0] == f"Dumping {directory / f'{SEGMENT}.log'}"
    assert text[1].startswith("base_offset: 0 last_offset: 1 count: 2 position: 0")
    assert text[2].startswith("| offset: 0 ") and 'key: "k1" value: "v1"' in text[2]


def test_a_corrupt_batch_and_a_torn_tail_are_reported(
    cli: Cli, broker: BrokerProcess, topic_name: str, tmp_path: Path
) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    cli("produce", "--topic", topic_name, *b, stdin=b"one\n")
    cli("produce", "--topic", topic_name, *b, stdin=b"two\n")
    copy = tmp_path / f"{SEGMENT}.log"
    shutil.copy(broker.data_dir / f"{topic_name}-0" / f"{SEGMENT}.log", copy)
    data = bytearray(copy.read_bytes())
    data[-1] ^= 0xFF  # the last byte of the second batch: its CRC no longer matches
    copy.write_bytes(bytes(data) + b"\x00\x00\x00\x00\x00\x00\x00\x09")

    [dump] = _dump(cli, str(copy), "--print-data-log")
    good, bad, tail = dump["batches"]
    assert good["valid"] is True and good["records"][0]["value"] == "one"
    assert bad["valid"] is False and "CRC mismatch" in bad["problem"] and "records" not in bad
    assert tail == {"torn_tail": {"position": good["size"] + bad["size"], "bytes": 8}}


def test_consumer_offsets_records_are_decoded(cli: Cli, broker: BrokerProcess, topic_name: str) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    group = f"g-{topic_name}"
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    cli("produce", "--topic", topic_name, *b, stdin=b"a\nb\n")
    cli("consume", "--topic", topic_name, "--group", group, "--from-beginning", "--max-messages", "2", *b)

    directories = sorted(str(p) for p in broker.data_dir.glob("__consumer_offsets-*"))
    records = [
        r
        for dump in _dump(cli, *directories, "--deep-iteration")
        for batch in dump.get("batches", [])
        for r in batch.get("records", [])
    ]
    commits = [r["offset_commit"] for r in records if r.get("offset_commit", {}).get("group") == group]
    assert commits and commits[-1]["topic"] == topic_name and commits[-1]["offset"] == 2
    metadata = [r["group_metadata"] for r in records if r.get("group_metadata", {}).get("group") == group]
    assert any(m["protocol_type"] == "consumer" and len(m["members"]) == 1 for m in metadata)


def test_a_missing_or_foreign_file_is_exit_1(cli: Cli, tmp_path: Path) -> None:
    missing = cli("dump-log", str(tmp_path / "nothing.log"))
    assert missing.code == 1 and "no such file or directory" in missing.err
    foreign = tmp_path / "notes.txt"
    foreign.write_text("hello")
    other = cli("dump-log", str(foreign))
    assert other.code == 1 and "not a .log, .index, .timeindex or .snapshot file" in other.err


def test_index_files_are_decoded_against_their_base_offset(cli: Cli, tmp_path: Path) -> None:
    base = "00000000000000000100"
    (tmp_path / f"{base}.index").write_bytes(bytes.fromhex("00000005 00000000 0000000a 00001000 0000"))
    (tmp_path / f"{base}.timeindex").write_bytes(bytes.fromhex("0000019000000000 00000005"))
    index, timeindex = _dump(cli, str(tmp_path / f"{base}.index"), str(tmp_path / f"{base}.timeindex"))
    assert index["entries"] == [
        {"offset": 105, "position": 0},
        {"offset": 110, "position": 4096},
        {"torn_tail": {"position": 16, "bytes": 2}},
    ]
    assert timeindex["entries"] == [{"timestamp": 0x19000000000, "offset": 105}]


def test_verify_index_checks_entries_against_the_log(
    cli: Cli, broker: BrokerProcess, topic_name: str, tmp_path: Path
) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", "--config", "index.interval.bytes=1", *b)
    for n in range(3):
        cli("produce", "--topic", topic_name, *b, stdin=b"r%d\n" % n)
    broker.restart()  # index entries reach the disk when the log is flushed or closed
    directory = broker.data_dir / f"{topic_name}-0"

    index, log, timeindex, _snapshot = _dump(cli, str(directory), "--verify-index")
    positions = [batch["position"] for batch in log["batches"]]
    # As in Kafka, the first batch of a segment gets no entry: the interval is counted from it.
    assert [(e["offset"], e["position"]) for e in index["entries"]] == [(1, positions[1]), (2, positions[2])]
    assert all(e["matches_log"] for e in index["entries"] + timeindex["entries"])
    assert timeindex["entries"]

    for suffix in (".log", ".index"):
        shutil.copy(directory / f"{SEGMENT}{suffix}", tmp_path / f"{SEGMENT}{suffix}")
    tampered = bytearray((tmp_path / f"{SEGMENT}.index").read_bytes())
    tampered[7] ^= 0x01  # the first entry's position now points inside a batch
    (tmp_path / f"{SEGMENT}.index").write_bytes(bytes(tampered))
    [checked] = _dump(cli, str(tmp_path / f"{SEGMENT}.index"), "--verify-index")
    assert [e["matches_log"] for e in checked["entries"]] == [False, True]


def test_producer_snapshots_are_decoded(cli: Cli, broker: BrokerProcess, topic_name: str, tmp_path: Path) -> None:
    b = ("--bootstrap-server", broker.bootstrap)
    cli("topics", "create", "--topic", topic_name, "--partitions", "1", *b)
    cli("produce", "--topic", topic_name, "--idempotent", *b, stdin=b"a\nb\nc\n")
    broker.restart()  # a clean close writes the producer state
    directory = broker.data_dir / f"{topic_name}-0"
    [snapshot] = sorted(directory.glob("*.snapshot"))

    [dump] = _dump(cli, str(snapshot))
    [entry] = dump["producers"]
    assert entry["producer_id"] >= 0 and entry["producer_epoch"] >= 0
    assert (entry["first_sequence"], entry["last_offset"], entry["coordinator_epoch"]) == (0, 2, -1)
    assert entry["last_sequence"] - entry["first_sequence"] == entry["offset_delta"]
    assert entry["current_txn_first_offset"] is None and entry["timestamp"] == entry["last_timestamp"] > 0
    text = cli("dump-log", str(snapshot)).out.splitlines()
    assert text[1].startswith(f"producer_id: {entry['producer_id']} producer_epoch: {entry['producer_epoch']} ")

    damaged = tmp_path / snapshot.name
    data = bytearray(snapshot.read_bytes())
    data[-1] ^= 0x01
    damaged.write_bytes(bytes(data))
    [bad] = _dump(cli, str(damaged))
    assert bad["producers"] == [] and bad["problem"] == "corrupt snapshot: CRC mismatch"


def _transaction_log_segment(directory: Path) -> Path:
    """A ``__transaction_state`` segment of three states of one transactional id and its tombstone,
    written with the transaction coordinator's record formats."""
    states = [
        TransactionLogValue(7, 0, 60000, TxnState.EMPTY, (), 1000, -1),
        TransactionLogValue(7, 0, 60000, TxnState.ONGOING, (("orders", (0, 2)), ("pay", (1,))), 1100, 1100),
        TransactionLogValue(7, 1, 60000, TxnState.COMPLETE_COMMIT, (), 1200, 1100, previous_producer_id=7),
    ]
    segment = bytearray()
    for offset, value in enumerate([*states, None]):
        key, payload = encode_record(TransactionLogRecord("tx-1", value))
        segment += build_batch([Record(0, 0, key, payload)], base_offset=offset, base_timestamp=1000 + offset)
    directory.mkdir()
    path = directory / f"{SEGMENT}.log"
    path.write_bytes(bytes(segment))
    return path


def test_transaction_state_records_are_decoded(cli: Cli, tmp_path: Path) -> None:
    inside = _transaction_log_segment(tmp_path / "__transaction_state-3")
    [dump] = _dump(cli, str(inside), "--print-data-log")
    states = [batch["records"][0]["transaction_state"] for batch in dump["batches"]]
    assert [s.get("state") for s in states] == ["Empty", "Ongoing", "CompleteCommit", None]
    assert states[0]["partitions"] is None and states[2]["partitions"] == {}
    assert states[1]["partitions"] == {"orders": [0, 2], "pay": [1]}
    assert (states[2]["producer_epoch"], states[2]["previous_producer_id"], states[2]["value_version"]) == (1, 7, 1)
    assert states[3] == {"transactional_id": "tx-1", "value": "tombstone"}
    assert "key" not in dump["batches"][0]["records"][0]  # decoded, so the raw bytes are not repeated

    elsewhere = tmp_path / "copy" / f"{SEGMENT}.log"
    elsewhere.parent.mkdir()
    shutil.copy(inside, elsewhere)
    [plain] = _dump(cli, str(elsewhere), "--deep-iteration")
    assert "transaction_state" not in plain["batches"][0]["records"][0]
    [flagged] = _dump(cli, str(elsewhere), "--deep-iteration", "--transaction-log-decoder")
    assert flagged["batches"][1]["records"][0]["transaction_state"]["state"] == "Ongoing"


# A snapshot Apache Kafka 4.4.0 wrote for a transactional producer (a committed transaction of three
# records), and what its DumpLogSegments printed for it:
# producerId: 0 producerEpoch: 0 coordinatorEpoch: 0 currentTxnFirstOffset: OptionalLong.empty
# lastTimestamp: 1795616000472 firstSequence: 0 lastSequence: 2 lastOffset: 2 offsetDelta: 2 timestamp: 1795616000472
KAFKA_SNAPSHOT = bytes.fromhex(
    "00018506878a000000010000000000000000000000000002000000000000000200000002000001a2130dc9d800000000ffffffffffffffff"
)


def test_a_snapshot_written_by_apache_kafka_reads_as_its_own_tool_reads_it(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "00000000000000000004.snapshot"
    path.write_bytes(KAFKA_SNAPSHOT)
    [dump] = _dump(cli, str(path))
    assert dump["producers"] == [
        {
            "producer_id": 0,
            "producer_epoch": 0,
            "coordinator_epoch": 0,
            "current_txn_first_offset": None,
            "last_timestamp": 1795616000472,
            "first_sequence": 0,
            "last_sequence": 2,
            "last_offset": 2,
            "offset_delta": 2,
            "timestamp": 1795616000472,
        }
    ]


def test_an_open_transaction_and_a_producer_without_batches_in_a_snapshot(cli: Cli, tmp_path: Path) -> None:
    entries = struct.pack(">qhiqiqiq", 9, 3, 7, 40, 2, 1000, 5, 38) + struct.pack(
        ">qhiqiqiq", 10, 1, -1, -1, 0, 0, -1, -1
    )
    body = struct.pack(">i", 2) + entries
    path = tmp_path / "00000000000000000041.snapshot"
    path.write_bytes(struct.pack(">hI", 1, crc32c.crc32c(body)) + body)
    [dump] = _dump(cli, str(path))
    open_txn, bare = dump["producers"]
    assert (open_txn["coordinator_epoch"], open_txn["current_txn_first_offset"]) == (5, 38)
    assert (open_txn["first_sequence"], open_txn["last_sequence"], open_txn["last_offset"]) == (5, 7, 40)
    assert bare == {
        "producer_id": 10,
        "producer_epoch": 1,
        "coordinator_epoch": -1,
        "current_txn_first_offset": None,
        "last_timestamp": 0,
    }
