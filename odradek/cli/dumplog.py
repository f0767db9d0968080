"""``odradek dump-log``: decode a data directory's segment files offline, like kafka-dump-log.

Reads ``.log`` files (record batches: base and last offset, record count, position, size, codec,
timestamp type and times, producer id/epoch/base sequence, leader epoch, transactional and
control flags, stored CRC and whether it matches), ``.index`` files (offset -> position) and
``.timeindex`` files (timestamp -> offset) and producer ``.snapshot`` files (one entry per
producer batch kept: producer id and epoch, coordinator epoch, open transaction, sequences,
offsets; `odradek.cli.dumpstate`).  ``--deep-iteration`` adds each record's offset, timestamp,
sizes, sequence and header keys; ``--print-data-log`` adds keys, values and header values too.
``--offsets-decoder`` (automatic in a ``__consumer_offsets-N`` directory) shows records as the
group coordinator's committed offsets and group metadata, ``--transaction-log-decoder``
(automatic in a ``__transaction_state-N`` directory) as the transaction coordinator's persisted
states; a decoded record's raw key and value are not repeated.  Control records show their
transaction marker.  ``--verify-index`` checks every index entry against the ``.log``.  A torn
tail (an incomplete last batch) is reported, not an error.

Nothing here talks to a broker, and the file is only read: dumping a live broker's directory is
safe.  The decoders are the broker's own (`odradek.wire.records`, `odradek.coordinator.records`,
`odradek.txn.log_records`, `odradek.partition.producer_snapshot`).
"""

from __future__ import annotations

import argparse
import json
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from odradek.cli.common import CommandError, Output, UsageError, leaf
from odradek.cli.dumpstate import CorruptSnapshot, snapshot_entries, transaction_record
from odradek.coordinator.records import GroupMetadataRecord, OffsetCommitRecord, decode_record
from odradek.wire.primitives import DecodeError
from odradek.wire.records import (
    BatchHeader,
    CompressionType,
    CorruptBatchError,
    Record,
    decode_batch,
    iter_batches,
    parse_control_record,
    verify_batch,
)

__all__ = ["dump_file", "register"]

_SUFFIXES = (".log", ".index", ".timeindex", ".snapshot")
RecordDecoder = Callable[[Record], dict[str, Any]]
"""Decodes an internal topic's record into the fields a dump adds to it."""

_OFFSET_ENTRY = struct.Struct(">ii")  # relative offset, position
_TIME_ENTRY = struct.Struct(">qi")  # timestamp, relative offset


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = leaf(
        commands, "dump-log", "decode segment .log, .index, .timeindex and producer .snapshot files", _dump_log
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="segment files or partition directories")
    parser.add_argument("--files", action="append", default=[], metavar="F1,F2", help="comma-separated files")
    parser.add_argument("--deep-iteration", action="store_true", help="show every record, not only batches")
    parser.add_argument("--print-data-log", action="store_true", help="show record keys, values and headers")
    parser.add_argument("--offsets-decoder", action="store_true", help="decode __consumer_offsets records")
    parser.add_argument("--transaction-log-decoder", action="store_true", help="decode __transaction_state records")
    parser.add_argument("--verify-index", action="store_true", help="check each index entry against the segment's .log")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def _files(args: argparse.Namespace) -> list[Path]:
    given = [Path(p) for p in args.paths] + [Path(f) for item in args.files for f in item.split(",") if f]
    if not given:
        raise UsageError("give segment files or partition directories")
    found: list[Path] = []
    for path in given:
        if path.is_dir():
            found += sorted(p for p in path.iterdir() if p.suffix in _SUFFIXES)
        elif not path.exists():
            raise CommandError(f"{path}: no such file or directory")
        elif path.suffix not in _SUFFIXES:
            raise CommandError(f"{path}: not a .log, .index, .timeindex or .snapshot file")
        else:
            found.append(path)
    return found


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="backslashreplace")


def _base_offset(path: Path) -> int:
    stem = path.name.split(".", 1)[0]
    if not stem.isdigit():
        raise CommandError(f"{path}: the file name is not a base offset")
    return int(stem)


