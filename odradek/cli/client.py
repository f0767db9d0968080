"""The one place the command line touches confluent-kafka's admin API, whose futures are untyped.

Every other CLI module sees the typed dataclasses below and `CommandError`.  Each call waits at
most the command's timeout; a Kafka error or an unreachable broker becomes a `CommandError`
whose message names the broker and the Kafka error code.  The client speaks only the Kafka
protocol, so every command works against any Kafka-compatible broker.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from confluent_kafka import (
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    TopicPartition,
)
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
    OffsetSpec,
    ResourceType,
)

from odradek.cli.common import CommandError, parse_key_values
from odradek.wire.errors import ErrorCode

__all__ = [
    "TP",
    "Admin",
    "BrokerInfo",
    "ClusterInfo",
    "ConfigInfo",
    "EntityKind",
    "GroupInfo",
    "GroupListing",
    "MemberInfo",
    "PartitionInfo",
    "PartitionLag",
    "TopicInfo",
    "admin_for",
    "base_config",
    "describe_error",
    "error_name",
]

TP = tuple[str, int]
"""A topic-partition."""

EntityKind = Literal["topic", "broker"]
OffsetQuery = Literal["earliest", "latest"] | int
"""What `Admin.list_offsets` asks for: the log start, the log end, or the first offset at a timestamp."""


def base_config(bootstrap: str, extra: Mapping[str, str]) -> dict[str, Any]:
    """librdkafka settings every client of a command shares; librdkafka's own log stays quiet
    so a failure is the command's one line, not a screen of connection retries."""
    return {"bootstrap.servers": bootstrap, "log_level": 0, **extra}


def error_name(error: KafkaError) -> str:
    """Kafka's own name of a broker error code (``UNKNOWN_TOPIC_OR_PARTITION``, where librdkafka
    says ``UNKNOWN_TOPIC_OR_PART``); librdkafka's name for its local errors (``_TRANSPORT``)."""
    code = error.code()
    if code in ErrorCode._value2member_map_:
        return ErrorCode(code).name
    return error.name()


