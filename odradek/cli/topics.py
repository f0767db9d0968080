"""``odradek topics create|list|describe|alter|delete|add-partitions``: kafka-topics' jobs.

``describe`` shows per partition its leader, replicas, in-sync replicas and log start/end
offsets, then the topic's configs whose value is not the default.  ``alter --config`` sets
configs incrementally (the other configs keep their values); ``--partitions`` is always the new
total count, which may only grow.
"""

from __future__ import annotations

import argparse
from typing import Any

from odradek.cli.client import TP, Admin, TopicInfo, admin_for
from odradek.cli.common import (
    CommandError,
    Output,
    UsageError,
    add_client_arguments,
    group,
    leaf,
    parse_key_values,
    positive_int,
)

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[Any]) -> None:
    sub = group(commands, "topics", "create, list, describe, alter and delete topics")

    create = leaf(sub, "create", "create a topic", _create)
    create.add_argument("--topic", required=True)
    create.add_argument("--partitions", type=positive_int, help="partition count (default: the broker's)")
    create.add_argument(
        "--replication-factor", type=positive_int, help="replicas per partition (default: the broker's)"
    )
    _config_flag(create)
    create.add_argument("--if-not-exists", action="store_true", help="succeed when the topic already exists")
    create.add_argument("--validate-only", action="store_true", help="ask the broker to check, not create")
    add_client_arguments(create)

    listing = leaf(sub, "list", "list topics", _list)
    listing.add_argument("--exclude-internal", action="store_true", help="leave out __consumer_offsets and the like")
    add_client_arguments(listing)

    describe = leaf(sub, "describe", "describe partitions, offsets and non-default configs", _describe)
    describe.add_argument("--topic", help="one topic (default: every topic)")
    describe.add_argument("--exclude-internal", action="store_true", help="leave out internal topics")
    add_client_arguments(describe)

    alter = leaf(sub, "alter", "grow a topic's partitions and/or set its configs", _alter)
    alter.add_argument("--topic", required=True)
    alter.add_argument("--partitions", type=positive_int, help="the new total partition count")
    _config_flag(alter)
    add_client_arguments(alter)

    delete = leaf(sub, "delete", "delete a topic", _delete)
    delete.add_argument("--topic", required=True)
    delete.add_argument("--if-exists", action="store_true", help="succeed when the topic does not exist")
    add_client_arguments(delete)

    grow = leaf(sub, "add-partitions", "grow a topic to a new total partition count", _add_partitions)
    grow.add_argument("--topic", required=True)
    grow.add_argument("--partitions", type=positive_int, required=True, help="the new total partition count")
    add_client_arguments(grow)


def _config_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", action="append", default=[], metavar="KEY=VALUE", help="a topic config (repeatable)"
    )


def _is_internal(name: str) -> bool:
    return name.startswith("__")


def _create(args: argparse.Namespace) -> int:
    configs = parse_key_values(args.config, "--config")
    admin = admin_for(args)
    admin.topics()
    try:
        admin.create_topic(
            args.topic, args.partitions or -1, args.replication_factor or -1, configs, args.validate_only
        )
    except CommandError as exc:
        if not (args.if_not_exists and "TOPIC_ALREADY_EXISTS" in str(exc)):
            raise
    out = Output(args.json)
    verb = "would be created" if args.validate_only else "created"
    if out.as_json:
        out.json({"topic": args.topic, "validate_only": args.validate_only})
    else:
        out.line(f"topic {args.topic} {verb}")
    return 0


def _list(args: argparse.Namespace) -> int:
    topics = [t for t in admin_for(args).topics() if not (args.exclude_internal and _is_internal(t.name))]
    out = Output(args.json)
    if out.as_json:
        out.json([{"topic": t.name, "partitions": len(t.partitions)} for t in topics])
    else:
        out.table(
            ("TOPIC", "PARTITIONS", "REPLICATION"),
            ((t.name, len(t.partitions), len(t.partitions[0].replicas) if t.partitions else 0) for t in topics),
        )
    return 0


def _offsets(admin: Admin, topics: list[TopicInfo]) -> tuple[dict[TP, int], dict[TP, int]]:
    partitions = [(t.name, p.partition) for t in topics for p in t.partitions]
    return admin.list_offsets(partitions, "earliest"), admin.list_offsets(partitions, "latest")


def _describe(args: argparse.Namespace) -> int:
    admin = admin_for(args)
    if args.topic is not None:
        topics = [admin.topic(args.topic)]
    else:
        topics = [t for t in admin.topics() if not (args.exclude_internal and _is_internal(t.name))]
    start, end = _offsets(admin, topics)
    configs = {
        t.name: {c.name: c.value for c in admin.describe_configs("topic", t.name) if not c.is_default} for t in topics
    }
    out = Output(args.json)
    if out.as_json:
        out.json(
            [
                {
                    "topic": t.name,
                    "partitions": [
                        {
                            "partition": p.partition,
                            "leader": p.leader,
                            "replicas": list(p.replicas),
                            "isr": list(p.isr),
                            "start_offset": start.get((t.name, p.partition)),
                            "end_offset": end.get((t.name, p.partition)),
                            "error": p.error,
                        }
                        for p in t.partitions
                    ],
                    "configs": configs[t.name],
                }
                for t in topics
            ]
        )
        return 0
    for t in topics:
        settings = ", ".join(f"{k}={v}" for k, v in configs[t.name].items()) or "(all defaults)"
        out.line(f"Topic: {t.name}  Partitions: {len(t.partitions)}  Configs: {settings}")
        out.table(
            ("PARTITION", "LEADER", "REPLICAS", "ISR", "START-OFFSET", "END-OFFSET"),
            (
                (
                    p.partition,
                    p.leader,
                    ",".join(map(str, p.replicas)),
                    ",".join(map(str, p.isr)),
                    start.get((t.name, p.partition)),
                    end.get((t.name, p.partition)),
                )
                for p in t.partitions
            ),
        )
    return 0


def _grow(admin: Admin, topic: str, total: int) -> None:
    current = len(admin.topic(topic).partitions)
    if total <= current:
        raise CommandError(f"topic {topic!r} has {current} partitions; --partitions must be more than that")
    admin.create_partitions(topic, total)


def _done(args: argparse.Namespace, message: str) -> None:
    out = Output(args.json)
    if out.as_json:
        out.json({"topic": args.topic, "partitions": args.partitions})
    else:
        out.line(message)


def _alter(args: argparse.Namespace) -> int:
    configs = parse_key_values(args.config, "--config")
    if args.partitions is None and not configs:
        raise UsageError("give --partitions and/or --config")
    admin = admin_for(args)
    if args.partitions is not None:
        _grow(admin, args.topic, args.partitions)
    if configs:
        admin.topic(args.topic)
        admin.alter_configs("topic", args.topic, configs, ())
    _done(args, f"topic {args.topic} altered")
    return 0


def _add_partitions(args: argparse.Namespace) -> int:
    _grow(admin_for(args), args.topic, args.partitions)
    _done(args, f"topic {args.topic} now has {args.partitions} partitions")
    return 0


def _delete(args: argparse.Namespace) -> int:
    admin = admin_for(args)
    admin.topics()
    try:
        admin.delete_topic(args.topic)
    except CommandError as exc:
        if not (args.if_exists and "UNKNOWN_TOPIC_OR_PARTITION" in str(exc)):
            raise
    out = Output(args.json)
    if out.as_json:
        out.json({"topic": args.topic, "deleted": True})
    else:
        out.line(f"topic {args.topic} deleted")
    return 0
