"""The client command families of ``odradek`` and how a parsed command line runs one.

Each family module exports ``register(commands)``, which adds its subparser(s) and sets two
defaults on every leaf parser: ``handler`` (a `Handler`) and ``parser`` (the leaf parser itself,
so a `UsageError` prints that command's usage).  `dispatch` turns the outcome into the exit
codes `odradek.cli.common` documents.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from odradek.cli import configs, consume, dumplog, groups, produce, topics
from odradek.cli.common import CommandError, Handler, UsageError

__all__ = ["dispatch", "register_commands"]


def register_commands(commands: argparse._SubParsersAction[Any]) -> None:
    for family in (topics, produce, consume, groups, configs, dumplog):
        family.register(commands)


def dispatch(args: argparse.Namespace) -> int:
    handler: Handler = args.handler
    parser: argparse.ArgumentParser = args.parser
    try:
        return handler(args)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    except CommandError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
