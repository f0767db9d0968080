"""Planning reads of the ``odradek`` data source: which partitions, and which offsets of each.

Everything here runs on the Spark driver and asks the broker through one confluent-kafka admin
client (Metadata, then ListOffsets with the read's isolation level, so that ``latest`` is the last
stable offset for a ``read_committed`` read). Every mistake in the input is found here, before any
task runs and so before any output is written, and raised as :class:`SourcePlanError` naming the
broker address, the topic, the partition or the offset at fault:

* the broker does not answer within ``kafka.default.api.timeout.ms``;
* a subscribed or assigned topic, or an assigned partition, does not exist (a batch
  ``subscribePattern`` matching nothing too; a stream may wait for its topics to appear);
* JSON offsets name a partition outside the subscription, or leave one of its partitions out;
* an offset lies past the partition's end, an ending offset before its starting offset, or a
  starting offset before the log start offset while ``failOnDataLoss`` is true (when false, the
  read starts at the log start offset instead).

Streaming offsets are ``{"topic:partition": next_offset}``. A partition that appears while a query
runs (a new topic matching the pattern, added partitions) first enters the offsets at its log start
offset with nothing read, and is read from there by the next micro-batch, so every micro-batch's
ranges follow from its start and end offsets alone (a restarted query replays them exactly).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from confluent_kafka import IsolationLevel, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from odradek.pipeline.source_options import EARLIEST, LATEST, SourceOptions

__all__ = [
    "Bounds",
    "OffsetRange",
    "SourcePlanError",
    "TopicPartitionKey",
    "Topology",
    "limit_offsets",
    "offset_key",
    "parse_key",
    "plan_batch",
    "starting_offsets",
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


@dataclass(frozen=True, slots=True)
class OffsetRange:
    """Offsets ``start`` <= o < ``end`` of one partition, ``start`` < ``end``."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"


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
            regex = re.compile(options.pattern)
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
        if not wanted:
            return {}
        isolation = IsolationLevel.READ_COMMITTED if self.options.read_committed else IsolationLevel.READ_UNCOMMITTED
        answers: dict[str, dict[TopicPartitionKey, int]] = {}
        specs = {"earliest": OffsetSpec.earliest(), "latest": OffsetSpec.latest()}  # type: ignore[no-untyped-call]
        for name, spec in specs.items():
            futures = self._admin.list_offsets(
                {TopicPartition(t, p): spec for t, p in wanted},
                isolation_level=isolation,
                request_timeout=self._timeout_s,
            )
            answers[name] = {}
            for tp, future in futures.items():
                try:
                    answers[name][tp.topic, tp.partition] = future.result().offset
                except KafkaException as exc:
                    raise SourcePlanError(
                        f"listing the {name} offset of {tp.topic}-{tp.partition} on the broker at "
                        f"{self.options.bootstrap} failed: {exc.args[0]}"
                    ) from exc
        return {tp: Bounds(answers["earliest"][tp], answers["latest"][tp]) for tp in wanted}


def _explicit(
    name: str, spec: Mapping[str, Mapping[int, int]], partitions: list[TopicPartitionKey]
) -> dict[TopicPartitionKey, int]:
    """JSON offsets checked against the subscription: every partition named, nothing else."""
    subscribed = set(partitions)
    given = {(topic, partition): offset for topic, offsets in spec.items() for partition, offset in offsets.items()}
    for topic, partition in sorted(set(given) - subscribed):
        raise SourcePlanError(f"{name} names {topic}-{partition}, which is not among the subscribed partitions")
    for topic, partition in sorted(subscribed - set(given)):
        raise SourcePlanError(f"{name} gives no offset for {topic}-{partition}: name every subscribed partition")
    return given


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


def starting_offsets(
    options: SourceOptions, partitions: list[TopicPartitionKey], bounds: Mapping[TopicPartitionKey, Bounds]
) -> dict[TopicPartitionKey, int]:
    """Where a read starts in each partition, from ``startingOffsets``."""
    if isinstance(options.starting, str):
        sentinel = EARLIEST if options.starting == "earliest" else LATEST
        return {tp: _start(tp, sentinel, bounds[tp], options, "starting") for tp in partitions}
    given = _explicit("startingOffsets", options.starting, partitions)
    return {tp: _start(tp, given[tp], bounds[tp], options, "starting") for tp in partitions}


def plan_batch(options: SourceOptions, topology: Topology) -> list[OffsetRange]:
    """The non-empty offset range of every subscribed partition for a batch read."""
    partitions = topology.partitions(streaming=False)
    bounds = topology.bounds(partitions)
    starts = starting_offsets(options, partitions, bounds)
    if isinstance(options.ending, str):
        ends = {tp: bounds[tp].latest for tp in partitions}
    else:
        given = _explicit("endingOffsets", options.ending, partitions)
        ends = {}
        for tp, offset in given.items():
            end = bounds[tp].latest if offset == LATEST else offset
            if end > bounds[tp].latest:
                raise SourcePlanError(
                    f"ending offset {end} of {tp[0]}-{tp[1]} is past its end (latest offset {bounds[tp].latest})"
                )
            ends[tp] = end
    ranges = []
    for tp in partitions:
        if ends[tp] < starts[tp]:
            raise SourcePlanError(
                f"ending offset {ends[tp]} of {tp[0]}-{tp[1]} is before its starting offset {starts[tp]}"
            )
        if ends[tp] > starts[tp]:
            ranges.append(OffsetRange(tp[0], tp[1], starts[tp], ends[tp]))
    return ranges


def limit_offsets(start: Mapping[str, int], latest: Mapping[str, int], max_offsets: int | None) -> dict[str, int]:
    """The end offsets of a micro-batch: ``latest``, or at most ``max_offsets`` past ``start`` in all,
    shared among the partitions in proportion to how far each is behind (Spark's rule). Every key of
    ``latest`` not in ``start`` is a new partition and enters at its ``latest`` value unchanged."""
    end = dict(latest)
    behind = {key: latest[key] - start[key] for key in latest if key in start and latest[key] > start[key]}
    total = sum(behind.values())
    if max_offsets is None or total <= max_offsets:
        return end
    shares = {key: max_offsets * lag // total for key, lag in behind.items()}
    left = max_offsets - sum(shares.values())
    for key in sorted(behind, key=lambda k: (-behind[k], k)):
        if left == 0:
            break
        if shares[key] < behind[key]:
            shares[key] += 1
            left -= 1
    for key, share in shares.items():
        end[key] = start[key] + share
    return end
