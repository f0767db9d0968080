"""Load the captured ApiVersions answers of Apache Kafka releases (package data ``releases/*.json``).

A capture name is a release line (``"3.6"``) in the mode that line ran in production (KRaft from
3.3, ZooKeeper before), or the line with ``-zk`` for its ZooKeeper-mode capture (``"3.6-zk"``).

Invariants of a loaded ``ReleaseApis`` (checked on load; a file that breaks one is refused with
``ValueError`` naming the file):
- every API range has ``0 <= min <= max``, and ApiVersions (key 18) is among the APIs;
- every feature range has ``min <= max``;
- the mappings are read-only, so one loaded release can be shared by every connection.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from types import MappingProxyType
from typing import Any

__all__ = ["Mode", "Outcome", "Refusals", "ReleaseApis", "available_releases", "load_release", "parse_release"]

_PACKAGE = "odradek.emulation"
_DIRECTORY = "releases"
_NAME = re.compile(r"^(\d+)\.(\d+)(-zk)?$")
_API_VERSIONS_KEY = 18


class Mode(StrEnum):
    """Where the captured release kept its cluster metadata."""

    KRAFT = "kraft"
    ZOOKEEPER = "zookeeper"


class Outcome(StrEnum):
    """What a client saw after sending one request."""

    #: A response frame carrying the request's correlation id.
    ANSWERED = "answered"
    #: The release closed the connection without answering.
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Refusals:
    """How the release treated requests outside its advertised ranges, one connection per case."""

    #: A header for the api key one above the highest advertised, no body.
    unknown_api_key: Outcome
    #: A Metadata header at one above its advertised max, no body.
    version_above_max: Outcome
    #: The error code of the (v0-form) answer to ApiVersions at one above its advertised max.
    api_versions_above_max_error: int
    #: The API ranges listed in that answer.
    api_versions_above_max_apis: Mapping[int, tuple[int, int]]
    #: A well-formed Produce v0 with no topics: from 4.0 Kafka advertises v0 but refuses it.
    produce_v0: Outcome
    #: A well-formed ListOffsets v0 with no topics.
    list_offsets_v0: Outcome


@dataclass(frozen=True, slots=True)
class ReleaseApis:
    """What one release advertised in ApiVersions on its client listener, and how it refused the rest."""

    #: Capture name, e.g. ``"3.6"`` or ``"3.6-zk"``.
    name: str
    #: The exact release that answered, e.g. ``"3.6.2"``.
    release: str
    mode: Mode
    #: ISO date of the capture.
    captured: str
    #: Api key -> (lowest, highest) version advertised.
    apis: Mapping[int, tuple[int, int]]
    #: Api key -> the name the release gave it.
    api_names: Mapping[int, str]
    #: Feature name -> (lowest, highest) level the node supports (ApiVersions v3+).
    supported_features: Mapping[str, tuple[int, int]]
    #: Epoch of the finalized features; -1 when the release finalized none.
    finalized_features_epoch: int
    #: Feature name -> (lowest, highest) finalized level.
    finalized_features: Mapping[str, tuple[int, int]]
    refusals: Refusals

    def supports(self, api_key: int, version: int) -> bool:
        """Whether the release advertised ``version`` of ``api_key``."""
        bounds = self.apis.get(api_key)
        return bounds is not None and bounds[0] <= version <= bounds[1]


def _sort_key(name: str) -> tuple[int, int, bool]:
    match = _NAME.match(name)
    assert match is not None
    return int(match[1]), int(match[2]), match[3] is not None


def available_releases() -> list[str]:
    """Every capture name shipped with the package, oldest release first, a line's ``-zk`` last."""
    directory = resources.files(_PACKAGE) / _DIRECTORY
    names = [entry.name.removesuffix(".json") for entry in directory.iterdir() if entry.name.endswith(".json")]
    return sorted((name for name in names if _NAME.match(name)), key=_sort_key)


def load_release(name: str) -> ReleaseApis:
    """The captured answer of release ``name``; ``ValueError`` names the allowed ones if unknown."""
    allowed = available_releases()
    if name not in allowed:
        raise ValueError(f"unknown Kafka release {name!r} to emulate; captured releases: {', '.join(allowed)}")
    return parse_release(name, (resources.files(_PACKAGE) / _DIRECTORY / f"{name}.json").read_text(encoding="utf-8"))


def parse_release(name: str, text: str) -> ReleaseApis:
    """The release ``name`` from the text of its data file; ``ValueError`` naming the file if it is malformed."""
    try:
        return _parse(name, json.loads(text))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"release data {_DIRECTORY}/{name}.json is malformed: {exc}") from exc


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _range(entry: Mapping[str, Any], what: str) -> tuple[int, int]:
    low, high = _int(entry["min"]), _int(entry["max"])
    if low > high:
        raise ValueError(f"{what} has min {low} > max {high}")
    return low, high


def _features(entries: list[Any]) -> Mapping[str, tuple[int, int]]:
    features = {}
    for entry in entries:
        feature = _str(entry["name"])
        features[feature] = _range(entry, f"feature {feature}")
    return MappingProxyType(features)


def _api_ranges(entries: list[Any]) -> dict[int, tuple[int, int]]:
    apis: dict[int, tuple[int, int]] = {}
    for entry in entries:
        key = _int(entry["key"])
        low, high = _range(entry, f"api key {key}")
        if low < 0:
            raise ValueError(f"api key {key} has a negative min version {low}")
        apis[key] = (low, high)
    return apis


def _refusals(data: Any) -> Refusals:
    api_versions = data["api_versions_above_max"]
    return Refusals(
        unknown_api_key=Outcome(_str(data["unknown_api_key"])),
        version_above_max=Outcome(_str(data["version_above_max"])),
        api_versions_above_max_error=_int(api_versions["error_code"]),
        api_versions_above_max_apis=MappingProxyType(_api_ranges(api_versions["apis"])),
        produce_v0=Outcome(_str(data["produce_v0"])),
        list_offsets_v0=Outcome(_str(data["list_offsets_v0"])),
    )


def _parse(name: str, data: Any) -> ReleaseApis:
    if _str(data["name"]) != name:
        raise ValueError(f"file says it is {data['name']!r}")
    apis = _api_ranges(data["apis"])
    api_names = {_int(entry["key"]): _str(entry["name"]) for entry in data["apis"]}
    if _API_VERSIONS_KEY not in apis:
        raise ValueError("ApiVersions (key 18) is not advertised")
    return ReleaseApis(
        name=name,
        release=_str(data["release"]),
        mode=Mode(_str(data["mode"])),
        captured=_str(data["captured"]),
        apis=MappingProxyType(apis),
        api_names=MappingProxyType(api_names),
        supported_features=_features(data["supported_features"]),
        finalized_features_epoch=_int(data["finalized_features_epoch"]),
        finalized_features=_features(data["finalized_features"]),
        refusals=_refusals(data["refusals"]),
    )
