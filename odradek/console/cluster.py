"""What the console shows, asked of the cluster over the Kafka protocol only.

`ClusterView` is blocking (librdkafka waits on sockets): the web handlers call it through
``asyncio.to_thread``, never on the event loop.  It is built on the command line's client
(`odradek.cli.client`) and works against any Kafka-compatible broker, odradek or Apache Kafka.

Every failure is a `ConsoleError` carrying the HTTP status the page is served with: 404 for a
topic, partition or group that does not exist, 400 for a request that cannot be answered as asked
(an offset outside the partition's log), 502 when the cluster cannot be reached or answers with an
error.  Its message is one readable sentence for the page.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from confluent_kafka import (
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    TopicPartition,
)

from odradek.cli.client import (
    TP,
    Admin,
    ClusterInfo,
    ConfigInfo,
    GroupInfo,
    GroupListing,
    PartitionInfo,
    PartitionLag,
    TopicInfo,
    base_config,
    describe_error,
    error_name,
)
from odradek.cli.common import CommandError
from odradek.cli.logdirs import partition_sizes

__all__ = [
    "BrowsedRecord",
    "ClusterView",
    "ConsoleError",
    "GroupDetail",
    "Overview",
    "PartitionDetail",
    "Produced",
    "TopicDetail",
    "TopicSummary",
]

MAX_BROWSE = 500

P = ParamSpec("P")
T = TypeVar("T")


class ConsoleError(Exception):
    """A request the console answers with an error page: ``status`` and one readable ``reason``."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Overview:
    cluster: ClusterInfo
    topics: int
    partitions: int
    internal_topics: int
    groups: int


@dataclass(frozen=True, slots=True)
class PartitionDetail:
    info: PartitionInfo
    start: int
    end: int
    size: int | None

    @property
    def records(self) -> int:
        """Offsets between the log start and end (compaction and transaction markers leave gaps)."""
        return max(self.end - self.start, 0)


@dataclass(frozen=True, slots=True)
class TopicSummary:
    name: str
    partitions: int
    records: int
    size: int | None
    internal: bool


@dataclass(frozen=True, slots=True)
class TopicDetail:
    name: str
    partitions: tuple[PartitionDetail, ...]
    configs: tuple[ConfigInfo, ...]

    @property
    def size(self) -> int | None:
        sizes = [p.size for p in self.partitions]
        return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)


@dataclass(frozen=True, slots=True)
class BrowsedRecord:
    partition: int
    offset: int
    timestamp: int
    timestamp_type: str
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]


@dataclass(frozen=True, slots=True)
class GroupDetail:
    info: GroupInfo
    lag: tuple[PartitionLag, ...]

    @property
    def total_lag(self) -> int:
        return sum(r.lag or 0 for r in self.lag)


@dataclass(frozen=True, slots=True)
class Produced:
    topic: str
    partition: int
    offset: int


def _internal(name: str) -> bool:
    return name.startswith("__")


