"""What every client command shares: its flags, its errors, its output.

Exit codes (the contract scripts rely on):
- 0: the command did what it was asked;
- 1: `CommandError`, a failure the user cannot fix by changing the command line (an unreachable
  broker within ``--timeout-ms``, an unknown topic, a broker error): one line on stderr;
- 2: `UsageError` or argparse's own errors: one line on stderr after the usage.

Output: results go to stdout, as rich tables by default or as JSON with ``--json``; progress,
notes and errors go to stderr.  Colour and progress bars appear only when the stream is a terminal
(rich's own detection, which also honours ``NO_COLOR``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

__all__ = [
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_TIMEOUT_MS",
    "CommandError",
    "Handler",
    "Output",
    "UsageError",
    "add_client_arguments",
    "group",
    "leaf",
    "parse_key_values",
    "parse_timestamp",
    "positive_int",
    "progress",
]

DEFAULT_BOOTSTRAP = "127.0.0.1:9092"
DEFAULT_TIMEOUT_MS = 10_000
_UNWRAPPED = 10_000

Handler = Callable[[argparse.Namespace], int]
"""A command's body: returns its exit code or raises `CommandError` / `UsageError`."""


class CommandError(Exception):
    """A failure reported as one line on stderr with exit code 1."""


class UsageError(Exception):
    """A command line that argparse accepted but the command cannot: exit code 2 with the usage."""


def leaf(commands: argparse._SubParsersAction[Any], name: str, help: str, handler: Handler) -> argparse.ArgumentParser:
    """A runnable (sub)command: ``handler`` runs it and its own usage is printed on a `UsageError`."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name, help=help, description=help[:1].upper() + help[1:] + "."
    )
    parser.set_defaults(handler=handler, parser=parser)
    return parser


def group(commands: argparse._SubParsersAction[Any], name: str, help: str) -> argparse._SubParsersAction[Any]:
    """A command made of subcommands, e.g. ``topics``; one of them is required."""
    parser = commands.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".")
    subcommands: argparse._SubParsersAction[Any] = parser.add_subparsers(
        dest=f"{name}_command", required=True, metavar="COMMAND"
    )
    return subcommands


def add_client_arguments(parser: argparse.ArgumentParser, *, json_output: bool = True, timeout: bool = True) -> None:
    """The flags of every command that talks to a broker; ``timeout`` False leaves ``--timeout-ms``
    to the command, which must then define it."""
    parser.add_argument(
        "--bootstrap-server",
        default=DEFAULT_BOOTSTRAP,
        metavar="HOST:PORT",
        help=f"broker(s) to connect to, comma-separated (default {DEFAULT_BOOTSTRAP})",
    )
    if timeout:
        parser.add_argument(
            "--timeout-ms",
            type=positive_int,
            default=DEFAULT_TIMEOUT_MS,
            metavar="MS",
            help=f"how long to wait for the broker before failing (default {DEFAULT_TIMEOUT_MS})",
        )
    parser.add_argument(
        "--command-property",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a librdkafka client property, e.g. security.protocol=SSL (repeatable)",
    )
    if json_output:
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def positive_int(text: str) -> int:
    """An argparse type: an integer > 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def parse_timestamp(text: str) -> int:
    """An argparse type: epoch milliseconds, or an ISO 8601 date-time (local time unless it names a
    zone, e.g. ``2026-11-25T06:00:00Z``) as epoch milliseconds."""
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not epoch milliseconds or an ISO 8601 date-time: {text!r}") from None
    return int(moment.timestamp() * 1000)


def parse_key_values(items: Iterable[str], what: str) -> dict[str, str]:
    """``KEY=VALUE`` strings as a dict; raises `UsageError` naming ``what`` for a missing ``=``."""
    result: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"{what} must be KEY=VALUE, got {item!r}")
        result[key.strip()] = value
    return result


class Output:
    """Where a command prints: tables or JSON on stdout, notes on stderr."""

    def __init__(self, as_json: bool, stdout: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self.as_json = as_json
        self.stdout = stdout if stdout is not None else sys.stdout
        self.console = Console(file=self.stdout, soft_wrap=True)
        if not self.console.is_terminal:
            # A pipe or file gets whole lines, never wrapped at rich's default 80 columns.
            self.console.width = _UNWRAPPED
        self.err = Console(file=stderr if stderr is not None else sys.stderr, soft_wrap=True)

    def json(self, value: Any) -> None:
        self.stdout.write(json.dumps(value, indent=2, sort_keys=False) + "\n")
        self.stdout.flush()

    def table(self, columns: Sequence[str], rows: Iterable[Sequence[object]], title: str | None = None) -> None:
        table = Table(title=title, title_justify="left", box=None, header_style="bold", pad_edge=False)
        for column in columns:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(Text("-") if cell is None else Text(str(cell)) for cell in row))
        self.console.print(table)

    def line(self, text: str) -> None:
        self.console.print(Text(text))

    def note(self, text: str) -> None:
        self.err.print(Text(text))


class _CountColumn(ProgressColumn):
    """The ``count`` field of a task with its rate since the start, e.g. ``12,000 records 4,100/s``."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self._unit = unit

    def render(self, task: Task) -> Text:
        count = int(task.fields.get("count", 0))
        elapsed = task.finished_time if task.finished else task.elapsed
        rate = f" {count / elapsed:,.0f}/s" if elapsed else ""
        return Text(f"{count:,} {self._unit}{rate}", style="progress.data.speed")


def progress(err: Console, unit: str) -> Progress:
    """A progress display on ``err``: a bar over bytes read, and a count of ``unit`` with its rate.

    Tasks carry ``count`` in their fields.  Silent when ``err`` is not a terminal.
    """
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(bar_width=24),
        TaskProgressColumn(),
        _CountColumn(unit),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
    )
