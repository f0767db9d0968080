"""What the loader asks the broker before Spark starts: which partitions exist and their offset bounds.

Asked through a Kafka admin client (confluent-kafka): Metadata for the topic list, then ListOffsets
for each partition's earliest (log start) and latest (high watermark) offset. Every failure here
raises :class:`BrokerQueryError` naming the broker address or the topic, before anything is written.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from confluent_kafka import KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

__all__ = ["BrokerQueryError", "OffsetBounds", "offset_bounds", "resolve_topics"]

log = logging.getLogger("odradek.pipeline")


class BrokerQueryError(RuntimeError):
    """The broker could not be reached, or it does not hold a topic that was asked for."""


@dataclass(frozen=True, slots=True)
class OffsetBounds:
    """One partition's offsets at the moment asked: ``earliest`` <= ``latest`` (the next offset to write)."""

    topic: str
    partition: int
    earliest: int
    latest: int


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap, "client.id": "odradek-spark-load"}, logger=log)


def resolve_topics(bootstrap: str, topics: Sequence[str], pattern: str | None, timeout_s: float) -> dict[str, int]:
    """Each topic named (all must exist) or matching ``pattern`` in full, with its partition count.

    Internal topics (a name starting with ``__``) never match a pattern, as with a Kafka consumer's
    pattern subscription.
    """
    try:
        metadata = _admin(bootstrap).list_topics(timeout=timeout_s)
    except KafkaException as exc:
        raise BrokerQueryError(f"cannot reach the Kafka broker at {bootstrap}: {exc.args[0]}") from exc
    existing = {name: len(topic.partitions) for name, topic in metadata.topics.items() if topic.error is None}
    chosen: dict[str, int] = {}
    for name in topics:
        if name not in existing:
            raise BrokerQueryError(f"topic {name!r} does not exist on the broker at {bootstrap}")
        chosen[name] = existing[name]
    if pattern is not None:
        regex = re.compile(pattern)
        for name, count in existing.items():
            if not name.startswith("__") and regex.fullmatch(name):
                chosen[name] = count
        if not chosen:
            raise BrokerQueryError(f"no topic on the broker at {bootstrap} matches the pattern {pattern!r}")
    return dict(sorted(chosen.items()))


def offset_bounds(bootstrap: str, partitions: Iterable[tuple[str, int]], timeout_s: float) -> list[OffsetBounds]:
    """Earliest and latest offset of every partition, in the order given."""
    wanted = list(partitions)
    if not wanted:
        return []
    admin = _admin(bootstrap)
    answers: dict[str, dict[tuple[str, int], int]] = {}
    specs = {"earliest": OffsetSpec.earliest(), "latest": OffsetSpec.latest()}  # type: ignore[no-untyped-call]
    for name, spec in specs.items():
        futures = admin.list_offsets(
            {TopicPartition(topic, partition): spec for topic, partition in wanted}, request_timeout=timeout_s
        )
        try:
            answers[name] = {(tp.topic, tp.partition): future.result().offset for tp, future in futures.items()}
        except KafkaException as exc:
            raise BrokerQueryError(f"listing offsets on the broker at {bootstrap} failed: {exc.args[0]}") from exc
    return [OffsetBounds(topic, partition, answers["earliest"][topic, partition], answers["latest"][topic, partition])
            for topic, partition in wanted]  # fmt: skip
