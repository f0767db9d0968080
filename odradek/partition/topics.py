"""Topics joined with their partitions: the catalog view handlers and the coordinator runtime use.

Creating a topic writes its catalog entry (durable at once), then creates its partitions without
fsyncs and asks `sync_soon` to make them durable off the event loop (Kafka flushes partition
metadata asynchronously too); after a crash before that sync, start-up re-creates or re-adopts
what the catalog lists (`reconcile`).  Growing a topic (CreatePartitions) works the same way: the
catalog's new count first, then the new partitions.  Deleting a topic removes the catalog entry, then the
partitions.  Changing a topic's configs is durable in the catalog first, then applies to its
partition logs at once.

Invariant: every topic in the catalog has all its partitions in the partitions service, and no
partition outlives its topic (between two calls of this class; nothing here awaits).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping

from odradek.cluster.topics import TopicCatalog, TopicInfo
from odradek.partition.service import Partitions
from odradek.storage.log_config import LogConfig

__all__ = ["Topics"]


class Topics:
    """The topic catalog and the partitions service, kept in step."""

    def __init__(
        self,
        catalog: TopicCatalog,
        partitions: Partitions,
        log_config: Callable[[TopicInfo], LogConfig],
        sync_soon: Callable[[], None],
    ) -> None:
        self._catalog = catalog
        self._partitions = partitions
        self._log_config = log_config
        self._sync_soon = sync_soon

    def __iter__(self) -> Iterator[TopicInfo]:
        return iter(self._catalog)

    def __len__(self) -> int:
        return len(self._catalog)

    def get(self, name: str) -> TopicInfo | None:
        return self._catalog.get(name)

    def by_id(self, topic_id: bytes) -> TopicInfo | None:
        return self._catalog.by_id(topic_id)

    def check_new(self, name: str, partitions: int) -> None:
        self._catalog.check_new(name, partitions)

    def create(self, name: str, partitions: int, configs: Mapping[str, str]) -> TopicInfo:
        """A new topic and its partitions (made durable by `sync_soon`, see the module docstring)."""
        info = self._catalog.create(name, partitions, configs)
        topic_id = uuid.UUID(bytes=info.topic_id)
        config = self._log_config(info)
        for partition in range(partitions):
            self._partitions.create(name, partition, topic_id, config, durable=False)
        self._sync_soon()
        return info

    def add_partitions(self, name: str, count: int) -> TopicInfo:
        """Grow ``name`` to ``count`` partitions: the catalog first (durable at once), then the new
        partitions, made durable by `sync_soon` like a new topic's (see the module docstring)."""
        info = self._catalog.set_partition_count(name, count)
        topic_id = uuid.UUID(bytes=info.topic_id)
        config = self._log_config(info)
        for partition in range(count):
            if self._partitions.get(name, partition) is None:
                self._partitions.create(name, partition, topic_id, config, durable=False)
        self._sync_soon()
        return info

    def delete(self, name: str) -> TopicInfo:
        info = self._catalog.delete(name)
        self._partitions.delete_topic(name)
        return info

    def set_configs(self, name: str, configs: Mapping[str, str]) -> TopicInfo:
        info = self._catalog.set_configs(name, configs)
        self._apply_config(info)
        return info

    def apply_configs(self) -> None:
        """Every topic's partitions take their current effective configs (the broker's defaults
        changed)."""
        for info in self._catalog:
            self._apply_config(info)

    def _apply_config(self, info: TopicInfo) -> None:
        config = self._log_config(info)
        for partition in self._partitions:
            if partition.topic == info.name:
                partition.log.update_config(config)

    def reconcile(self) -> None:
        """Create the partitions the catalog lists but the disk lacks, and give back their topic
        id to logs whose partition.metadata a crash emptied (both: a crash soon after creation)."""
        for info in self._catalog:
            for partition in range(info.partitions):
                existing = self._partitions.get(info.name, partition)
                if existing is None or existing.log.topic_id is None:
                    self._partitions.create(
                        info.name, partition, uuid.UUID(bytes=info.topic_id), self._log_config(info)
                    )
