"""The ``odradek`` command: ``odradek run`` starts a broker in the foreground; every command
registered with a handler (the Kafka clients of `odradek.cli.commands`) is dispatched from here.

SIGINT and SIGTERM stop a broker gracefully: the listener closes, every log is flushed and closed
cleanly (so the next start does no recovery scan), and the process exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from odradek.broker import Broker
from odradek.cli.commands import dispatch, register_commands
from odradek.cli.common import UsageError
from odradek.config import ConfigError, load_config
from odradek.console import command as console
from odradek.pipeline import cli as spark_load

__all__ = ["main"]

log = logging.getLogger("odradek")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="odradek", description="A Kafka-compatible broker.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="start a broker in the foreground")
    run.add_argument("config", nargs="?", type=Path, help="a server.properties file")
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
        "--console",
        metavar="HOST:PORT",
        help="also serve the web console there, e.g. 127.0.0.1:8080 (default: no console)",
    )
    register_commands(commands)
    console.register(commands)
    spark_load.register(commands)
    return parser


async def _serve(broker: Broker, console_listen: tuple[str, int] | None = None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await broker.start()
    # One line a supervisor (or a test harness) can wait for.
    print(f"odradek ready on {broker.config.host}:{broker.port}", flush=True)
    beside = None
    if console_listen is not None:
        host = broker.config.host if broker.config.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
        beside = await console.start_console(f"{host}:{broker.port}", console_listen)
    await stop.wait()
    log.info("shutting down")
    if beside is not None:
        await beside.cleanup()
    await broker.stop()


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    if getattr(args, "handler", None) is not None:
        return dispatch(args)
    if args.command == spark_load.COMMAND:
        return spark_load.run(args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        console_listen = None if args.console is None else console.parse_listen(args.console)
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
    except (ConfigError, OSError) as exc:
        print(f"odradek: {exc}", file=sys.stderr)
        return 2
    _run_event_loop(_serve(Broker(config), console_listen))
    return 0


def _run_event_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run on uvloop when it is installed (about twice the throughput), else on asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
        return
    uvloop.run(main)
