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

import json
import math
from collections.abc import Collection, Mapping

from odradek.config.broker import ConfigError
from odradek.java_order import java_hash_order, string_hash
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = [
    "KEYS_BY_TYPE",
    "QUOTAS_FILE",
    "WHOLE_NUMBER_KEYS",
    "Entity",
    "QuotaStore",
    "entity_entries",
    "entity_text",
    "validate_entity",
    "value_refusal",
]

QUOTAS_FILE = "__odradek_client_quotas.json"
_VERSION = 1
USER, CLIENT_ID, IP = "user", "client-id", "ip"
_CLIENT_KEYS = frozenset({"producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate"})
KEYS_BY_TYPE = {USER: _CLIENT_KEYS, CLIENT_ID: _CLIENT_KEYS, IP: frozenset({"connection_creation_rate"})}
#: The quota keys Kafka types as whole numbers: their type's name in its messages and largest value.
WHOLE_NUMBER_KEYS = {
    "producer_byte_rate": ("a LONG", float(2**63 - 1)),
    "consumer_byte_rate": ("a LONG", float(2**63 - 1)),
    "connection_creation_rate": ("an INT", float(2**31 - 1)),
}

Entity = tuple[tuple[str, str | None], ...]
"""An entity as sorted (type, name) pairs: hashable, one spelling per entity."""


def entity_entries(entity: Entity) -> list[tuple[str, str | None]]:
    """The entity's (type, name) pairs in the order Kafka's map of them iterates: a ``HashMap``
    made for as many entries as the entity has (``new HashMap<>(n)``: 4 buckets for 2 or 3)."""
    entries = dict(entity)
    return [(kind, entries[kind]) for kind in java_hash_order(entries, string_hash, len(entries))]


def entity_text(entity: Entity) -> str:
    """Kafka's ``ClientQuotaEntity.toString``: ``ClientQuotaEntity(entries={type=name, ...})``."""
    inside = ", ".join(f"{kind}={name}" for kind, name in entity_entries(entity))
    return f"ClientQuotaEntity(entries={{{inside}}})"


def validate_entity(entity: Entity, unresolvable: Collection[str] = ()) -> str | None:
    """Kafka's message for an entity that cannot hold quotas, else None: in Kafka's order, the
    types and names (an unknown type, an empty name), then the combination, then the ip entity's
    name, which Kafka resolves (``InetAddress.getByName``): ``unresolvable`` lists the names that
    neither are an address nor resolve (the handler looks them up: `odradek.handlers.quotas`)."""
    if not entity:
        return "Invalid empty client quota entity"
    for kind, name in entity_entries(entity):
        if kind not in KEYS_BY_TYPE:
            return f"Unhandled client quota entity type: {kind}"
        if name == "":
            return f"Empty {kind} not supported"
    entries = dict(entity)
    if IP in entries:
        if len(entries) > 1:
            # sic: Kafka joins "should" and "not" without a space
            return "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"
        if entries[IP] in unresolvable:
            return f"{entries[IP]} is not a valid IP or resolvable host."
    return None


def value_refusal(allowed: frozenset[str], key: str, value: float) -> str | None:
    """Kafka's message for a quota value an entity cannot take, else None: in Kafka's order, a key
    the entity's types do not have, a value not above 0, a whole-number key's value past its type's
    largest, then a fraction there."""
    if key not in allowed:
        return f"Invalid configuration key {key}"
    if value <= 0.0:
        return f"Quota {key} must be greater than 0"
    whole = WHOLE_NUMBER_KEYS.get(key)
    if whole is not None:
        type_name, largest = whole
        if value > largest:
            return f"Proposed value for {key} is too large for {type_name}."
        if abs(math.fmod(value, 1.0)) > 1e-6:
            return f"{key} cannot be a fractional value."
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
