"""DescribeClientQuotas (key 48) and AlterClientQuotas (key 49), v0-1.

As Kafka 4 answers them (checked with compat-tests/probes/security.py):

- Describe: each component names an entity type (``user``, ``client-id``, ``ip``; another type is
  UNSUPPORTED_VERSION), once, with a match type (0 exact name, 1 the default entity, 2 any entity of
  the type) whose ``match`` is set only for 0; ip does not combine with user or client-id (each of
  these INVALID_REQUEST with Kafka's message, and null entries).  An entity matches when it has every
  component's type with the matching name; with ``strict`` it has no other type.  Needs
  DESCRIBE_CONFIGS on the cluster.
- Alter: per entity, Kafka's checks and messages in its order (entity types and names, the
  combination, an ip entity's name, which must be an address or resolve as Kafka's
  ``InetAddress.getByName`` would; then each value set, in the order of Kafka's map of the entity's
  operations: a key valid for the entity, a value above 0, a whole number within its type for the
  rates Kafka types as LONG or INT; a removal is never refused), a key once per entity and an entity
  once per request, else "Ignoring duplicate entity"; an accepted entity's changes apply durably at
  once unless ``validate_only``.  The answer lists the entities in the order of Kafka's map of
  entities (`java_hash_order` of their hashes), each entity's types in the order of its own map
  (`entity_entries`).  Needs ALTER_CONFIGS on the cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.java_order import java_hash_order, map_hash, string_hash
from odradek.security.acl import AclOperation
from odradek.security.quota_store import (
    KEYS_BY_TYPE,
    Entity,
    entity_entries,
    entity_text,
    validate_entity,
    value_refusal,
)
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.quotas import (
    AlterClientQuotasRequest,
    AlterClientQuotasRequestValue,
    AlterClientQuotasResponse,
    AlterClientQuotasResponseValue,
    DescribeClientQuotasRequest,
    DescribeClientQuotasRequestValue,
    DescribeClientQuotasResponse,
    DescribeClientQuotasResponseValue,
)

EXACT, DEFAULT, ANY = 0, 1, 2
_IP, _USER, _CLIENT = "ip", "user", "client-id"
_DescribeEntry = DescribeClientQuotasResponse.EntryData
_AlterEntry = AlterClientQuotasResponse.EntryData


def _describe_error(request: DescribeClientQuotasRequestValue, code: ErrorCode) -> DescribeClientQuotasResponseValue:
    return DescribeClientQuotasResponse(error_code=code, entries=None)


class _FilterError(ValueError):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def _parse_filter(request: DescribeClientQuotasRequestValue) -> tuple[dict[str, str | None], set[str]]:
    exact: dict[str, str | None] = {}
    any_of: set[str] = set()
    for component in request.components:
        kind = component.entity_type
        if not kind:
            raise _FilterError(ErrorCode.INVALID_REQUEST, "Invalid empty entity type.")
        if kind in exact or kind in any_of:
            raise _FilterError(
                ErrorCode.INVALID_REQUEST, f"Entity type {kind} cannot appear more than once in the filter."
            )
        if kind not in KEYS_BY_TYPE:
            raise _FilterError(ErrorCode.UNSUPPORTED_VERSION, f"Unsupported entity type {kind}")
        if component.match_type == EXACT:
            if component.match is None:
                raise _FilterError(
                    ErrorCode.INVALID_REQUEST, "Request specified MATCH_TYPE_EXACT, but set match string to null."
                )
            exact[kind] = component.match
        elif component.match_type == DEFAULT:
            if component.match is not None:
                raise _FilterError(
                    ErrorCode.INVALID_REQUEST,
                    "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.",
                )
            exact[kind] = None
        elif component.match_type == ANY:
            if component.match is not None:
                raise _FilterError(
                    ErrorCode.INVALID_REQUEST,
                    "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.",
                )
            any_of.add(kind)
        else:
            raise _FilterError(ErrorCode.INVALID_REQUEST, f"Unknown match type {component.match_type}")
    kinds = set(exact) | any_of
    if _IP in kinds and kinds & {_USER, _CLIENT}:
        raise _FilterError(
            ErrorCode.INVALID_REQUEST,
            "Invalid entity filter component combination. IP filter component should not be used with user or "
            "clientId filter component.",
        )
    return exact, any_of


@registry.api(DescribeClientQuotasRequest, DescribeClientQuotasResponse, "0-1", _describe_error)
async def describe_client_quotas(
    ctx: RequestContext, request: DescribeClientQuotasRequestValue
) -> DescribeClientQuotasResponseValue:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE_CONFIGS):
        return DescribeClientQuotasResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, entries=None)
    try:
        exact, any_of = _parse_filter(request)
    except _FilterError as exc:
        return DescribeClientQuotasResponse(error_code=exc.code, error_message=str(exc), entries=None)
    entries = []
    for entity, values in ctx.security.quotas.entries().items():
        held = dict(entity)
        if request.strict and len(held) != len(exact) + len(any_of):
            continue
        if any(kind not in held or held[kind] != name for kind, name in exact.items()):
            continue
        if any(kind not in held for kind in any_of):
            continue
        entries.append(
            _DescribeEntry(
                entity=[_DescribeEntry.EntityData(entity_type=k, entity_name=n) for k, n in entity_entries(entity)],
                values=[
                    _DescribeEntry.ValueData(key=key, value=values[key]) for key in java_hash_order(values, string_hash)
                ],
            )
        )
    return DescribeClientQuotasResponse(error_code=ErrorCode.NONE, error_message="", entries=entries)


def _alter_error(request: AlterClientQuotasRequestValue, code: ErrorCode) -> AlterClientQuotasResponseValue:
    return AlterClientQuotasResponse(
        entries=[
            _AlterEntry(
                error_code=code,
                entity=[
                    _AlterEntry.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity
                ],
            )
            for entry in request.entries
        ]
    )


async def unresolvable_hosts(entities: Iterable[Entity]) -> set[str]:
    """The ip entities' names that are neither an address nor a name the resolver knows, looked up
    off the event loop (an unknown name may wait on DNS)."""
    loop = asyncio.get_running_loop()
    names = sorted({name for entity in entities for kind, name in entity if kind == _IP and name})

    async def resolves(name: str) -> bool:
        try:
            await loop.getaddrinfo(name, None)
        except (OSError, UnicodeError, ValueError):
            return False
        return True

    found = await asyncio.gather(*(resolves(name) for name in names))
    return {name for name, ok in zip(names, found, strict=True) if not ok}


@registry.api(AlterClientQuotasRequest, AlterClientQuotasResponse, "0-1", _alter_error)
async def alter_client_quotas(
    ctx: RequestContext, request: AlterClientQuotasRequestValue
) -> AlterClientQuotasResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER_CONFIGS):
        return _alter_error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    outcome: dict[Entity, str | None] = {}
    changes: dict[Entity, dict[str, float | None]] = {}
    entities: list[Entity] = [
        tuple(sorted({e.entity_type: e.entity_name for e in entry.entity}.items())) for entry in request.entries
    ]
    unresolvable = await unresolvable_hosts(entities)
    for entity, entry in zip(entities, request.entries, strict=True):
        ops: dict[str, float | None] = {}
        duplicate_key = False
        for op in entry.ops:
            duplicate_key = duplicate_key or op.key in ops
            ops[op.key] = None if op.remove else op.value
        if entity in outcome or duplicate_key:
            outcome[entity] = f"Ignoring duplicate entity {entity_text(entity)}"
            changes.pop(entity, None)
            continue
        refusal = validate_entity(entity, unresolvable)
        if refusal is None:
            allowed = frozenset.intersection(*(KEYS_BY_TYPE[kind] for kind, _ in entity))
            # Kafka checks the values set (a removal is never refused) in its map's order
            for key in java_hash_order(ops, string_hash, len(entry.ops)):
                value = ops[key]
                refusal = None if value is None else value_refusal(allowed, key, value)
                if refusal is not None:
                    break
        outcome[entity] = refusal
        if refusal is None:
            changes[entity] = ops
    if changes and not request.validate_only:
        ctx.security.quotas.apply(changes)
    ordered = java_hash_order(outcome, lambda entity: map_hash(dict(entity)))
    return AlterClientQuotasResponse(
        entries=[
            _AlterEntry(
                error_code=ErrorCode.NONE if outcome[entity] is None else ErrorCode.INVALID_REQUEST,
                error_message=outcome[entity],
                entity=[_AlterEntry.EntityData(entity_type=k, entity_name=n) for k, n in entity_entries(entity)],
            )
            for entity in ordered
        ]
    )
