"""``odradek console``: the web console for any Kafka cluster; `start_console` also serves it beside a
broker (``odradek run --console HOST:PORT``).

The console listens on loopback (``127.0.0.1:8080``) unless ``--listen`` names another address; it
prints ``odradek console on http://HOST:PORT`` once it accepts connections (port 0 picks a free one)
and stops on SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
from typing import Any

from aiohttp import web

from odradek.cli.common import CommandError, UsageError, add_client_arguments, leaf, parse_key_values, positive_int
from odradek.clock import SystemClock
from odradek.console.app import create_app
from odradek.console.cluster import ClusterView
from odradek.console.lag import LagHistory

__all__ = ["DEFAULT_LISTEN", "parse_listen", "register", "start_console"]

DEFAULT_LISTEN = "127.0.0.1:8080"
DEFAULT_SAMPLE_MS = 5000


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) as a pair; raises `UsageError` for anything else."""
    host, colon, port = text.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--listen must be HOST:PORT, e.g. {DEFAULT_LISTEN}, not {text!r}")
    return host, int(port)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = leaf(commands, "console", "serve the web console for a Kafka cluster", _console)
    parser.add_argument(
        "--listen",
        default=DEFAULT_LISTEN,
        metavar="HOST:PORT",
        help=f"where the console listens (default {DEFAULT_LISTEN}: this machine only; port 0 picks one)",
    )
    parser.add_argument(
        "--sample-interval-ms",
        type=positive_int,
        default=DEFAULT_SAMPLE_MS,
        metavar="MS",
        help=f"how often consumer-group lag is sampled for the charts (default {DEFAULT_SAMPLE_MS})",
    )
    add_client_arguments(parser, json_output=False)


async def start_console(
    bootstrap: str,
    listen: tuple[str, int],
    *,
    timeout_ms: int = 10_000,
    sample_interval_ms: int = DEFAULT_SAMPLE_MS,
    client_properties: dict[str, str] | None = None,
) -> web.AppRunner:
    """Serve the console for ``bootstrap`` on ``listen``; the caller cleans the returned runner up.

    Prints the ready line with the address actually bound."""
    view = ClusterView(bootstrap, timeout_ms, client_properties or {})
    app = create_app(view, LagHistory(), sample_interval_ms / 1000, SystemClock())
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, listen[0], listen[1])
    await site.start()
    host, port = runner.addresses[0][:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"odradek console on http://{shown}:{port}", flush=True)
    return runner


async def _serve(args: argparse.Namespace, listen: tuple[str, int]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    runner = await start_console(
        args.bootstrap_server,
        listen,
        timeout_ms=args.timeout_ms,
        sample_interval_ms=args.sample_interval_ms,
        client_properties=parse_key_values(args.command_property, "--command-property"),
    )
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def _console(args: argparse.Namespace) -> int:
    listen = parse_listen(args.listen)
    try:
        asyncio.run(_serve(args, listen))
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise CommandError(f"cannot listen on {args.listen}: {reason}") from None
    return 0
