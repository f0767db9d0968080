"""Planning reads of the ``odradek`` data source: which partitions, and which offsets of each.

Everything here runs on the Spark driver and asks the broker through one confluent-kafka admin
client (Metadata, then ListOffsets with the read's isolation level, so that ``latest`` is the last
stable offset for a ``read_committed`` read, and a timestamp past the last stable offset finds
nothing). Every mistake in the input is found here, before any task runs and so before any output
is written, and raised as :class:`SourcePlanError` naming the broker address, the topic, the
partition or the offset at fault:

* the broker does not answer within ``kafka.default.api.timeout.ms``;
* a subscribed or assigned topic, or an assigned partition, does not exist (a batch
  ``subscribePattern`` matching nothing too; a stream may wait for its topics to appear);
* JSON offsets or timestamps name a partition outside the subscription, or leave one of its
  partitions out;
* no record is as late as a starting timestamp while ``startingOffsetsByTimestampStrategy`` is
  ``error`` (``latest`` starts at the latest offset instead; an ending timestamp that no record
  reaches ends at the latest offset);
* an offset lies past the partition's end, an ending offset before its starting offset, or a
  starting offset before the log start offset while ``failOnDataLoss`` is true (when false, the
  read starts at the log start offset instead).

Streaming offsets are ``{"topic:partition": next_offset}``. A partition that appears while a query
runs (a new topic matching the pattern, added partitions) first enters the offsets at its log start
offset with nothing read, and is read from there by the next micro-batch, so every micro-batch's
ranges follow from its start and end offsets alone (a restarted query replays them exactly). A
partition whose latest offset went back below the query's offset (its topic was deleted and created
again) or that went away fails the query under ``failOnDataLoss``; otherwise, as with Spark's
connector, the micro-batch ends at the new latest offset with nothing read from that partition (the
records of the new log below that offset are skipped), and a partition that went away leaves the
offsets (were it to come back, it would be new, read from its log start) (:func:`stream_end_offsets`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from confluent_kafka import IsolationLevel, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from odradek.pipeline.offset_ranges import OffsetRange, split_batch
from odradek.pipeline.source_options import EARLIEST, LATEST, ByTimestamp, SourceOptions
from odradek.pipeline.source_options import OffsetSpec as SourceOffsetSpec
from odradek.pipeline.topic_pattern import compile_topic_pattern

__all__ = [
    "Bounds",
    "SourcePlanError",
    "TopicPartitionKey",
    "Topology",
    "limit_offsets",
    "offset_key",
    "parse_key",
    "plan_batch",
    "starting_offsets",
    "stream_end_offsets",
    "timestamp_offsets",
]

log = logging.getLogger("odradek.pipeline.source")

TopicPartitionKey = tuple[str, int]


class SourcePlanError(RuntimeError):
    """The broker is unreachable, or the input names something it does not hold (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class Bounds:
    """A partition's offsets when asked: ``earliest`` (log start) <= ``latest`` (high watermark, or
    last stable offset for read_committed)."""

    earliest: int
    latest: int


def offset_key(topic: str, partition: int) -> str:
    return f"{topic}:{partition}"


def parse_key(key: str) -> TopicPartitionKey:
    """``"topic:partition"`` back to a pair (a topic name never holds ':')."""
    topic, _, partition = key.rpartition(":")
    return topic, int(partition)


class Topology:
    """The partitions a read's subscription covers and their offset bounds, asked of the broker."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options
        config: dict[str, str | int | float | bool] = {
            key: value for key, value in options.consumer_config.items() if key != "isolation.level"
        }
        config["bootstrap.servers"] = options.bootstrap
        self._admin = AdminClient(config, logger=log)
        self._timeout_s = options.timeout_ms / 1000

    def partitions(self, streaming: bool) -> list[TopicPartitionKey]:
        """The subscribed partitions, sorted; raises for a topic or partition the broker does not have."""
        options = self.options
        try:
            metadata = self._admin.list_topics(timeout=self._timeout_s)
        except KafkaException as exc:
            raise SourcePlanError(f"cannot reach the Kafka broker at {options.bootstrap}: {exc.args[0]}") from exc
        existing = {name: len(topic.partitions) for name, topic in metadata.topics.items() if topic.error is None}
        chosen: list[TopicPartitionKey] = []
        if options.pattern is not None:
            regex = compile_topic_pattern(options.pattern)
            matched = sorted(name for name in existing if not name.startswith("__") and regex.fullmatch(name))
            if not matched and not streaming:
                raise SourcePlanError(
                    f"no topic on the broker at {options.bootstrap} matches subscribePattern {options.pattern!r}"
                )
            chosen = [(name, p) for name in matched for p in range(existing[name])]
        elif options.assign is not None:
            for topic, assigned in options.assign.items():
                if topic not in existing:
                    raise SourcePlanError(
                        f"assigned topic {topic!r} does not exist on the broker at {options.bootstrap}"
                    )
                for partition in assigned:
                    if partition >= existing[topic]:
                        raise SourcePlanError(
                            f"assigned partition {topic}-{partition} does not exist "
                            f"({topic!r} has {existing[topic]} partitions)"
                        )
                    chosen.append((topic, partition))
        else:
            for topic in options.topics:
                if topic not in existing:
                    raise SourcePlanError(
                        f"subscribed topic {topic!r} does not exist on the broker at {options.bootstrap}"
                    )
                chosen.extend((topic, p) for p in range(existing[topic]))
        return sorted(set(chosen))

    def bounds(self, partitions: Iterable[TopicPartitionKey]) -> dict[TopicPartitionKey, Bounds]:
        """Earliest and latest offset of each partition (latest = last stable offset when read_committed)."""
        wanted = list(partitions)
        earliest_spec, latest_spec = OffsetSpec.earliest(), OffsetSpec.latest()  # type: ignore[no-untyped-call]
        earliest = self._list_offsets("earliest", dict.fromkeys(wanted, earliest_spec))
        latest = self._list_offsets("latest", dict.fromkeys(wanted, latest_spec))
        return {tp: Bounds(earliest[tp], latest[tp]) for tp in wanted}

    def offsets_for_times(self, timestamps: Mapping[TopicPartitionKey, int]) -> dict[TopicPartitionKey, int | None]:
        """Per partition, the first offset whose record timestamp is at or after the given one (ms),
        or None where no record is that late."""
        specs = {tp: OffsetSpec.for_timestamp(ms) for tp, ms in timestamps.items()}
        found = self._list_offsets("timestamp", specs)
        return {tp: None if offset < 0 else offset for tp, offset in found.items()}

    def _list_offsets(self, what: str, specs: Mapping[TopicPartitionKey, Any]) -> dict[TopicPartitionKey, int]:
        """ListOffsets for ``specs`` (confluent-kafka ``OffsetSpec`` values) with the read's isolation level."""
        if not specs:
            return {}
        isolation = IsolationLevel.READ_COMMITTED if self.options.read_committed else IsolationLevel.READ_UNCOMMITTED
        futures = self._admin.list_offsets(
            {TopicPartition(t, p): spec for (t, p), spec in specs.items()},
            isolation_level=isolation,
            request_timeout=self._timeout_s,
        )
        offsets = {}
        for tp, future in futures.items():
            try:
                offsets[tp.topic, tp.partition] = future.result().offset
            except KafkaException as exc:
                raise SourcePlanError(
                    f"listing the {what} offset of {tp.topic}-{tp.partition} on the broker at "
                    f"{self.options.bootstrap} failed: {exc.args[0]}"
                ) from exc
        return offsets


#: Per partition, the timestamp asked for and the first offset at or after it (None: no record that late).
Found = dict[TopicPartitionKey, tuple[int, int | None]]


def _explicit(
    name: str, spec: Mapping[str, Mapping[int, int]], partitions: list[TopicPartitionKey], what: str = "offset"
) -> dict[TopicPartitionKey, int]:
    """JSON offsets (or timestamps) checked against the subscription: every partition named, nothing else."""
    subscribed = set(partitions)
    given = {(topic, partition): offset for topic, offsets in spec.items() for partition, offset in offsets.items()}
    for topic, partition in sorted(set(given) - subscribed):
        raise SourcePlanError(f"{name} names {topic}-{partition}, which is not among the subscribed partitions")
    for topic, partition in sorted(subscribed - set(given)):
        raise SourcePlanError(f"{name} gives no {what} for {topic}-{partition}: name every subscribed partition")
    return given


def timestamp_offsets(
    name: str, spec: SourceOffsetSpec, partitions: list[TopicPartitionKey], topology: Topology
) -> Found | None:
    """What a by-timestamp ``spec`` (option ``name``) finds in each partition; None for any other spec.

    Asked before the partitions' bounds, so that a found offset is never past the latest offset
    those report."""
    if not isinstance(spec, ByTimestamp):
        return None
    if spec.per_partition is None:
        assert spec.everywhere is not None, "a ByTimestamp sets one of its fields"
        timestamps = dict.fromkeys(partitions, spec.everywhere)
    else:
        timestamps = _explicit(name, spec.per_partition, partitions, "timestamp")
    offsets = topology.offsets_for_times(timestamps)
    return {tp: (timestamps[tp], offsets[tp]) for tp in partitions}


def _start(topic_partition: TopicPartitionKey, offset: int, bounds: Bounds, options: SourceOptions, what: str) -> int:
    topic, partition = topic_partition
    if offset == EARLIEST:
        return bounds.earliest
    if offset == LATEST:
        return bounds.latest
    if offset > bounds.latest:
        raise SourcePlanError(
            f"{what} offset {offset} of {topic}-{partition} is past its end (latest offset {bounds.latest})"
        )
    if offset < bounds.earliest:
        if options.fail_on_data_loss:
            raise SourcePlanError(
                f"{what} offsets [{offset}, {bounds.earliest}) of {topic}-{partition} were deleted from the log "
                f"(log start offset {bounds.earliest}); set failOnDataLoss=false to skip them"
            )
        return bounds.earliest
    return offset


def _found_start(topic_partition: TopicPartitionKey, found: tuple[int, int | None], options: SourceOptions) -> int:
    timestamp, offset = found
    if offset is not None:
        return offset
    if options.latest_when_no_timestamp_matches:
        return LATEST
    topic, partition = topic_partition
    raise SourcePlanError(
        f"no offset of {topic}-{partition} matched the starting timestamp {timestamp}: no record there is at "
        "or after it (startingOffsetsByTimestampStrategy=error; set it to latest to start at the latest offset)"
    )


def _given_starts(
    options: SourceOptions, partitions: list[TopicPartitionKey], found: Found | None
) -> dict[TopicPartitionKey, int]:
    """The starting offsets as the options give them: offsets, or the EARLIEST and LATEST sentinels."""
    spec = options.starting
    if isinstance(spec, ByTimestamp):
        assert found is not None, "starting timestamps are looked up before the starting offsets"
        return {tp: _found_start(tp, found[tp], options) for tp in partitions}
    if isinstance(spec, str):
        return dict.fromkeys(partitions, EARLIEST if spec == "earliest" else LATEST)
    return _explicit("startingOffsets", spec, partitions)


def starting_offsets(
    options: SourceOptions,
    partitions: list[TopicPartitionKey],
    bounds: Mapping[TopicPartitionKey, Bounds],
    found: Found | None = None,
) -> dict[TopicPartitionKey, int]:
    """Where a read starts in each partition, from the starting options (``found``: what the
    starting timestamps found, see :func:`timestamp_offsets`)."""
    given = _given_starts(options, partitions, found)
    return {tp: _start(tp, given[tp], bounds[tp], options, "starting") for tp in partitions}


def _given_ends(
    options: SourceOptions, partitions: list[TopicPartitionKey], found: Found | None
) -> dict[TopicPartitionKey, int]:
    """The ending offsets as the options give them: offsets, or the LATEST sentinel."""
    spec = options.ending
    if isinstance(spec, ByTimestamp):
        assert found is not None, "ending timestamps are looked up before the ending offsets"
        given = {}
        for tp in partitions:
            offset = found[tp][1]
            given[tp] = LATEST if offset is None else offset
        return given
    if isinstance(spec, str):
        return dict.fromkeys(partitions, LATEST)
    return _explicit("endingOffsets", spec, partitions)


def _end(topic_partition: TopicPartitionKey, offset: int, bounds: Bounds) -> int:
    end = bounds.latest if offset == LATEST else offset
    if end > bounds.latest:
        topic, partition = topic_partition
        raise SourcePlanError(
            f"ending offset {end} of {topic}-{partition} is past its end (latest offset {bounds.latest})"
        )
    return end


def plan_batch(options: SourceOptions, topology: Topology) -> list[OffsetRange]:
    """The non-empty offset ranges of a batch read, split into tasks as ``minPartitions`` and
    ``maxRecordsPerPartition`` ask (:mod:`.offset_ranges`)."""
    partitions = topology.partitions(streaming=False)
    found_start = timestamp_offsets("startingOffsetsByTimestamp", options.starting, partitions, topology)
    found_end = timestamp_offsets("endingOffsetsByTimestamp", options.ending, partitions, topology)
    bounds = topology.bounds(partitions)
    given_starts = _given_starts(options, partitions, found_start)
    given_ends = _given_ends(options, partitions, found_end)
    ranges = []
    planned_sizes = []
    for tp in partitions:
        start = _start(tp, given_starts[tp], bounds[tp], options, "starting")
        end = _end(tp, given_ends[tp], bounds[tp])
        if end < start:
            raise SourcePlanError(f"ending offset {end} of {tp[0]}-{tp[1]} is before its starting offset {start}")
        if end > start:
            ranges.append(OffsetRange(tp[0], tp[1], start, end))
        # Spark's connector decides whether to split with the offsets its plan holds: found ones
        # for timestamps, the sentinels for earliest and latest (resolved later, by its readers).
        planned_start = start if isinstance(options.starting, ByTimestamp) else given_starts[tp]
        planned_end = end if isinstance(options.ending, ByTimestamp) else given_ends[tp]
        planned_sizes.append(planned_end - planned_start)
    return split_batch(ranges, planned_sizes, options.min_partitions, options.max_records_per_partition)


def stream_end_offsets(
    start: Mapping[str, int], bounds: Mapping[TopicPartitionKey, Bounds], fail_on_data_loss: bool
) -> dict[str, int]:
    """The furthest a micro-batch starting at ``start`` could end, from the subscribed partitions'
    ``bounds`` now: each partition's latest offset, a new partition's log start offset, and for a
    partition that went back (latest offset below ``start``) or away, a :class:`SourcePlanError`
    under ``fail_on_data_loss``, else its new latest offset or nothing (module docstring)."""
    current = {offset_key(topic, partition): bound for (topic, partition), bound in bounds.items()}
    for key in sorted(set(start) - set(current)):
        if fail_on_data_loss:
            raise SourcePlanError(
                f"{'-'.join(map(str, parse_key(key)))} is gone (was its topic deleted?) but the query has read it up "
                f"to offset {start[key]}: some data may have been lost. Set failOnDataLoss=false to go on without it"
            )
    end = {}
    for key, bound in current.items():
        if key not in start:
            end[key] = bound.earliest
            continue
        if bound.latest < start[key] and fail_on_data_loss:
            topic, partition = parse_key(key)
            raise SourcePlanError(
                f"{topic}-{partition} ends at offset {bound.latest} but the query has read up to {start[key]}: "
                "was the topic deleted and created again? Some data may have been lost. Set failOnDataLoss=false "
                "to go on from its new end"
            )
        end[key] = bound.latest
    return end


def limit_offsets(start: Mapping[str, int], latest: Mapping[str, int], max_offsets: int | None) -> dict[str, int]:
    """The end offsets of a micro-batch: ``latest``, or about ``max_offsets`` past ``start`` in all,
    shared among the partitions in proportion to how far each is behind, rounded as Spark's
    connector rounds (``max_offsets * behind / total`` in floating point, rounded down, but up when
    below one offset so that no partition starves: the total may pass ``max_offsets`` a little).
    Every key of ``latest`` not in ``start`` is a new partition and enters at its ``latest`` value
    unchanged."""
    end = dict(latest)
    behind = {key: latest[key] - start[key] for key in latest if key in start and latest[key] > start[key]}
    total = sum(behind.values())
    if max_offsets is None or total == 0:
        return end
    for key, lag in behind.items():
        share = max_offsets * (lag / total)
        end[key] = min(latest[key], start[key] + (math.ceil(share) if share < 1 else math.floor(share)))
    return end
