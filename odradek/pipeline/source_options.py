"""The options of the ``odradek`` Python data source, parsed and checked before any broker is asked.

The names are those of Spark's own Kafka connector wherever the connector has one:

=========================== ====================================================================
``kafka.bootstrap.servers`` required
``subscribe``               comma-separated topic names (each must exist)
``subscribePattern``        a regular expression matched against whole topic names
``assign``                  JSON ``{"topic": [0, 1]}``; exactly one of the three subscriptions
``startingOffsets``         ``earliest``, ``latest`` (streaming only) or JSON
                            ``{"topic": {"0": 23, "1": -2}}`` (-2 earliest, -1 latest);
                            default ``earliest`` for a batch read, ``latest`` for a stream
``endingOffsets``           batch only: ``latest`` (default) or JSON (-1 latest)
``includeHeaders``          adds the ``headers`` column (default false)
``failOnDataLoss``          fail when offsets to read were deleted from the log (default true);
                            false skips them
``maxOffsetsPerTrigger``    streaming: at most this many offsets per micro-batch
``kafka.<name>``            a consumer setting handed to librdkafka (same names as the Java
                            client's for the common ones: ``isolation.level``, ``client.id``,
                            ``security.protocol``, ``sasl.*``, ...)
=========================== ====================================================================

``kafka.default.api.timeout.ms`` (default 60000) bounds every wait for the broker: metadata and
offset queries when planning, and a read that stops making progress. Any other option is an error
that names it, so that a misspelt option never silently reads something else.

Invariant: a :class:`SourceOptions` is plain data (picklable), valid on its own; whether its topics,
partitions and offsets exist is checked against the broker later, by :mod:`.source_plan`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EARLIEST",
    "LATEST",
    "OffsetSpec",
    "SourceOptionError",
    "SourceOptions",
    "parse_options",
    "wants_headers",
]

#: Spark's sentinels inside JSON offsets.
EARLIEST = -2
LATEST = -1

#: An offset specification: "earliest", "latest", or explicit offsets per topic and partition.
OffsetSpec = str | dict[str, dict[int, int]]

_KNOWN = {
    "kafka.bootstrap.servers",
    "subscribe",
    "subscribepattern",
    "assign",
    "startingoffsets",
    "endingoffsets",
    "includeheaders",
    "failondataloss",
    "maxoffsetspertrigger",
}
#: Java client settings with no librdkafka counterpart that Spark users commonly pass.
_JAVA_ONLY = {"kafka.default.api.timeout.ms"}
#: Settings the source owns itself; a user value would break its reads.
_RESERVED = {
    "kafka.group.id",
    "kafka.enable.auto.commit",
    "kafka.auto.offset.reset",
    "kafka.enable.partition.eof",
    "kafka.key.deserializer",
    "kafka.value.deserializer",
}


class SourceOptionError(ValueError):
    """An option is missing, unknown or malformed; the message names it."""


@dataclass(frozen=True, slots=True)
class SourceOptions:
    """The checked options of one read (see the module docstring for their meaning)."""

    bootstrap: str
    topics: tuple[str, ...] = ()
    pattern: str | None = None
    assign: dict[str, tuple[int, ...]] | None = None
    starting: OffsetSpec = "earliest"
    ending: OffsetSpec = "latest"
    include_headers: bool = False
    fail_on_data_loss: bool = True
    max_offsets_per_trigger: int | None = None
    read_committed: bool = False
    timeout_ms: int = 60_000
    consumer_config: dict[str, str] = field(default_factory=dict)

    def describe_subscription(self) -> str:
        if self.pattern is not None:
            return f"subscribePattern {self.pattern!r}"
        if self.assign is not None:
            return f"assign {json.dumps({t: list(p) for t, p in self.assign.items()})}"
        return f"subscribe {','.join(self.topics)!r}"


def _bool(name: str, text: str) -> bool:
    lowered = text.strip().lower()
    if lowered not in ("true", "false"):
        raise SourceOptionError(f"option {name} must be true or false, got {text!r}")
    return lowered == "true"


def _offsets_json(name: str, text: str, allowed_sentinels: tuple[int, ...]) -> dict[str, dict[int, int]]:
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceOptionError(f"option {name} is neither earliest, latest nor JSON offsets: {exc}") from exc
    if not isinstance(data, dict) or not data:
        raise SourceOptionError(f'option {name} must be a JSON object like {{"topic": {{"0": 23}}}}, got {text!r}')
    spec: dict[str, dict[int, int]] = {}
    for topic, partitions in data.items():
        if not isinstance(partitions, dict):
            raise SourceOptionError(f"option {name}: topic {topic!r} must map partitions to offsets")
        spec[topic] = {}
        for partition, offset in partitions.items():
            if not str(partition).isdigit() or not isinstance(offset, int) or isinstance(offset, bool):
                raise SourceOptionError(
                    f"option {name}: {topic!r} partition {partition!r} must map to an integer offset, got {offset!r}"
                )
            if offset < 0 and offset not in allowed_sentinels:
                words = " or ".join(f"{s} ({'earliest' if s == EARLIEST else 'latest'})" for s in allowed_sentinels)
                raise SourceOptionError(
                    f"option {name}: offset {offset} for {topic}-{partition} is not allowed here "
                    f"(a negative offset may only be {words or 'nothing'})"
                )
            spec[topic][int(partition)] = offset
    return spec


def _offset_spec(name: str, text: str | None, default: str, words: tuple[str, ...], sentinels: tuple[int, ...]) -> Any:
    if text is None:
        return default
    stripped = text.strip()
    if stripped.lower() in words:
        return stripped.lower()
    if stripped.lower() in ("earliest", "latest"):
        raise SourceOptionError(f"option {name} cannot be {stripped.lower()} for this kind of query")
    return _offsets_json(name, stripped, sentinels)


def _assign(text: str) -> dict[str, tuple[int, ...]]:
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceOptionError(f'option assign must be JSON like {{"topic": [0, 1]}}: {exc}') from exc
    if not isinstance(data, dict) or not data:
        raise SourceOptionError(f'option assign must be a JSON object like {{"topic": [0, 1]}}, got {text!r}')
    assign: dict[str, tuple[int, ...]] = {}
    for topic, partitions in data.items():
        if not isinstance(partitions, list) or not all(isinstance(p, int) and p >= 0 for p in partitions):
            raise SourceOptionError(f"option assign: topic {topic!r} must map to a list of partition numbers")
        assign[topic] = tuple(sorted(set(partitions)))
    return assign


def wants_headers(options: Mapping[str, str]) -> bool:
    """The ``includeHeaders`` option alone (it decides the schema, asked before the read's kind is known)."""
    lowered = {key.lower(): value for key, value in options.items()}
    return _bool("includeHeaders", lowered.get("includeheaders", "false"))


def parse_options(options: Mapping[str, str], streaming: bool) -> SourceOptions:
    """Check ``options`` (names case-insensitive, as Spark hands them over) for a batch or streaming read."""
    lowered = {key.lower(): value for key, value in options.items()}
    for key in sorted(lowered):
        if key in _RESERVED:
            raise SourceOptionError(f"option {key} is set by the odradek source itself and cannot be given")
        if key not in _KNOWN and key not in _JAVA_ONLY and not key.startswith("kafka."):
            raise SourceOptionError(f"unknown option {key!r} for the odradek source")
    bootstrap = lowered.get("kafka.bootstrap.servers", "").strip()
    if not bootstrap:
        raise SourceOptionError("option kafka.bootstrap.servers is required")
    given = [name for name in ("subscribe", "subscribepattern", "assign") if name in lowered]
    if len(given) != 1:
        raise SourceOptionError(
            f"exactly one of subscribe, subscribePattern and assign must be given, got {', '.join(given) or 'none'}"
        )
    topics: tuple[str, ...] = ()
    pattern = None
    assign = None
    if "subscribe" in lowered:
        topics = tuple(name.strip() for name in lowered["subscribe"].split(",") if name.strip())
        if not topics:
            raise SourceOptionError("option subscribe names no topic")
    elif "subscribepattern" in lowered:
        pattern = lowered["subscribepattern"]
        try:
            re.compile(pattern)
        except re.error as exc:
            raise SourceOptionError(f"option subscribePattern {pattern!r} is not a regular expression: {exc}") from exc
    else:
        assign = _assign(lowered["assign"])
    if streaming:
        if "endingoffsets" in lowered:
            raise SourceOptionError("option endingOffsets is for batch reads only")
        starting = _offset_spec(
            "startingOffsets", lowered.get("startingoffsets"), "latest", ("earliest", "latest"), (EARLIEST, LATEST)
        )
        ending: OffsetSpec = "latest"
    else:
        if "maxoffsetspertrigger" in lowered:
            raise SourceOptionError("option maxOffsetsPerTrigger is for streaming reads only")
        starting = _offset_spec(
            "startingOffsets", lowered.get("startingoffsets"), "earliest", ("earliest",), (EARLIEST,)
        )
        ending = _offset_spec("endingOffsets", lowered.get("endingoffsets"), "latest", ("latest",), (LATEST,))
    max_per_trigger = None
    if "maxoffsetspertrigger" in lowered:
        text = lowered["maxoffsetspertrigger"].strip()
        if not text.isdigit() or int(text) == 0:
            raise SourceOptionError(f"option maxOffsetsPerTrigger must be a positive integer, got {text!r}")
        max_per_trigger = int(text)
    timeout_text = lowered.get("kafka.default.api.timeout.ms", "60000").strip()
    if not timeout_text.isdigit() or int(timeout_text) == 0:
        raise SourceOptionError(f"option kafka.default.api.timeout.ms must be a positive integer, got {timeout_text!r}")
    consumer = {
        key.removeprefix("kafka."): value
        for key, value in lowered.items()
        if key.startswith("kafka.") and key not in _JAVA_ONLY and key != "kafka.bootstrap.servers"
    }
    isolation = consumer.get("isolation.level", "read_uncommitted").strip().lower()
    if isolation not in ("read_uncommitted", "read_committed"):
        raise SourceOptionError(
            f"option kafka.isolation.level must be read_uncommitted or read_committed, got {isolation!r}"
        )
    return SourceOptions(
        bootstrap=bootstrap,
        topics=topics,
        pattern=pattern,
        assign=assign,
        starting=starting,
        ending=ending,
        include_headers=_bool("includeHeaders", lowered.get("includeheaders", "false")),
        fail_on_data_loss=_bool("failOnDataLoss", lowered.get("failondataloss", "true")),
        max_offsets_per_trigger=max_per_trigger,
        read_committed=isolation == "read_committed",
        timeout_ms=int(timeout_text),
        consumer_config=consumer,
    )
