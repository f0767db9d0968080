"""The ``odradek`` command: ``odradek run`` starts a broker in the foreground; every command
registered with a handler (the Kafka clients of `odradek.cli.commands`) is dispatched from here.

SIGINT and SIGTERM stop a broker gracefully: the listener closes, every log is flushed and closed
cleanly (so the next start does no recovery scan), and the process exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import resource
import signal
import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from odradek.broker import Broker
from odradek.config import ConfigError, load_config
from odradek.config.broker import read_properties
from odradek.storage.filesystem import MemoryFileSystem, OsFileSystem, write_file_atomic

if TYPE_CHECKING:
    from odradek.testing.runtime import RuntimeSettings

__all__ = ["main"]

log = logging.getLogger("odradek")


def _terminal_columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it: ``$COLUMNS``, else the terminal
    on standard output, else 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stdout = sys.__stdout__
    try:
        return 80 if stdout is None else os.get_terminal_size(stdout.fileno()).columns
    except (ValueError, OSError):  # not a terminal, or a closed or replaced stream
        return 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, given the terminal's width: argparse makes one for every argument
    added, and asking the width itself imports `shutil`, and with it the bz2 and lzma codecs:
    0.4 MiB of a broker's idle memory (W7, benchmarks/profiles.md)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_terminal_columns() - 2)


def _parser(clients: bool = True) -> argparse.ArgumentParser:
    """The command line; without ``clients`` only ``run`` (whose start-up then never imports the
    client commands' libraries: confluent-kafka, rich, the Spark loader)."""
    parser = argparse.ArgumentParser(
        prog="odradek", description="A Kafka-compatible broker.", formatter_class=_HelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="start a broker in the foreground", formatter_class=_HelpFormatter)
    run.add_argument("config", nargs="?", help="a server.properties file")
    run.add_argument("--host", help="listen address (default 127.0.0.1)")
    run.add_argument("--port", type=int, help="listen port (default 9092; 0 picks a free one)")
    run.add_argument("--data-dir", help="where partition logs live (default ./data)")
    run.add_argument(
        "--override",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a broker config, e.g. num.partitions=3",
    )
    run.add_argument(
        "--emulate-kafka",
        metavar="X.Y",
        help="answer ApiVersions and refuse requests as that Apache Kafka release did (e.g. 3.6)",
    )
    run.add_argument("--storage", choices=("disk", "memory"), default="disk", help="keep data on disk or in memory")
    run.add_argument(
        "--port-file",
        help="once ready, write 'port=N' (and 'control.port=M') to this file, for test harnesses",
    )
    run.add_argument(
        "--control-port",
        type=int,
        help="serve the test double's HTTP control endpoint on 127.0.0.1 (0 picks a free port)",
    )
    run.add_argument(
        "--console",
        metavar="HOST:PORT",
        help="also serve the web console there, e.g. 127.0.0.1:8080 (default: no console)",
    )
    if clients:
        from odradek.cli.commands import register_commands
        from odradek.console import command as console
        from odradek.pipeline import cli as spark_load

        register_commands(commands)
        console.register(commands)
        spark_load.register(commands)
    return parser


def _write_port_file(path: str | None, port: int, control_port: int | None) -> None:
    """``port=N`` (and ``control.port=M``), replaced atomically so a reader never sees half."""
    if path is None:
        return
    lines = f"port={port}\n" + (f"control.port={control_port}\n" if control_port is not None else "")
    write_file_atomic(OsFileSystem(), path, lines.encode())


def _raise_open_files_limit() -> None:
    """Lift the soft limit on open files to the hard one, as the JVM does for Kafka on Linux
    (``-XX:+MaxFDLimit``, on by default): every connection holds a socket and every partition its
    segment files, so a soft limit of 1024 would cap the broker long before Kafka's.  An unlimited
    hard limit, or a refusal, leaves the soft one as it was."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard or hard == resource.RLIM_INFINITY:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as exc:
        log.warning("open files limit stays at %d: %s", soft, exc)


def _stop_on_signals() -> asyncio.Event:
    """An event SIGINT or SIGTERM sets; installed before the broker starts, so a signal sent as soon
    as the ready line appears stops the broker cleanly instead of killing the process."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def _until(stop: asyncio.Event, host: str, port: int, console_listen: tuple[str, int] | None) -> None:
    """Wait for ``stop``, serving the web console beside the broker at ``HOST:PORT`` meanwhile when
    ``console_listen`` names an address (the console is imported only then)."""
    beside = None
    if console_listen is not None:
        from odradek.console import command as console

        reachable = host if host not in ("", "0.0.0.0", "::") else "127.0.0.1"
        beside = await console.start_console(f"{reachable}:{port}", console_listen)
    await stop.wait()
    log.info("shutting down")
    if beside is not None:
        await beside.cleanup()


async def _serve(broker: Broker, port_file: str | None, console_listen: tuple[str, int] | None) -> None:
    stop = _stop_on_signals()
    await broker.start()
    # Everything built at start-up (modules, message schemas, the recovered logs) lives as long as
    # the broker: out of the collector's sight, the full collections that many short-lived request
    # objects trigger stop re-scanning it (the process entry, `odradek.cli.entry`, set the thresholds).
    gc.freeze()
    _write_port_file(port_file, broker.port, None)
    # One line a supervisor (or a test harness) can wait for.
    print(f"odradek ready on {broker.config.host}:{broker.port}", flush=True)
    await _until(stop, broker.config.host, broker.port, console_listen)
    await broker.stop()


async def _serve_double(
    settings: RuntimeSettings, control_port: int, port_file: str | None, console_listen: tuple[str, int] | None
) -> None:
    """A broker with the test double's control endpoint (reset, faults, clock, journal)."""
    from odradek.testing.control import ControlServer
    from odradek.testing.runtime import Runtime

    stop = _stop_on_signals()
    runtime = Runtime(settings)
    await runtime.open()
    control = ControlServer(runtime, port=control_port)
    await control.start()
    _write_port_file(port_file, runtime.port, control.port)
    print(f"odradek ready on {runtime.host}:{runtime.port}", flush=True)
    print(f"odradek control on {control.url}", flush=True)
    try:
        await _until(stop, runtime.host, runtime.port, console_listen)
    finally:
        await control.stop()
        await runtime.close()


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    try:
        args = _parser(clients=words[:1] != ["run"]).parse_args(words)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    if getattr(args, "handler", None) is not None:
        from odradek.cli.commands import dispatch

        return dispatch(args)
    if args.command != "run":
        from odradek.pipeline import cli as spark_load

        return spark_load.run(args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    _raise_open_files_limit()
    console_listen = None
    if args.console is not None:
        from odradek.cli.common import UsageError
        from odradek.console.command import parse_listen

        try:
            console_listen = parse_listen(args.console)
        except UsageError as exc:
            print(f"odradek run: error: {exc}", file=sys.stderr)
            return 2
    overrides = list(args.override)
    if args.host is not None:
        overrides.append(f"host={args.host}")
    if args.port is not None:
        overrides.append(f"port={args.port}")
    if args.data_dir is not None:
        overrides.append(f"log.dirs={args.data_dir}")
    try:
        config = load_config(args.config, overrides)
        release = None
        if args.emulate_kafka is not None:
            from odradek.emulation import load_release

            release = load_release(args.emulate_kafka)
    except (ConfigError, OSError, ValueError) as exc:
        print(f"odradek: {exc}", file=sys.stderr)
        return 2
    if args.control_port is not None:
        from odradek.testing.runtime import RuntimeSettings

        items = read_properties(args.config) if args.config is not None else []
        for item in overrides:
            key, _, value = item.partition("=")
            items.append((key, value))
        settings = RuntimeSettings(
            host=config.host,
            port=config.port,
            storage=args.storage,
            data_dir=None if args.storage == "memory" else config.log_dirs,
            config={key: value for key, value in items if key not in ("host", "port", "log.dirs")},
            emulate=args.emulate_kafka,
        )
        _run_event_loop(_serve_double(settings, args.control_port, args.port_file, console_listen))
        return 0
    fs = MemoryFileSystem() if args.storage == "memory" else None
    _run_event_loop(_serve(Broker(config, fs=fs, emulate=release), args.port_file, console_listen))
    return 0


def _run_event_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run on uvloop when it is installed (about twice the throughput), else on asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
        return
    uvloop.run(main)
