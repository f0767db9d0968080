"""Where topics, partitions and error codes sit in a message, read from its schema.

Kafka's messages name a topic by ``name``/``topic``/``topic_name`` or ``topic_id`` inside an array
of topic structs, and a partition by ``partition_index``/``partition``/``index`` inside an array
of partition structs under it (or as a plain ``partition_indexes`` array).  `topic_level` finds
that shape for one message at one version, once, from the schema alone, so the request journal
and fault injection treat every API alike instead of knowing each one:

- `pairs` lists the ``(topic, partition)`` pairs a value names (``partition`` None for an API
  that names whole topics, such as Metadata or CreateTopics);
- `without` copies a request without the pairs a fault refuses, so the handler never acts on them;
- `add_errors` and `overwrite_errors` put an error code where Kafka puts a partition's (or a
  topic's) error in an answer: the entry's ``error_code``, every offset, timestamp and leader
  epoch at -1 and no records, as Kafka's error answers carry them;
- `error_names` lists every non-zero ``error_code`` of a value, and `plain` turns a value into
  JSON-ready data (byte strings and record sets as their sizes).

A message whose topics sit deeper (OffsetFetch v8's groups, transactions' markers) has no topic
level here: its faults fall back to the handler's whole-request error answer.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from odradek.wire.errors import ErrorCode
from odradek.wire.schema import INT32, INT64, RECORDS, UUID, ArrayOf, Field, Message, Primitive, Struct, StructValue

__all__ = [
    "Pair",
    "TopicLevel",
    "add_errors",
    "error_names",
    "names_every_topic",
    "overwrite_errors",
    "pairs",
    "plain",
    "topic_level",
    "without",
]

Pair = tuple[str, int | None]
"""A topic and a partition (None: the whole topic)."""

TopicNames = Callable[[bytes], str | None]
"""A topic's name from its id (requests of v13+ Fetch and Produce name topics by id)."""

_NAME_FIELDS = ("name", "topic", "topic_name")
_PARTITION_KEYS = ("partition_index", "partition", "index", "partition_id")
_PARTITION_INT_ARRAYS = ("partition_indexes", "partitions")
_MINUS_ONE_INT32 = ("leader_epoch", "leader_id", "committed_leader_epoch", "current_leader_epoch")


@functools.cache
def _present(struct: Struct, version: int) -> dict[str, Field]:
    """The fields ``struct`` has at ``version``, by name (the journal walks every answer)."""
    return {f.name: f for f in struct.fields if version in f.versions}


class TopicLevel(NamedTuple):
    """The topic array of one message at one version, and the partition array under it."""

    field: str
    topic_struct: Struct
    name_field: str | None
    id_field: str | None
    partitions_field: str | None
    #: The partition struct, or None when partitions are a plain int array.
    partition_struct: Struct | None
    partition_key: str | None


@functools.cache
def topic_level(message: Message[Any], version: int) -> TopicLevel | None:
    """The topic level of ``message`` at ``version``, or None when it has none at its top."""
    for f in _present(message.struct, version).values():
        if not (isinstance(f.type, ArrayOf) and isinstance(f.type.element, Struct)):
            continue
        element = f.type.element
        fields = _present(element, version)
        name_field = next((n for n in _NAME_FIELDS if n in fields and fields[n].type is Primitive.STRING), None)
        id_field = "topic_id" if "topic_id" in fields and fields["topic_id"].type is UUID else None
        if name_field is None and id_field is None:
            continue
        partitions_field = partition_struct = partition_key = None
        for inner in fields.values():
            if not isinstance(inner.type, ArrayOf):
                continue
            if isinstance(inner.type.element, Struct):
                keys = _present(inner.type.element, version)
                key = next((k for k in _PARTITION_KEYS if k in keys and keys[k].type is INT32), None)
                if key is not None:
                    partitions_field, partition_struct, partition_key = inner.name, inner.type.element, key
                    break
            elif inner.type.element is INT32 and inner.name in _PARTITION_INT_ARRAYS:
                partitions_field = inner.name
                break
        return TopicLevel(f.name, element, name_field, id_field, partitions_field, partition_struct, partition_key)
    return None


