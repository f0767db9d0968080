"""``odradek groups list|describe|reset-offsets|delete``: kafka-consumer-groups' jobs.

``describe`` shows, per partition the group has a committed offset for or a member is assigned,
the committed offset, the log end offset and the lag between them (``-`` where nothing is
committed), with the member that owns the partition.

``reset-offsets`` computes new committed offsets for the partitions chosen by ``--topic T`` (all
its partitions), ``--topic T:0,2`` or ``--all-topics`` (those the group has offsets for) and prints
them; only with ``--execute`` does it commit them, which the broker accepts only while the group
has no members.  Targets are clamped to each partition's [log start, log end], as Kafka's tool does.
"""

from __future__ import annotations

import argparse
from typing import Any

from odradek.cli.client import TP, Admin, admin_for
from odradek.cli.common import CommandError, Output, UsageError, add_client_arguments, group, leaf, parse_timestamp

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[Any]) -> None:
    sub = group(commands, "groups", "list, describe, reset and delete consumer groups")

    listing = leaf(sub, "list", "list consumer groups", _list)
    add_client_arguments(listing)

    describe = leaf(sub, "describe", "show members, committed offsets and lag per partition", _describe)
    describe.add_argument("--group", required=True)
    add_client_arguments(describe)

    reset = leaf(sub, "reset-offsets", "compute (and with --execute commit) new offsets for a group", _reset)
    reset.add_argument("--group", required=True)
    scope = reset.add_mutually_exclusive_group(required=True)
    scope.add_argument("--topic", action="append", metavar="TOPIC[:P,P]", help="a topic, or some of its partitions")
    scope.add_argument("--all-topics", action="store_true", help="every topic the group has offsets for")
    target = reset.add_mutually_exclusive_group(required=True)
    target.add_argument("--to-earliest", action="store_true", help="the log start offset")
    target.add_argument("--to-latest", action="store_true", help="the log end offset")
    target.add_argument("--to-offset", type=int, metavar="N", help="this offset")
    target.add_argument("--shift-by", type=int, metavar="N", help="the committed offset plus N (may be negative)")
    target.add_argument(
        "--to-datetime", type=parse_timestamp, metavar="TIME", help="the first offset at epoch ms or ISO 8601 time"
    )
    mode = reset.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="only print the new offsets (the default)")
    mode.add_argument("--execute", action="store_true", help="commit the new offsets")
    add_client_arguments(reset)

    delete = leaf(sub, "delete", "delete a consumer group with no members", _delete)
    delete.add_argument("--group", required=True)
    add_client_arguments(delete)


def _list(args: argparse.Namespace) -> int:
    admin = admin_for(args)
    admin.topics()
    groups = admin.list_groups()
    out = Output(args.json)
    if out.as_json:
        out.json([{"group": g.group, "state": g.state, "type": g.type} for g in groups])
    else:
        out.table(("GROUP", "STATE", "TYPE"), ((g.group, g.state, g.type) for g in groups))
    return 0


def _describe(args: argparse.Namespace) -> int:
    admin = admin_for(args)
    admin.topics()
    info = admin.describe_group(args.group)
    if info.state == "Dead":
        raise CommandError(f"group {args.group!r} does not exist")
    rows = [(r.tp, r.committed, r.log_end, r.lag, r.member) for r in admin.group_lag(info)]
    out = Output(args.json)
    if out.as_json:
        out.json(
            {
                "group": info.group,
                "state": info.state,
                "protocol": info.protocol,
                "coordinator": info.coordinator,
                "members": [
                    {
                        "member_id": m.member_id,
                        "client_id": m.client_id,
                        "host": m.host,
                        "instance_id": m.instance_id,
                        "assignment": [{"topic": t, "partition": p} for t, p in m.assignment],
                    }
                    for m in info.members
                ],
                "offsets": [
                    {
                        "topic": tp[0],
                        "partition": tp[1],
                        "current_offset": current,
                        "log_end_offset": log_end,
                        "lag": lag,
                        "member_id": None if member is None else member.member_id,
                    }
                    for tp, current, log_end, lag, member in rows
                ],
            }
        )
        return 0
    out.line(f"Group: {info.group}  State: {info.state}  Members: {len(info.members)}  Coordinator: {info.coordinator}")
    out.table(
        ("TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"),
        (
            (
                tp[0],
                tp[1],
                current,
                log_end,
                lag,
                None if m is None else m.member_id,
                None if m is None else m.host,
                None if m is None else m.client_id,
            )
            for tp, current, log_end, lag, m in rows
        ),
    )
    return 0


