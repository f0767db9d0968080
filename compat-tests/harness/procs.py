"""Child processes that are always stopped: on normal exit, on an exception, on Ctrl-C or SIGTERM.

Invariant: every process started through ``spawn`` is in ``_LIVE`` until ``stop`` has reaped it, and the
atexit/signal hooks stop everything still in ``_LIVE``. Each child runs in its own session (process group)
so stopping it also stops anything it started (a JVM's helpers, a shell wrapper).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any

_LIVE: set[subprocess.Popen[Any]] = set()
_LOCK = threading.Lock()
_HOOKED = False


def spawn(
    argv: Sequence[str],
    *,
    log_path: Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    pipes: bool = False,
) -> subprocess.Popen[Any]:
    """Start ``argv``; output goes to ``log_path`` (or, with ``pipes``, stdin/stdout are pipes and
    stderr goes to ``log_path``)."""
    _install_hooks()
    log: IO[bytes] | int = subprocess.DEVNULL
    if log_path is not None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = log_path.open("ab")
    try:
        proc: subprocess.Popen[Any] = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE if pipes else subprocess.DEVNULL,
            stdout=subprocess.PIPE if pipes else log,
            stderr=log,
            start_new_session=True,
        )
    finally:
        if not isinstance(log, int):
            log.close()
    with _LOCK:
        _LIVE.add(proc)
    return proc


def stop(proc: subprocess.Popen[Any], grace_s: float = 10.0, first: signal.Signals = signal.SIGTERM) -> int | None:
    """Send ``first`` (SIGTERM) to the child's process group, SIGKILL after ``grace_s``; returns the exit code.

    ``first=SIGKILL`` kills the whole group at once (a crash: no shutdown hooks, no goodbye to peers)."""
    try:
        if proc.poll() is None:
            _signal_group(proc, first)
            try:
                proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(grace_s)
    finally:
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with _LOCK:
            _LIVE.discard(proc)
    return proc.returncode


def kill(proc: subprocess.Popen[Any]) -> None:
    """Stop at once (a hung driver gets no grace period)."""
    stop(proc, grace_s=0.01)


def sigkill(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL the child's whole process group and reap it."""
    stop(proc, grace_s=10.0, first=signal.SIGKILL)


def stop_all() -> None:
    """Stop every child still running (used by the exit hooks)."""
    with _LOCK:
        live = list(_LIVE)
    for proc in live:
        stop(proc, grace_s=5.0)


def _signal_group(proc: subprocess.Popen[Any], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    stop_all()
    raise SystemExit(128 + signum)


def _install_hooks() -> None:
    global _HOOKED
    if _HOOKED:
        return
    _HOOKED = True
    atexit.register(stop_all)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_signal)
        signal.signal(signal.SIGTERM, _on_signal)
