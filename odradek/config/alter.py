"""IncrementalAlterConfigs: one set of dynamic values after SET, DELETE, APPEND and SUBTRACT.

One implementation for a topic's overrides and for a broker layer (Kafka's controller and
ConfigAdminManager agree on the list arithmetic): changes apply in order; APPEND adds each
given element not yet present, SUBTRACT removes one occurrence of each given element; both
start from the set's own value, else the key's Kafka default, and work on LIST keys only
(INVALID_CONFIG otherwise).  The two resources differ only in Kafka's words for a refusal and in
which names they know: a topic knows its topic keys, a broker its broker keys (every key of
Kafka's broker config, `odradek.config.table.BROKER_KEYS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum

from odradek.config.keys import ConfigKey, ConfigType, Scope, list_items
from odradek.config.table import BROKER_KEYS, TOPIC_KEYS
from odradek.config.validation import DynamicConfigError

__all__ = ["OpType", "apply_incremental"]


class OpType(IntEnum):
    """IncrementalAlterConfigs ``config_operation`` codes."""

    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


def _list_key(scope: Scope, name: str, op: OpType) -> ConfigKey:
    """The LIST key ``name`` an APPEND or SUBTRACT works on; refuse in Kafka's words otherwise."""
    if scope is Scope.TOPIC:
        key = TOPIC_KEYS.get(name)
        if key is None:
            raise DynamicConfigError(f"Unknown topic config name: {name}", invalid_config=True)
        if key.type is not ConfigType.LIST:
            raise DynamicConfigError(
                f"Can't {op.name} to key {name} because its type is not LIST.", invalid_config=True
            )
        return key
    key = BROKER_KEYS.get(name)
    if key is None:
        raise DynamicConfigError(f"Unknown config name: {name}", invalid_config=True)
    if key.type is not ConfigType.LIST:
        verb = op.name.lower()
        raise DynamicConfigError(f"Config value {verb} is not allowed for config key: {name}", invalid_config=True)
    return key


def apply_incremental(
    current: Mapping[str, str], changes: Sequence[tuple[str, int, str | None]], scope: Scope
) -> dict[str, str | None]:
    """The set of values after ``changes`` (name, operation code, value), in order.

    SET keeps a null value as given (validation refuses it); an unknown operation code is
    INVALID_REQUEST when it is reached."""
    result: dict[str, str | None] = dict(current)
    for name, code, value in changes:
        try:
            op = OpType(code)
        except ValueError:
            raise DynamicConfigError(f"Unknown operation type {code}") from None
        if op is OpType.SET:
            result[name] = value
        elif op is OpType.DELETE:
            result.pop(name, None)
        else:
            key = _list_key(scope, name, op)
            base = result.get(name)
            items = list_items(base if base is not None else key.default or "")
            for item in list_items(value or ""):
                if op is OpType.APPEND and item not in items:
                    items.append(item)
                elif op is OpType.SUBTRACT and item in items:
                    items.remove(item)
            result[name] = ",".join(items)
    return result
