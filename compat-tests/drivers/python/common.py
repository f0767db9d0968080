"""The driver side of the compat-tests protocol (see compat-tests/PROTOCOL.md), shared by the Python drivers.

A driver is a line-oriented loop: one JSON step in on stdin, exactly one JSON observation out on stdout,
flushed at once. Nothing but observations is ever written to stdout: logging goes to stderr. A client
object implements one method per op (``op_<name>``); an exception escaping a method becomes
``{"ok": false, "error": ...}`` through the client's own error-naming function.
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import struct
import sys
import traceback
from collections.abc import Callable
from typing import Any, Protocol

from kafka_errors import KAFKA_ERROR_NAMES

Json = dict[str, Any]

#: Client-side size limits are raised to this so that size errors come from the broker, not the client.
CLIENT_MAX_REQUEST_BYTES = 16 * 1024 * 1024

#: How long a driver waits for one produce flush, admin call or metadata refresh.
OPERATION_TIMEOUT_S = 20.0


class Unsupported(Exception):
    """Raised by an op method when the client cannot perform the step at all."""


class StepFailed(Exception):
    """Raised by an op method to fail the step with ``error`` and extra reply fields (the last state seen)."""

    def __init__(self, error: str, fields: Json) -> None:
        super().__init__(error)
        self.error = error
        self.fields = fields


class Client(Protocol):
    """What serve() needs from a client wrapper."""

    name: str

    def error_name(self, exc: BaseException) -> str: ...

    def close(self) -> None: ...


def b64decode(value: str | None) -> bytes | None:
    """Protocol bytes (standard padded base64) to bytes; null stays None."""
    return None if value is None else base64.b64decode(value)


def b64encode(value: bytes | str | None) -> str | None:
    """Bytes to protocol bytes; a str (some clients decode headers) is UTF-8 encoded first."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.encode()
    return base64.b64encode(value).decode("ascii")


def kafka_error_name(code: int) -> str:
    """Kafka's name for a broker error code, or CLIENT_ERROR when the code is not one of Kafka's."""
    name = KAFKA_ERROR_NAMES.get(code)
    return name if name is not None else f"CLIENT_ERROR:code {code}"


def client_error(text: str) -> str:
    """The protocol's spelling of an error that carries no Kafka error code (kept short, one line)."""
    short = " ".join(text.split())[:120]
    return f"CLIENT_ERROR:{short}"


def normalise_timestamp(ts: int | None) -> int | None:
    """Clients report 'no timestamp' as -1 or None; the protocol says null."""
    return None if ts is None or ts < 0 else ts


def normalise_offset(offset: int | None) -> int:
    """Offsets the client cannot know (acks=0, logical offsets) are reported as -1."""
    return -1 if offset is None or offset < 0 else offset


def headers_out(headers: Any) -> list[list[str | None]]:
    """A client's header list/tuple sequence as protocol [[name, base64 value], ...]."""
    if not headers:
        return []
    out: list[list[str | None]] = []
    for name, value in headers:
        out.append([name.decode() if isinstance(name, bytes) else name, b64encode(value)])
    return out


def headers_in(headers: list[list[Any]] | None) -> list[tuple[str, bytes | None]]:
    """Protocol headers as (name, bytes) tuples, the shape every Python client accepts."""
    return [(name, b64decode(value)) for name, value in headers or []]


def _dispatch(client: Client, step: Json) -> Json:
    op = step.get("op")
    method: Callable[[Json], Json] | None = getattr(client, f"op_{op}", None)
    if method is None:
        return {"ok": False, "unsupported": True}
    try:
        result = method(step)
    except Unsupported:
        return {"ok": False, "unsupported": True}
    except StepFailed as exc:
        return {"ok": False, "error": exc.error, **exc.fields}
    except Exception as exc:
        logging.warning("step %s (%s) failed:\n%s", step.get("id"), op, traceback.format_exc())
        return {"ok": False, "error": client.error_name(exc)}
    return {"ok": True, **result}


def serve(make_client: Callable[[str], Client]) -> int:
    """Run the protocol loop over stdin/stdout until a close step or end of input."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap", required=True)
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    client = make_client(args.bootstrap)
    _emit({"ready": True, "client": client.name})
    for line in sys.stdin:
        if not line.strip():
            continue
        step = json.loads(line)
        if step.get("op") == "close":
            client.close()
            _emit({"step": step.get("id"), "ok": True})
            return 0
        reply = _dispatch(client, step)
        _emit({"step": step.get("id"), **reply})
    client.close()
    return 0


def _emit(obj: Json) -> None:
    sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
    sys.stdout.flush()


#: Kafka's spelling of group states (DescribeGroups/ListGroups), keyed by their upper-snake forms as
#: clients' enums spell them (librdkafka says PREPARING_REBALANCING for PreparingRebalance).
_GROUP_STATES = {
    "EMPTY": "Empty",
    "STABLE": "Stable",
    "DEAD": "Dead",
    "PREPARING_REBALANCE": "PreparingRebalance",
    "PREPARING_REBALANCING": "PreparingRebalance",
    "PREPAREREBALANCE": "PreparingRebalance",
    "PREPARINGREBALANCE": "PreparingRebalance",
    "COMPLETING_REBALANCE": "CompletingRebalance",
    "COMPLETING_REBALANCING": "CompletingRebalance",
    "COMPLETINGREBALANCE": "CompletingRebalance",
    "ASSIGNING": "Assigning",
    "RECONCILING": "Reconciling",
    "UNKNOWN": "Unknown",
}


def group_state(state: Any) -> str:
    """A client's group state (enum, enum name or Kafka's own string) in Kafka's wire spelling."""
    text = str(getattr(state, "name", state)).rsplit(".", 1)[-1]
    return _GROUP_STATES.get(text.upper(), text)


