"""Where the dynamic broker configs are kept: one JSON document in the data directory.

Format: ``{"version": 1, "cluster": {name: value}, "broker": {name: value}}`` (``broker`` is this
broker's own layer).  A save writes a temporary file, fsyncs it, renames it over the old one and
fsyncs the directory, so a crash leaves the old document or the new one, never a mix.  A data
directory without the file starts with Kafka 4.x's freshly formatted cluster: the cluster-wide
``min.insync.replicas=1`` that formatting with eligible leader replicas records.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from odradek.config import ConfigError

__all__ = ["DYNAMIC_CONFIGS_FILE", "INITIAL_CLUSTER_CONFIGS", "DynamicConfigStore"]

DYNAMIC_CONFIGS_FILE = "__odradek_dynamic_configs.json"
INITIAL_CLUSTER_CONFIGS: Mapping[str, str] = {"min.insync.replicas": "1"}
_VERSION = 1


class DynamicConfigStore:
    """Loads and saves the two dynamic layers (cluster-wide, this broker's)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> tuple[dict[str, str], dict[str, str]]:
        """(cluster layer, broker layer); a missing file gives the freshly formatted cluster's."""
        if not self.path.exists():
            return dict(INITIAL_CLUSTER_CONFIGS), {}
        try:
            document = json.loads(self.path.read_text())
            if document.get("version") != _VERSION:
                raise ValueError(f"unknown version {document.get('version')!r}")
            return _layer(document["cluster"]), _layer(document["broker"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{self.path}: not a dynamic broker config document ({exc})") from None

    def save(self, cluster: Mapping[str, str], broker: Mapping[str, str]) -> None:
        document = {"version": _VERSION, "cluster": dict(cluster), "broker": dict(broker)}
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w") as out:
            json.dump(document, out, indent=1, sort_keys=True)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def _layer(raw: object) -> dict[str, str]:
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise ValueError("a layer must map names to strings")
    return dict(raw)
