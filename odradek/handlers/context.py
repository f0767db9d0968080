"""What a handler sees of one request: a few narrow services, the header, the client.

Each service is a Protocol naming only what handlers call, so a handler can be unit-tested with
fakes and nothing here (or in any handler) imports the broker.  The broker builds one `Services`
at start-up; the dispatcher wraps it with each request's header and connection.

- `PartitionsView`: partition data (append, read, offsets, delete records, long-poll waits) and
  who leads each partition; implemented by `odradek.partition.service.Partitions`.
- `TopicsView`: the topic catalog, and topic creation, deletion and config changes.
- `ClusterView`: this node: ids, advertised endpoint, broker config and its dynamic layers.
- `GroupsView`: the group coordinator's runtime (`odradek.coordinator.runtime.CoordinatorRuntime`).
- `TransactionsView`: the transaction coordinator's runtime
  (`odradek.transactions.runtime.TransactionRuntime`).
- `ProducerIds`: producer id allocation (InitProducerId).
- `LogDirsView`: the data directories, their partitions and moves between them
  (`odradek.partition.log_dirs.LogDirs`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from odradek.clock import Clock
from odradek.cluster.features import FeatureLevels
from odradek.cluster.topics import TopicInfo
from odradek.config import BrokerConfig
from odradek.fetch_sessions import FetchSessionCache
from odradek.partition.log_dirs import StoredReplica
from odradek.partition.results import (
    AppendResult,
    EpochEndOffset,
    Leadership,
    OffsetResult,
    ReadResult,
    TopicLeadership,
)
from odradek.security.acl import AclOperation, ResourceType
from odradek.security.principal import ClientIdentity
from odradek.security.services import SecurityServices
from odradek.txn.markers import Marker
from odradek.txn.producer_state import ProducerView
from odradek.wire.api import RequestHeader
from odradek.wire.errors import ErrorCode

if TYPE_CHECKING:
    from odradek.coordinator.coordinator import GroupCoordinator
    from odradek.coordinator.messages import (
        CommitIdentity,
        CommitPartition,
        JoinRequest,
        JoinResult,
        LeaveMember,
        LeaveResult,
        SyncRequest,
        SyncResult,
    )
    from odradek.txn.messages import DescribedTransaction, EndTxnResult, InitProducerIdResult, ListedTransactions

__all__ = [
    "ClientConnection",
    "ClusterView",
    "GroupsView",
    "LogDirsView",
    "PartitionsView",
    "ProducerIds",
    "RequestContext",
    "Services",
    "TopicsView",
    "TransactionsView",
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

    def leadership(self, topic: str, partition: int) -> Leadership: ...

    def topic_leadership(self, topic: str, count: int) -> TopicLeadership:
        """Partitions 0..``count``-1: the same object until one of their leaderships changes."""
        ...

    def append(
        self,
        topic: str,
        partition: int,
        records: memoryview | None,
        version: int,
        now_ms: int,
        *,
        transaction_verified: bool = False,
        verified_v2: bool = False,
    ) -> AppendResult:
        """A client's produce to one partition (checks, producer state, write)."""
        ...

    def needs_transaction_verification(self, topic: str, partition: int, producer_id: int, producer_epoch: int) -> bool:
        """Whether the producer has no transaction open on the partition at this epoch."""
        ...

    def active_producers(self, topic: str, partition: int) -> tuple[ErrorCode, list[ProducerView]]: ...

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
        last_fetched_epoch: int = -1,
    ) -> ReadResult: ...

    def list_offset(
        self, topic: str, partition: int, timestamp: int, current_leader_epoch: int, *, committed: bool = False
    ) -> OffsetResult: ...

    def offset_for_leader_epoch(
        self, topic: str, partition: int, current_leader_epoch: int, leader_epoch: int
    ) -> EpochEndOffset: ...

    def delete_records(self, topic: str, partition: int, offset: int) -> tuple[ErrorCode, int]:
        """``(error, low watermark)``; offset -1 means the high watermark."""
        ...

    async def wait_for_data(self, parts: Iterable[tuple[str, int]], timeout_ms: int) -> int:
        """Wait for an append to any of ``parts`` or the timeout; the milliseconds left."""
        ...


