"""What a handler sees of one request: a few narrow services, the header, the client.

Each service is a Protocol naming only what handlers call, so a handler can be unit-tested with
fakes and nothing here (or in any handler) imports the broker.  The broker builds one `Services`
at start-up; the dispatcher wraps it with each request's header and connection.

- `PartitionsView`: partition data (append, read, offsets, delete records, long-poll waits) and
  who leads each partition; implemented by `odradek.partition.service.Partitions`.
- `TopicsView`: the topic catalog, and topic creation, deletion and config changes.
- `ClusterView`: this node: ids, advertised endpoint, broker config and its dynamic layers.
- `GroupsView`: the group coordinator's runtime (`odradek.coordinator.runtime.CoordinatorRuntime`).
- `ProducerIds`: producer id allocation (InitProducerId).
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from odradek.clock import Clock
from odradek.cluster.features import FeatureLevels
from odradek.cluster.topics import TopicInfo
from odradek.config import BrokerConfig
from odradek.coordinator.coordinator import CommitPartition, GroupCoordinator
from odradek.coordinator.messages import JoinRequest, JoinResult, LeaveMember, LeaveResult, SyncRequest, SyncResult
from odradek.coordinator.offsets import CommitIdentity
from odradek.fetch_sessions import FetchSessionCache
from odradek.partition.results import AppendResult, Leadership, OffsetResult, ReadResult
from odradek.security.acl import AclOperation, ResourceType
from odradek.security.principal import ClientIdentity
from odradek.security.services import SecurityServices
from odradek.wire.api import RequestHeader
from odradek.wire.errors import ErrorCode

__all__ = [
    "ClientConnection",
    "ClusterView",
    "GroupsView",
    "PartitionsView",
    "ProducerIds",
    "RequestContext",
    "Services",
    "TopicsView",
]


class ClientConnection(Protocol):
    """The little a handler may know about the connection a request came on: its address, whether it
    is closed, and who it speaks for (principal, listener; `odradek.security.principal`)."""

    peer: str
    closed: bool
    identity: ClientIdentity

    def mute(self, delay: Awaitable[None]) -> None:
        """Take no further request until ``delay`` completes (a quota's throttle time)."""
        ...

    def close(self) -> None:
        """Close the connection (a test double's injected connection loss)."""
        ...


class PartitionsView(Protocol):
    """Partition data; every answer carries its Kafka error as a value."""

    @property
    def log_dir(self) -> str: ...

    def partition_sizes(self) -> Iterator[tuple[str, int, int]]:
        """``(topic, partition, bytes)`` of every partition."""
        ...

    def leadership(self, topic: str, partition: int) -> Leadership: ...

    def append(self, topic: str, partition: int, records: memoryview | None, version: int, now_ms: int) -> AppendResult:
        """A client's produce to one partition (checks, idempotence, write)."""
        ...

    def read(
        self,
        topic: str,
        partition: int,
        offset: int,
        max_bytes: int,
        *,
        current_leader_epoch: int,
        first: bool,
        committed: bool,
    ) -> ReadResult: ...

    def list_offset(self, topic: str, partition: int, timestamp: int, current_leader_epoch: int) -> OffsetResult: ...

    def delete_records(self, topic: str, partition: int, offset: int) -> tuple[ErrorCode, int]:
        """``(error, low watermark)``; offset -1 means the high watermark."""
        ...

    async def wait_for_data(self, parts: Iterable[tuple[str, int]], timeout_ms: int) -> int:
        """Wait for an append to any of ``parts`` or the timeout; the milliseconds left."""
        ...


class TopicsView(Protocol):
    """The topic catalog as handlers use it."""

    def __iter__(self) -> Iterator[TopicInfo]: ...

    def get(self, name: str) -> TopicInfo | None: ...

    def by_id(self, topic_id: bytes) -> TopicInfo | None: ...

    def check_new(self, name: str, partitions: int) -> None:
        """Raise `odradek.cluster.topics.TopicError` when ``create`` would be refused."""
        ...

    def create(self, name: str, partitions: int, configs: Mapping[str, str]) -> TopicInfo: ...

    def delete(self, name: str) -> TopicInfo: ...

    def set_configs(self, name: str, configs: Mapping[str, str]) -> TopicInfo:
        """Replace the topic's overrides durably; its partitions follow at once."""
        ...


class ClusterView(Protocol):
    """This node as the cluster sees it."""

    @property
    def cluster_id(self) -> str: ...

    @property
    def node_id(self) -> int: ...

    @property
    def advertised(self) -> tuple[str, int]: ...

    @property
    def config(self) -> BrokerConfig:
        """The broker config with its dynamic layers (a new object after every change)."""
        ...

    @property
    def features(self) -> FeatureLevels:
        """The supported feature ranges and finalized levels (a new object after every change)."""
        ...

    def set_dynamic_configs(self, props: Mapping[str, str], *, per_broker: bool) -> None: ...


class GroupsView(Protocol):
    """The group coordinator's runtime: persisting calls, and the state machine for reads."""

    @property
    def coordinator(self) -> GroupCoordinator: ...

    def ensure_topic(self) -> bool: ...

    async def join(self, request: JoinRequest) -> JoinResult: ...

    async def sync(self, request: SyncRequest) -> SyncResult: ...

    def leave(self, group_id: str, members: list[LeaveMember]) -> LeaveResult: ...

    def commit_offsets(
        self, who: CommitIdentity, partitions: list[CommitPartition], api_version: int, retention_time_ms: int = -1
    ) -> list[ErrorCode]: ...

    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]]) -> tuple[ErrorCode, list[ErrorCode]]: ...

    def delete_groups(self, group_ids: list[str]) -> list[ErrorCode]: ...


