"""The ``odradek`` command line against a real broker: ``python -m odradek run`` on a free port.

`cli` runs a command in-process through ``main(argv)`` with real sockets and returns its exit
code, stdout and stderr; ``stdin`` feeds bytes to commands that read it.
"""

from __future__ import annotations

import io
import socket
import sys
import uuid
from collections.abc import Iterator

import pytest

from odradek.cli.main import main
from tests.cli.harness import Cli, Result
from tests.integration.conftest import BrokerProcess


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path_factory.mktemp("cli-broker-data"), ["group.initial.rebalance.delay.ms=0"])
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def topic_name() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    def run(*argv: str, stdin: bytes = b"") -> Result:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def dead_bootstrap() -> str:
    """An address where nothing listens: a port just released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"127.0.0.1:{port}"