def _topic_name(level: TopicLevel, topic: StructValue, names: TopicNames) -> str:
    if level.name_field is not None:
        name = getattr(topic, level.name_field)
        if name:
            return str(name)
    if level.id_field is not None:
        return names(getattr(topic, level.id_field)) or ""
    return ""


def _partition_indexes(level: TopicLevel, topic: StructValue) -> list[int] | None:
    if level.partitions_field is None:
        return None
    entries = getattr(topic, level.partitions_field) or []
    if level.partition_key is None:
        return [int(p) for p in entries]
    return [int(getattr(p, level.partition_key)) for p in entries]


def pairs(message: Message[Any], version: int, value: StructValue, names: TopicNames) -> list[Pair]:
    """Every ``(topic, partition)`` the value names, in order (nothing without a topic level)."""
    level = topic_level(message, version)
    if level is None:
        return []
    found: list[Pair] = []
    for topic in getattr(value, level.field) or []:
        name = _topic_name(level, topic, names)
        indexes = _partition_indexes(level, topic)
        if indexes is None:
            found.append((name, None))
        else:
            found.extend((name, index) for index in indexes)
    return found


def names_every_topic(message: Message[Any], version: int, value: StructValue) -> bool:
    """Whether the value's topic list is null: "every topic" (a Metadata request for all)."""
    level = topic_level(message, version)
    return level is not None and getattr(value, level.field) is None


def _copy(value: StructValue, **changes: Any) -> StructValue:
    fields = {f.name: getattr(value, f.name) for f in value._schema.fields}
    fields.update(changes)
    return type(value)(**fields, unknown_tags=value.unknown_tags)


def without(
    message: Message[Any], version: int, value: StructValue, refused: Callable[[Pair], bool], names: TopicNames
) -> tuple[StructValue, list[tuple[StructValue, list[int] | None]]]:
    """The request without the pairs ``refused`` picks, and the topics it took them from
    (each topic value with the refused partition indexes, or None: the whole topic)."""
    level = topic_level(message, version)
    if level is None or getattr(value, level.field) is None:
        return value, []
    kept_topics: list[StructValue] = []
    taken: list[tuple[StructValue, list[int] | None]] = []
    for topic in getattr(value, level.field) or []:
        name = _topic_name(level, topic, names)
        indexes = _partition_indexes(level, topic)
        if indexes is None:
            if refused((name, None)):
                taken.append((topic, None))
            else:
                kept_topics.append(topic)
            continue
        refused_indexes = [i for i in indexes if refused((name, i))]
        if not refused_indexes:
            kept_topics.append(topic)
            continue
        taken.append((topic, refused_indexes))
        entries = getattr(topic, level.partitions_field or "")
        if level.partition_key is None:
            kept = [p for p in entries if p not in refused_indexes]
        else:
            kept = [p for p in entries if getattr(p, level.partition_key) not in refused_indexes]
        if kept:
            kept_topics.append(_copy(topic, **{level.partitions_field or "": kept}))
    return _copy(value, **{level.field: kept_topics}), taken


def _reset_for_error(value: StructValue, version: int, code: int) -> None:
    """An entry as Kafka's error answers carry it: the code, -1 offsets and epochs, no records."""
    for f in _present(value._schema, version).values():
        if f.name == "error_code":
            setattr(value, f.name, code)
        elif f.type is INT64 or (f.type is INT32 and f.name in _MINUS_ONE_INT32):
            setattr(value, f.name, -1)
        elif f.type is RECORDS:
            setattr(value, f.name, b"")


def _response_topic(
    level: TopicLevel, response: StructValue, version: int, name: str, topic_id: bytes | None
) -> StructValue:
    topics = getattr(response, level.field)
    for topic in topics:
        if level.name_field is not None and getattr(topic, level.name_field) == name and name:
            return topic  # type: ignore[no-any-return]
        if level.id_field is not None and topic_id is not None and getattr(topic, level.id_field) == topic_id:
            return topic  # type: ignore[no-any-return]
    values: dict[str, Any] = {}
    if level.name_field is not None:
        values[level.name_field] = name
    if level.id_field is not None and topic_id is not None:
        values[level.id_field] = topic_id
    topic = level.topic_struct.cls(**values)
    topics.append(topic)
    return topic


