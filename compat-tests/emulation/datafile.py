"""The data file one capture writes: ``odradek/emulation/releases/<name>.json``.

Layout (read back by ``odradek.emulation.releases``; one API or feature per line so that a
recapture shows as a readable diff)::

    {
      "name": "3.6",                  capture name: the release line, "-zk" for a second mode
      "release": "3.6.2",             the exact version that answered
      "mode": "kraft",                "kraft" or "zookeeper"
      "captured": "2026-11-25",       date of the capture
      "probe": "...",                 how the answer was obtained
      "api_versions_version": 3,      the ApiVersions version whose answer gave the features
      "apis": [{"key": 0, "name": "Produce", "min": 0, "max": 9}, ...],      ascending keys
      "supported_features": [{"name": "metadata.version", "min": 1, "max": 14}, ...],
      "finalized_features_epoch": 7,  -1 when the release finalized nothing
      "finalized_features": [{"name": "metadata.version", "min": 14, "max": 14}, ...],
      "refusals": {                   requests outside the advertised ranges (refusals.py)
        "unknown_api_key": "closed",  "closed" or "answered", and so on for every case
        "api_versions_above_max": {"error_code": 35, "apis": [{"key": 18, "min": 0, "max": 3}]},
        ...
      }
    }
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from probe import Answer
from refusals import Refusals

from odradek.emulation import parse_release

DATA_DIR = Path(__file__).resolve().parents[2] / "odradek" / "emulation" / "releases"
PROBE = (
    "ApiVersions v0 and the newest version the release accepts, sent over a raw socket to the client "
    "listener of a single-node cluster with the release's default configuration"
)


@dataclass(frozen=True, slots=True)
class Capture:
    name: str
    release: str
    mode: str
    captured: str
    api_names: dict[int, str]
    answer: Answer
    refusals: Refusals


def _line(entry: dict[str, object]) -> str:
    return "    " + json.dumps(entry)


def _array(entries: list[dict[str, object]]) -> str:
    if not entries:
        return "[]"
    return "[\n" + ",\n".join(_line(e) for e in entries) + "\n  ]"


def _refusals(refusals: Refusals) -> str:
    listed = [
        {"key": key, "min": low, "max": high}
        for key, (low, high) in sorted(refusals.api_versions_above_max_apis.items())
    ]
    cases: dict[str, object] = {
        "unknown_api_key": refusals.unknown_api_key,
        "version_above_max": refusals.version_above_max,
        "api_versions_above_max": {"error_code": refusals.api_versions_above_max_error, "apis": listed},
        "produce_v0": refusals.produce_v0,
        "list_offsets_v0": refusals.list_offsets_v0,
    }
    return "{\n" + ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in cases.items()) + "\n  }"


def render(capture: Capture) -> str:
    """The file's text (see the module docstring for the layout)."""
    answer = capture.answer
    apis: list[dict[str, object]] = [
        {"key": key, "name": capture.api_names.get(key, f"ApiKey{key}"), "min": low, "max": high}
        for key, (low, high) in sorted(answer.apis.items())
    ]
    supported: list[dict[str, object]] = [
        {"name": name, "min": low, "max": high} for name, (low, high) in sorted(answer.supported_features.items())
    ]
    finalized: list[dict[str, object]] = [
        {"name": name, "min": low, "max": high} for name, (low, high) in sorted(answer.finalized_features.items())
    ]
    scalars = {
        "name": capture.name,
        "release": capture.release,
        "mode": capture.mode,
        "captured": capture.captured,
        "probe": PROBE,
        "api_versions_version": answer.api_versions_version,
    }
    parts = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in scalars.items()]
    parts.append(f'  "apis": {_array(apis)}')
    parts.append(f'  "supported_features": {_array(supported)}')
    parts.append(f'  "finalized_features_epoch": {answer.finalized_features_epoch}')
    parts.append(f'  "finalized_features": {_array(finalized)}')
    parts.append(f'  "refusals": {_refusals(capture.refusals)}')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_capture(capture: Capture) -> Path:
    """Write (or overwrite) the capture's data file; returns its path."""
    path = DATA_DIR / f"{capture.name}.json"
    text = render(capture)
    parse_release(capture.name, text)
    path.write_text(text)
    return path
