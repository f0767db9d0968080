"""Connection limits side by side: Apache Kafka and odradek, each started with the same limit
settings, the same raw connections opened against both, and what each connection sees compared
(``make compat-limits``; exit 1 when they differ).

A connection is observed by sending an ApiVersions request and watching the socket for a while:
``answered`` (an answer came), ``pending`` (nothing within the wait: a connection the broker holds
unserved), ``closed`` (the broker closed it; a reset counts as closed).  Cases:

- ``max.connections``: over the limit, connections wait unserved (Kafka's acceptor stops
  accepting) and the first waiting one is served when a served one closes;
- ``listener.name.plaintext.max.connections``: the same, for the listener's own limit;
- ``max.connections.per.ip``: over it, a connection is closed at once; the next one from that
  address is served once one of its connections closes;
- ``connections.max.idle.ms``: a connection that sends nothing is closed once idle that long; one
  that keeps asking is not;
- ``soft open-files limit``: the broker started under a soft ``RLIMIT_NOFILE`` of 256 (its hard limit
  unchanged) still serves 400 connections at once: Kafka's JVM lifts the soft limit to the hard one
  at start-up (``-XX:+MaxFDLimit``), and `odradek run` does the same.

The waits are generous (a loaded machine changes when, not whether); writes
``compat-tests/report/limits.{json,md}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

COMPAT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(COMPAT), str(COMPAT.parent)]

from harness.broker import RunningBroker, launchers  # noqa: E402

from odradek.wire.api import RequestHeader, encode_request_header  # noqa: E402
from odradek.wire.codec import encode_into  # noqa: E402
from odradek.wire.messages.api_versions import ApiVersionsRequest  # noqa: E402
from odradek.wire.primitives import Writer  # noqa: E402

REPORT_DIR = COMPAT / "report"
WAIT_S = 3.0
#: Kafka's broker needs a moment after start-up before its connection counts are its clients' only.
SETTLE_S = 2.0


def _hello(correlation_id: int) -> bytes:
    writer = Writer()
    encode_request_header(writer, RequestHeader(18, 3, correlation_id, "limits"), True)
    encode_into(
        ApiVersionsRequest, 3, ApiVersionsRequest(client_software_name="limits", client_software_version="1"), writer
    )
    body = writer.getvalue()
    return len(body).to_bytes(4, "big") + body


class Client:
    """One raw connection; `ask` sends an ApiVersions request, `state` watches for its answer."""

    def __init__(self, bootstrap: str) -> None:
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        self._asked = 0
        self._buffer = b""
        self.closed = False

    def ask(self) -> None:
        self._asked += 1
        try:
            self.sock.sendall(_hello(self._asked))
        except OSError:
            self.closed = True

    def state(self, wait_s: float = WAIT_S) -> str:
        """``answered`` once every request sent is answered, ``pending`` if not within ``wait_s``,
        ``closed`` once the broker closed the connection."""
        deadline = time.monotonic() + wait_s
        while not self.closed:
            if self._answers() >= self._asked:
                return "answered"
            left = deadline - time.monotonic()
            if left <= 0:
                return "pending"
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                return "pending"
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
            self._buffer += chunk
        return "closed"

    def open_or_closed(self, wait_s: float) -> str:
        """``closed`` if the broker closed the connection (within ``wait_s``), else ``open``."""
        self.sock.settimeout(wait_s)
        try:
            chunk = self.sock.recv(65536)
        except TimeoutError:
            return "open"
        except OSError:
            chunk = b""
        self._buffer += chunk
        return "open" if chunk else "closed"

    def _answers(self) -> int:
        count, pos = 0, 0
        while len(self._buffer) - pos >= 4:
            size = int.from_bytes(self._buffer[pos : pos + 4], "big")
            if len(self._buffer) - pos - 4 < size:
                break
            pos += 4 + size
            count += 1
        return count

    def close(self) -> None:
        self.sock.close()


def _over_a_limit(bootstrap: str, count: int) -> list[str]:
    """``count`` connections one after the other, then the first one closes, then one more."""
    clients = [Client(bootstrap) for _ in range(count)]
    seen: list[str] = []
    try:
        for index, client in enumerate(clients):
            client.ask()
            seen.append(f"connection {index}: {client.state()}")
        clients[0].close()
        time.sleep(1.0)  # a broker notices a close when it next polls that socket
        seen.append("connection 0 closed by the client")
        for index, client in enumerate(clients[1:], 1):
            seen.append(f"connection {index} then: {client.state()}")
        again = Client(bootstrap)
        clients.append(again)
        again.ask()
        seen.append(f"a new connection: {again.state()}")
    finally:
        for client in clients:
            client.close()
    return seen


def _idle(bootstrap: str) -> list[str]:
    """One connection silent after its first answer, one asking every half second, for 6 s
    (the limit is 2 s)."""
    silent, busy = Client(bootstrap), Client(bootstrap)
    try:
        silent.ask()
        busy.ask()
        seen = [f"silent: {silent.state()}", f"busy: {busy.state()}"]
        for _ in range(12):
            time.sleep(0.5)
            busy.ask()
        seen.append(f"busy after 6 s: {busy.state()}")
        seen.append(f"silent after 6 s: {silent.open_or_closed(0.5)}")
        seen.append(f"busy after 6 s, still: {busy.open_or_closed(0.5)}")
        return seen
    finally:
        silent.close()
        busy.close()


def _many_at_once(bootstrap: str, count: int) -> list[str]:
    """``count`` connections held open together, each asking once: how many saw each outcome
    (``not accepted``: the connection itself timed out)."""
    clients: list[Client] = []
    states: list[str] = []
    try:
        for _ in range(count):
            try:
                clients.append(Client(bootstrap))
            except OSError:
                states.append("not accepted")
                continue
            clients[-1].ask()
        states += [client.state() for client in clients]
    finally:
        for client in clients:
            client.close()
    return [f"{count} connections at once: {state} {states.count(state)}" for state in sorted(set(states))]


@contextlib.contextmanager
def _soft_open_files(limit: int | None) -> Iterator[None]:
    """This process's soft open-files limit at ``limit`` while the broker starts (the broker inherits
    it), then back, so the clients' own sockets do not count against it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if limit is not None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