def _scope(admin: Admin, args: argparse.Namespace, committed: dict[TP, int]) -> list[TP]:
    if args.all_topics:
        return sorted(committed)
    chosen: list[TP] = []
    for item in args.topic:
        name, colon, numbers = item.partition(":")
        existing = [p.partition for p in admin.topic(name).partitions]
        if not colon:
            chosen += [(name, p) for p in existing]
            continue
        try:
            wanted = [int(n) for n in numbers.split(",")]
        except ValueError:
            raise UsageError(f"--topic {item!r}: partitions must be integers, e.g. {name}:0,1") from None
        missing = [p for p in wanted if p not in existing]
        if missing:
            raise CommandError(f"topic {name!r} has no partition {missing[0]}")
        chosen += [(name, p) for p in wanted]
    return sorted(set(chosen))


def _targets(admin: Admin, args: argparse.Namespace, partitions: list[TP], committed: dict[TP, int]) -> dict[TP, int]:
    start = admin.list_offsets(partitions, "earliest")
    end = admin.list_offsets(partitions, "latest")
    if args.to_earliest:
        wanted = dict(start)
    elif args.to_latest:
        wanted = dict(end)
    elif args.to_offset is not None:
        wanted = dict.fromkeys(partitions, args.to_offset)
    elif args.shift_by is not None:
        wanted = {tp: committed.get(tp, end[tp]) + args.shift_by for tp in partitions}
    else:
        at_time = admin.list_offsets(partitions, args.to_datetime)
        wanted = {tp: end[tp] if at_time[tp] < 0 else at_time[tp] for tp in partitions}
    return {tp: min(max(offset, start[tp]), end[tp]) for tp, offset in wanted.items()}


def _reset(args: argparse.Namespace) -> int:
    admin = admin_for(args)
    admin.topics()
    info = admin.describe_group(args.group)
    if info.members:
        raise CommandError(
            f"group {args.group!r} has {len(info.members)} active member(s) (state {info.state}); stop them first"
        )
    committed = admin.committed(args.group)
    partitions = _scope(admin, args, committed)
    if not partitions:
        raise CommandError(f"group {args.group!r} has no offsets to reset")
    targets = _targets(admin, args, partitions, committed)
    if args.execute:
        admin.alter_group_offsets(args.group, targets)
    out = Output(args.json)
    if out.as_json:
        out.json(
            {
                "group": args.group,
                "executed": bool(args.execute),
                "offsets": [
                    {"topic": t, "partition": p, "previous_offset": committed.get((t, p)), "new_offset": o}
                    for (t, p), o in sorted(targets.items())
                ],
            }
        )
        return 0
    out.table(
        ("TOPIC", "PARTITION", "PREVIOUS-OFFSET", "NEW-OFFSET"),
        ((t, p, committed.get((t, p)), o) for (t, p), o in sorted(targets.items())),
    )
    if not args.execute:
        out.note("dry run: nothing committed; add --execute to apply")
    return 0


def _delete(args: argparse.Namespace) -> int:
    admin = admin_for(args)
    admin.topics()
    admin.delete_group(args.group)
    out = Output(args.json)
    if out.as_json:
        out.json({"group": args.group, "deleted": True})
    else:
        out.line(f"group {args.group} deleted")
    return 0