class ProducerIds(Protocol):
    def allocate(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Services:
    """Everything handlers may reach, built once by the broker."""

    partitions: PartitionsView
    topics: TopicsView
    cluster: ClusterView
    groups: GroupsView
    fetch_sessions: FetchSessionCache
    producer_ids: ProducerIds
    clock: Clock
    security: SecurityServices = field(default_factory=SecurityServices.permissive)
    """The authorizer and its ACLs, SCRAM credentials, client quotas (`odradek.security.services`)."""


@dataclass(frozen=True, slots=True)
class RequestContext:
    services: Services
    header: RequestHeader
    connection: ClientConnection

    @property
    def version(self) -> int:
        return self.header.api_version

    @property
    def identity(self) -> ClientIdentity:
        return self.connection.identity

    @property
    def security(self) -> SecurityServices:
        return self.services.security

    def authorize(self, operation: AclOperation, kind: ResourceType, name: str) -> bool:
        """Whether this request's principal may do ``operation`` on the resource (always, without an
        authorizer)."""
        return self.services.security.authorizer.authorize(self.connection.identity, operation, kind, name)

    def authorize_cluster(self, operation: AclOperation) -> bool:
        return self.authorize(operation, ResourceType.CLUSTER, "kafka-cluster")

    def authorized_operations(self, kind: ResourceType, name: str, operations: Iterable[AclOperation]) -> int:
        """Kafka's authorized-operations bitfield: bit ``op`` set for each of ``operations`` allowed."""
        return sum(1 << op for op in operations if self.authorize(op, kind, name))

    @property
    def advertised(self) -> tuple[str, int]:
        """This broker's endpoint on the listener the request came in on (Kafka advertises that one)."""
        return self.connection.identity.advertised or self.services.cluster.advertised

    @property
    def partitions(self) -> PartitionsView:
        return self.services.partitions

    @property
    def topics(self) -> TopicsView:
        return self.services.topics

    @property
    def cluster(self) -> ClusterView:
        return self.services.cluster

    @property
    def groups(self) -> GroupsView:
        return self.services.groups

    @property
    def fetch_sessions(self) -> FetchSessionCache:
        return self.services.fetch_sessions

    @property
    def producer_ids(self) -> ProducerIds:
        return self.services.producer_ids

    @property
    def clock(self) -> Clock:
        return self.services.clock