class ClusterView:
    """One cluster as the console sees it; safe to call from several threads at once."""

    def __init__(self, bootstrap: str, timeout_ms: int, extra: Mapping[str, str]) -> None:
        self.bootstrap = bootstrap
        self.timeout_ms = timeout_ms
        self._extra = dict(extra)
        self._admin = Admin(bootstrap, timeout_ms, extra)
        self._producer: Producer | None = None
        self._producer_lock = threading.Lock()

    def close(self) -> None:
        with self._producer_lock:
            if self._producer is not None:
                self._producer.flush(self.timeout_ms / 1000)
                self._producer = None

    @staticmethod
    def _call(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args)`` with a client failure turned into a 502 page."""
        try:
            return fn(*args, **kwargs)
        except CommandError as exc:
            raise ConsoleError(502, str(exc)) from None

    def overview(self) -> Overview:
        cluster = self._call(self._admin.cluster)
        topics = self._call(self._admin.topics)
        groups = self._call(self._admin.list_groups)
        visible = [t for t in topics if not _internal(t.name)]
        return Overview(
            cluster,
            len(visible),
            sum(len(t.partitions) for t in visible),
            len(topics) - len(visible),
            len(groups),
        )

    def _brokers(self) -> list[tuple[str, int]]:
        cluster = self._call(self._admin.cluster)
        return [(b.host, b.port) for b in cluster.brokers]

    def _offsets(self, partitions: list[TP]) -> tuple[dict[TP, int], dict[TP, int]]:
        start = self._call(self._admin.list_offsets, partitions, "earliest")
        end = self._call(self._admin.list_offsets, partitions, "latest")
        return start, end

    def topics(self) -> list[TopicSummary]:
        topics = self._call(self._admin.topics)
        partitions = [(t.name, p.partition) for t in topics for p in t.partitions if p.error is None]
        start, end = self._offsets(partitions)
        sizes = partition_sizes(self._brokers(), self.timeout_ms / 1000)
        summaries = []
        for t in topics:
            tps = [(t.name, p.partition) for p in t.partitions]
            known = [sizes[tp] for tp in tps if tp in sizes]
            summaries.append(
                TopicSummary(
                    t.name,
                    len(tps),
                    sum(max(end.get(tp, 0) - start.get(tp, 0), 0) for tp in tps),
                    sum(known) if len(known) == len(tps) else None,
                    _internal(t.name),
                )
            )
        return sorted(summaries, key=lambda s: (s.internal, s.name))

    def _topic(self, name: str) -> TopicInfo:
        for info in self._call(self._admin.topics, name):
            if info.name == name and info.error is None:
                return info
        raise ConsoleError(404, f"There is no topic named {name!r} in this cluster.")

    def topic(self, name: str) -> TopicDetail:
        info = self._topic(name)
        tps = [(name, p.partition) for p in info.partitions]
        start, end = self._offsets(tps)
        sizes = partition_sizes(self._brokers(), self.timeout_ms / 1000)
        configs = self._call(self._admin.describe_configs, "topic", name)
        partitions = tuple(
            PartitionDetail(p, start.get((name, p.partition), -1), end.get((name, p.partition), -1), sizes.get(tp))
            for p, tp in zip(info.partitions, tps, strict=True)
        )
        return TopicDetail(name, partitions, tuple(configs))

    def topic_names(self) -> list[str]:
        return [t.name for t in self._call(self._admin.topics) if not _internal(t.name)]

    def partition_ids(self, topic: str) -> list[int]:
        return [p.partition for p in self._topic(topic).partitions]

    def partition_range(self, topic: str, partition: int) -> tuple[int, int]:
        """The partition's log start and end offsets; 404 for an unknown topic or partition."""
        info = self._topic(topic)
        if partition not in {p.partition for p in info.partitions}:
            raise ConsoleError(
                404, f"Topic {topic!r} has no partition {partition} (it has {len(info.partitions)} partitions)."
            )
        start, end = self._offsets([(topic, partition)])
        return start[(topic, partition)], end[(topic, partition)]

    def offset_for_time(self, topic: str, partition: int, timestamp_ms: int) -> int:
        """The first offset at or after ``timestamp_ms``; -1 when every record is older."""
        found = self._call(self._admin.list_offsets, [(topic, partition)], timestamp_ms)
        return found[(topic, partition)]

    def browse(self, topic: str, partition: int, offset: int, end: int, limit: int) -> list[BrowsedRecord]:
        """Up to ``limit`` records of one partition from ``offset``, stopping at ``end`` (the log end
        offset read just before) or when the broker sends nothing more within the timeout."""
        limit = min(limit, MAX_BROWSE, max(end - offset, 0))
        if limit == 0:
            return []
        config = base_config(self.bootstrap, self._extra)
        config.update(
            {
                "group.id": "odradek-console-browser",
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "enable.partition.eof": True,
                "allow.auto.create.topics": False,
            }
        )
        consumer = Consumer(config)
        records: list[BrowsedRecord] = []
        try:
            consumer.assign([TopicPartition(topic, partition, offset)])
            for message in consumer.consume(limit, self.timeout_ms / 1000):
                record = self._record(message)
                if record is None:
                    break
                records.append(record)
            while len(records) < limit and (not records or records[-1].offset < end - 1):
                batch = consumer.consume(limit - len(records), self.timeout_ms / 1000)
                more = [r for r in map(self._record, batch) if r is not None]
                if not more:
                    break
                records += more
        finally:
            consumer.close()
        return records[:limit]

    @staticmethod
    def _record(message: Message[Any, Any]) -> BrowsedRecord | None:
        error = message.error()
        if error is not None:
            if error.code() == KafkaError._PARTITION_EOF:
                return None
            raise ConsoleError(502, f"reading the partition failed: {error_name(error)}: {error.str()}")
        kind, timestamp = message.timestamp()
        raw = message.headers() or []
        pairs = raw.items() if isinstance(raw, dict) else raw
        return BrowsedRecord(
            int(message.partition() or 0),
            int(message.offset() or 0),
            int(timestamp),
            "LogAppendTime" if kind == TIMESTAMP_LOG_APPEND_TIME else "CreateTime",
            message.key(),
            message.value(),
            tuple((k, v.encode() if isinstance(v, str) else v) for k, v in pairs),
        )

    def groups(self) -> list[GroupListing]:
        return self._call(self._admin.list_groups)

    def group(self, name: str) -> GroupDetail:
        listed = {g.group for g in self.groups()}
        if name not in listed:
            raise ConsoleError(404, f"There is no consumer group named {name!r} in this cluster.")
        info = self._call(self._admin.describe_group, name)
        lag = self._call(self._admin.group_lag, info)
        return GroupDetail(info, tuple(lag))

    def all_lag(self) -> dict[str, dict[TP, int]]:
        """Every group's lag per partition it has committed offsets for (the sampler's question)."""
        result: dict[str, dict[TP, int]] = {}
        for listing in self.groups():
            committed = self._call(self._admin.committed, listing.group)
            end = self._call(self._admin.list_offsets, list(committed), "latest")
            result[listing.group] = {tp: max(end[tp] - offset, 0) for tp, offset in committed.items() if tp in end}
        return result

    def produce(
        self,
        topic: str,
        partition: int | None,
        key: bytes | None,
        value: bytes | None,
        headers: list[tuple[str, bytes]],
    ) -> Produced:
        """Write one record with acks=all and wait for its offset."""
        partitions = [p.partition for p in self._topic(topic).partitions]
        if partition is not None and partition not in partitions:
            raise ConsoleError(
                400, f"Topic {topic!r} has no partition {partition} (it has {len(partitions)} partitions)."
            )
        outcome: list[tuple[KafkaError | None, Message[Any, Any]]] = []
        kwargs: dict[str, Any] = {"key": key, "value": value, "headers": headers}
        if partition is not None:
            kwargs["partition"] = partition
        with self._producer_lock:
            if self._producer is None:
                config = base_config(self.bootstrap, self._extra)
                config.update({"acks": "all", "allow.auto.create.topics": False})
                self._producer = Producer(config)
            try:
                self._producer.produce(topic, on_delivery=lambda e, m: outcome.append((e, m)), **kwargs)
            except KafkaException as exc:
                raise ConsoleError(400, f"The record was not written: {describe_error(exc)}") from None
            self._producer.flush(self.timeout_ms / 1000)
        if not outcome:
            raise ConsoleError(502, f"The broker did not confirm the record within {self.timeout_ms} ms.")
        error, message = outcome[0]
        if error is not None:
            raise ConsoleError(502, f"The record was not written: {error_name(error)}: {error.str()}")
        return Produced(topic, int(message.partition() or 0), int(message.offset() or 0))
