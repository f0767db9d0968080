"""The options of the ``odradek`` Python data source, parsed and checked before any broker is asked.

The names are those of Spark's own Kafka connector wherever the connector has one:

====================================== =========================================================
``kafka.bootstrap.servers``            required
``subscribe``                          comma-separated topic names (each must exist)
``subscribePattern``                   a regular expression matched against whole topic names:
                                       Python's dialect, refused where Java's would select
                                       other topics (:mod:`.topic_pattern`)
``assign``                             JSON ``{"topic": [0, 1]}``; exactly one of the three
                                       subscriptions
``startingOffsets``                    ``earliest``, ``latest`` (streaming only) or JSON
                                       ``{"topic": {"0": 23, "1": -2}}`` (-2 earliest, -1
                                       latest); default ``earliest`` for a batch read,
                                       ``latest`` for a stream
``startingOffsetsByTimestamp``         JSON ``{"topic": {"0": 1700000000000}}``: in each
                                       partition, the first offset whose record timestamp (ms)
                                       is at or after the given one (Kafka's ListOffsets)
``startingTimestamp``                  one such timestamp for every partition
``startingOffsetsByTimestampStrategy`` where no record is that late: ``error`` (default) fails
                                       the read, ``latest`` starts at the latest offset
``endingOffsets``                      batch only: ``latest`` (default) or JSON (-1 latest)
``endingOffsetsByTimestamp``           batch only, as the starting one; where no record is that
                                       late, the read ends at the latest offset
``endingTimestamp``                    batch only: one timestamp for every partition
``includeHeaders``                     adds the ``headers`` column (default false)
``failOnDataLoss``                     fail when offsets to read were deleted from the log, or
                                       when a stream's partition went back (its topic deleted
                                       and created again) or away (default true); false skips
                                       what was lost, as Spark's connector does
``maxOffsetsPerTrigger``               streaming: at most this many offsets per micro-batch
``minPartitions``                      about this many Spark tasks at least: large offset
                                       ranges are split as Spark's connector splits them
                                       (:mod:`.range_split`)
``maxRecordsPerPartition``             at most this many offsets per Spark task
``kafka.<name>``                       a consumer setting handed to librdkafka (same names as
                                       the Java client's for the common ones:
                                       ``isolation.level``, ``client.id``,
                                       ``security.protocol``, ``sasl.*``, ...)
====================================== =========================================================

As in Spark, ``startingTimestamp`` wins over ``startingOffsetsByTimestamp``, which wins over
``startingOffsets`` (and the same for the ending options); JSON offsets and timestamps must name
every subscribed partition. ``kafka.default.api.timeout.ms`` (default 60000) bounds every wait for
the broker: metadata and offset queries when planning, and a read that stops making progress. Any
other option is an error that names it, so that a misspelt option never silently reads something
else.

Invariant: a :class:`SourceOptions` is plain data (picklable), valid on its own; whether its topics,
partitions and offsets exist is checked against the broker later, by :mod:`.source_plan`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from odradek.pipeline.topic_pattern import TopicPatternError, compile_topic_pattern

__all__ = [
    "EARLIEST",
    "LATEST",
    "ByTimestamp",
    "OffsetSpec",
    "SourceOptionError",
    "SourceOptions",
    "parse_options",
    "wants_headers",
]

#: Spark's sentinels inside JSON offsets.
EARLIEST = -2
LATEST = -1


@dataclass(frozen=True, slots=True)
class ByTimestamp:
    """Offsets found by record time: in each partition, the first offset whose record timestamp is at
    or after the one given, ``everywhere`` (``startingTimestamp``/``endingTimestamp``) or per
    partition (``...OffsetsByTimestamp``, ``{"topic": {partition: timestamp_ms}}``); exactly one is set."""

    everywhere: int | None = None
    per_partition: dict[str, dict[int, int]] | None = None


#: An offset specification: "earliest", "latest", explicit offsets per topic and partition, or by timestamp.
OffsetSpec = str | dict[str, dict[int, int]] | ByTimestamp

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
    "startingtimestamp",
    "endingtimestamp",
    "startingoffsetsbytimestamp",
    "endingoffsetsbytimestamp",
    "startingoffsetsbytimestampstrategy",
    "minpartitions",
    "maxrecordsperpartition",
}
#: The batch-only ending options, lower-case and as Spark spells them.
_ENDING = {
    "endingoffsets": "endingOffsets",
    "endingoffsetsbytimestamp": "endingOffsetsByTimestamp",
    "endingtimestamp": "endingTimestamp",
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
    latest_when_no_timestamp_matches: bool = False
    min_partitions: int | None = None
    max_records_per_partition: int | None = None
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


def _positive(name: str, text: str | None) -> int | None:
    if text is None:
        return None
    stripped = text.strip()
    if not stripped.isdigit() or int(stripped) == 0:
        raise SourceOptionError(f"option {name} must be a positive integer, got {text!r}")
    return int(stripped)


def _offsets_json(name: str, text: str, allowed_sentinels: tuple[int, ...] | None) -> dict[str, dict[int, int]]:
    """JSON ``{"topic": {"0": n}}``; negative values only among ``allowed_sentinels`` (None: any value)."""
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
            if allowed_sentinels is not None and offset < 0 and offset not in allowed_sentinels:
                words = " or ".join(f"{s} ({'earliest' if s == EARLIEST else 'latest'})" for s in allowed_sentinels)
                raise SourceOptionError(
                    f"option {name}: offset {offset} for {topic}-{partition} is not allowed here "
                    f"(a negative offset may only be {words or 'nothing'})"
                )
            spec[topic][int(partition)] = offset
    return spec


def _offset_spec(
    lowered: Mapping[str, str], bound: str, default: str, words: tuple[str, ...], sentinels: tuple[int, ...]
) -> OffsetSpec:
    """The ``starting`` or ``ending`` bound (``bound``), from the first of Spark's three options given."""
    if f"{bound}timestamp" in lowered:
        timestamp_text = lowered[f"{bound}timestamp"].strip()
        try:
            return ByTimestamp(everywhere=int(timestamp_text))
        except ValueError:
            raise SourceOptionError(
                f"option {bound}Timestamp must be one timestamp in ms, got {timestamp_text!r}"
            ) from None
    if f"{bound}offsetsbytimestamp" in lowered:
        return ByTimestamp(
            per_partition=_offsets_json(f"{bound}OffsetsByTimestamp", lowered[f"{bound}offsetsbytimestamp"], None)
        )
    name = f"{bound}Offsets"
    offsets_text = lowered.get(f"{bound}offsets")
    if offsets_text is None:
        return default
    stripped = offsets_text.strip()
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
            compile_topic_pattern(pattern)
        except TopicPatternError as exc:
            raise SourceOptionError(
                f"option subscribePattern {pattern!r} is refused: {exc}. The odradek source reads the pattern "
                "with Python's re module, and accepts only what Java's java.util.regex (Spark's connector) "
                "reads the same way"
            ) from exc
    else:
        assign = _assign(lowered["assign"])
    if streaming:
        for name, spelt in _ENDING.items():
            if name in lowered:
                raise SourceOptionError(f"option {spelt} is for batch reads only")
        starting = _offset_spec(lowered, "starting", "latest", ("earliest", "latest"), (EARLIEST, LATEST))
        ending: OffsetSpec = "latest"
    else:
        if "maxoffsetspertrigger" in lowered:
            raise SourceOptionError("option maxOffsetsPerTrigger is for streaming reads only")
        starting = _offset_spec(lowered, "starting", "earliest", ("earliest",), (EARLIEST,))
        ending = _offset_spec(lowered, "ending", "latest", ("latest",), (LATEST,))
    strategy = lowered.get("startingoffsetsbytimestampstrategy", "error").strip().lower()
    if strategy not in ("error", "latest"):
        raise SourceOptionError(f"option startingOffsetsByTimestampStrategy must be error or latest, got {strategy!r}")
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
        max_offsets_per_trigger=_positive("maxOffsetsPerTrigger", lowered.get("maxoffsetspertrigger")),
        latest_when_no_timestamp_matches=strategy == "latest",
        min_partitions=_positive("minPartitions", lowered.get("minpartitions")),
        max_records_per_partition=_positive("maxRecordsPerPartition", lowered.get("maxrecordsperpartition")),
        read_committed=isolation == "read_committed",
        timeout_ms=int(timeout_text),
        consumer_config=consumer,
    )