def add_errors(
    message: Message[Any],
    version: int,
    response: StructValue,
    taken: Iterable[tuple[str, bytes | None, list[int] | None]],
    code: int,
) -> bool:
    """Add an error entry to ``response`` for each refused topic (name, id, partitions); False
    when the response has no topic level to put them in."""
    level = topic_level(message, version)
    if level is None:
        return False
    for name, topic_id, indexes in taken:
        topic = _response_topic(level, response, version, name, topic_id)
        if indexes is None or level.partitions_field is None or level.partition_struct is None:
            _reset_for_error(topic, version, code)
            continue
        entries = getattr(topic, level.partitions_field)
        for index in indexes:
            entry = level.partition_struct.cls(**{level.partition_key or "": index})
            _reset_for_error(entry, version, code)
            entries.append(entry)
    return True


def overwrite_errors(
    message: Message[Any],
    version: int,
    response: StructValue,
    matches: Callable[[Pair], bool],
    code: int,
    names: TopicNames,
) -> int:
    """Put ``code`` in every entry of ``response`` that ``matches`` picks; how many were changed."""
    level = topic_level(message, version)
    if level is None:
        return 0
    changed = 0
    for topic in getattr(response, level.field) or []:
        name = _topic_name(level, topic, names)
        if level.partitions_field is None or level.partition_struct is None or level.partition_key is None:
            if matches((name, None)):
                _reset_for_error(topic, version, code)
                changed += 1
            continue
        if matches((name, None)) and "error_code" in _present(level.topic_struct, version):
            _reset_for_error(topic, version, code)
            setattr(topic, level.partitions_field, [])
            changed += 1
            continue
        for entry in getattr(topic, level.partitions_field):
            if matches((name, getattr(entry, level.partition_key))):
                _reset_for_error(entry, version, code)
                changed += 1
    return changed


def _walk(value: StructValue, version: int) -> Iterator[tuple[Field, Any]]:
    for f in _present(value._schema, version).values():
        item = getattr(value, f.name)
        yield f, item
        if isinstance(f.type, Struct) and isinstance(item, StructValue):
            yield from _walk(item, version)
        elif isinstance(f.type, ArrayOf) and isinstance(f.type.element, Struct) and item:
            for element in item:
                yield from _walk(element, version)


def error_names(value: StructValue, version: int) -> list[str]:
    """The names of every non-zero ``error_code`` in ``value``, each once, in order."""
    names: list[str] = []
    for f, item in _walk(value, version):
        if f.name == "error_code" and item:
            try:
                name = ErrorCode(item).name
            except ValueError:
                name = str(item)
            if name not in names:
                names.append(name)
    return names


def _plain_scalar(kind: Primitive, item: Any) -> Any:
    if item is None:
        return None
    if kind is UUID:
        return str(uuid.UUID(bytes=bytes(item)))
    if kind is RECORDS:
        return {"record_bytes": len(item)}
    if kind is Primitive.BYTES:
        return {"bytes": len(item)}
    return item


def plain(value: StructValue, version: int) -> dict[str, Any]:
    """``value`` as JSON-ready data: its fields of ``version``, byte strings as their sizes."""
    out: dict[str, Any] = {}
    for f in _present(value._schema, version).values():
        item = getattr(value, f.name)
        if isinstance(f.type, Struct):
            out[f.name] = plain(item, version) if item is not None else None
        elif isinstance(f.type, ArrayOf):
            element = f.type.element
            if item is None:
                out[f.name] = None
            elif isinstance(element, Struct):
                out[f.name] = [plain(e, version) for e in item]
            else:
                out[f.name] = [_plain_scalar(element, e) for e in item]
        else:
            out[f.name] = _plain_scalar(f.type, item)
    return out