def describe_error(exc: BaseException) -> str:
    """A one-line description of a client exception, e.g. ``UNKNOWN_TOPIC_OR_PARTITION: ...``."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        error: KafkaError = exc.args[0]
        return f"{error_name(error)}: {error.str()}"
    if isinstance(exc, concurrent.futures.TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    partition: int
    leader: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    error: str | None


@dataclass(frozen=True, slots=True)
class TopicInfo:
    name: str
    partitions: tuple[PartitionInfo, ...]
    error: str | None


@dataclass(frozen=True, slots=True)
class ConfigInfo:
    name: str
    value: str | None
    source: str
    is_default: bool
    read_only: bool
    sensitive: bool


@dataclass(frozen=True, slots=True)
class GroupListing:
    group: str
    state: str
    type: str


@dataclass(frozen=True, slots=True)
class MemberInfo:
    member_id: str
    client_id: str
    host: str
    instance_id: str | None
    assignment: tuple[TP, ...]


@dataclass(frozen=True, slots=True)
class GroupInfo:
    group: str
    state: str
    protocol: str
    coordinator: int
    members: tuple[MemberInfo, ...]


@dataclass(frozen=True, slots=True)
class PartitionLag:
    """One partition of a group: its committed offset (None: nothing committed), the log end
    offset, the lag between them (None without a commit) and the member that owns it, if any."""

    tp: TP
    committed: int | None
    log_end: int | None
    lag: int | None
    member: MemberInfo | None


@dataclass(frozen=True, slots=True)
class BrokerInfo:
    node_id: int
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class ClusterInfo:
    cluster_id: str | None
    controller: int
    brokers: tuple[BrokerInfo, ...]


def _state_name(state: Any) -> str:
    """``ConsumerGroupState.STABLE`` -> ``Stable``."""
    name = getattr(state, "name", str(state))
    return "".join(part.capitalize() for part in str(name).split("_"))


class Admin:
    """An admin client bound to one bootstrap list and one timeout."""

    def __init__(self, bootstrap: str, timeout_ms: int, extra: Mapping[str, str]) -> None:
        self.bootstrap = bootstrap
        self.timeout_ms = timeout_ms
        self._timeout = timeout_ms / 1000
        # The admin client is a producer inside librdkafka, whose metadata requests would create
        # a topic they merely name.
        self._client = AdminClient({"allow.auto.create.topics": False, **base_config(bootstrap, extra)})

    def _wait(self, future: concurrent.futures.Future[Any], what: str) -> Any:
        try:
            return future.result(timeout=self._timeout)
        except (KafkaException, concurrent.futures.TimeoutError) as exc:
            raise CommandError(f"{what}: {describe_error(exc)}") from None

    def _wait_all(self, futures: Mapping[Any, concurrent.futures.Future[Any]], what: str) -> None:
        for future in futures.values():
            self._wait(future, what)

    def topics(self, topic: str | None = None) -> list[TopicInfo]:
        """Metadata of every topic, or of one; raises `CommandError` when no broker answers."""
        try:
            metadata = self._client.list_topics(topic=topic, timeout=self._timeout)
        except KafkaException as exc:
            raise CommandError(
                f"cannot reach a broker at {self.bootstrap} within {self.timeout_ms} ms ({describe_error(exc)})"
            ) from None
        result = []
        for name, info in sorted(metadata.topics.items()):
            partitions = tuple(
                PartitionInfo(
                    p.id,
                    p.leader,
                    tuple(p.replicas),
                    tuple(p.isrs),
                    None if p.error is None else error_name(p.error),
                )
                for _, p in sorted(info.partitions.items())
            )
            result.append(TopicInfo(name, partitions, None if info.error is None else error_name(info.error)))
        return result

    def cluster(self) -> ClusterInfo:
        """The cluster id, the controller and the brokers, from a Metadata request."""
        try:
            metadata = self._client.list_topics(timeout=self._timeout)
        except KafkaException as exc:
            raise CommandError(
                f"cannot reach a broker at {self.bootstrap} within {self.timeout_ms} ms ({describe_error(exc)})"
            ) from None
        brokers = tuple(BrokerInfo(b.id, str(b.host), int(b.port)) for _, b in sorted(metadata.brokers.items()))
        return ClusterInfo(metadata.cluster_id, metadata.controller_id, brokers)

    def topic(self, name: str) -> TopicInfo:
        """One topic's metadata; raises `CommandError` when it does not exist."""
        for info in self.topics(name):
            if info.name == name:
                if info.error is not None:
                    raise CommandError(f"topic {name!r}: {info.error}")
                return info
        raise CommandError(f"topic {name!r}: UNKNOWN_TOPIC_OR_PARTITION")

    def create_topic(
        self, name: str, partitions: int, replication: int, configs: Mapping[str, str], validate_only: bool
    ) -> None:
        new = NewTopic(name, num_partitions=partitions, replication_factor=replication, config=dict(configs))
        futures = self._client.create_topics(
            [new], operation_timeout=self._timeout, request_timeout=self._timeout, validate_only=validate_only
        )
        self._wait_all(futures, f"create topic {name!r}")

    def delete_topic(self, name: str) -> None:
        futures = self._client.delete_topics([name], operation_timeout=self._timeout, request_timeout=self._timeout)
        self._wait_all(futures, f"delete topic {name!r}")

    def create_partitions(self, name: str, total: int, validate_only: bool = False) -> None:
        futures = self._client.create_partitions(
            [NewPartitions(name, total)], request_timeout=self._timeout, validate_only=validate_only
        )
        self._wait_all(futures, f"add partitions to {name!r}")

    def list_offsets(self, partitions: Iterable[TP], query: OffsetQuery) -> dict[TP, int]:
        """The offset ``query`` names for each partition (-1 where a timestamp is past the end)."""
        if query == "earliest":
            spec = OffsetSpec.earliest()
        elif query == "latest":
            spec = OffsetSpec.latest()
        else:
            spec = OffsetSpec.for_timestamp(query)
        request = {TopicPartition(t, p): spec for t, p in partitions}
        if not request:
            return {}
        futures = self._client.list_offsets(request, request_timeout=self._timeout)
        return {
            (tp.topic, tp.partition): int(self._wait(future, f"list offsets of {tp.topic}-{tp.partition}").offset)
            for tp, future in futures.items()
        }

    def describe_configs(self, kind: EntityKind, name: str) -> list[ConfigInfo]:
        resource = ConfigResource(ResourceType.TOPIC if kind == "topic" else ResourceType.BROKER, name)
        futures = self._client.describe_configs([resource], request_timeout=self._timeout)
        entries: dict[str, Any] = self._wait(futures[resource], f"describe configs of {kind} {name!r}")
        return [
            ConfigInfo(
                entry.name,
                entry.value,
                ConfigSource(entry.source).name,
                bool(entry.is_default),
                bool(entry.is_read_only),
                bool(entry.is_sensitive),
            )
            for _, entry in sorted(entries.items())
        ]

    def alter_configs(self, kind: EntityKind, name: str, set_: Mapping[str, str], delete: Iterable[str]) -> None:
        """Incrementally set and delete (revert to default) configs of one topic or broker."""
        ops = [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in set_.items()]
        ops += [ConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE) for k in delete]
        resource = ConfigResource(
            ResourceType.TOPIC if kind == "topic" else ResourceType.BROKER, name, incremental_configs=ops
        )
        futures = self._client.incremental_alter_configs([resource], request_timeout=self._timeout)
        self._wait_all(futures, f"alter configs of {kind} {name!r}")

    def list_groups(self) -> list[GroupListing]:
        result = self._wait(self._client.list_consumer_groups(request_timeout=self._timeout), "list groups")
        if result.errors:
            raise CommandError(f"list groups: {describe_error(KafkaException(result.errors[0]))}")
        return sorted(
            (GroupListing(g.group_id, _state_name(g.state), _state_name(g.type)) for g in result.valid),
            key=lambda g: g.group,
        )

    def describe_group(self, group: str) -> GroupInfo:
        futures = self._client.describe_consumer_groups([group], request_timeout=self._timeout)
        d = self._wait(futures[group], f"describe group {group!r}")
        members = tuple(
            MemberInfo(
                m.member_id,
                m.client_id,
                m.host,
                m.group_instance_id,
                tuple((tp.topic, tp.partition) for tp in (m.assignment.topic_partitions if m.assignment else [])),
            )
            for m in d.members
        )
        coordinator = d.coordinator.id if d.coordinator is not None else -1
        return GroupInfo(d.group_id, _state_name(d.state), d.partition_assignor or "", coordinator, members)

    def committed(self, group: str) -> dict[TP, int]:
        """The group's committed offset of every partition it has one for."""
        request = [ConsumerGroupTopicPartitions(group)]
        futures = self._client.list_consumer_group_offsets(request, request_timeout=self._timeout)
        result = self._wait(futures[group], f"list offsets of group {group!r}")
        return {(tp.topic, tp.partition): int(tp.offset) for tp in result.topic_partitions if tp.offset >= 0}

    def group_lag(self, info: GroupInfo) -> list[PartitionLag]:
        """Every partition the group has a committed offset for or a member owns, with its lag."""
        committed = self.committed(info.group)
        owner = {tp: m for m in info.members for tp in m.assignment}
        partitions = sorted(set(committed) | set(owner))
        end = self.list_offsets(partitions, "latest")
        rows = []
        for tp in partitions:
            current = committed.get(tp)
            log_end = end.get(tp)
            lag = None if current is None or log_end is None else max(log_end - current, 0)
            rows.append(PartitionLag(tp, current, log_end, lag, owner.get(tp)))
        return rows

    def alter_group_offsets(self, group: str, offsets: Mapping[TP, int]) -> None:
        tps = [TopicPartition(t, p, o) for (t, p), o in sorted(offsets.items())]
        futures = self._client.alter_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(group, tps)], request_timeout=self._timeout
        )
        result = self._wait(futures[group], f"reset offsets of group {group!r}")
        for tp in result.topic_partitions:
            if tp.error is not None:
                raise CommandError(
                    f"reset offsets of group {group!r}: {tp.topic}-{tp.partition}: {error_name(tp.error)}"
                )

    def delete_group(self, group: str) -> None:
        futures = self._client.delete_consumer_groups([group], request_timeout=self._timeout)
        self._wait_all(futures, f"delete group {group!r}")


def admin_for(args: Any) -> Admin:
    """The admin client a parsed command line asks for (see `add_client_arguments`)."""
    return Admin(args.bootstrap_server, args.timeout_ms, parse_key_values(args.command_property, "--command-property"))
