"""The coordinator's runtime: persistence in ``__consumer_offsets``, waiting, and timers.

The state machine (`coordinator.GroupCoordinator`) never waits and never writes.  This module:

- has ONE path for every operation's `Result` (`CoordinatorRuntime.complete`): append its
  records to their group's partition of ``__consumer_offsets`` (one batch per partition, the
  topic created with ``cleanup.policy=compact`` on first use), replay each appended record
  into the coordinator, then `results.settle` (which remaps a failed append once, for all);
- turns the coordinator's ``respond`` callbacks into asyncio futures handlers await;
- replays the whole topic at start-up (`CoordinatorRuntime.load`) through the same replay;
- keeps one scheduler timer per group at the group's earliest deadline, as the coordinator
  reports it, and runs the offsets expiry every ``offsets.retention.check.interval.ms``.

Writes are synchronous and happen on the event loop before any waiter resumes, so a response is
never sent for state that was not persisted.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Protocol, TypeVar

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
from odradek.coordinator.placement import OFFSETS_TOPIC, partition_for
from odradek.coordinator.records import CoordinatorRecord, decode_record, encode_record
from odradek.coordinator.results import Result, settle
from odradek.partition.internal_topic import AppendFailed
from odradek.scheduler import PeriodicTask, Scheduler, Timer
from odradek.wire.errors import ErrorCode
from odradek.wire.primitives import DecodeError
from odradek.wire.records.batch import CorruptBatchError
from odradek.wire.records.builder import ControlRecordType, build_batch, decode_batch, parse_control_record
from odradek.wire.records.record import Record

__all__ = ["OFFSETS_TOPIC_CONFIGS", "AppendFailed", "CoordinatorRuntime", "OffsetsLog"]

log = logging.getLogger("odradek.coordinator")

OFFSETS_TOPIC_CONFIGS = {"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": "104857600"}

T = TypeVar("T")


class OffsetsLog(Protocol):
    """The internal topic as the runtime needs it (`odradek.partition.internal_topic.InternalTopicLog`)."""

    def ensure_topic(self) -> bool:
        """Create the topic if it does not exist yet; True when it existed before this call."""

    def append(self, partition: int, batch: bytes) -> None:
        """Append one batch; raises `AppendFailed`."""

    def batches(self, partition: int) -> Iterator[bytes]:
        """Every batch of the partition, in offset order (nothing when the topic does not exist)."""


def _resolve(future: asyncio.Future[T]) -> Callable[[T], None]:
    def respond(value: T) -> None:
        if not future.done():
            future.set_result(value)

    return respond


class CoordinatorRuntime:
    def __init__(
        self, coordinator: GroupCoordinator, offsets_log: OffsetsLog, num_partitions: int, scheduler: Scheduler
    ) -> None:
        self.coordinator = coordinator
        self._log = offsets_log
        self._partitions = num_partitions
        self._scheduler = scheduler
        self._group_timers: dict[str, Timer] = {}
        self._expiry: PeriodicTask | None = None
        coordinator.set_deadline_listener(self._deadline_changed)

    def ensure_topic(self) -> bool:
        """Create ``__consumer_offsets`` if needed; True when it existed before this call."""
        return self._log.ensure_topic()

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self._partitions)

    # -------------------------------------------------------------- persistence

    def load(self) -> None:
        """Replay every partition of the topic; corrupt or unknown records are skipped with a log line."""
        coordinator = self.coordinator
        coordinator.begin_load()
        replayed = 0
        for partition in range(self._partitions):
            for batch in self._log.batches(partition):
                replayed += self._load_batch(batch, partition)
        self.complete(coordinator.finish_load())
        log.info("loaded %d groups from %d records of %s", len(coordinator.groups), replayed, OFFSETS_TOPIC)

    def _load_batch(self, batch: bytes, partition: int) -> int:
        """Replay one loaded batch: its records (pending ones when transactional), or the end of a
        producer's transaction when it is a marker; how many records it replayed."""
        try:
            header, records = decode_batch(batch)
        except CorruptBatchError as exc:
            log.warning("skipping a corrupt batch of %s-%d: %s", OFFSETS_TOPIC, partition, exc)
            return 0
        if header.is_control:
            if header.is_transactional and records:
                control = parse_control_record(records[0])
                if control.type in (ControlRecordType.COMMIT, ControlRecordType.ABORT):
                    self.complete_transaction(partition, header.producer_id, control.type is ControlRecordType.COMMIT)
            return 0
        producer = header.producer_id if header.is_transactional else None
        replayed = 0
        for record in self._decode(records, partition):
            self.coordinator.replay(record, producer)
            replayed += 1
        return replayed

    def _decode(self, records: list[Record], partition: int) -> Iterator[CoordinatorRecord]:
        for raw in records:
            if raw.key is None:
                continue
            try:
                record = decode_record(raw.key, raw.value)
            except DecodeError as exc:
                log.warning("skipping an undecodable record of %s-%d: %s", OFFSETS_TOPIC, partition, exc)
                continue
            if record is not None:
                yield record

    def complete(self, result: Result[T]) -> T:
        """Append the result's records, replay them, settle it: the response to send."""
        return settle(result, self._append(result.records, result.producer))

    def _append(self, records: list[CoordinatorRecord], producer: tuple[int, int] | None = None) -> ErrorCode:
        """Append and replay, one batch per partition in partition order; the first failure stops.
        With a ``producer`` the batches are transactional (no sequence, as Kafka's coordinator
        writes them) and the records replay as that producer's pending offsets."""
        by_partition: dict[int, list[CoordinatorRecord]] = defaultdict(list)
        for record in records:
            by_partition[self.partition_for(record.group)].append(record)
        now = self.coordinator.clock.time_ms()
        for partition, batch_records in sorted(by_partition.items()):
            encoded = [encode_record(r) for r in batch_records]
            entries = [Record(i, 0, key, value) for i, (key, value) in enumerate(encoded)]
            if producer is None:
                batch = build_batch(entries, base_timestamp=now)
            else:
                batch = build_batch(
                    entries,
                    base_timestamp=now,
                    producer_id=producer[0],
                    producer_epoch=producer[1],
                    is_transactional=True,
                )
            try:
                self._log.append(partition, batch)
            except AppendFailed as exc:
                log.error("cannot append to %s-%d: %s", OFFSETS_TOPIC, partition, exc.code.name)
                return exc.code
            for record in batch_records:
                self.coordinator.replay(record, None if producer is None else producer[0])
        return ErrorCode.NONE

    def complete_transaction(self, partition: int, producer_id: int, commit: bool) -> None:
        """A COMMIT or ABORT marker of the producer was written to (or loaded from) ``partition``."""
        self.coordinator.complete_transaction(producer_id, commit, lambda group: self.partition_for(group) == partition)

    # ------------------------------------------------------------------ requests

    async def join(self, request: JoinRequest) -> JoinResult:
        future: asyncio.Future[JoinResult] = asyncio.get_running_loop().create_future()
        self.complete(self.coordinator.join(request, _resolve(future)))
        return await future

    async def sync(self, request: SyncRequest) -> SyncResult:
        future: asyncio.Future[SyncResult] = asyncio.get_running_loop().create_future()
        self.complete(self.coordinator.sync(request, _resolve(future)))
        return await future

    def leave(self, group_id: str, members: list[LeaveMember]) -> LeaveResult:
        return self.complete(self.coordinator.leave(group_id, members))

    def commit_offsets(
        self, who: CommitIdentity, partitions: list[CommitPartition], api_version: int, retention_time_ms: int = -1
    ) -> list[ErrorCode]:
        return self.complete(self.coordinator.commit_offsets(who, partitions, api_version, retention_time_ms))

    def commit_txn_offsets(
        self,
        who: CommitIdentity,
        producer_id: int,
        producer_epoch: int,
        partitions: list[CommitPartition],
        api_version: int,
    ) -> list[ErrorCode]:
        return self.complete(
            self.coordinator.commit_txn_offsets(who, producer_id, producer_epoch, partitions, api_version)
        )

    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]]) -> tuple[ErrorCode, list[ErrorCode]]:
        return self.complete(self.coordinator.delete_offsets(group_id, partitions))

    def delete_groups(self, group_ids: list[str]) -> list[ErrorCode]:
        return self.complete(self.coordinator.delete_groups(group_ids))

    # --------------------------------------------------------------------- time

    def start_timers(self) -> None:
        """Start the offsets expiry task (group deadlines are armed as the coordinator reports them)."""
        self._expiry = self._scheduler.schedule_periodic(
            self.coordinator.settings.offsets_retention_check_interval_ms,
            lambda: self.complete(self.coordinator.expire_offsets_now()),
            name="offsets-expiry",
        )

    def _deadline_changed(self, group_id: str, deadline_ms: int | None) -> None:
        """One timer per group, at its earliest deadline (clock ms); None: the group has none."""
        timer = self._group_timers.pop(group_id, None)
        if timer is not None:
            timer.cancel()
        if deadline_ms is None:
            return
        delay = deadline_ms - self.coordinator.clock.time_ms()
        self._group_timers[group_id] = self._scheduler.call_later(
            delay, lambda: self._fire(group_id), name=f"group-deadline {group_id}"
        )

    def _fire(self, group_id: str) -> None:
        self._group_timers.pop(group_id, None)
        self.complete(self.coordinator.fire_timers(group_id))
