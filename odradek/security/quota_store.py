"""Client quotas of the cluster (Kafka's ``ClientQuotaRecord``s), kept durably in the data directory.

An entity is a map of entity type to name (``user``, ``client-id``, ``ip``; a None name is the type's
default entity); each holds quota values by key.  Kafka's keys: ``producer_byte_rate`` and
``consumer_byte_rate`` (whole numbers), ``request_percentage`` and ``controller_mutation_rate`` for user
and client-id entities, ``connection_creation_rate`` (a whole number) for ip entities.  A change is
written through the FileSystem seam's `write_file_atomic` before it applies.

`quota_for` resolves a (user, client id) pair to the most specific entity that sets a key, in
Kafka's order: user+client, user+default client, user, default user+client, default user+default
client, default user, client, default client.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping

from odradek.config.broker import ConfigError
from odradek.security.java_order import hashmap_order, string_hash
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["INTEGER_KEYS", "KEYS_BY_TYPE", "QUOTAS_FILE", "Entity", "QuotaStore", "entity_text", "validate_entity"]

QUOTAS_FILE = "__odradek_client_quotas.json"
_VERSION = 1
USER, CLIENT_ID, IP = "user", "client-id", "ip"
_CLIENT_KEYS = frozenset({"producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate"})
KEYS_BY_TYPE = {USER: _CLIENT_KEYS, CLIENT_ID: _CLIENT_KEYS, IP: frozenset({"connection_creation_rate"})}
INTEGER_KEYS = frozenset({"producer_byte_rate", "consumer_byte_rate", "connection_creation_rate"})

Entity = tuple[tuple[str, str | None], ...]
"""An entity as sorted (type, name) pairs: hashable, one spelling per entity."""


def entity_text(entity: Entity) -> str:
    """Kafka's ``ClientQuotaEntity.toString``: ``ClientQuotaEntity(entries={type=name, ...})``."""
    entries = dict(entity)
    inside = ", ".join(f"{kind}={entries[kind]}" for kind in hashmap_order(entries, string_hash))
    return f"ClientQuotaEntity(entries={{{inside}}})"


def validate_entity(entity: Entity) -> str | None:
    """Kafka's message for an entity that cannot hold quotas, else None."""
    if not entity:
        return "Invalid empty client quota entity"
    for kind, name in entity:
        if kind not in KEYS_BY_TYPE:
            return f"Unhandled client quota entity type: {kind}"
        if kind == IP and name is not None:
            try:
                ipaddress.ip_address(name)
            except ValueError:
                return f"{name} is not a valid IP or resolvable host."
    kinds = {kind for kind, _ in entity}
    if IP in kinds and len(kinds) > 1:
        return "Invalid quota entity combination, IP entity should not be used with user/client ID entity."
    return None


class QuotaStore:
    def __init__(self, fs: FileSystem, path: str) -> None:
        self._fs = fs
        self._path = path
        self._quotas: dict[Entity, dict[str, float]] = {}

    def load(self) -> None:
        if not self._fs.exists(self._path):
            return
        try:
            document = json.loads(read_file(self._fs, self._path))
            if document.get("version") != _VERSION:
                raise ValueError(f"unknown version {document.get('version')!r}")
            self._quotas = {
                tuple(sorted((str(k), v) for k, v in item["entity"])): {
                    str(k): float(v) for k, v in item["values"].items()
                }
                for item in document["entries"]
            }
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{self._path}: not a client quota document ({exc})") from None

    def get(self, entity: Entity, key: str) -> float | None:
        values = self._quotas.get(entity)
        return None if values is None else values.get(key)

    def __bool__(self) -> bool:
        return bool(self._quotas)

    def entries(self) -> dict[Entity, dict[str, float]]:
        return {entity: dict(values) for entity, values in self._quotas.items() if values}

    def apply(self, changes: Mapping[Entity, Mapping[str, float | None]]) -> None:
        """Set (a value) or remove (None) keys of entities, durably, then live."""
        quotas = {entity: dict(values) for entity, values in self._quotas.items()}
        for entity, ops in changes.items():
            values = quotas.setdefault(entity, {})
            for key, value in ops.items():
                if value is None:
                    values.pop(key, None)
                else:
                    values[key] = value
        quotas = {entity: values for entity, values in quotas.items() if values}
        document = {
            "version": _VERSION,
            "entries": [
                {"entity": [list(pair) for pair in entity], "values": values} for entity, values in quotas.items()
            ],
        }
        write_file_atomic(self._fs, self._path, json.dumps(document, indent=1).encode())
        self._quotas = quotas

    def quota_for(self, user: str, client_id: str, key: str) -> float | None:
        """The quota ``key`` applying to ``(user, client_id)`` (see the module docstring), or None."""
        candidates: list[Entity] = [
            ((CLIENT_ID, client_id), (USER, user)),
            ((CLIENT_ID, None), (USER, user)),
            ((USER, user),),
            ((CLIENT_ID, client_id), (USER, None)),
            ((CLIENT_ID, None), (USER, None)),
            ((USER, None),),
            ((CLIENT_ID, client_id),),
            ((CLIENT_ID, None),),
        ]
        for entity in candidates:
            value = self._quotas.get(entity, {}).get(key)
            if value is not None:
                return value
        return None
