"""The partitions service: the one thing request handlers (and the coordinator runtime) use for
partition data: append, read, list offsets, delete records, wait for data, who leads.

It owns one `Partition` per partition log of the `LogManager` and keeps that map in step with
topic creation and deletion.  Answers are typed results carrying Kafka error codes as values
(`odradek.partition.results`); handlers only translate them to wire fields.

Leadership lives here and only here: this node leads every partition, with itself as the only
replica (`leadership`), at the epoch the topic catalog keeps for it (0 for a new partition, 2 more
at every start of the broker, as on a single Kafka node); each `Partition` records it in its
leader epoch cache.  A node that unregistered itself (`fence`) leads nothing until it restarts.
A request naming a newer leader epoch than ours gets UNKNOWN_LEADER_EPOCH, an older one
FENCED_LEADER_EPOCH; -1 skips the check.

Long polls (`wait_for_data`) register a waker on each named partition; the first append to any
of them wakes the fetch.  Its deadline is a timer on the broker's `Scheduler`, so with a manual
clock a long poll answers exactly when the test's ``advance()`` reaches ``max_wait_ms``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Iterator
from typing import Protocol

from odradek.cluster.topics import TopicInfo
from odradek.partition.partition import Partition
from odradek.partition.produce_checks import check_produce
from odradek.partition.results import (
    SHARED_LEADERSHIP_PARTITIONS,
    AppendResult,
    EpochEndOffset,
    Leadership,
    OffsetResult,
    ReadResult,
    TopicLeadership,
)
from odradek.scheduler import Scheduler
from odradek.storage.errors import OffsetOutOfRange, StorageError
from odradek.storage.filesystem import FileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.storage.txn_cleaning import CleaningHints
from odradek.txn.markers import Marker
from odradek.txn.producer_state import ProducerView
from odradek.wire.errors import ErrorCode

__all__ = [
    "EARLIEST",
    "EARLIEST_LOCAL",
    "LATEST",
    "LATEST_TIERED",
    "MAX_TIMESTAMP",
    "Partitions",
    "TopicLookup",
]

NO_EPOCH = -1
HIGH_WATERMARK = -1
LATEST, EARLIEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED = -1, -2, -3, -4, -5


class TopicLookup(Protocol):
    """The topic catalog as the partitions need it: a topic's configs, whether it is internal, its
    leader epochs, and a count of its changes (each one moves ``metadata_offset``)."""

    metadata_offset: int

    def get(self, name: str) -> TopicInfo | None: ...


class Partitions:
    """Every partition of this node, and the operations on their data.

    Constructing it opens a `Partition` over every log of ``logs`` (loading each producer
    state) and makes it the log manager's compaction hook (`cleaning_hints`)."""

    def __init__(
        self,
        fs: FileSystem,
        logs: LogManager,
        topics: TopicLookup,
        node_id: int,
        scheduler: Scheduler,
    ) -> None:
        self._fs = fs
        self._logs = logs
        self._topics = topics
        self._node_id = node_id
        self._scheduler = scheduler
        self._partitions: dict[tuple[str, int], Partition] = {}
        self._fenced = False
        self._leadership_changes = 0
        """Moves whenever a leadership may change here: a partition opened or removed, the node fenced."""
        self._leaderships_as_of: tuple[int, int] = (-1, -1)
        self._leaderships: dict[str, TopicLeadership] = {}
        """`topic_leadership`'s answers since ``_leaderships_as_of`` (the catalog's metadata offset,
        ``_leadership_changes``) last moved; emptied when it moves."""
        logs.set_cleaning_hints(self.cleaning_hints)
        for log in logs.logs():
            self._adopt(log)

    def _adopt(self, log: PartitionLog) -> Partition:
        key = (log.topic, log.partition)
        partition = self._partitions.get(key)
        if partition is None or partition.log is not log:
            epoch = self._catalog_epoch(log.topic, log.partition)
            partition = self._partitions[key] = Partition.open(self._fs, log, leader_epoch=epoch)
            self._leadership_changes += 1
        return partition

    def _catalog_epoch(self, topic: str, partition: int) -> int:
        info = self._topics.get(topic)
        if info is None or partition >= len(info.leader_epochs):
            return 0
        return info.leader_epochs[partition]

    # ------------------------------------------------------------- lifecycle

    def create(
        self, topic: str, partition: int, topic_id: uuid.UUID, config: LogConfig, *, durable: bool = True
    ) -> Partition:
        """A new partition (an existing log with this topic id is adopted as it is)."""
        return self._adopt(self._logs.create_partition(topic, partition, topic_id, config, durable=durable))

    def relocate(self, log: PartitionLog) -> None:
        """``log`` replaces its partition's log (moved to another data directory): a new
        `Partition` takes it over, and fetches waiting on the old one wake to read it."""
        old = self._partitions.get((log.topic, log.partition))
        self._adopt(log)
        if old is not None:
            old.wake_waiters()

    def delete_topic(self, topic: str) -> None:
        """Delete every partition of ``topic`` and its log."""
        for key in [key for key in self._partitions if key[0] == topic]:
            del self._partitions[key]
        self._leadership_changes += 1
        self._logs.delete_topic(topic)

    def get(self, topic: str, partition: int) -> Partition | None:
        return self._partitions.get((topic, partition))

    def __iter__(self) -> Iterator[Partition]:
        return iter(list(self._partitions.values()))

    def sync_leader_epochs(self) -> None:
        """Make every leader epoch cache written without an fsync durable (safe on a worker
        thread while the loop opens no partition: fsyncs only)."""
        for partition in list(self._partitions.values()):
            partition.epochs.sync()

    def cleaning_hints(self, log: PartitionLog) -> CleaningHints:
        """The compaction hook: what the cleaner must keep of ``log`` and where it must stop."""
        partition = self._partitions.get((log.topic, log.partition))
        return partition.cleaning_hints() if partition is not None else CleaningHints()

    # ------------------------------------------------------------- leadership

    def fence(self) -> None:
        """This node unregistered itself (UnregisterBroker): until it restarts it leads nothing,
        as a fenced Kafka node: no leader, the epoch one up, the replica offline; appends and
        reads get NOT_LEADER_OR_FOLLOWER."""
        self._fenced = True
        self._leadership_changes += 1

    def leadership(self, topic: str, partition: int) -> Leadership:
        node = self._node_id
        target = self._partitions.get((topic, partition))
        epoch = target.leader_epoch if target is not None else self._catalog_epoch(topic, partition)
        if self._fenced:
            return Leadership(-1, epoch + 1, (node,), (), (node,))
        return Leadership(node, epoch, (node,), (node,))

    def topic_leadership(self, topic: str, count: int) -> TopicLeadership:
        """`leadership` of partitions 0..``count``-1 of ``topic``.  For ``count`` of at least
        `SHARED_LEADERSHIP_PARTITIONS`, the same object as the last call while neither the catalog
        (its metadata offset) nor this node's partitions or fencing changed, a new one after; for
        fewer, a new one each call.  A partition's leadership depends on nothing else: its epoch is
        the catalog's, or its `Partition`'s, fixed when the partition is opened."""
        if count < SHARED_LEADERSHIP_PARTITIONS:
            return TopicLeadership(tuple([self.leadership(topic, index) for index in range(count)]))
        as_of = (self._topics.metadata_offset, self._leadership_changes)
        if as_of != self._leaderships_as_of:
            self._leaderships.clear()
            self._leaderships_as_of = as_of
        known = self._leaderships.get(topic)
        if known is None or len(known.partitions) != count:
            known = TopicLeadership(tuple([self.leadership(topic, index) for index in range(count)]))
            self._leaderships[topic] = known
        return known

    @staticmethod
    def _epoch_error(partition: Partition, current_leader_epoch: int) -> ErrorCode | None:
        if current_leader_epoch == NO_EPOCH or current_leader_epoch == partition.leader_epoch:
            return None
        if current_leader_epoch > partition.leader_epoch:
            return ErrorCode.UNKNOWN_LEADER_EPOCH
        return ErrorCode.FENCED_LEADER_EPOCH if current_leader_epoch >= 0 else None

    # ----------------------------------------------------------------- writes

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
        """A client's produce of one partition: topic checks, `produce_checks`, then the
        partition's append (producer state, write, wake-up).  ``transaction_verified``: the
        transaction coordinator confirmed that the batch's transaction includes the partition;
        ``verified_v2``: it added the partition just now (transactions v2)."""
        info = self._topics.get(topic)
        target = self._partitions.get((topic, partition))
        if info is None or target is None:
            return AppendResult(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        if self._fenced:
            return AppendResult(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        if info.internal:
            return AppendResult(ErrorCode.INVALID_TOPIC_EXCEPTION, message=f"Cannot append to internal topic {topic}")
        checked = check_produce(
            records,
            topic=topic,
            index=partition,
            version=version,
            config=target.log.config,
            now_ms=now_ms,
            log_start_offset=target.log_start_offset,
        )
        if isinstance(checked, AppendResult):
            return checked
        batch, header = checked
        return target.append(batch, now_ms, header, transaction_verified=transaction_verified, verified_v2=verified_v2)

    def append_internal(self, topic: str, partition: int, batch: bytes, now_ms: int) -> AppendResult:
        """An append by this broker itself (coordinator records): no produce checks; a
        transactional batch was verified by the coordinator that wrote it."""
        target = self._partitions.get((topic, partition))
        if target is None:
            return AppendResult(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        return target.append(bytearray(batch), now_ms, transaction_verified=True)

    def needs_transaction_verification(self, topic: str, partition: int, producer_id: int, producer_epoch: int) -> bool:
        """Whether a transactional write of the producer must be checked with the transaction
        coordinator first: it has no transaction open on the partition at this epoch."""
        target = self._partitions.get((topic, partition))
        return target is not None and not target.has_open_transaction(producer_id, producer_epoch)

    def write_marker(
        self, topic: str, partition: int, marker: Marker, transaction_version: int, now_ms: int
    ) -> ErrorCode:
        """Write a transaction marker (internal topics too); the partition's answer."""
        target = self._partitions.get((topic, partition))
        if target is None:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        if target.offline:
            return ErrorCode.KAFKA_STORAGE_ERROR
        return target.append_marker(marker, transaction_version, now_ms).error

    def active_producers(self, topic: str, partition: int) -> tuple[ErrorCode, list[ProducerView]]:
        """DescribeProducers of one partition."""
        target = self._partitions.get((topic, partition))
        if target is None:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []
        return ErrorCode.NONE, target.active_producers()

    def expire_producers(self, now_ms: int, expiration_ms: int) -> int:
        """Forget, in every partition, producers idle for ``expiration_ms``; return how many."""
        return sum(partition.expire_producers(now_ms, expiration_ms) for partition in list(self._partitions.values()))

    def delete_records(self, topic: str, partition: int, offset: int) -> tuple[ErrorCode, int]:
        """Move the log start offset up to ``offset`` (-1: the high watermark), durably;
        ``(error, low watermark)``, the low watermark -1 on every error."""
        info = self._topics.get(topic)
        target = self._partitions.get((topic, partition))
        if info is None or target is None:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1
        if info.internal:
            return ErrorCode.INVALID_TOPIC_EXCEPTION, -1
        if not target.log.config.delete:
            return ErrorCode.POLICY_VIOLATION, -1
        if target.offline:
            return ErrorCode.KAFKA_STORAGE_ERROR, -1
        wanted = target.high_watermark if offset == HIGH_WATERMARK else offset
        if wanted < 0:
            return ErrorCode.OFFSET_OUT_OF_RANGE, -1
        try:
            return ErrorCode.NONE, self._logs.increment_log_start_offset(topic, partition, wanted)
        except OffsetOutOfRange:
            return ErrorCode.OFFSET_OUT_OF_RANGE, -1
        except (StorageError, OSError):
            return ErrorCode.KAFKA_STORAGE_ERROR, -1

    # ------------------------------------------------------------------ reads

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
        last_fetched_epoch: int = NO_EPOCH,
    ) -> ReadResult:
        """A fetch of one partition: up to ``max_bytes`` from ``offset`` (a whole first batch
        when ``first``, KIP-74), stopping at the last stable offset when ``committed``.
        Nothing to read yet answers with no records and no error.  A ``last_fetched_epoch``
        whose end lies before ``offset`` (the client's log diverged from ours) answers with
        that epoch's end as the diverging epoch and no records, as Kafka's leader does."""
        target = self._partitions.get((topic, partition))
        if target is None:
            return ReadResult(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        if self._fenced:
            return ReadResult(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        refused = self._epoch_error(target, current_leader_epoch)
        if refused is not None:
            return ReadResult(refused)
        offsets = target.read_offsets()
        if offsets is None:
            return ReadResult(ErrorCode.KAFKA_STORAGE_ERROR)
        high_watermark, stable, log_start, log_end = offsets
        outcome = ReadResult(ErrorCode.NONE, high_watermark, stable, log_start)
        if last_fetched_epoch >= 0:
            epoch, end = target.epochs.end_offset_for(last_fetched_epoch, log_end)
            if epoch == NO_EPOCH or end == NO_EPOCH or offset < log_start:
                return ReadResult(ErrorCode.OFFSET_OUT_OF_RANGE)
            if epoch < last_fetched_epoch or end < offset:
                outcome.diverging_epoch = EpochEndOffset(leader_epoch=epoch, end_offset=end)
                return outcome
        try:
            if committed:
                read = target.read_committed(offset, max(max_bytes, 1), min_one_batch=first)
                outcome.records, outcome.aborted = read.records, read.aborted
                return outcome
            if high_watermark <= offset <= log_end:
                return outcome
            outcome.records = target.read(offset, max(max_bytes, 1), min_one_batch=first, whole_batches=False)
        except OffsetOutOfRange:
            # Kafka answers a failed read with -1 for the high watermark, LSO and log start.
            return ReadResult(ErrorCode.OFFSET_OUT_OF_RANGE)
        except StorageError:
            return ReadResult(ErrorCode.KAFKA_STORAGE_ERROR)
        return outcome

    def offset_for_leader_epoch(
        self, topic: str, partition: int, current_leader_epoch: int, leader_epoch: int
    ) -> EpochEndOffset:
        """Where ``leader_epoch`` ends in the partition's log, from its leader epoch cache
        (`odradek.storage.leader_epochs.LeaderEpochCache.end_offset_for`; the latest epoch ends
        at the log end offset), after the same current-leader-epoch check as a read."""
        target = self._partitions.get((topic, partition))
        if target is None:
            return EpochEndOffset(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        if self._fenced:
            return EpochEndOffset(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        refused = self._epoch_error(target, current_leader_epoch)
        if refused is not None:
            return EpochEndOffset(refused)
        if target.offline:
            return EpochEndOffset(ErrorCode.KAFKA_STORAGE_ERROR)
        epoch, end = target.epochs.end_offset_for(leader_epoch, target.log_end_offset)
        return EpochEndOffset(ErrorCode.NONE, epoch, end)

    def list_offset(
        self, topic: str, partition: int, timestamp: int, current_leader_epoch: int, *, committed: bool = False
    ) -> OffsetResult:
        """ListOffsets for one partition: the special timestamps (`LATEST` is the high
        watermark, or the last stable offset when ``committed``; `EARLIEST` and
        `EARLIEST_LOCAL` the log start, `MAX_TIMESTAMP` the record with the largest timestamp,
        `LATEST_TIERED` none) or the first record at or after ``timestamp``; none found is
        offset -1 with no error.  As in Kafka, a record found by timestamp must lie below the
        last fetchable offset (the last stable offset when ``committed``)."""
        target = self._partitions.get((topic, partition))
        if target is None:
            return OffsetResult(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        if self._fenced:
            return OffsetResult(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        refused = self._epoch_error(target, current_leader_epoch)
        if refused is not None:
            return OffsetResult(refused)
        if target.offline:
            return OffsetResult(ErrorCode.KAFKA_STORAGE_ERROR)
        fetchable = target.last_stable_offset if committed else target.high_watermark
        if timestamp == LATEST:
            return OffsetResult(ErrorCode.NONE, -1, fetchable, target.leader_epoch)
        if timestamp in (EARLIEST, EARLIEST_LOCAL):
            start = target.log_start_offset
            return OffsetResult(ErrorCode.NONE, -1, start, target.epochs.epoch_for_offset(start))
        if timestamp == LATEST_TIERED:
            return OffsetResult(ErrorCode.NONE)
        try:
            log = target.log
            hit = log.max_timestamp() if timestamp == MAX_TIMESTAMP else log.offset_for_timestamp(timestamp)
        except StorageError:
            return OffsetResult(ErrorCode.KAFKA_STORAGE_ERROR)
        if hit is None or hit.offset >= fetchable:
            return OffsetResult(ErrorCode.NONE)
        return OffsetResult(ErrorCode.NONE, hit.timestamp, hit.offset, hit.leader_epoch)

    async def wait_for_data(self, parts: Iterable[tuple[str, int]], timeout_ms: int) -> int:
        """Wait until one of ``parts`` (topic, partition) gets an append, or ``timeout_ms``;
        return the milliseconds left (0 when the time ran out).  Unknown parts never wake."""
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not woken.done():
                woken.set_result(None)

        watched = [self._partitions.get(part) for part in parts]
        cancels = [partition.watch(wake) for partition in watched if partition is not None]
        started = self._scheduler.now_ms()
        try:
            if not await self._scheduler.wait_for(woken, max(timeout_ms, 0)):
                return 0
            return max(0, timeout_ms - (self._scheduler.now_ms() - started))
        finally:
            for cancel in cancels:
                cancel()
