"""Request handlers, one module per API family, registered in `registry.registry`."""

from __future__ import annotations

import importlib

from odradek.handlers.registry import Registry, registry

__all__ = ["load_handlers"]

_MODULES = (
    "api_versions",
    "metadata",
    "topics",
    "produce",
    "fetch",
    "list_offsets",
    "find_coordinator",
    "groups",
    "offsets",
    "txn",
    "cluster",
    "describe_topic_partitions",
    "delete_records",
    "configs",
    "sasl",
    "scram",
    "acls",
    "quotas",
)


def load_handlers() -> Registry:
    """Import every handler module (each registers itself once) and return the registry."""
    for name in _MODULES:
        importlib.import_module(f"odradek.handlers.{name}")
    return registry
