"""Where the dynamic broker configs are kept: one JSON document in the data directory.

Format: ``{"version": 1, "cluster": {name: value}, "broker": {name: value}}`` (``broker`` is this
broker's own layer).  A save goes through the FileSystem seam's `write_file_atomic` (temporary
file, fsync, rename, directory fsync), so a crash leaves the old document or the new one, never
a mix.  A data directory without the file starts with Kafka 4.x's freshly formatted cluster:
the cluster-wide ``min.insync.replicas=1`` that formatting with eligible leader replicas records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from odradek.config.broker import ConfigError
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["DYNAMIC_CONFIGS_FILE", "INITIAL_CLUSTER_CONFIGS", "DynamicConfigStore"]

DYNAMIC_CONFIGS_FILE = "__odradek_dynamic_configs.json"
INITIAL_CLUSTER_CONFIGS: Mapping[str, str] = {"min.insync.replicas": "1"}
_VERSION = 1


class DynamicConfigStore:
    """Loads and saves the two dynamic layers (cluster-wide, this broker's) at ``path`` on ``fs``."""

    def __init__(self, fs: FileSystem, path: str) -> None:
        self.fs = fs
        self.path = path

    def load(self) -> tuple[dict[str, str], dict[str, str]]:
        """(cluster layer, broker layer); a missing file gives the freshly formatted cluster's."""
        if not self.fs.exists(self.path):
            return dict(INITIAL_CLUSTER_CONFIGS), {}
        try:
            document = json.loads(read_file(self.fs, self.path))
            if document.get("version") != _VERSION:
                raise ValueError(f"unknown version {document.get('version')!r}")
            return _layer(document["cluster"]), _layer(document["broker"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{self.path}: not a dynamic broker config document ({exc})") from None

    def save(self, cluster: Mapping[str, str], broker: Mapping[str, str]) -> None:
        document = {"version": _VERSION, "cluster": dict(cluster), "broker": dict(broker)}
        write_file_atomic(self.fs, self.path, json.dumps(document, indent=1, sort_keys=True).encode())


def _layer(raw: object) -> dict[str, str]:
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise ValueError("a layer must map names to strings")
    return dict(raw)
