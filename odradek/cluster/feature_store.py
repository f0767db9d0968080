"""Where the finalized feature levels are kept: one JSON document in the data directory.

Format: ``{"version": 1, "finalized": {feature: level}, "epoch": n}``, replaced atomically
through the FileSystem seam (a crash leaves the old levels or the new ones).  Kafka keeps them in
its metadata log; a node without the file runs the levels it was formatted with.
"""

from __future__ import annotations

import json

from odradek.cluster.features import FeatureLevels
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["FEATURES_FILE", "FeatureStore"]

FEATURES_FILE = "__odradek_features.json"


class FeatureStore:
    """Loads and saves the finalized feature levels at ``path`` on ``fs``."""

    def __init__(self, fs: FileSystem, path: str) -> None:
        self._fs = fs
        self._path = path

    def load(self, formatted: FeatureLevels) -> FeatureLevels:
        """The levels last saved, over ``formatted``'s supported ranges; ``formatted`` itself when
        nothing was ever saved."""
        if not self._fs.exists(self._path):
            return formatted
        document = json.loads(read_file(self._fs, self._path))
        return FeatureLevels(formatted.supported, dict(document["finalized"]), int(document["epoch"]))

    def save(self, levels: FeatureLevels) -> None:
        document = {"version": 1, "finalized": dict(levels.finalized), "epoch": levels.epoch}
        write_file_atomic(self._fs, self._path, json.dumps(document, indent=1).encode())