def _coordinator(record: Record) -> dict[str, Any]:
    """A ``__consumer_offsets`` record as the coordinator reads it."""
    if record.key is None:
        return {"coordinator_record": "no key"}
    try:
        decoded = decode_record(record.key, record.value)
    except DecodeError as exc:
        return {"coordinator_record": f"undecodable: {exc}"}
    if isinstance(decoded, OffsetCommitRecord):
        value = decoded.value
        return {
            "offset_commit": {
                "group": decoded.group,
                "topic": decoded.topic,
                "partition": decoded.partition,
                "offset": None if value is None else value.offset,
                "leader_epoch": None if value is None else value.leader_epoch,
                "metadata": None if value is None else value.metadata,
                "commit_timestamp": None if value is None else value.commit_timestamp,
            }
        }
    if isinstance(decoded, GroupMetadataRecord):
        g = decoded.value
        return {
            "group_metadata": {
                "group": decoded.group,
                "protocol_type": None if g is None else g.protocol_type,
                "generation": None if g is None else g.generation,
                "protocol": None if g is None else g.protocol,
                "leader": None if g is None else g.leader,
                "members": None if g is None else [m.member_id for m in g.members],
            }
        }
    return {"coordinator_record": "a record type the coordinator does not keep"}


def _record(header: BatchHeader, record: Record, data: bool, decoder: RecordDecoder | None) -> dict[str, Any]:
    timestamp = header.max_timestamp if header.timestamp_type == 1 else header.base_timestamp + record.timestamp_delta
    result: dict[str, Any] = {
        "offset": header.base_offset + record.offset_delta,
        "timestamp": timestamp,
        "key_size": -1 if record.key is None else len(record.key),
        "value_size": -1 if record.value is None else len(record.value),
        "sequence": -1 if header.base_sequence < 0 else header.base_sequence + record.offset_delta,
        "header_keys": [k for k, _ in record.headers],
    }
    if header.is_control:
        try:
            marker = parse_control_record(record)
            result["control"] = {"type": marker.type.name, "coordinator_epoch": marker.coordinator_epoch}
        except CorruptBatchError as exc:
            result["control"] = {"error": str(exc)}
    elif decoder is not None:
        result.update(decoder(record))
    if data and not header.is_control and decoder is None:
        result["key"] = _text(record.key)
        result["value"] = _text(record.value)
        result["headers"] = [[k, _text(v)] for k, v in record.headers]
    return result


def _batches(buf: bytes, deep: bool, data: bool, decoder: RecordDecoder | None) -> Iterator[dict[str, Any]]:
    end = 0
    try:
        for pos, header in iter_batches(buf):
            end = pos + header.total_size
            try:
                verify_batch(buf, pos)
                valid, problem = True, None
            except CorruptBatchError as exc:
                valid, problem = False, str(exc)
            batch: dict[str, Any] = {
                "base_offset": header.base_offset,
                "last_offset": header.last_offset,
                "count": header.records_count,
                "position": pos,
                "size": header.total_size,
                "magic": header.magic,
                "codec": CompressionType(header.compression).name.lower()
                if header.compression in CompressionType._value2member_map_
                else f"invalid({header.compression})",
                "timestamp_type": "LogAppendTime" if header.timestamp_type == 1 else "CreateTime",
                "base_timestamp": header.base_timestamp,
                "max_timestamp": header.max_timestamp,
                "producer_id": header.producer_id,
                "producer_epoch": header.producer_epoch,
                "base_sequence": header.base_sequence,
                "partition_leader_epoch": header.partition_leader_epoch,
                "transactional": header.is_transactional,
                "control": header.is_control,
                "crc": f"{header.crc:#010x}",
                "valid": valid,
            }
            if problem is not None:
                batch["problem"] = problem
            if (deep or data) and valid:
                try:
                    _, records = decode_batch(buf, pos)
                    batch["records"] = [_record(header, r, data, decoder) for r in records]
                except CorruptBatchError as exc:
                    batch["problem"] = str(exc)
            yield batch
    except CorruptBatchError as exc:
        yield {"problem": f"at position {end}: {exc}; the rest of the file cannot be read"}
        return
    if end < len(buf):
        yield {"torn_tail": {"position": end, "bytes": len(buf) - end}}


