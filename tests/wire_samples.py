"""Message values built from the schemas themselves, for every message and version.

Every field present in the version gets a value that differs from its default (so a field the
codec dropped, or a tag it skipped, shows up as a difference); with ``nulls`` every field that
is nullable in that version is null instead.  Used by the codec round-trip tests and as the
generated seeds of the fuzz targets, so a message added to the registry is covered by both
without a line written for it.
"""

from __future__ import annotations

from typing import Any

from odradek.wire.schema import ArrayOf, Field, Primitive, Struct, StructValue

__all__ = ["primitive_sample", "sample_value"]


def primitive_sample(f: Field, kind: Primitive, seed: int) -> Any:
    """A value of ``kind`` that differs from the field's default (and from zero and -1)."""
    if kind is Primitive.BOOL:
        return not f.default_value()
    samples: dict[Primitive, Any] = {
        Primitive.INT8: 2 + seed % 100,
        Primitive.INT16: 300 + seed,  # seeds stay below 10_000
        Primitive.UINT16: 40_000 + seed,
        Primitive.INT32: 70_000 + seed,
        Primitive.INT64: (1 << 40) + seed,
        Primitive.FLOAT64: 1.5 + seed,
        Primitive.STRING: f"s{seed}-é",
        Primitive.BYTES: bytes([seed % 256, 0, 255]),
        Primitive.UUID: bytes((seed + i) % 256 for i in range(16)),
        Primitive.RECORDS: b"records-" + bytes([seed % 256]),
    }
    return samples[kind]


def sample_value(struct: Struct, version: int, seed: int, nulls: bool) -> StructValue:
    """A value of ``struct`` at ``version`` with every present field set (see the module docstring)."""
    values: dict[str, Any] = {}
    for index, f in enumerate(struct.fields):
        if version not in f.versions:
            continue
        if nulls and version in f.nullable:
            values[f.name] = None
            continue
        field_seed = (seed * 31 + index) % 10_000
        if isinstance(f.type, Struct):
            values[f.name] = sample_value(f.type, version, field_seed, nulls)
        elif isinstance(f.type, ArrayOf):
            element = f.type.element
            if isinstance(element, Struct):
                values[f.name] = [sample_value(element, version, field_seed + k, nulls) for k in (1, 2)]
            else:
                values[f.name] = [primitive_sample(f, element, field_seed + k) for k in (1, 2)]
        else:
            values[f.name] = primitive_sample(f, f.type, field_seed)
    return struct.cls(**values)
