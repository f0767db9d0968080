"""``odradek consume``: print a topic's records, like kafka-console-consumer.

Where reading starts, per partition: ``--offset N|earliest|latest``, ``--from-timestamp`` (the
first record at or after it), ``--from-beginning``, else the end.  With ``--group`` the consumer
subscribes as a member of that group and commits what it printed; there ``--from-beginning`` only
applies to partitions the group has no committed offset for (Kafka's rule), while ``--offset`` and
``--from-timestamp`` override the committed offset.  Without ``--group`` (or with ``--partition``)
partitions are assigned directly.

It stops after ``--max-messages`` records, after ``--timeout-ms`` without a record, or at Ctrl-C,
and then prints on stderr how many records it printed.  Output is one line per record: the value,
preceded by the fields ``--property print.*=true`` asks for; or with ``--json`` one JSON object per
line with topic, partition, offset, timestamp, key, value and headers (bytes as UTF-8, undecodable
bytes as backslash escapes).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from confluent_kafka import (
    OFFSET_BEGINNING,
    OFFSET_END,
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    TopicPartition,
)

from odradek.cli.client import base_config, describe_error, error_name
from odradek.cli.common import (
    DEFAULT_TIMEOUT_MS,
    CommandError,
    Output,
    UsageError,
    add_client_arguments,
    leaf,
    parse_key_values,
    parse_timestamp,
    positive_int,
)

__all__ = ["register"]

_PRINT = ("print.key", "print.headers", "print.partition", "print.offset", "print.timestamp")
_POLL_S = 0.2
# Not failures: the end of a partition, and a group coordinator that is moving or still loading
# (a fresh Apache Kafka creates __consumer_offsets at the first group request); librdkafka retries.
_TRANSIENT = frozenset(
    {
        KafkaError._PARTITION_EOF,
        KafkaError.NOT_COORDINATOR,
        KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
        KafkaError.COORDINATOR_NOT_AVAILABLE,
    }
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = leaf(commands, "consume", "print records of a topic", _consume)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", help="consume as a member of this group, committing offsets")
    parser.add_argument(
        "--partition", type=int, action="append", help="read only this partition, assigned directly (repeatable)"
    )
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--from-beginning", action="store_true", help="start at the earliest offset")
    start.add_argument("--offset", help="start at this offset, or earliest / latest (needs --partition)")
    start.add_argument(
        "--from-timestamp", type=parse_timestamp, metavar="TIME", help="start at epoch ms or an ISO 8601 time"
    )
    parser.add_argument("--max-messages", type=positive_int, metavar="N", help="stop after N records")
    parser.add_argument(
        "--timeout-ms", type=positive_int, metavar="MS", help="stop after MS without a record (default: never)"
    )
    parser.add_argument("--isolation-level", choices=("read_uncommitted", "read_committed"), default="read_uncommitted")
    parser.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"output: {', '.join(_PRINT)} (true/false), key.separator (repeatable)",
    )
    parser.add_argument(
        "--consumer-property", action="append", default=[], metavar="KEY=VALUE", help="a librdkafka consumer property"
    )
    add_client_arguments(parser, timeout=False)


def _text(data: str | bytes | None) -> str | None:
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="backslashreplace")
    return data


def _headers(message: Message[Any, Any]) -> list[tuple[str, str | None]]:
    raw = message.headers() or []
    pairs = raw.items() if isinstance(raw, dict) else raw
    return [(k, _text(v)) for k, v in pairs]


def _start_offset(args: argparse.Namespace) -> int | None:
    """The explicit start (an offset or OFFSET_BEGINNING/END), or None for "ask per partition"."""
    if args.offset is None:
        if args.from_beginning and args.group is None:
            return OFFSET_BEGINNING
        return None
    if args.offset == "earliest":
        return OFFSET_BEGINNING
    if args.offset == "latest":
        return OFFSET_END
    if not args.offset.isdigit():
        raise UsageError(f"--offset must be a non-negative integer, earliest or latest, got {args.offset!r}")
    if not args.partition:
        raise UsageError("--offset N needs --partition")
    return int(args.offset)


class _Printer:
    def __init__(self, args: argparse.Namespace, out: Output) -> None:
        props = parse_key_values(args.property, "--property")
        unknown = sorted(set(props) - {*_PRINT, "key.separator"})
        if unknown:
            raise UsageError(f"unknown --property {unknown[0]!r}")
        self._show = {name for name in _PRINT if props.get(name, "false").lower() == "true"}
        self._separator = props.get("key.separator", "\t")
        self._json = args.json
        self._out = out

    def __call__(self, message: Message[Any, Any]) -> None:
        kind, timestamp = message.timestamp()
        headers = _headers(message)
        if self._json:
            record = {
                "topic": message.topic(),
                "partition": message.partition(),
                "offset": message.offset(),
                "timestamp": timestamp,
                "timestamp_type": "LogAppendTime" if kind == TIMESTAMP_LOG_APPEND_TIME else "CreateTime",
                "key": _text(message.key()),
                "value": _text(message.value()),
                "headers": headers,
            }
            self._out.stdout.write(json.dumps(record) + "\n")
            return
        fields: list[str] = []
        if "print.timestamp" in self._show:
            fields.append(f"{'LogAppendTime' if kind == TIMESTAMP_LOG_APPEND_TIME else 'CreateTime'}:{timestamp}")
        if "print.partition" in self._show:
            fields.append(f"Partition:{message.partition()}")
        if "print.offset" in self._show:
            fields.append(f"Offset:{message.offset()}")
        if "print.headers" in self._show:
            fields.append(",".join(f"{k}:{'null' if v is None else v}" for k, v in headers) or "NO_HEADERS")
        if "print.key" in self._show:
            fields.append(_text(message.key()) or "null")
        value = _text(message.value())
        fields.append("null" if value is None else value)
        self._out.stdout.write(self._separator.join(fields) + "\n")


def _consumer(args: argparse.Namespace) -> Consumer:
    config = base_config(args.bootstrap_server, parse_key_values(args.command_property, "--command-property"))
    config.update(
        {
            "group.id": args.group or "odradek-console-consumer",
            "enable.auto.commit": args.group is not None,
            "auto.offset.reset": "earliest" if args.from_beginning else "latest",
            "isolation.level": args.isolation_level,
        }
    )
    config.update(parse_key_values(args.consumer_property, "--consumer-property"))
    try:
        return Consumer(config)
    except KafkaException as exc:
        raise UsageError(describe_error(exc)) from None


def _partitions(consumer: Consumer, args: argparse.Namespace, wait_s: float) -> list[int]:
    """The topic's partitions; raises `CommandError` for an unreachable broker or unknown topic."""
    try:
        metadata = consumer.list_topics(args.topic, timeout=wait_s)
    except KafkaException as exc:
        raise CommandError(
            f"cannot reach a broker at {args.bootstrap_server} within {int(wait_s * 1000)} ms ({describe_error(exc)})"
        ) from None
    topic = metadata.topics.get(args.topic)
    if topic is None or topic.error is not None:
        reason = "UNKNOWN_TOPIC_OR_PARTITION" if topic is None or topic.error is None else error_name(topic.error)
        raise CommandError(f"topic {args.topic!r}: {reason}")
    existing = sorted(topic.partitions)
    for p in args.partition or []:
        if p not in existing:
            raise CommandError(f"topic {args.topic!r} has no partition {p}")
    return args.partition or existing


