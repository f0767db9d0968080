"""Long-lived group members of one driver process (member_start ... member_stop), shared by the Python drivers.

A member is one consumer of a group with its own poll loop (a thread, or an asyncio task for aiokafka)
that polls with short timeouts and discards records. ``MemberBook`` is what the loops and the op
methods share; invariants:
- ``assignment`` of a member is what its client last reported (its ``assignment()`` after each poll),
  sorted [[topic, partition], ...];
- ``rebalances`` counts the client's partitions-assigned callbacks, so a rebalance the broker never
  started leaves it unchanged;
- the book is only touched under its lock, so a waiter sees each member's state whole.
``wait`` implements members_wait: success only once the named members' assignments are non-empty,
disjoint, cover exactly ``partitions`` partitions of the topic and have not changed for ``STABLE_S``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common import Json, StepFailed, assignment_pairs

#: How long the members' assignments must stay unchanged before members_wait answers.
STABLE_S = 0.5
#: Poll timeout of a member's loop, and the granularity of a pause.
POLL_S = 0.1


@dataclass(slots=True)
class _State:
    assignment: list[list[Any]]
    rebalances: int


class MemberBook:
    """Each member's last reported assignment and rebalance count, by member name."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, _State] = {}

    def add(self, name: str) -> None:
        with self._lock:
            if name in self._states:
                raise ValueError(f"member {name!r} is already running")
            self._states[name] = _State([], 0)

    def remove(self, name: str) -> None:
        with self._lock:
            self._states.pop(name, None)

    def assigned(self, name: str) -> None:
        """The client reported a completed assignment to the application (its assigned callback)."""
        with self._lock:
            state = self._states.get(name)
            if state is not None:
                state.rebalances += 1

    def report(self, name: str, partitions: Any) -> None:
        """The member's current partitions (TopicPartition-like objects or pairs)."""
        pairs = assignment_pairs(partitions)
        with self._lock:
            state = self._states.get(name)
            if state is not None:
                state.assignment = pairs

    def snapshot(self, names: list[str]) -> dict[str, _State]:
        with self._lock:
            return {n: _State(list(s.assignment), s.rebalances) for n, s in self._states.items() if n in names}

    def wait(self, step: Json, sleep: Callable[[float], None] = time.sleep) -> Json:
        """The members_wait op: block until the condition held for ``STABLE_S`` or ``timeout_ms`` passed."""
        names = [str(n) for n in step["members"]]
        topic, total = step["topic"], int(step["partitions"])
        deadline = time.monotonic() + int(step.get("timeout_ms", 30000)) / 1000
        stable_since: float | None = None
        seen: dict[str, _State] = {}
        while True:
            now = time.monotonic()
            current = self.snapshot(names)
            missing = [n for n in names if n not in current]
            if missing:
                raise ValueError(f"no running member named {missing}")
            if not _holds(current, topic, total):
                stable_since = None
            elif stable_since is None or current != seen:
                stable_since = now
            seen = current
            if stable_since is not None and now - stable_since >= STABLE_S:
                return _result(names, seen)
            if now >= deadline:
                raise StepFailed("CLIENT_ERROR:TimeoutException", _result(names, seen))
            sleep(0.05)


def _holds(states: dict[str, _State], topic: str, total: int) -> bool:
    owned = [tuple(pair) for s in states.values() for pair in s.assignment if pair[0] == topic]
    return all(s.assignment for s in states.values()) and len(owned) == len(set(owned)) == total


def _result(names: list[str], states: dict[str, _State]) -> Json:
    assignments = [states[n].assignment for n in names]
    return {
        "members": [{"assignment": a} for a in sorted(assignments, key=json.dumps)],
        "by_member": {n: {"assignment": states[n].assignment, "rebalances": states[n].rebalances} for n in names},
    }


class ThreadMember:
    """A member whose consumer is polled by its own thread (confluent-kafka, kafka-python).

    ``poll`` polls the consumer once (timeout ``POLL_S``), ``assignment`` returns its current partitions,
    ``close`` closes it; all three run on the member's thread except ``close``, which runs after the
    thread has ended."""

    def __init__(
        self,
        name: str,
        book: MemberBook,
        poll: Callable[[], None],
        assignment: Callable[[], Any],
        close: Callable[[], None],
    ) -> None:
        self.name = name
        self.book = book
        self._poll = poll
        self._assignment = assignment
        self._close = close
        self._stopping = threading.Event()
        self._paused_until = 0.0
        self._thread = threading.Thread(target=self._run, name=f"member-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopping.is_set():
            left = self._paused_until - time.monotonic()
            if left > 0:
                self._stopping.wait(min(left, POLL_S))
                continue
            try:
                self._poll()
                self.book.report(self.name, self._assignment())
            except Exception:
                logging.exception("member %s: poll failed", self.name)
                self._stopping.wait(POLL_S)

    def pause(self, ms: int) -> None:
        """Stop polling for ``ms`` milliseconds (the heartbeat goes on where the client has its own thread)."""
        self._paused_until = time.monotonic() + ms / 1000

    def stop(self) -> None:
        """End the poll loop, then close the consumer the client's normal way."""
        self._stopping.set()
        self._thread.join()
        try:
            self._close()
        finally:
            self.book.remove(self.name)


def stop_all(members: dict[str, ThreadMember]) -> None:
    """Close every member at once (in parallel: each close may wait for the coordinator)."""
    closers = [threading.Thread(target=m.stop) for m in members.values()]
    for closer in closers:
        closer.start()
    for closer in closers:
        closer.join()
    members.clear()


class ThreadMemberOps:
    """The member ops of a driver whose members poll on threads (confluent-kafka,
    kafka-python); the driver creates the members in its own ``op_member_start``."""

    book: MemberBook
    members: dict[str, ThreadMember]

    def op_members_wait(self, step: Json) -> Json:
        return self.book.wait(step)

    def op_member_pause(self, step: Json) -> Json:
        self.members[str(step["member"])].pause(int(step["ms"]))
        return {}

    def op_member_stop(self, step: Json) -> Json:
        self.members.pop(str(step["member"])).stop()
        return {}
