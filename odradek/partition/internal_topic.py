"""An internal topic as a coordinator runtime uses it: ``__consumer_offsets``, ``__transaction_state``.

A coordinator persists its records by appending batches it built itself and replays them at
start-up; this is the one implementation of that over the partitions service.  The topic is
created (compacted, with the coordinator's settings) on first use.

Appends go through `Partitions.append_internal` (no produce checks; the partition stamps its
leader epoch, checks the producer state of a transactional batch the coordinator verified, and
wakes waiting fetches); a refused append raises `AppendFailed` with RECORD_LIST_TOO_LARGE or
UNKNOWN_TOPIC_OR_PARTITION as they are, any other refusal as KAFKA_STORAGE_ERROR.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol

from odradek.clock import Clock
from odradek.cluster.topics import TopicInfo
from odradek.partition.service import Partitions
from odradek.wire.errors import ErrorCode
from odradek.wire.records.batch import iter_batches

__all__ = ["READ_CHUNK_BYTES", "AppendFailed", "InternalTopicLog", "InternalTopics"]

READ_CHUNK_BYTES = 1 << 20


class AppendFailed(Exception):
    """An append to an internal topic failed; ``code`` is the storage error's Kafka code."""

    def __init__(self, code: ErrorCode) -> None:
        super().__init__(code.name)
        self.code = code


class InternalTopics(Protocol):
    """The topic catalog as `InternalTopicLog` needs it."""

    def get(self, name: str) -> TopicInfo | None: ...

    def create(self, name: str, partitions: int, configs: Mapping[str, str]) -> TopicInfo: ...


class InternalTopicLog:
    """One internal topic over the partitions service; created on the first append."""

    def __init__(
        self,
        topic: str,
        configs: Mapping[str, str],
        topics: InternalTopics,
        partitions: Partitions,
        clock: Clock,
        num_partitions: int,
    ) -> None:
        self.topic = topic
        self._configs = dict(configs)
        self._topics = topics
        self._partitions = partitions
        self._clock = clock
        self.num_partitions = num_partitions

    def ensure_topic(self) -> bool:
        """Create the topic if it does not exist yet; True when it existed before this call."""
        if self._topics.get(self.topic) is not None:
            return True
        self._topics.create(self.topic, self.num_partitions, self._configs)
        return False

    def exists(self) -> bool:
        return self._topics.get(self.topic) is not None

    def append(self, partition: int, batch: bytes) -> None:
        """Append one batch; raises `AppendFailed`."""
        self.ensure_topic()
        result = self._partitions.append_internal(self.topic, partition, batch, self._clock.time_ms())
        error = result.error
        if error is ErrorCode.NONE:
            return
        if error not in (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.RECORD_LIST_TOO_LARGE):
            error = ErrorCode.KAFKA_STORAGE_ERROR
        raise AppendFailed(error)

    def batches(self, partition: int) -> Iterator[bytes]:
        """Every batch of the partition, in offset order (nothing when the topic does not exist)."""
        found = self._partitions.get(self.topic, partition)
        if found is None:
            return
        offset = found.log_start_offset
        while offset < found.log_end_offset:
            region = found.read(offset, READ_CHUNK_BYTES, min_one_batch=True, whole_batches=True)
            if region is None:
                return
            data = region.read()
            for position, header in iter_batches(data):
                yield data[position : position + header.total_size]
                offset = header.next_offset
