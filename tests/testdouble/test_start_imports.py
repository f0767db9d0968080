"""What starting a broker imports, in a fresh interpreter: never a Kafka client or a UI library, and
none of the parts built on first use (the group and transaction coordinators, the log cleaner, the SASL and TLS
libraries) until a request needs them.  Both the embedded broker and ``odradek run`` are checked,
each up to its first ApiVersions answer; a group request then shows the coordinator arriving."""

from __future__ import annotations

import json
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

CLIENT_LIBRARIES = ("confluent_kafka", "kafka", "aiokafka", "rich", "aiohttp", "jinja2", "pyspark", "pyarrow")
BUILT_ON_FIRST_USE = (
    "odradek.coordinator.coordinator",
    "odradek.coordinator.messages",
    "odradek.transactions.runtime",
    "odradek.txn.coordinator",
    "odradek.storage.cleaner",
    "scramp",
    "jwt",
    "cryptography",
)
#: What an idle ``odradek run`` has no use for (idle memory, W7): `shutil`, which loads the bz2 and
#: lzma codecs, only because argparse asks it the terminal's width (0.4 MiB); `random`, for fetch
#: session ids, before the first session (0.3 MiB); `pathlib`, which brings `urllib.parse` and
#: `ipaddress` (0.5 MiB): the broker's paths are strings.
NOT_WHILE_IDLE = ("shutil", "bz2", "lzma", "random", "pathlib", "urllib", "ipaddress")

_REQUESTS = textwrap.dedent(
    """
    import socket, struct

    def request(port, api_key, version, body=b""):
        header = struct.pack(">hhih", api_key, version, 1, 4) + b"test"
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
            size = struct.unpack(">i", s.recv(4))[0]
            data = b""
            while len(data) < size:
                data += s.recv(size - len(data))
        return data

    def find_group_coordinator(port):
        return request(port, 10, 0, struct.pack(">h", 5) + b"group")
    """
)

_EMBEDDED = _REQUESTS + textwrap.dedent(
    """
    import json, sys
    from odradek import Broker

    with Broker(storage="memory") as broker:
        request(broker.port, 18, 0)
        at_start = sorted(sys.modules)
        find_group_coordinator(broker.port)
        after_group = sorted(sys.modules)
    print(json.dumps([at_start, after_group]))
    """
)


def _top_level(modules: list[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def _loaded(modules: list[str], wanted: tuple[str, ...]) -> list[str]:
    return [name for name in wanted if name in modules or name in _top_level(modules)]


def test_an_embedded_broker_imports_no_client_library_and_builds_groups_on_first_use() -> None:
    result = subprocess.run([sys.executable, "-c", _EMBEDDED], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    at_start, after_group = json.loads(result.stdout.splitlines()[-1])
    assert _loaded(at_start, CLIENT_LIBRARIES) == []
    assert _loaded(at_start, BUILT_ON_FIRST_USE) == []
    coordinator = ["odradek.coordinator.coordinator", "odradek.coordinator.messages"]
    assert _loaded(after_group, BUILT_ON_FIRST_USE) == coordinator, "a group request builds the coordinator"
    assert _loaded(after_group, CLIENT_LIBRARIES) == []


def _answers_api_versions(port: int) -> bool:
    header = struct.pack(">hhih", 18, 0, 1, 4) + b"test"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(struct.pack(">i", len(header)) + header)
            return len(s.recv(4)) == 4
    except OSError:
        return False


def test_odradek_run_imports_no_client_library(tmp_path: Path) -> None:
    """``odradek run`` up to its first answer; the modules are written when it exits on SIGTERM."""
    modules_file, port_file = tmp_path / "modules.json", tmp_path / "ports"
    program = textwrap.dedent(
        f"""
        import atexit, json, runpy, sys
        atexit.register(lambda: open({str(modules_file)!r}, "w").write(json.dumps(sorted(sys.modules))))
        sys.argv = ["odradek", "run", "--port", "0", "--storage", "memory", "--port-file", {str(port_file)!r}]
        runpy.run_module("odradek", run_name="__main__")
        """
    )
    broker = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert broker.poll() is None, broker.communicate()[1]
            assert time.monotonic() < deadline, "odradek run did not get ready"
            time.sleep(0.02)
        port = int(dict(line.split("=", 1) for line in port_file.read_text().split())["port"])
        assert _answers_api_versions(port)
    finally:
        broker.send_signal(signal.SIGTERM)
        _, stderr = broker.communicate(timeout=60)
    assert broker.returncode == 0, stderr
    modules = json.loads(modules_file.read_text())
    assert "odradek.broker" in modules
    assert _loaded(modules, CLIENT_LIBRARIES) == []
    assert _loaded(modules, BUILT_ON_FIRST_USE) == []
    assert _loaded(modules, NOT_WHILE_IDLE) == []
