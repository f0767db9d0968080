"""The narrow views of the broker that its handlers' services hold (`odradek.handlers.context`):
cluster facts, where transaction markers go, and the group and transaction coordinators built on
a request's first use.  Each reads the broker when asked, so a view never keeps a stale copy of
what the broker replaces (its config, its registration, its coordinators).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from odradek.clock import Clock
from odradek.cluster.feature_store import FeatureStore
from odradek.cluster.features import FeatureLevels
from odradek.cluster.topics import TopicCatalog
from odradek.config import BrokerConfig
from odradek.config.groups import GroupConfigStore
from odradek.coordinator.placement import OFFSETS_TOPIC
from odradek.partition.service import Partitions
from odradek.txn.markers import Marker
from odradek.wire.errors import ErrorCode

if TYPE_CHECKING:
    from odradek.coordinator.runtime import CoordinatorRuntime
    from odradek.transactions.runtime import TransactionRuntime

__all__ = ["BrokerState", "ClusterInfo", "GroupsOnFirstUse", "MarkerWriter", "TransactionsOnFirstUse"]


class BrokerState(Protocol):
    """What the views read of `odradek.broker.Broker`."""

    config: BrokerConfig
    cluster_id: str
    registered: bool
    features: FeatureLevels
    feature_store: FeatureStore
    group_configs: GroupConfigStore
    catalog: TopicCatalog
    partitions: Partitions
    clock: Clock

    @property
    def group_coordinator(self) -> CoordinatorRuntime: ...

    @property
    def transactions(self) -> TransactionRuntime: ...

    def set_dynamic_configs(self, props: Mapping[str, str], *, per_broker: bool) -> None: ...


class ClusterInfo:
    """`odradek.handlers.context.ClusterView` over the broker (its config changes over time)."""

    def __init__(self, broker: BrokerState) -> None:
        self._broker = broker

    @property
    def cluster_id(self) -> str:
        return self._broker.cluster_id

    @property
    def node_id(self) -> int:
        return self._broker.config.node_id

    @property
    def advertised(self) -> tuple[str, int]:
        return self._broker.config.advertised

    @property
    def config(self) -> BrokerConfig:
        return self._broker.config

    @property
    def features(self) -> FeatureLevels:
        return self._broker.features

    def set_features(self, levels: FeatureLevels) -> None:
        self._broker.feature_store.save(levels)
        self._broker.features = levels

    @property
    def registered(self) -> bool:
        return self._broker.registered

    def unregister(self) -> None:
        self._broker.registered = False
        self._broker.partitions.fence()

    @property
    def quorum_epoch(self) -> int:
        return self._broker.catalog.quorum_epoch

    @property
    def metadata_offset(self) -> int:
        return self._broker.catalog.metadata_offset

    def set_dynamic_configs(self, props: Mapping[str, str], *, per_broker: bool) -> None:
        self._broker.set_dynamic_configs(props, per_broker=per_broker)

    def group_configs(self, group: str) -> dict[str, str]:
        return self._broker.group_configs.get(group)

    def set_group_configs(self, group: str, configs: Mapping[str, str]) -> None:
        self._broker.group_configs.set(group, configs)

    def configured_groups(self) -> list[str]:
        return self._broker.group_configs.groups()


class MarkerWriter:
    """Where the transaction coordinator's markers go: the partition's log, and for
    ``__consumer_offsets`` also the group coordinator, whose pending offsets they end."""

    def __init__(self, broker: BrokerState) -> None:
        self._broker = broker

    def write_marker(self, topic: str, partition: int, marker: Marker, transaction_version: int) -> ErrorCode:
        broker = self._broker
        error = broker.partitions.write_marker(topic, partition, marker, transaction_version, broker.clock.time_ms())
        if error is ErrorCode.NONE and topic == OFFSETS_TOPIC:
            broker.group_coordinator.complete_transaction(partition, marker.producer_id, marker.commit)
        return error


class TransactionsOnFirstUse:
    """The handlers' `TransactionsView` before the transaction coordinator exists: the first
    attribute a request asks for builds it (`Broker.transactions`), so a broker that serves no
    transaction never imports the coordinator's state machine and log records."""

    def __init__(self, broker: BrokerState) -> None:
        self._broker = broker

    def __getattr__(self, name: str) -> Any:
        return getattr(self._broker.transactions, name)


class GroupsOnFirstUse:
    """The handlers' `GroupsView` before the group coordinator exists: the first attribute a
    request asks for builds it (`Broker.group_coordinator`), so a broker that serves no group
    never imports the coordinator's state machine, records and rebalance logic."""

    def __init__(self, broker: BrokerState) -> None:
        self._broker = broker

    def __getattr__(self, name: str) -> Any:
        return getattr(self._broker.group_coordinator, name)