#: The soft open-files limit a case's broker starts under (its clients are counted above it).
SOFT_OPEN_FILES = {"soft open-files limit": 256}

CASES: dict[str, tuple[dict[str, str], Callable[[str], list[str]]]] = {
    "max.connections": ({"max.connections": "3"}, lambda b: _over_a_limit(b, 5)),
    "listener max.connections": ({"listener.name.plaintext.max.connections": "2"}, lambda b: _over_a_limit(b, 4)),
    "max.connections.per.ip": ({"max.connections.per.ip": "2"}, lambda b: _over_a_limit(b, 4)),
    "connections.max.idle.ms": ({"connections.max.idle.ms": "2000"}, _idle),
    "soft open-files limit": ({}, lambda b: _many_at_once(b, 400)),
}


def observe(broker_name: str, case: str, workdir: Path) -> list[str]:
    settings, scenario = CASES[case]
    launch = launchers()[broker_name]
    log_path = workdir / f"{broker_name}-{case.replace(' ', '-')}.log"
    broker: RunningBroker
    with contextlib.ExitStack() as stack:
        with _soft_open_files(SOFT_OPEN_FILES.get(case)):
            broker = stack.enter_context(launch(workdir, log_path, settings=settings))  # type: ignore[call-arg]
        time.sleep(SETTLE_S)
        return scenario(broker.bootstrap)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    args = parser.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    runs: dict[str, dict[str, list[str]]] = {}
    with tempfile.TemporaryDirectory(prefix="limits-") as tmp:
        for case in cases:
            runs[case] = {name: observe(name, case, Path(tmp)) for name in ("kafka", "odradek")}
    lines = ["# Connection limits: odradek against kafka", ""]
    differing = 0
    for case in cases:
        kafka, odradek = runs[case]["kafka"], runs[case]["odradek"]
        same = kafka == odradek
        differing += not same
        lines.append(f"## {case}: {'same' if same else 'DIFFERENT'} ({json.dumps(CASES[case][0])})")
        for index in range(max(len(kafka), len(odradek))):
            left = kafka[index] if index < len(kafka) else "<none>"
            right = odradek[index] if index < len(odradek) else "<none>"
            lines.append(f"- {'ok' if left == right else 'DIFF'} kafka: {left} | odradek: {right}")
        lines.append("")
    lines.insert(1, f"{differing} of {len(cases)} case(s) differ.")
    REPORT_DIR.mkdir(exist_ok=True)
    (REPORT_DIR / "limits.json").write_text(json.dumps(runs, indent=1) + "\n")
    (REPORT_DIR / "limits.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
