"""Random values of odradek's message schemas, and field-by-field comparison with kafka-clients' JSON.

Random values follow the schema of one version: every field the version has gets a value; nullable
fields are null about a quarter of the time; tagged fields keep their default about half the time;
arrays hold 0-3 elements; flexible structs sometimes carry unknown tagged fields (tags >= 100, so they
never collide with a tag Kafka knows).

The comparison reads the Java side's rendering of kafka-clients' parsed message (every field of the
version, tagged ones at their default too). Its keys are Kafka's field names in lower camel case;
odradek's are the same names in snake case, so both are matched after lower-casing and dropping
underscores. Bytes and records are base64 text, uuids Kafka's url-safe base64 text.
"""

from __future__ import annotations

import base64
import math
import random
from typing import Any

from odradek.wire.schema import ArrayOf, Field, Primitive, Struct, StructValue

_ALPHABET = "abcXYZ09-_.é中"
_SPECIALS = ("😀", "\x00", "ß")
_RANGES: dict[Primitive, tuple[int, int]] = {
    Primitive.INT8: (-(2**7), 2**7 - 1),
    Primitive.INT16: (-(2**15), 2**15 - 1),
    Primitive.UINT16: (0, 2**16 - 1),
    Primitive.INT32: (-(2**31), 2**31 - 1),
    Primitive.INT64: (-(2**63), 2**63 - 1),
}
UNKNOWN_TAG_BASE = 100


def _norm(name: str) -> str:
    return name.replace("_", "").lower()


def _is_tagged(f: Field, version: int, flexible: bool) -> bool:
    return flexible and f.tag is not None and version in f.tagged


def random_struct(struct: Struct, version: int, flexible: bool, rng: random.Random) -> StructValue:
    """A random value of ``struct`` carrying only fields that exist at ``version``."""
    values: dict[str, Any] = {}
    for f in struct.fields:
        if version not in f.versions:
            continue
        if _is_tagged(f, version, flexible) and rng.random() < 0.5:
            continue
        if version in f.nullable and rng.random() < 0.25:
            values[f.name] = None
        else:
            values[f.name] = _random_of(f.type, version, flexible, rng)
    if flexible and rng.random() < 0.15:
        tags = sorted(rng.sample(range(UNKNOWN_TAG_BASE, UNKNOWN_TAG_BASE + 8), rng.randint(1, 2)))
        values["unknown_tags"] = {tag: rng.randbytes(rng.randint(0, 4)) for tag in tags}
    return struct.cls(**values)


def _random_of(kind: Primitive | ArrayOf | Struct, version: int, flexible: bool, rng: random.Random) -> Any:
    if isinstance(kind, ArrayOf):
        return [_random_of(kind.element, version, flexible, rng) for _ in range(rng.randint(0, 3))]
    if isinstance(kind, Struct):
        return random_struct(kind, version, flexible, rng)
    if kind in _RANGES:
        low, high = _RANGES[kind]
        return _random_int(low, high, rng)
    if kind is Primitive.BOOL:
        return rng.random() < 0.5
    if kind is Primitive.FLOAT64:
        return rng.choice((0.0, -0.0, 1.5, rng.uniform(-5e5, 5e5)))
    if kind is Primitive.STRING:
        return "".join(
            rng.choice(_SPECIALS) if rng.random() < 0.08 else rng.choice(_ALPHABET) for _ in range(rng.randint(0, 9))
        )
    if kind is Primitive.UUID:
        return bytes(16) if rng.random() < 0.2 else rng.randbytes(16)
    return rng.randbytes(rng.randint(0, 12))  # BYTES and RECORDS


def _random_int(low: int, high: int, rng: random.Random) -> int:
    choice = rng.randrange(3)
    if choice == 0:
        return max(low, min(high, rng.randint(-2, 10)))
    if choice == 1:
        return max(low, min(high, rng.choice((low, high, -1, 0, 1))))
    return rng.randint(low, high)


def compare(struct: Struct, version: int, flexible: bool, value: Any, kafka: Any, path: str = "") -> list[str]:
    """Differences between odradek's decoded ``value`` and kafka-clients' JSON of the same bytes."""
    if kafka is None or value is None:
        return [] if kafka is None and value is None else [f"{path or '.'}: odradek {value!r} vs kafka {kafka!r}"]
    if not isinstance(kafka, dict):
        return [f"{path or '.'}: kafka has {kafka!r} where odradek has a struct"]
    fields = {_norm(f.name): f for f in struct.fields}
    problems: list[str] = []
    seen: set[str] = set()
    for key, kafka_value in kafka.items():
        f = fields.get(_norm(key))
        where = f"{path}.{key}"
        if f is None or version not in f.versions:
            problems.append(f"{where}: Kafka has this field at v{version}, odradek does not")
            continue
        seen.add(f.name)
        problems.extend(_compare_value(f.type, version, flexible, getattr(value, f.name), kafka_value, where))
    for f in struct.fields:
        if version in f.versions and f.name not in seen:
            problems.append(f"{path}.{f.name}: odradek has this field at v{version}, Kafka does not")
    return problems


def _compare_value(
    kind: Primitive | ArrayOf | Struct, version: int, flexible: bool, ours: Any, kafka: Any, path: str
) -> list[str]:
    if isinstance(kind, Struct):
        return compare(kind, version, flexible, ours, kafka, path)
    if ours is None or kafka is None:
        return [] if ours is None and kafka is None else [f"{path}: odradek {_show(ours)} vs kafka {kafka!r}"]
    if isinstance(kind, ArrayOf):
        if not isinstance(kafka, list) or len(kafka) != len(ours):
            return [f"{path}: odradek {len(ours)} items vs kafka {kafka!r}"]
        return [
            problem
            for i, (a, b) in enumerate(zip(ours, kafka, strict=True))
            for problem in _compare_value(kind.element, version, flexible, a, b, f"{path}[{i}]")
        ]
    expected = _kafka_form(kind, ours)
    same = expected == kafka
    if kind is Primitive.FLOAT64 and isinstance(kafka, float | int):
        same = math.copysign(1.0, ours) == math.copysign(1.0, kafka) and float(ours) == float(kafka)
    return [] if same else [f"{path}: odradek {_show(ours)} vs kafka {kafka!r}"]


def _kafka_form(kind: Primitive, ours: Any) -> Any:
    """odradek's value in the form kafka-clients' JSON converter writes it."""
    if kind in (Primitive.BYTES, Primitive.RECORDS):
        return base64.b64encode(bytes(ours)).decode("ascii")
    if kind is Primitive.UUID:
        return base64.urlsafe_b64encode(bytes(ours)).decode("ascii").rstrip("=")
    return ours


def _show(value: Any) -> str:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex() or "b''"
    return repr(value)
