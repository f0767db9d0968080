"""Apache Kafka's command-line tools as subprocesses, and a raw-socket ApiVersions probe.

The tools' class path (kafka-tools and its runtime dependencies, Kafka Connect's worker excluded) is
resolved from Maven Central with ``mvn`` through tools/pom.xml into
``$ODRADEK_CACHE/kafka-tools-<version>/libs``; a ``.complete`` marker makes an interrupted download
count as absent. Every tool runs with a hard timeout and its output captured.
"""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from harness.kafka import cache_root

POM = Path(__file__).resolve().parent / "pom.xml"
RESOLVE_TIMEOUT_S = 900.0
JVM_OPTIONS = ("-Xmx512m", "-XX:+UseSerialGC", "-Djava.awt.headless=true")

#: Class names in kafka-tools 4.x (DumpLogSegments moved from kafka.tools to org.apache.kafka.tools).
TOPIC_COMMAND = "org.apache.kafka.tools.TopicCommand"
CONSOLE_PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
CLIENT_COMPATIBILITY_TEST = "org.apache.kafka.tools.ClientCompatibilityTest"
DUMP_LOG_SEGMENTS = "org.apache.kafka.tools.DumpLogSegments"
LEADER_ELECTION = "org.apache.kafka.tools.LeaderElectionCommand"
REASSIGN_PARTITIONS = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
LOG_DIRS = "org.apache.kafka.tools.LogDirsCommand"
METADATA_QUORUM = "org.apache.kafka.tools.MetadataQuorumCommand"
CONFIG_COMMAND = "org.apache.kafka.tools.ConfigCommand"

_LOG4J2 = """\
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
"""


class ToolsResolveError(RuntimeError):
    """mvn could not resolve kafka-tools."""


def libs(version: str) -> Path:
    """The directory of the tools' jars for ``version``, downloading them on first use."""
    root = cache_root() / f"kafka-tools-{version}"
    target = root / "libs"
    if (root / ".complete").exists():
        return target
    if shutil.which("mvn") is None:
        raise ToolsResolveError("mvn is not installed (needed to fetch kafka-tools from Maven Central)")
    staging = root / "libs.partial"
    shutil.rmtree(staging, ignore_errors=True)
    argv = [
        "mvn", "-q", "-B", "-f", str(POM), f"-Dkafka.version={version}", "dependency:copy-dependencies",
        "-DincludeScope=runtime", f"-DoutputDirectory={staging}",
    ]  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False)
    if result.returncode != 0 or not (staging / f"kafka-tools-{version}.jar").exists():
        shutil.rmtree(staging, ignore_errors=True)
        raise ToolsResolveError(f"mvn could not resolve kafka-tools {version}: {result.stdout[-800:]}")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    (root / ".complete").write_text(version + "\n")
    return target


@dataclass(frozen=True, slots=True)
class ToolRun:
    argv: list[str]
    returncode: int | None  # None: killed after the timeout
    stdout: str
    stderr: str
    seconds: float


class Tools:
    """Runs Kafka tools of one version with a quiet log4j2 configuration."""

    def __init__(self, version: str, workdir: Path) -> None:
        self.version = version
        self.libs = libs(version)
        self.log4j = workdir / "tools-log4j2.properties"
        self.log4j.write_text(_LOG4J2)

    def run(self, main_class: str, args: list[str], *, stdin: str = "", timeout_s: float = 120.0) -> ToolRun:
        argv = [
            "java", *JVM_OPTIONS, f"-Dlog4j2.configurationFile={self.log4j}", "-cp", f"{self.libs}/*",
            main_class, *args,
        ]  # fmt: skip
        started = time.monotonic()
        try:
            result = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
            err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
            return ToolRun(argv, None, out, err + f"\n<killed after {timeout_s:.0f}s>", time.monotonic() - started)
        return ToolRun(argv, result.returncode, result.stdout, result.stderr, time.monotonic() - started)


# ApiVersions v0 over a raw socket, independent of any client library and of odradek's codec.
# request  = int32 size, int16 api_key (18), int16 api_version (0), int32 correlation_id,
#            int16 client_id length, client_id bytes                       (header v1, empty body)
# response = int32 size, int32 correlation_id, int16 error_code,
#            int32 count, count x (int16 api_key, int16 min_version, int16 max_version)
_REQUEST_HEAD = struct.Struct(">ihhih")
_RESPONSE_HEAD = struct.Struct(">ihi")
_API_RANGE = struct.Struct(">hhh")
_CLIENT_ID = b"odradek-compat"
_CORRELATION_ID = 7


def api_versions(host: str, port: int, timeout_s: float = 10.0) -> dict[int, tuple[int, int]]:
    """The broker's ApiVersions v0 answer: api key -> (min, max). Raises on an error code."""
    body_size = _REQUEST_HEAD.size - 4 + len(_CLIENT_ID)
    request = _REQUEST_HEAD.pack(body_size, 18, 0, _CORRELATION_ID, len(_CLIENT_ID)) + _CLIENT_ID
    with socket.create_connection((host, port), timeout=timeout_s) as sock:
        sock.sendall(request)
        size = struct.unpack(">i", _read_exactly(sock, 4))[0]
        payload = memoryview(_read_exactly(sock, size))
    correlation, error, count = _RESPONSE_HEAD.unpack_from(payload, 0)
    if correlation != _CORRELATION_ID or error != 0:
        raise RuntimeError(f"ApiVersions answered correlation {correlation}, error {error}")
    ranges: dict[int, tuple[int, int]] = {}
    for i in range(count):
        key, low, high = _API_RANGE.unpack_from(payload, _RESPONSE_HEAD.size + i * _API_RANGE.size)
        ranges[key] = (low, high)
    return ranges


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    buf = bytearray()
    while len(buf) < size:
        chunk = sock.recv(size - len(buf))
        if not chunk:
            raise ConnectionError("broker closed the connection during ApiVersions")
        buf += chunk
    return bytes(buf)
