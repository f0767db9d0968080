"""The captured release tables: every shipped file loads, the newest capture of the release the
compat report was taken from agrees with it, and an unknown release is refused by name."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from odradek.emulation import Mode, Outcome, ReleaseApis, available_releases, load_release, parse_release
from odradek.emulation import releases as releases_module

ROOT = Path(__file__).resolve().parents[3]
REPORT = ROOT / "compat-tests" / "report" / "kafka-api-versions.json"
REQUIRED_LINES = ("2.8", "3.0", "3.6", "3.9", "4.0")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_the_required_release_lines_and_a_4x_line_are_shipped() -> None:
    names = available_releases()
    for line in REQUIRED_LINES:
        assert line in names
    assert any(name.startswith("4.") and name != "4.0" for name in names)


def test_releases_are_listed_oldest_first_with_zookeeper_variants_after_their_line() -> None:
    names = available_releases()
    keys = [(_version(n.removesuffix("-zk")), n.endswith("-zk")) for n in names]
    assert keys == sorted(keys)


@pytest.mark.parametrize("name", available_releases())
def test_every_shipped_release_loads_and_is_consistent(name: str) -> None:
    release = load_release(name)
    assert release.name == name
    assert release.release.startswith(name.removesuffix("-zk") + ".")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", release.captured)
    expected_mode = Mode.ZOOKEEPER if name.endswith("-zk") or _version(name) < (3, 3) else Mode.KRAFT
    assert release.mode is expected_mode
    assert release.apis.keys() == release.api_names.keys()
    assert release.api_names[18] == "ApiVersions"
    for low, high in release.apis.values():
        assert 0 <= low <= high
    if release.mode is Mode.KRAFT:
        assert "metadata.version" in release.finalized_features
        assert release.finalized_features_epoch >= 0


@pytest.mark.parametrize("name", available_releases())
def test_refusals_are_consistent_with_the_advertised_ranges(name: str) -> None:
    release = load_release(name)
    refusals = release.refusals
    assert refusals.unknown_api_key is Outcome.CLOSED
    assert refusals.version_above_max is Outcome.CLOSED
    assert refusals.api_versions_above_max_error == 35  # UNSUPPORTED_VERSION
    assert dict(refusals.api_versions_above_max_apis) == {18: release.apis[18]}
    list_offsets_v0 = Outcome.ANSWERED if release.supports(2, 0) else Outcome.CLOSED
    assert refusals.list_offsets_v0 is list_offsets_v0
    # KAFKA-18659: from 4.0 Produce v0-v2 stay advertised for old librdkafka but are refused.
    assert release.supports(0, 0)
    produce_v0 = Outcome.CLOSED if _version(release.release) >= (4, 0) else Outcome.ANSWERED
    assert refusals.produce_v0 is produce_v0


def test_the_capture_of_the_reported_release_agrees_with_the_compat_report() -> None:
    report = json.loads(REPORT.read_text())
    reported = report["version"]
    line = ".".join(reported.split(".")[:2])
    release = load_release(line)
    assert release.release == reported
    assert release.mode is Mode.KRAFT
    assert {str(key): list(bounds) for key, bounds in release.apis.items()} == report["apis"]


def test_a_newer_4x_line_differs_from_an_older_one_only_where_kafka_moved() -> None:
    """A guard against capturing the same jars twice under two names."""
    lines = [n for n in available_releases() if n.startswith("4.")]
    newest, oldest = load_release(lines[-1]), load_release(lines[0])
    assert _version(newest.release) > _version(oldest.release)
    assert newest.apis != oldest.apis


def test_an_unknown_release_is_refused_with_the_allowed_list() -> None:
    with pytest.raises(ValueError) as refused:
        load_release("2.7")
    message = str(refused.value)
    assert "'2.7'" in message
    for name in available_releases():
        assert name in message


def test_supports_follows_the_advertised_ranges() -> None:
    release = load_release("2.8")
    low, high = release.apis[18]
    assert release.supports(18, low)
    assert release.supports(18, high)
    assert not release.supports(18, high + 1)
    assert not release.supports(max(release.apis) + 1, 0)


def test_loaded_tables_are_read_only() -> None:
    release = load_release("3.6")
    with pytest.raises(TypeError):
        release.apis[0] = (0, 0)  # type: ignore[index]


def _shipped(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((Path(releases_module.__file__).parent / "releases" / f"{name}.json").read_text())
    return data


def test_a_shipped_file_parses_to_what_load_release_returns() -> None:
    text = json.dumps(_shipped("3.6"))
    assert parse_release("3.6", text) == load_release("3.6")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"apis": [{"key": 18, "name": "ApiVersions", "min": 3, "max": 1}]}, "api key 18 has min 3 > max 1"),
        ({"apis": [{"key": 18, "name": "ApiVersions", "min": -1, "max": 1}]}, "negative min version -1"),
        ({"apis": [{"key": 0, "name": "Produce", "min": 0, "max": 9}]}, r"ApiVersions \(key 18\) is not advertised"),
        ({"apis": [{"key": "18", "name": "ApiVersions", "min": 0, "max": 3}]}, "expected an integer"),
        ({"mode": "raft"}, "'raft' is not a valid Mode"),
        ({"name": "3.7"}, "file says it is '3.7'"),
        ({"refusals": {}}, "'api_versions_above_max'"),
        ({"finalized_features": [{"name": "metadata.version", "min": 2, "max": 1}]}, "feature metadata.version"),
    ],
)
def test_a_malformed_file_is_refused_naming_it(change: dict[str, Any], reason: str) -> None:
    text = json.dumps(_shipped("3.6") | change)
    with pytest.raises(ValueError, match=r"releases/3\.6\.json is malformed: .*" + reason):
        parse_release("3.6", text)


def test_a_file_missing_a_field_is_refused_naming_it() -> None:
    data = _shipped("3.6")
    del data["supported_features"]
    with pytest.raises(ValueError, match=r"releases/3\.6\.json is malformed: 'supported_features'"):
        parse_release("3.6", json.dumps(data))


def test_every_shipped_file_is_declared_package_data() -> None:
    """The wheel carries exactly what pyproject.toml's package-data globs match."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["odradek.emulation"]
    package_dir = Path(releases_module.__file__).parent
    for name in available_releases():
        relative = (package_dir / "releases" / f"{name}.json").relative_to(package_dir)
        assert any(relative.match(pattern) for pattern in patterns), relative


def test_release_apis_is_frozen() -> None:
    release: ReleaseApis = load_release("2.8")
    with pytest.raises(AttributeError):
        release.name = "9.9"  # type: ignore[misc]
