"""``odradek configs describe|alter``: kafka-configs' jobs for topics and brokers.

The entity is ``--topic NAME`` or ``--broker ID`` (or Kafka's ``--entity-type topics|brokers
--entity-name NAME``).  ``describe`` lists the configs whose value is not the default (``--all``
lists every config) with their source.  ``alter`` changes configs incrementally:
``--add-config k=v,k2=v2`` sets (a value holding commas goes in brackets: ``k=[a,b]``) and
``--delete-config k,k2`` reverts to the default; the other configs keep their values.
"""

from __future__ import annotations

import argparse
from typing import Any

from odradek.cli.client import Admin, EntityKind, admin_for
from odradek.cli.common import Output, UsageError, add_client_arguments, group, leaf

__all__ = ["parse_add_config", "register"]


def register(commands: argparse._SubParsersAction[Any]) -> None:
    sub = group(commands, "configs", "describe and alter topic and broker configs")
    describe = leaf(sub, "describe", "show a topic's or broker's configs", _describe)
    _entity_flags(describe)
    describe.add_argument("--all", action="store_true", help="every config, defaults included")
    add_client_arguments(describe)

    alter = leaf(sub, "alter", "set or delete configs of a topic or broker", _alter)
    _entity_flags(alter)
    alter.add_argument("--add-config", action="append", default=[], metavar="K=V,K2=V2", help="configs to set")
    alter.add_argument("--delete-config", action="append", default=[], metavar="K,K2", help="configs to revert")
    add_client_arguments(alter)


def _entity_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--topic", help="the topic")
    parser.add_argument("--broker", help="the broker id")
    parser.add_argument("--entity-type", choices=("topics", "brokers"), help="with --entity-name, as kafka-configs")
    parser.add_argument("--entity-name")


def _entity(args: argparse.Namespace) -> tuple[EntityKind, str]:
    chosen: list[tuple[EntityKind, str]] = []
    if args.topic is not None:
        chosen.append(("topic", args.topic))
    if args.broker is not None:
        chosen.append(("broker", args.broker))
    if args.entity_type is not None or args.entity_name is not None:
        if args.entity_type is None or args.entity_name is None:
            raise UsageError("--entity-type and --entity-name go together")
        chosen.append(("topic" if args.entity_type == "topics" else "broker", args.entity_name))
    if len(chosen) != 1:
        raise UsageError("name exactly one entity: --topic, --broker or --entity-type/--entity-name")
    return chosen[0]


def parse_add_config(text: str) -> dict[str, str]:
    """``k=v,k2=[a,b]`` as ``{"k": "v", "k2": "a,b"}``; raises `UsageError` when malformed."""
    result: dict[str, str] = {}
    rest = text
    while rest:
        key, eq, rest = rest.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--add-config must be K=V[,K2=V2...], got {text!r}")
        if rest.startswith("["):
            value, bracket, rest = rest[1:].partition("]")
            if not bracket:
                raise UsageError(f"--add-config: unclosed [ in {text!r}")
            if rest and not rest.startswith(","):
                raise UsageError(f"--add-config: expected , after ] in {text!r}")
            rest = rest[1:]
        else:
            value, _, rest = rest.partition(",")
        result[key.strip()] = value
    return result


def _check_exists(admin: Admin, kind: EntityKind, name: str) -> None:
    if kind == "topic":
        admin.topic(name)
    else:
        admin.topics()


def _describe(args: argparse.Namespace) -> int:
    kind, name = _entity(args)
    admin = admin_for(args)
    _check_exists(admin, kind, name)
    entries = [c for c in admin.describe_configs(kind, name) if args.all or not c.is_default]
    out = Output(args.json)
    if out.as_json:
        out.json(
            [
                {
                    "name": c.name,
                    "value": c.value,
                    "source": c.source,
                    "read_only": c.read_only,
                    "sensitive": c.sensitive,
                }
                for c in entries
            ]
        )
        return 0
    out.line(f"Configs of {kind} {name}:")
    out.table(
        ("NAME", "VALUE", "SOURCE"),
        ((c.name, "(sensitive)" if c.sensitive else c.value, c.source) for c in entries),
    )
    return 0


def _alter(args: argparse.Namespace) -> int:
    kind, name = _entity(args)
    to_set: dict[str, str] = {}
    for item in args.add_config:
        to_set.update(parse_add_config(item))
    to_delete = [k.strip() for item in args.delete_config for k in item.split(",") if k.strip()]
    if not to_set and not to_delete:
        raise UsageError("give --add-config and/or --delete-config")
    both = sorted(set(to_set) & set(to_delete))
    if both:
        raise UsageError(f"{both[0]!r} is both added and deleted")
    admin = admin_for(args)
    _check_exists(admin, kind, name)
    admin.alter_configs(kind, name, to_set, to_delete)
    out = Output(args.json)
    if out.as_json:
        out.json({"entity_type": kind, "entity_name": name, "set": to_set, "deleted": to_delete})
    else:
        out.line(f"configs of {kind} {name} altered")
    return 0
