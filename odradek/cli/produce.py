"""``odradek produce``: one record per input line, like kafka-console-producer.

A line is read as ``[headers <headers.delimiter>] [key <key.separator>] value`` where the parts in
brackets are parsed only when ``parse.headers`` / ``parse.key`` are true (``--property``, with the
console producer's names and defaults: key.separator and headers.delimiter a tab, headers.separator
``,``, headers.key.separator ``:``); ``null.marker`` turns a key, value or header value equal to it
into null.  ``--key-separator SEP`` is short for ``parse.key=true key.separator=SEP``.

Input is stdin or the files given, read as bytes; a trailing ``\\n`` (or ``\\r\\n``) is not part of a
value.  The command succeeds only when every record was acknowledged within ``--timeout-ms`` of
the end of the input; with ``--transactional-id`` all records go in one transaction, committed
at the end and aborted on any failure.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from odradek.cli.client import base_config, describe_error, error_name
from odradek.cli.common import CommandError, Output, UsageError, add_client_arguments, leaf, parse_key_values, progress

__all__ = ["LineFormat", "register"]

CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
ACKS = ("0", "1", "-1", "all")
_PROGRESS_EVERY = 256

Header = tuple[str, str | bytes | None]


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = leaf(commands, "produce", "produce records from stdin or files, one per line", _produce)
    parser.add_argument("--topic", required=True)
    parser.add_argument("files", nargs="*", metavar="FILE", help="files to read (default: stdin; - is stdin)")
    parser.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="line parsing: parse.key, key.separator, parse.headers, headers.delimiter, headers.separator, "
        "headers.key.separator, null.marker (repeatable)",
    )
    parser.add_argument("--key-separator", metavar="SEP", help="split each line into key SEP value")
    parser.add_argument(
        "--header", action="append", default=[], metavar="KEY=VALUE", help="a header on every record (repeatable)"
    )
    parser.add_argument("--partition", type=int, help="the partition (default: by key, or spread)")
    parser.add_argument("--compression-codec", choices=CODECS, default="none", help="batch compression")
    parser.add_argument(
        "--acks", "--request-required-acks", choices=ACKS, default="all", help="acknowledgements (default all)"
    )
    parser.add_argument("--idempotent", action="store_true", help="enable the idempotent producer")
    parser.add_argument("--transactional-id", metavar="ID", help="produce everything in one transaction")
    parser.add_argument(
        "--producer-property", action="append", default=[], metavar="KEY=VALUE", help="a librdkafka producer property"
    )
    add_client_arguments(parser)


@dataclass(frozen=True, slots=True)
class LineFormat:
    """How one input line splits into headers, key and value (see the module docstring)."""

    parse_key: bool = False
    key_separator: bytes = b"\t"
    parse_headers: bool = False
    headers_delimiter: bytes = b"\t"
    headers_separator: bytes = b","
    header_key_separator: bytes = b":"
    null_marker: bytes | None = None
    fixed_headers: tuple[tuple[str, bytes], ...] = field(default=())

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> LineFormat:
        props = parse_key_values(args.property, "--property")
        known = {
            "parse.key",
            "key.separator",
            "parse.headers",
            "headers.delimiter",
            "headers.separator",
            "headers.key.separator",
            "null.marker",
        }
        unknown = sorted(set(props) - known)
        if unknown:
            raise UsageError(f"unknown --property {unknown[0]!r}; known: {', '.join(sorted(known))}")

        def flag(name: str) -> bool:
            value = props.get(name, "false").lower()
            if value not in ("true", "false"):
                raise UsageError(f"--property {name} must be true or false, got {value!r}")
            return value == "true"

        def separator(name: str, default: str) -> bytes:
            value = props.get(name, default)
            if not value:
                raise UsageError(f"--property {name} must not be empty")
            return value.encode()

        parse_key = flag("parse.key")
        key_separator = separator("key.separator", "\t")
        if args.key_separator is not None:
            if not args.key_separator:
                raise UsageError("--key-separator must not be empty")
            parse_key, key_separator = True, args.key_separator.encode()
        marker = props.get("null.marker")
        fixed = tuple((k, v.encode()) for k, v in parse_key_values(args.header, "--header").items())
        return cls(
            parse_key,
            key_separator,
            flag("parse.headers"),
            separator("headers.delimiter", "\t"),
            separator("headers.separator", ","),
            separator("headers.key.separator", ":"),
            None if marker is None else marker.encode(),
            fixed,
        )

    def _nullable(self, data: bytes) -> bytes | None:
        return None if self.null_marker is not None and data == self.null_marker else data

    def parse(self, line: bytes, number: int) -> tuple[bytes | None, bytes | None, list[Header]]:
        """``(key, value, headers)`` of one line without its line ending; ``number`` counts from 1."""
        headers: list[Header] = list(self.fixed_headers)
        rest = line
        if self.parse_headers:
            head, found, rest = line.partition(self.headers_delimiter)
            if not found:
                raise CommandError(f"line {number}: no headers delimiter {self.headers_delimiter!r}")
            if head != self.null_marker:
                for item in head.split(self.headers_separator):
                    name, found, value = item.partition(self.header_key_separator)
                    if not found:
                        raise CommandError(f"line {number}: header {item!r} has no {self.header_key_separator!r}")
                    headers.append((name.decode(errors="replace"), self._nullable(value)))
        if not self.parse_key:
            return None, self._nullable(rest), headers
        key, found, value = rest.partition(self.key_separator)
        if not found:
            raise CommandError(f"line {number}: no key separator {self.key_separator!r}")
        return self._nullable(key), self._nullable(value), headers


def _lines(files: list[str]) -> Iterator[tuple[bytes, int]]:
    """Each input line without its ending, with the bytes it took in the input."""
    for name in files or ["-"]:
        stream: IO[bytes]
        try:
            stream = sys.stdin.buffer if name == "-" else open(name, "rb")  # noqa: SIM115
        except OSError as exc:
            raise CommandError(f"cannot read {name}: {exc.strerror}") from None
        try:
            for raw in stream:
                line = raw[:-1] if raw.endswith(b"\n") else raw
                yield (line[:-1] if line.endswith(b"\r") else line), len(raw)
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()


def _total_bytes(files: list[str]) -> int | None:
    """The input's size when it is all regular files, for a progress bar with an end."""
    if not files or "-" in files:
        return None
    try:
        return sum(os.path.getsize(name) for name in files)
    except OSError:
        return None


