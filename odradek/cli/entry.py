"""The process entry point of ``odradek`` and ``python -m odradek``.

Start-up allocates almost only objects that live as long as the process (modules, classes, message
schemas, the broker's services): with the interpreter's default threshold the collector would run
about fifty young collections, some of them full ones over the growing heap, and free nothing.  So
the thresholds a running broker keeps are set here, before the first import of the command line
(`odradek.cli.main` freezes what start-up built once the broker is up).
"""

from __future__ import annotations

import gc

__all__ = ["main"]

#: The collector's thresholds for the whole process: the youngest generation every 50,000
#: allocations, not every 700 (a request's objects die young and are freed by reference counting).
THRESHOLDS = (50_000, 10, 10)


def main() -> int:
    gc.set_threshold(*THRESHOLDS)
    from odradek.cli.main import main as run_command

    return run_command()
