"""What one running release says about itself: its ApiVersions answers and its own API names.

ApiVersions is asked twice on one raw connection to the client listener: v0 (the form every
client may send first) and the newest version both the release and odradek's codec know, which
from v3 on also carries the supported features and the finalized features with their epoch. The
two answers must list the same API ranges; a difference is reported, never averaged away.

A KRaft node finalizes its features (``metadata.version`` at least) once it has replayed its
metadata log, which can be a moment after it first answers clients: the probe asks again until
the finalized features appear or ``FEATURES_TIMEOUT_S`` passes.

API names come from the release itself (``ApiNames.java`` prints ``ApiKeys`` from the release's
kafka-clients jar), so renamed APIs carry the name that release used.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from odradek.wire.api import ApiKey
from odradek.wire.messages.api_versions import ApiVersionsRequest
from tests.integration.rawclient import RawConnection

FEATURES_TIMEOUT_S = 60.0
NAMES_TIMEOUT_S = 120.0
CLIENT_SOFTWARE = ("odradek-emulation-capture", "1")
_API_NAMES = Path(__file__).resolve().parent / "ApiNames.java"


class ProbeError(RuntimeError):
    """The release answered in a way the capture cannot record faithfully."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What a release advertised on its client listener."""

    api_versions_version: int
    apis: dict[int, tuple[int, int]]
    supported_features: dict[str, tuple[int, int]]
    finalized_features_epoch: int
    finalized_features: dict[str, tuple[int, int]]


def api_names(libs: Path) -> dict[int, str]:
    """Api key -> name as the release's own ``ApiKeys`` enum spells it."""
    result = subprocess.run(
        ["java", "-cp", f"{libs}/*", str(_API_NAMES)],
        capture_output=True, text=True, timeout=NAMES_TIMEOUT_S, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        raise ProbeError(f"ApiNames.java failed: {result.stderr.strip()[-500:]}")
    names: dict[int, str] = {}
    for line in result.stdout.splitlines():
        key, name = line.split("\t")
        names[int(key)] = name
    return names


def _codec_newest() -> int:
    """The newest ApiVersions version odradek's codec can write."""
    high = ApiVersionsRequest.valid.high
    if high is None:
        raise ProbeError("odradek's ApiVersions schema has no highest version")
    return high


def _ranges(answer: Any) -> dict[int, tuple[int, int]]:
    if answer.error_code != 0:
        raise ProbeError(f"ApiVersions answered error code {answer.error_code}")
    return {entry.api_key: (entry.min_version, entry.max_version) for entry in answer.api_keys}


def _request(conn: RawConnection, version: int) -> Any:
    fields: dict[str, Any] = {}
    if version >= 3:
        fields = {"client_software_name": CLIENT_SOFTWARE[0], "client_software_version": CLIENT_SOFTWARE[1]}
    return conn.request(ApiKey.API_VERSIONS, version, ApiVersionsRequest.struct.cls(**fields))


def api_versions(bootstrap: str, wait_for_finalized: bool) -> Answer:
    """Ask ``bootstrap`` for its ApiVersions (see the module docstring for the two versions asked)."""
    conn = RawConnection(bootstrap, timeout=30.0)
    try:
        apis = _ranges(_request(conn, 0))
        newest = min(apis[ApiKey.API_VERSIONS][1], _codec_newest())
        deadline = time.monotonic() + FEATURES_TIMEOUT_S
        while True:
            answer = _request(conn, newest)
            finalized = {f.name: (f.min_version_level, f.max_version_level) for f in answer.finalized_features or []}
            if finalized or not wait_for_finalized or newest < 3:
                break
            if time.monotonic() > deadline:
                raise ProbeError(f"no finalized features after {FEATURES_TIMEOUT_S:.0f}s")
            time.sleep(0.5)
    finally:
        conn.close()
    if _ranges(answer) != apis:
        raise ProbeError(f"ApiVersions v0 and v{newest} list different ranges: {apis} / {_ranges(answer)}")
    supported = {f.name: (f.min_version, f.max_version) for f in answer.supported_features or []}
    epoch = answer.finalized_features_epoch if newest >= 3 else -1
    return Answer(newest, apis, supported, epoch, finalized)
