"""What CLI tests share besides fixtures: a command's outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    """Exit code, stdout and stderr of one ``odradek`` command."""

    code: int
    out: str
    err: str


Cli = Callable[..., Result]
