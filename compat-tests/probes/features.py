"""Probe sequence for UpdateFeatures on a single combined node: upgrades, safe and unsafe
downgrades, validate-only, unknown features, levels out of range, each version's answer shape,
and the finalized levels ApiVersions reports afterwards (own broker: the levels it changes would
change what every later sequence sees)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import until
from probes.session import Session, own_broker

__all__ = ["SEQUENCES"]

UPGRADE, SAFE, UNSAFE = 1, 2, 3


def _update(
    s: Session, label: str, updates: list[tuple[str, int, int]], version: int = 1, validate_only: bool = False
) -> Any:
    keys = []
    for feature, level, kind in updates:
        key: dict[str, Any] = {"feature": feature, "max_version_level": level}
        if version == 0:
            key["allow_downgrade"] = kind != UPGRADE
        else:
            key["upgrade_type"] = kind
        keys.append(key)
    fields: dict[str, Any] = {"timeout_ms": 10_000, "feature_updates": keys}
    if version >= 1:
        fields["validate_only"] = validate_only
    return s.call(label, ApiKey.UPDATE_FEATURES, version, **fields)


def _api_versions(s: Session, label: str) -> Any:
    return s.call(label, ApiKey.API_VERSIONS, 3, client_software_name="probe", client_software_version="1")


def _levels(s: Session, label: str) -> None:
    answer = _api_versions(s, label)
    s.observations[-1].response = {
        "finalized": sorted((f["name"], f["max_version_level"]) for f in answer["finalized_features"]),
        "epoch_set": answer["finalized_features_epoch"] >= 0,
    }


def _applied(s: Session, levels: dict[str, int]) -> None:
    """Wait until ApiVersions reports each feature at its level (0: not finalized).  Kafka answers
    UpdateFeatures once the controller has committed the change, and its broker's image may publish
    it a moment later: an ApiVersions sent at once has read the level before (seen in a full
    `make probes`); when the new level shows is timing, what it is, is behaviour."""

    def reported() -> bool:
        answer = _api_versions(s, "finalized levels")
        finalized = {f["name"]: f["max_version_level"] for f in answer["finalized_features"]}
        return all(finalized.get(name, 0) == level for name, level in levels.items())

    until(s, reported, f"the levels {levels}")


@own_broker
def update_features(s: Session, names: dict[str, str]) -> None:
    _levels(s, "levels at the start")
    for version in (0, 1, 2):
        _update(s, f"v{version}: metadata.version to its level", [("metadata.version", 33, UPGRADE)], version=version)
        _update(s, f"v{version}: an unknown feature", [("no.such.version", 1, UPGRADE)], version=version)
        _update(
            s, f"v{version}: metadata.version above its range", [("metadata.version", 40, UPGRADE)], version=version
        )
    _update(s, "v0: a downgrade without allow_downgrade", [("transaction.version", 1, UPGRADE)], version=0)
    _update(
        s, "transaction.version safe downgrade, validate only", [("transaction.version", 1, SAFE)], validate_only=True
    )
    _update(s, "transaction.version 'upgrade' to a lower level", [("transaction.version", 1, UPGRADE)])
    _update(s, "metadata.version safe downgrade", [("metadata.version", 32, SAFE)], validate_only=True)
    _update(s, "metadata.version unsafe downgrade", [("metadata.version", 32, UNSAFE)], validate_only=True)
    _update(s, "metadata.version below its range", [("metadata.version", 6, UNSAFE)], validate_only=True)
    _update(s, "an upgrade type of 0", [("group.version", 1, 0)])
    _update(s, "an upgrade type of 4", [("group.version", 1, 4)])
    _update(s, "kraft.version to 1", [("kraft.version", 1, UPGRADE)], validate_only=True)
    _update(s, "a feature twice", [("group.version", 1, UPGRADE), ("group.version", 0, SAFE)])
    _update(s, "a negative level", [("group.version", -1, SAFE)])
    _update(s, "no updates", [])
    _update(s, "good and bad together", [("share.version", 1, SAFE), ("no.such.version", 1, UPGRADE)])
    _levels(s, "levels after the refusals")
    _update(s, "transaction.version safe downgrade", [("transaction.version", 1, SAFE)])
    _update(s, "share.version off", [("share.version", 0, SAFE)], version=2)
    _applied(s, {"transaction.version": 1, "share.version": 0})
    _levels(s, "levels after the downgrades")
    _update(s, "transaction.version back up", [("transaction.version", 2, UPGRADE)], version=0)
    _applied(s, {"transaction.version": 2})
    _levels(s, "levels at the end")
    s.restart("graceful restart", kill=False)
    _levels(s, "levels after a restart")


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "features.update": update_features,
}