def _segment_batches(path: Path) -> list[tuple[int, BatchHeader]]:
    """``(position, header)`` of every complete batch of the ``.log`` beside an index file."""
    log = path.with_suffix(".log")
    try:
        return list(iter_batches(log.read_bytes()))
    except OSError as exc:
        raise CommandError(f"{log}: {exc.strerror}") from None
    except CorruptBatchError as exc:
        raise CommandError(f"{log}: {exc}") from None


def _index_entries(path: Path, buf: bytes, verify: bool) -> Iterator[dict[str, Any]]:
    """The entries; with ``verify``, each says whether the log agrees: an offset entry must point
    at a batch holding its offset, a time entry must name a batch's last offset and its max timestamp."""
    base = _base_offset(path)
    entry = _OFFSET_ENTRY if path.suffix == ".index" else _TIME_ENTRY
    batches = _segment_batches(path) if verify else []
    by_position = dict(batches)
    by_last_offset = {h.last_offset: h for _, h in batches}
    whole = len(buf) - len(buf) % entry.size
    for at in range(0, whole, entry.size):
        first, second = entry.unpack_from(buf, at)
        item: dict[str, Any]
        if path.suffix == ".index":
            item = {"offset": base + first, "position": second}
            header = by_position.get(second)
            ok = header is not None and header.base_offset <= base + first <= header.last_offset
        else:
            item = {"timestamp": first, "offset": base + second}
            header = by_last_offset.get(base + second)
            ok = header is not None and header.max_timestamp == first
        if verify:
            item["matches_log"] = ok
        yield item
    if whole < len(buf):
        yield {"torn_tail": {"position": whole, "bytes": len(buf) - whole}}


def _decoder_for(path: Path, offsets_decoder: bool, transaction_log_decoder: bool) -> RecordDecoder | None:
    """The record decoder a flag asks for, else the one an internal topic's directory name implies."""
    if offsets_decoder:
        return _coordinator
    if transaction_log_decoder:
        return transaction_record
    if path.parent.name.startswith("__consumer_offsets-"):
        return _coordinator
    if path.parent.name.startswith("__transaction_state-"):
        return transaction_record
    return None


def dump_file(
    path: Path,
    deep: bool,
    data: bool,
    verify_index: bool,
    offsets_decoder: bool = False,
    transaction_log_decoder: bool = False,
) -> dict[str, Any]:
    """Everything `dump-log` shows about one file, as JSON-ready data."""
    try:
        buf = path.read_bytes()
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror}") from None
    if path.suffix == ".log":
        _base_offset(path)
        decoder = _decoder_for(path, offsets_decoder, transaction_log_decoder)
        return {"file": str(path), "batches": list(_batches(buf, deep, data, decoder))}
    if path.suffix == ".snapshot":
        _base_offset(path)
        try:
            return {"file": str(path), "producers": snapshot_entries(buf)}
        except CorruptSnapshot as exc:
            return {"file": str(path), "producers": [], "problem": f"corrupt snapshot: {exc}"}
    return {"file": str(path), "entries": list(_index_entries(path, buf, verify_index))}


def _line(item: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    return " ".join(
        f"{k}: {json.dumps(v) if isinstance(v, dict | list | str) else v}" for k, v in item.items() if k not in skip
    )


def _dump_log(args: argparse.Namespace) -> int:
    dumps = [
        dump_file(
            path,
            args.deep_iteration,
            args.print_data_log,
            args.verify_index,
            offsets_decoder=args.offsets_decoder,
            transaction_log_decoder=args.transaction_log_decoder,
        )
        for path in _files(args)
    ]
    out = Output(args.json)
    if out.as_json:
        out.json(dumps)
        return 0
    write = out.stdout.write
    for dump in dumps:
        write(f"Dumping {dump['file']}\n")
        if "problem" in dump:
            write(f"problem: {dump['problem']}\n")
        for item in dump.get("batches", dump.get("entries", dump.get("producers", []))):
            write(_line(item, ("records",)) + "\n")
            for record in item.get("records", []):
                write("| " + _line(record) + "\n")
    out.stdout.flush()
    return 0