def _positions(
    consumer: Consumer, args: argparse.Namespace, partitions: list[int], start: int | None, wait_s: float
) -> list[TopicPartition]:
    """Where to start each partition; with no explicit start, the group's committed offset (else the
    beginning or the end, as ``--from-beginning`` says), or without a group the end."""
    if args.from_timestamp is not None:
        query = [TopicPartition(args.topic, p, args.from_timestamp) for p in partitions]
        try:
            found = consumer.offsets_for_times(query, timeout=wait_s)
        except KafkaException as exc:
            raise CommandError(f"look up offsets by time: {describe_error(exc)}") from None
        return [TopicPartition(tp.topic, tp.partition, OFFSET_END if tp.offset < 0 else tp.offset) for tp in found]
    if start is None and args.group is not None:
        # The group's committed offsets, asked before assigning: librdkafka does not ask again when its
        # own fetch of them meets a coordinator that is still loading (a fresh Apache Kafka's first group).
        default = OFFSET_BEGINNING if args.from_beginning else OFFSET_END
        asked = [TopicPartition(args.topic, p) for p in partitions]
        committed = _committed(consumer, args.group, asked, wait_s)
        return [TopicPartition(tp.topic, tp.partition, tp.offset if tp.offset >= 0 else default) for tp in committed]
    return [TopicPartition(args.topic, p, OFFSET_END if start is None else start) for p in partitions]


def _committed(consumer: Consumer, group: str, partitions: list[TopicPartition], wait_s: float) -> list[TopicPartition]:
    """The group's committed offsets (-1001 where none), retried while the coordinator is not ready."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return list(consumer.committed(partitions, timeout=max(deadline - time.monotonic(), 0.1)))
        except KafkaException as exc:
            error = exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
            if error is None or error.code() not in _TRANSIENT or time.monotonic() >= deadline:
                raise CommandError(f"committed offsets of group {group!r}: {describe_error(exc)}") from None
            time.sleep(_POLL_S)


def _consume(args: argparse.Namespace) -> int:
    start = _start_offset(args)
    out = Output(args.json)
    printer = _Printer(args, out)
    consumer = _consumer(args)
    wait_s = (args.timeout_ms or DEFAULT_TIMEOUT_MS) / 1000
    count = 0
    try:
        partitions = _partitions(consumer, args, wait_s)
        explicit = start is not None or args.from_timestamp is not None
        if args.group is not None and not args.partition:

            def on_assign(c: Consumer, assigned: list[TopicPartition]) -> None:
                if explicit:
                    c.assign(_positions(c, args, [tp.partition for tp in assigned], start, wait_s))

            consumer.subscribe([args.topic], on_assign=on_assign)
        else:
            consumer.assign(_positions(consumer, args, partitions, start, wait_s))
        idle_since = time.monotonic()
        while args.max_messages is None or count < args.max_messages:
            if args.timeout_ms is not None and (time.monotonic() - idle_since) * 1000 >= args.timeout_ms:
                break
            message = consumer.poll(_POLL_S)
            if message is None:
                continue
            error = message.error()
            if error is not None:
                if error.code() in _TRANSIENT:
                    continue
                if error.fatal() or not error.retriable():
                    raise CommandError(f"{error_name(error)}: {error.str()}")
                continue
            printer(message)
            count += 1
            idle_since = time.monotonic()
        out.stdout.flush()
    except KeyboardInterrupt:
        pass
    finally:
        _close(consumer)
    out.note(f"{count} records consumed")
    return 0


def _close(consumer: Consumer) -> None:
    """Leave the group and commit what was stored; a broker gone by now is not the user's problem."""
    try:
        consumer.close()
    except (KafkaException, RuntimeError):
        return
