"""The markers of prepared transactions, on their way to the partitions (Kafka's
TransactionMarkerChannelManager, without a network: every partition is local).

`MarkerChannel.send` writes a transaction's COMMIT or ABORT marker to each partition still
waiting for it, through the `MarkerTarget`, then reports the partitions written.  What happens
to a partition's answer:

- NONE, or UNKNOWN_TOPIC_OR_PARTITION (the topic was deleted: Kafka drops its markers): written;
- INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED: the marker is stale; sending stops
  and the transaction stays prepared, as Kafka's marker handler leaves it;
- anything else (a storage error): retried every `MARKER_RETRY_MS` on the scheduler.

The report (the coordinator's ``markers_written``, persisted) may fail too; the transaction is
then kept with no partition left and reported again at the next retry.

Invariant: a transaction is pending here exactly while a partition or its report is left to do.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from odradek.scheduler import Scheduler, Timer
from odradek.txn.log_records import TopicPartition
from odradek.txn.markers import Marker
from odradek.txn.messages import WriteMarkers
from odradek.wire.errors import ErrorCode

__all__ = ["MARKER_RETRY_MS", "MarkerChannel", "MarkerTarget"]

log = logging.getLogger("odradek.transactions")

MARKER_RETRY_MS = 100
_WRITTEN = frozenset({ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION})
_STALE = frozenset({ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.TRANSACTION_COORDINATOR_FENCED})

Report = Callable[[WriteMarkers, list[TopicPartition]], bool]
"""Told which partitions now hold the markers; False when its own work must be tried again."""


class MarkerTarget(Protocol):
    def write_marker(self, topic: str, partition: int, marker: Marker, transaction_version: int) -> ErrorCode:
        """Write one marker; the partition's answer."""


class MarkerChannel:
    def __init__(self, target: MarkerTarget, scheduler: Scheduler, report: Report) -> None:
        self.target = target
        self._scheduler = scheduler
        self._report = report
        self._pending: dict[tuple[str, int, int], tuple[WriteMarkers, frozenset[TopicPartition]]] = {}
        self._retry: Timer | None = None

    @property
    def pending(self) -> int:
        return len(self._pending)

    def send(self, markers: WriteMarkers, waiting: frozenset[TopicPartition] | None = None) -> None:
        """Write the markers to the partitions ``waiting`` (all of them when None)."""
        key = (markers.transactional_id, markers.producer_id, markers.producer_epoch)
        waiting = markers.partitions if waiting is None else waiting
        marker = Marker(markers.commit, markers.producer_id, markers.producer_epoch, markers.coordinator_epoch)
        written: list[TopicPartition] = []
        for topic, partition in sorted(waiting):
            error = self.target.write_marker(topic, partition, marker, markers.transaction_version)
            if error in _WRITTEN:
                written.append((topic, partition))
            elif error in _STALE:
                log.warning(
                    "stopped writing the markers of %s: %s-%d refused them with %s",
                    markers.transactional_id,
                    topic,
                    partition,
                    error.name,
                )
                self._pending.pop(key, None)
                return
            else:
                log.warning(
                    "will retry the marker of %s on %s-%d: %s", markers.transactional_id, topic, partition, error.name
                )
        left = waiting.difference(written)
        reported = self._report(markers, written)
        if left or not reported:
            self._pending[key] = (markers, left)
            self._arm_retry()
        else:
            self._pending.pop(key, None)

    def _arm_retry(self) -> None:
        if self._retry is None or not self._retry.pending:
            self._retry = self._scheduler.call_later(MARKER_RETRY_MS, self._retry_all, name="transaction-markers")

    def _retry_all(self) -> None:
        self._retry = None
        for markers, waiting in list(self._pending.values()):
            self.send(markers, waiting)
