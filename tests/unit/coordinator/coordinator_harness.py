"""The coordinator driven synchronously through its real runtime: records go to memory, time
to a ManualClock whose advance() fires the coordinator's timers at their deadlines."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator
from typing import TypeVar

from odradek.clock import ManualClock
from odradek.coordinator.coordinator import CoordinatorSettings, GroupCoordinator
from odradek.coordinator.messages import (
    HeartbeatRequest,
    JoinRequest,
    JoinResult,
    LeaveMember,
    LeaveResult,
    SyncRequest,
    SyncResult,
)
from odradek.coordinator.rebalance import GroupSettings
from odradek.coordinator.records import CoordinatorRecord, decode_record
from odradek.coordinator.results import Result
from odradek.coordinator.runtime import AppendFailed, CoordinatorRuntime
from odradek.scheduler import Scheduler
from odradek.wire.errors import ErrorCode
from odradek.wire.records.builder import decode_batch

CONSUMER = "consumer"
T = TypeVar("T")


def subscription(*topics: str) -> bytes:
    """ConsumerProtocolSubscription v0: version, topics, null user data."""
    out = bytearray(b"\x00\x00") + len(topics).to_bytes(4, "big")
    for topic in topics:
        out += len(topic).to_bytes(2, "big") + topic.encode()
    return bytes(out + b"\xff\xff\xff\xff")


class Box:
    """Collects what a ``respond`` callback receives."""

    def __init__(self) -> None:
        self.values: list[object] = []

    def __call__(self, value: object) -> None:
        self.values.append(value)

    @property
    def done(self) -> bool:
        return bool(self.values)

    @property
    def value(self) -> object:
        assert len(self.values) == 1, self.values
        return self.values[0]


class MemoryLog:
    """``__consumer_offsets`` in memory; every append fails with ``error`` unless it is NONE."""

    def __init__(self) -> None:
        self.data: dict[int, list[bytes]] = defaultdict(list)
        self.error = ErrorCode.NONE

    def ensure_topic(self) -> bool:
        return True

    def append(self, partition: int, batch: bytes) -> None:
        if self.error is not ErrorCode.NONE:
            raise AppendFailed(self.error)
        self.data[partition].append(batch)

    def batches(self, partition: int) -> Iterator[bytes]:
        return iter(self.data.get(partition, []))

    def records(self) -> list[CoordinatorRecord]:
        """Every appended record, decoded, partition by partition."""
        found: list[CoordinatorRecord] = []
        for partition in sorted(self.data):
            for batch in self.data[partition]:
                for raw in decode_batch(batch)[1]:
                    assert raw.key is not None
                    record = decode_record(raw.key, raw.value)
                    assert record is not None
                    found.append(record)
        return found


class Harness:
    def __init__(self, **group_settings: int) -> None:
        settings = GroupSettings(**{"initial_rebalance_delay_ms": 0, **group_settings})
        self.clock = ManualClock(1_000_000)
        ids = itertools.count(1)
        self.coordinator = GroupCoordinator(CoordinatorSettings(settings), self.clock, lambda: f"uuid{next(ids)}")
        self.offsets_log = MemoryLog()
        self.runtime = CoordinatorRuntime(self.coordinator, self.offsets_log, 50, Scheduler(self.clock))
        self.runtime.start_timers()

    @property
    def append_error(self) -> ErrorCode:
        return self.offsets_log.error

    @append_error.setter
    def append_error(self, error: ErrorCode) -> None:
        self.offsets_log.error = error

    @property
    def log(self) -> list[CoordinatorRecord]:
        return self.offsets_log.records()

    def run(self, result: Result[T]) -> T:
        """The runtime's one path: append, apply, settle."""
        return self.runtime.complete(result)

    def join(
        self,
        group: str = "g",
        member_id: str = "",
        *,
        instance: str | None = None,
        protocols: tuple[tuple[str, bytes], ...] = (("range", subscription("t")),),
        protocol_type: str = CONSUMER,
        session: int = 10_000,
        rebalance: int = 30_000,
        client_id: str = "client",
        version: int = 9,
    ) -> Box:
        box = Box()
        request = JoinRequest(
            group,
            member_id,
            instance,
            session,
            rebalance,
            protocol_type,
            protocols,
            client_id,
            "/127.0.0.1",
            requires_known_member_id=version >= 4 and instance is None,
            supports_skip_assignment=version >= 9,
        )
        self.run(self.coordinator.join(request, box))
        return box

    def join_new(self, group: str = "g", **kwargs: object) -> Box:
        """KIP-394 first join then the rejoin with the given id; returns the second box."""
        first = self.join(group, **kwargs)  # type: ignore[arg-type]
        result = first.value
        assert isinstance(result, JoinResult) and result.error is ErrorCode.MEMBER_ID_REQUIRED
        return self.join(group, result.member_id, **kwargs)  # type: ignore[arg-type]

    def join_new_raw(self, protocol_type: str) -> Box:
        """A first join with another protocol type (no KIP-394 round trip needed to be refused)."""
        return self.join(protocol_type=protocol_type, version=3)

    def sync(
        self,
        member_id: str,
        generation: int,
        assignments: dict[str, bytes] | None = None,
        group: str = "g",
        instance: str | None = None,
    ) -> Box:
        box = Box()
        request = SyncRequest(
            group, member_id, generation, instance, CONSUMER, None, tuple((assignments or {}).items())
        )
        self.run(self.coordinator.sync(request, box))
        return box

    def heartbeat(self, member_id: str, generation: int, group: str = "g", instance: str | None = None) -> ErrorCode:
        return self.coordinator.heartbeat(HeartbeatRequest(group, member_id, generation, instance))

    def leave(self, *members: tuple[str, str | None], group: str = "g") -> LeaveResult:
        return self.run(self.coordinator.leave(group, [LeaveMember(m, i) for m, i in members]))

    def advance(self, ms: int) -> None:
        """Move the clock; every coordinator timer due on the way fires at its own deadline."""
        self.clock.advance(ms)

    def stable_group(self, n: int, group: str = "g") -> list[JoinResult]:
        """n dynamic members joined and synced; returns their join results (leader first)."""
        boxes = [self.join_new(group)]
        self.advance(0)
        first = boxes[0].value
        assert isinstance(first, JoinResult)
        for _ in range(n - 1):
            boxes.append(self.join_new(group))
        if n > 1:
            rejoin = self.join(group, first.member_id)
            boxes[0] = rejoin
        results = [b.value for b in boxes]
        assert all(isinstance(r, JoinResult) and r.error is ErrorCode.NONE for r in results), results
        joined: list[JoinResult] = [r for r in results if isinstance(r, JoinResult)]
        leader = next(r for r in joined if r.leader == r.member_id)
        assignments = {r.member_id: r.member_id.encode() for r in joined}
        for r in joined:
            if r is not leader:
                self.sync(r.member_id, r.generation_id, group=group)
        sync = self.sync(leader.member_id, leader.generation_id, assignments, group=group)
        assert isinstance(sync.value, SyncResult) and sync.value.error is ErrorCode.NONE
        return sorted(joined, key=lambda r: r is not leader)