def assignment_pairs(pairs: Any) -> list[list[Any]]:
    """(topic, partition) pairs, or TopicPartition-like objects, as sorted [topic, partition] lists."""
    out: list[list[Any]] = []
    for item in pairs:
        if isinstance(item, tuple | list):
            out.append([item[0], int(item[1])])
        else:
            out.append([item.topic, int(item.partition)])
    return sorted(out)


def sorted_members(assignments: list[list[list[Any]]]) -> list[Json]:
    """Group members as protocol objects, ordered by their assignment (member ids are random)."""
    return [{"assignment": a} for a in sorted(assignments, key=json.dumps)]


def covers_exactly(assignments: list[list[list[Any]]], total: int) -> bool:
    """Every member owns something and together they own each of ``total`` partitions once."""
    owned = [tuple(pair) for a in assignments for pair in a]
    return all(assignments) and len(owned) == len(set(owned)) == total


def sorted_records(records: list[Json]) -> list[Json]:
    """Records of a group consumer ordered by partition, then offset (cross-partition order is free)."""
    return sorted(records, key=lambda r: (r["partition"], r["offset"]))


def commit_points(consumed: list[tuple[str, int, int]]) -> dict[tuple[str, int], int]:
    """What a group consumer commits for (topic, partition, offset) records: the next offset to read."""
    points: dict[tuple[str, int], int] = {}
    for topic, partition, offset in consumed:
        points[(topic, partition)] = max(points.get((topic, partition), 0), offset + 1)
    return dict(sorted(points.items()))


def decode_consumer_assignment(data: bytes | None) -> list[list[Any]]:
    """The [topic, partition] pairs of a consumer-protocol Assignment (bytes as DescribeGroups returns).

    Grammar: version:int16, topics:int32 count of (name:int16-length string, partitions:int32 count
    of int32), then user data (ignored)."""
    if not data:
        return []
    view = memoryview(data)
    pos = 2
    pairs: list[list[Any]] = []
    (topics,) = struct.unpack_from(">i", view, pos)
    pos += 4
    for _ in range(max(topics, 0)):
        (length,) = struct.unpack_from(">h", view, pos)
        pos += 2
        name = bytes(view[pos : pos + length]).decode()
        pos += length
        (count,) = struct.unpack_from(">i", view, pos)
        pos += 4
        for partition in struct.unpack_from(f">{max(count, 0)}i", view, pos):
            pairs.append([name, partition])
        pos += 4 * max(count, 0)
    return sorted(pairs)


#: DescribeConfigs' config source codes as Kafka's Admin API spells them (ConfigEntry.ConfigSource).
_CONFIG_SOURCES = {
    0: "UNKNOWN",
    1: "DYNAMIC_TOPIC_CONFIG",
    2: "DYNAMIC_BROKER_CONFIG",
    3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
    4: "STATIC_BROKER_CONFIG",
    5: "DEFAULT_CONFIG",
    6: "DYNAMIC_BROKER_LOGGER_CONFIG",
    7: "DYNAMIC_CLIENT_METRICS_CONFIG",
    8: "DYNAMIC_GROUP_CONFIG",
}


def config_source(source: Any) -> str:
    """A config source (wire code, or a client enum whose value is the wire code) in Kafka's spelling."""
    code = getattr(source, "value", source)
    return _CONFIG_SOURCES.get(int(code), f"UNKNOWN({code})") if isinstance(code, int) else str(code)


def config_entry(
    value: str | None,
    source: Any,
    read_only: bool,
    sensitive: bool,
    synonyms: list[tuple[str, str | None, Any]] | None = None,
    is_default: bool | None = None,
) -> Json:
    """One describe_configs entry; ``synonyms`` (name, value, source) in the broker's order, if asked."""
    entry: Json = {"value": value, "source": config_source(source), "read_only": read_only, "sensitive": sensitive}
    if is_default is not None:
        entry["is_default"] = is_default
    if synonyms is not None:
        entry["synonyms"] = [{"name": n, "value": v, "source": config_source(s)} for n, v, s in synonyms]
    return entry


def wanted_configs(step: Json, described: dict[str, Json]) -> Json:
    """The describe_configs result: only the names the step asked for that the broker described."""
    names = step.get("names")
    if names is None:
        return {"configs": dict(sorted(described.items()))}
    return {"configs": {name: described[name] for name in names if name in described}}


ProducerSettings = tuple[str, str, bool, int]


def producer_settings(step: Json) -> ProducerSettings:
    """(acks, compression, idempotent, linger ms) of a produce step: the key drivers cache producers by."""
    return (
        str(step.get("acks", "all")),
        str(step.get("compression", "none")),
        bool(step.get("idempotent", False)),
        int(step.get("linger_ms", 5)),
    )