class LogDirsView(Protocol):
    """The data directories: what each holds, and moving partitions between them."""

    @property
    def data_dirs(self) -> list[str]:
        """Every data directory, absolute, in ``log.dirs`` order."""
        ...

    def replicas(self) -> Iterator[StoredReplica]: ...

    def move(self, topic: str, partition: int, path: str) -> ErrorCode:
        """Start moving a partition into the data directory ``path``; Kafka's error if it cannot."""
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

    def add_partitions(self, name: str, count: int) -> TopicInfo:
        """Grow ``name`` to ``count`` partitions (more than it has), durably."""
        ...

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

    def set_features(self, levels: FeatureLevels) -> None:
        """Finalize ``levels`` (UpdateFeatures), durably first."""
        ...

    @property
    def registered(self) -> bool:
        """Whether this node is registered with its controller (False once it unregistered
        itself, until it restarts)."""
        ...

    def unregister(self) -> None:
        """UnregisterBroker of this node: fenced until it restarts, as on Kafka."""
        ...

    @property
    def quorum_epoch(self) -> int:
        """The KRaft quorum's leader epoch: this node, the only voter, elects itself at each start."""
        ...

    @property
    def metadata_offset(self) -> int:
        """How far the cluster metadata has advanced (the quorum's high watermark)."""
        ...

    def set_dynamic_configs(self, props: Mapping[str, str], *, per_broker: bool) -> None: ...

    def group_configs(self, group: str) -> dict[str, str]:
        """The group's config overrides (GROUP resources)."""
        ...

    def set_group_configs(self, group: str, configs: Mapping[str, str]) -> None:
        """Replace the group's overrides, durably."""
        ...

    def configured_groups(self) -> list[str]:
        """The groups that have overrides, sorted."""
        ...


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

    def commit_txn_offsets(
        self,
        who: CommitIdentity,
        producer_id: int,
        producer_epoch: int,
        partitions: list[CommitPartition],
        api_version: int,
    ) -> list[ErrorCode]:
        """TxnOffsetCommit: the offsets stay pending until the producer's transaction ends."""
        ...

    def partition_for(self, group_id: str) -> int:
        """The group's ``__consumer_offsets`` partition."""
        ...

    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]]) -> tuple[ErrorCode, list[ErrorCode]]: ...

    def delete_groups(self, group_ids: list[str]) -> list[ErrorCode]: ...


class ProducerIds(Protocol):
    def allocate(self) -> int: ...


class TransactionsView(Protocol):
    """The transaction coordinator; every answer carries its Kafka error as a value."""

    def ensure_topic(self) -> bool:
        """Create ``__transaction_state`` if needed; True when it existed before this call."""
        ...

    def init_producer_id(
        self, transactional_id: str | None, timeout_ms: int, producer_id: int, producer_epoch: int
    ) -> InitProducerIdResult: ...

    def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[tuple[str, int]],
        client_transaction_version: int = 0,
    ) -> ErrorCode: ...

    def add_offsets(
        self, transactional_id: str, producer_id: int, producer_epoch: int, group_id: str, client_version: int = 0
    ) -> ErrorCode: ...

    def verify_partitions(
        self, transactional_id: str, producer_id: int, producer_epoch: int, partitions: Iterable[tuple[str, int]]
    ) -> dict[tuple[str, int], ErrorCode]: ...

    def end_txn(
        self, transactional_id: str, producer_id: int, producer_epoch: int, commit: bool, client_version: int = 0
    ) -> EndTxnResult: ...

    def write_marker(self, topic: str, partition: int, marker: Marker, transaction_version: int) -> ErrorCode:
        """Write a COMMIT/ABORT marker (WriteTxnMarkers), as the coordinator's own are written."""
        ...

    def describe(self, transactional_id: str) -> DescribedTransaction: ...

    def list_transactions(
        self,
        states: Iterable[str],
        producer_ids: Iterable[int],
        duration_ms: int,
        transactional_id_pattern: str | None,
    ) -> ListedTransactions: ...


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
    log_dirs: LogDirsView
    transactions: TransactionsView
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

    def authorize_any(self, operation: AclOperation, kind: ResourceType) -> bool:
        """Whether some resource of ``kind`` allows ``operation`` (Kafka's ``authorizeByResourceType``)."""
        return self.services.security.authorizer.authorize_any(self.connection.identity, operation, kind)

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
    def transactions(self) -> TransactionsView:
        return self.services.transactions

    @property
    def clock(self) -> Clock:
        return self.services.clock

    @property
    def log_dirs(self) -> LogDirsView:
        return self.services.log_dirs
