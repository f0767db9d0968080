"""SCRAM credentials of the cluster, kept durably in the data directory (Kafka keeps them in its
metadata log as ``UserScramCredentialRecord``s).

Format: ``{"version": 1, "users": {user: {mechanism: {"salt", "stored_key", "server_key" (base64),
"iterations"}}}}``.  Only salted, hashed keys are stored, never a password.  A change is written
through the FileSystem seam's `write_file_atomic` before it is applied, so a crash leaves the old
credentials or the new ones, and a client authenticates against what was durably accepted.
"""

from __future__ import annotations

import base64
import json

from odradek.config.broker import ConfigError
from odradek.security.sasl.scram import ScramCredential
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["SCRAM_FILE", "ScramStore"]

SCRAM_FILE = "__odradek_scram_credentials.json"
_VERSION = 1


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class ScramStore:
    def __init__(self, fs: FileSystem, path: str) -> None:
        self._fs = fs
        self._path = path
        self._users: dict[str, dict[str, ScramCredential]] = {}

    def load(self) -> None:
        if not self._fs.exists(self._path):
            return
        try:
            document = json.loads(read_file(self._fs, self._path))
            if document.get("version") != _VERSION:
                raise ValueError(f"unknown version {document.get('version')!r}")
            self._users = {
                user: {
                    mechanism: ScramCredential(
                        base64.b64decode(item["salt"]),
                        base64.b64decode(item["stored_key"]),
                        base64.b64decode(item["server_key"]),
                        int(item["iterations"]),
                    )
                    for mechanism, item in mechanisms.items()
                }
                for user, mechanisms in document["users"].items()
            }
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{self._path}: not a SCRAM credentials document ({exc})") from None

    def lookup(self, user: str, mechanism: str) -> ScramCredential | None:
        return self._users.get(user, {}).get(mechanism)

    def users(self) -> dict[str, dict[str, ScramCredential]]:
        """Every user with at least one credential, and its credentials by mechanism (a copy)."""
        return {user: dict(mechanisms) for user, mechanisms in self._users.items() if mechanisms}

    def apply(self, deletions: list[tuple[str, str]], upsertions: list[tuple[str, str, ScramCredential]]) -> None:
        """Delete and upsert, durably first, then live."""
        users = {user: dict(mechanisms) for user, mechanisms in self._users.items()}
        for user, mechanism in deletions:
            users.get(user, {}).pop(mechanism, None)
        for user, mechanism, credential in upsertions:
            users.setdefault(user, {})[mechanism] = credential
        users = {user: mechanisms for user, mechanisms in users.items() if mechanisms}
        document = {
            "version": _VERSION,
            "users": {
                user: {
                    mechanism: {
                        "salt": _b64(c.salt),
                        "stored_key": _b64(c.stored_key),
                        "server_key": _b64(c.server_key),
                        "iterations": c.iterations,
                    }
                    for mechanism, c in mechanisms.items()
                }
                for user, mechanisms in users.items()
            },
        }
        write_file_atomic(self._fs, self._path, json.dumps(document, indent=1, sort_keys=True).encode())
        self._users = users