class _Delivery:
    """Counts acknowledgements and keeps the first error."""

    def __init__(self) -> None:
        self.acked = 0
        self.failed = 0
        self.first_error: str | None = None

    def __call__(self, error: KafkaError | None, message: Message[Any, Any]) -> None:
        if error is None:
            self.acked += 1
            return
        self.failed += 1
        if self.first_error is None:
            self.first_error = f"{error_name(error)}: {error.str()}"


def _producer_config(args: argparse.Namespace) -> dict[str, Any]:
    config = base_config(args.bootstrap_server, parse_key_values(args.command_property, "--command-property"))
    config.update(
        {
            "compression.type": args.compression_codec,
            "acks": args.acks,
            "message.timeout.ms": args.timeout_ms,
            "enable.idempotence": args.idempotent or args.transactional_id is not None,
        }
    )
    if args.transactional_id is not None:
        config["transactional.id"] = args.transactional_id
    config.update(parse_key_values(args.producer_property, "--producer-property"))
    return config


def _produce(args: argparse.Namespace) -> int:
    line_format = LineFormat.from_args(args)
    if args.partition is not None and args.partition < 0:
        raise UsageError("--partition must be >= 0")
    try:
        producer = Producer(_producer_config(args))
    except KafkaException as exc:
        raise UsageError(describe_error(exc)) from None
    timeout = args.timeout_ms / 1000
    try:
        producer.list_topics(args.topic, timeout=timeout)
    except KafkaException as exc:
        raise CommandError(
            f"cannot reach a broker at {args.bootstrap_server} within {args.timeout_ms} ms ({describe_error(exc)})"
        ) from None
    out = Output(args.json)
    delivery = _Delivery()
    sent = 0
    try:
        if args.transactional_id is not None:
            producer.init_transactions(timeout)
            producer.begin_transaction()
        extra: dict[str, Any] = {} if args.partition is None else {"partition": args.partition}
        with progress(out.err, "records") as bar:
            task = bar.add_task(f"producing to {args.topic}", total=_total_bytes(args.files), count=0)
            for number, (line, size) in enumerate(_lines(args.files), start=1):
                key, value, headers = line_format.parse(line, number)
                while True:
                    try:
                        producer.produce(args.topic, value, key, headers=headers or None, on_delivery=delivery, **extra)
                        break
                    except BufferError:
                        producer.poll(0.05)
                sent += 1
                bar.advance(task, size)
                if sent % _PROGRESS_EVERY == 0:
                    producer.poll(0)
                    bar.update(task, count=sent)
            bar.update(task, count=sent)
            remaining = producer.flush(timeout)
        if remaining:
            raise CommandError(f"{remaining} of {sent} records not acknowledged within {args.timeout_ms} ms")
        if delivery.failed:
            raise CommandError(f"{delivery.failed} of {sent} records failed: {delivery.first_error}")
        if args.transactional_id is not None:
            producer.commit_transaction(timeout)
    except KafkaException as exc:
        if args.transactional_id is not None:
            _abort(producer, timeout)
        raise CommandError(describe_error(exc)) from None
    except (CommandError, KeyboardInterrupt):
        if args.transactional_id is not None:
            _abort(producer, timeout)
        producer.flush(timeout)
        raise
    if out.as_json:
        out.json({"topic": args.topic, "records": sent})
    else:
        out.note(f"{sent} records produced to {args.topic}")
    return 0


def _abort(producer: Producer, timeout: float) -> None:
    try:
        producer.abort_transaction(timeout)
    except KafkaException:
        return
