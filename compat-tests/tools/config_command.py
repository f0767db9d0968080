"""Kafka's ConfigCommand (kafka-configs) on users and clients: SCRAM credentials and client quotas.

Each check runs the tool as an operator would, against a broker with no security configured (both
AlterUserScramCredentials and AlterClientQuotas are open there), keeps every ``--describe`` output
with the run's names masked as what both brokers are compared on, and checks the lines an operator
reads: the credentials' mechanisms and iterations, each quota's value, nothing after a deletion.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from kafka_tools import CONFIG_COMMAND, ToolRun, Tools

#: How a check keeps a tool's run (tools/run.py ``_record``).
Record = Callable[[Any, Any, ToolRun], None]
#: ConfigCommand is org.apache.kafka.tools.ConfigCommand in kafka-tools from 4.4.0 (before, it was
#: kafka.admin.ConfigCommand in the broker's own jar), so these checks run that version whatever
#: version the other tools are.
CONFIG_TOOLS_VERSION = "4.4.0"


@cache
def _config_tools(workdir: Path) -> Tools:
    return Tools(CONFIG_TOOLS_VERSION, workdir)


def _configs(ctx: Any, *args: str) -> ToolRun:
    tools = ctx.tools if ctx.tools.version == CONFIG_TOOLS_VERSION else _config_tools(ctx.tools.log4j.parent)
    return tools.run(CONFIG_COMMAND, ["--bootstrap-server", ctx.broker.bootstrap, *args])


def _described(ctx: Any, check: Any, record: Record, names: dict[str, str], *entity: str) -> list[str]:
    run = _configs(ctx, "--describe", *entity)
    record(check, ctx, run)
    text = run.stdout
    for name, mask in names.items():
        text = text.replace(name, mask)
    return [line for line in text.strip().splitlines() if line]


def _mechanisms_sorted(lines: list[str]) -> list[str]:
    """The credentials of a describe line in sorted order: Kafka lists a user's mechanisms in the
    order of a HashMap keyed by its ScramMechanism enum (ScramImage), whose hash is the object's
    identity hash, so the order changes from one JVM run to the next."""
    out = []
    for line in lines:
        head, sep, tail = line.partition(" are ")
        out.append(head + sep + ", ".join(sorted(tail.split(", "))) if sep else line)
    return out


def scram_users(ctx: Any, check: Any, record: Record) -> None:
    """--alter --add-config SCRAM-SHA-256=[iterations=8192,password=...], then SCRAM-SHA-512=[...], for
    a user; both in one --add-config (refused: DuplicateResourceException); --describe; --alter
    --delete-config SCRAM-SHA-512; --describe again."""
    user = f"{ctx.topic}-user"
    names = {user: "<user>"}
    entity = ("--entity-type", "users", "--entity-name", user)
    # One mechanism per run: both brokers refuse a user named twice in one AlterUserScramCredentials.
    for add in ("SCRAM-SHA-256=[iterations=8192,password=tool-secret]", "SCRAM-SHA-512=[password=tool-secret]"):
        record(check, ctx, _configs(ctx, "--alter", "--add-config", add, *entity))
    both_at_once = _configs(
        ctx, "--alter", "--add-config", "SCRAM-SHA-256=[password=x],SCRAM-SHA-512=[password=x]", *entity
    )
    refusal = next((line for line in both_at_once.stderr.splitlines() if "Exception:" in line), "")
    both = _described(ctx, check, record, names, *entity)
    record(check, ctx, _configs(ctx, "--alter", "--delete-config", "SCRAM-SHA-512", *entity))
    one = _described(ctx, check, record, names, *entity)
    if not any("SCRAM-SHA-256=iterations=8192" in line and "SCRAM-SHA-512=iterations=4096" in line for line in both):
        check.problems.append(f"after --add-config: {both}")
    if not any("SCRAM-SHA-256=iterations=8192" in line and "SCRAM-SHA-512" not in line for line in one):
        check.problems.append(f"after --delete-config SCRAM-SHA-512: {one}")
    if both_at_once.returncode == 0 or "DuplicateResourceException" not in refusal:
        check.problems.append(f"both mechanisms in one --add-config were not refused: {refusal!r}")
    check.observed = {"added": _mechanisms_sorted(both), "deleted": one, "both at once": refusal}


def client_quotas(ctx: Any, check: Any, record: Record) -> None:
    """Quotas on a user, a client id, the user and client id together, and the default client id
    (--entity-default): --alter --add-config, --describe each, --alter --delete-config, --describe."""
    user, client = f"{ctx.topic}-quser", f"{ctx.topic}-qclient"
    names = {user: "<user>", client: "<client>"}
    entities = {
        "user": ("--entity-type", "users", "--entity-name", user),
        "client": ("--entity-type", "clients", "--entity-name", client),
        "user+client": ("--entity-type", "users", "--entity-name", user, "--entity-type", "clients", "--entity-name",
                        client),
        "default client": ("--entity-type", "clients", "--entity-default"),
    }  # fmt: skip
    quotas = {
        "user": "producer_byte_rate=1048576,consumer_byte_rate=2097152",
        "client": "request_percentage=50,controller_mutation_rate=10",
        "user+client": "producer_byte_rate=4096",
        "default client": "consumer_byte_rate=8192",
    }
    observed: dict[str, Any] = {}
    for label, entity in entities.items():
        record(check, ctx, _configs(ctx, "--alter", "--add-config", quotas[label], *entity))
    for label, entity in entities.items():
        observed[label] = _described(ctx, check, record, names, *entity)
        for pair in quotas[label].split(","):
            key, value = pair.split("=")
            if not any(f"{key}={float(value)}" in line for line in observed[label]):
                check.problems.append(f"{label}: {key}={float(value)} not described: {observed[label]}")
    for label, entity in entities.items():
        keys = ",".join(pair.split("=")[0] for pair in quotas[label].split(","))
        record(check, ctx, _configs(ctx, "--alter", "--delete-config", keys, *entity))
    observed["after deletion"] = {label: _described(ctx, check, record, names, *e) for label, e in entities.items()}
    for label, lines in observed["after deletion"].items():
        if any("_rate=" in line or "percentage=" in line for line in lines):
            check.problems.append(f"{label}: quotas left after --delete-config: {lines}")
    observed["users listed"] = _described(ctx, check, record, names, "--entity-type", "users")
    check.observed = observed
