"""Long-lived group members for the kcat driver: member_start, members_wait, member_pause, member_stop.

A member is one ``kcat -G <group> <topic>`` child process (librdkafka's KafkaConsumer, classic
protocol). Its records go to /dev/null; its stderr carries kcat's rebalance callback lines, which a
reader thread turns into the member's state:

- eager assignors print ``% Group G rebalanced (memberid M): assigned: t [0], t [1]`` (the whole
  new assignment; counted as one rebalance) and ``...: revoked: ...`` (everything is given up);
- cooperative-sticky prints ``% Group G rebalanced: incremental assignment of N partition(s)
  (memberid M, COOPERATIVE rebalance protocol): t [0], ...`` (added; counted as one rebalance) and
  ``incremental revoke`` (removed).

Options map to ``-X`` librdkafka properties: partition.assignment.strategy (range, roundrobin,
cooperative-sticky; librdkafka has no eager ``sticky``: unsupported), auto.offset.reset (``none``
is librdkafka's ``error``), session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms and
group.instance.id (static membership); enable.auto.commit is off. Metadata is refreshed every
second: Kafka makes a new topic visible a moment after CreateTopics answers, and a member that
asked before then would ignore the topic for librdkafka's default five minutes (seen on Kafka
4.4.0 under the full matrix: two of three members never got a partition). No ``-o``: kcat would then start
every assigned partition there instead of at the committed offset. ``-E`` keeps kcat running through
non-fatal errors (without it kcat exits once all broker connections are down, e.g. while the broker
restarts), as a long-lived librdkafka consumer application does.

member_pause is unsupported: kcat's own loop calls rd_kafka_consumer_poll all the time and offers no
way to hold it; stopping the process (SIGSTOP) would freeze librdkafka's heartbeat thread as well, a
frozen client rather than one that stops polling. member_stop sends SIGTERM: kcat ends its loop and
calls rd_kafka_consumer_close (a dynamic member leaves the group, a static one does not).

Every child stays in the driver's process group (the harness kills the group) and also gets
PR_SET_PDEATHSIG=SIGKILL, so no kcat outlives the driver.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

#: librdkafka's names for the protocol's assignors; eager "sticky" has no librdkafka counterpart.
ASSIGNORS = {"range": "range", "roundrobin": "roundrobin", "cooperative-sticky": "cooperative-sticky"}
METADATA_REFRESH_MS = "1000"
RESETS = {"earliest": "earliest", "latest": "latest", "none": "error"}
SETTLE_S = 0.5
CHECK_S = 0.05
STOP_GRACE_S = 30.0

EAGER = re.compile(r"^% Group \S+ rebalanced \(memberid [^)]*\): (assigned|revoked): (.*)$")
INCREMENTAL = re.compile(
    r"^% Group \S+ rebalanced: incremental (assignment|revoke) of \d+ partition\(s\) \(memberid [^)]*\): (.*)$"
)
PARTITION = re.compile(r"(\S+) \[(\d+)\]")
PR_SET_PDEATHSIG = 1


class MemberUnsupported(Exception):
    """kcat cannot run the member the step asks for."""


class WaitTimedOut(Exception):
    """members_wait's condition never held; ``fields`` is the last state seen."""

    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__("CLIENT_ERROR:TimeoutException")
        self.fields = fields


def _die_with_parent() -> Callable[[], None]:
    """A preexec_fn that makes the child receive SIGKILL when the driver dies (Linux prctl)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    prctl = libc.prctl
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


class Member:
    """One kcat -G child and what its rebalance lines said. ``lock`` guards owned and rebalances."""

    def __init__(self, name: str, proc: subprocess.Popen[bytes]) -> None:
        self.name = name
        self.proc = proc
        self.lock = threading.Lock()
        self.owned: set[tuple[str, int]] = set()
        self.rebalances = 0
        self.reader = threading.Thread(target=self._read, name=f"member-{name}", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stream: IO[bytes] | None = self.proc.stderr
        if stream is None:
            return
        for raw in stream:
            line = raw.decode(errors="replace").rstrip("\n")
            if m := EAGER.match(line):
                self._apply(m.group(1) == "assigned", True, m.group(2))
            elif m := INCREMENTAL.match(line):
                self._apply(m.group(1) == "assignment", False, m.group(2))
            elif line.startswith("% ERROR") or line.startswith("%3|") or line.startswith("%4|"):
                print(f"member {self.name}: {line}", file=sys.stderr)

    def _apply(self, assigned: bool, eager: bool, listed: str) -> None:
        parts = {(t, int(p)) for t, p in PARTITION.findall(listed)}
        with self.lock:
            if assigned:
                self.owned = parts if eager else self.owned | parts
                self.rebalances += 1
            else:
                self.owned = set() if eager else self.owned - parts

    def state(self) -> tuple[list[list[Any]], int]:
        with self.lock:
            return [[t, p] for t, p in sorted(self.owned)], self.rebalances

    def terminate(self) -> None:
        """SIGTERM: kcat ends its loop and closes its consumer."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def join(self) -> None:
        """Waits for the consumer close (SIGKILL after STOP_GRACE_S) and the end of its stderr."""
        if self.proc.poll() is None:
            try:
                self.proc.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(STOP_GRACE_S)
        self.reader.join(STOP_GRACE_S)


class Members:
    """The driver's running members by name."""

    def __init__(self, kcat: str, bootstrap: str, security: list[str]) -> None:
        """``security``: kcat's ``-X`` arguments for a secured connection (driver.py), else empty."""
        self.kcat = kcat
        self.bootstrap = bootstrap
        self.security = security
        self.members: dict[str, Member] = {}

    def get(self, name: str) -> Member:
        member = self.members.get(name)
        if member is None:
            raise KeyError(f"no member {name}")
        return member

    def start(self, step: dict[str, Any]) -> dict[str, Any]:
        name = step["member"]
        if name in self.members:
            raise KeyError(f"member {name} already running")
        assignor = ASSIGNORS.get(step.get("assignor") or "range")
        reset = RESETS.get(step.get("auto_offset_reset") or "earliest")
        if assignor is None or reset is None:
            raise MemberUnsupported("assignor or auto_offset_reset")
        props = {
            "partition.assignment.strategy": assignor,
            "auto.offset.reset": reset,
            "enable.auto.commit": "false",
            "session.timeout.ms": step.get("session_timeout_ms"),
            "heartbeat.interval.ms": step.get("heartbeat_interval_ms"),
            "max.poll.interval.ms": step.get("max_poll_interval_ms"),
            "group.instance.id": step.get("group_instance_id"),
            "topic.metadata.refresh.interval.ms": METADATA_REFRESH_MS,
        }
        args = [self.kcat, "-b", self.bootstrap, *self.security, "-E", "-G", step["group"]]
        for key, value in props.items():
            if value is not None:
                args += ["-X", f"{key}={value}"]
        proc = subprocess.Popen(
            [*args, step["topic"]],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent(),
        )
        self.members[name] = Member(name, proc)
        return {}

    def pause(self, step: dict[str, Any]) -> dict[str, Any]:
        self.get(step["member"])
        raise MemberUnsupported("kcat's poll loop cannot be held")

    def stop(self, step: dict[str, Any]) -> dict[str, Any]:
        member = self.get(step["member"])
        del self.members[step["member"]]
        member.terminate()
        member.join()
        return {}

    def stop_all(self) -> None:
        """Stops every member at once: SIGTERM to all, then wait for each."""
        running = list(self.members.values())
        self.members.clear()
        for member in running:
            member.terminate()
        for member in running:
            member.join()

    def wait(self, step: dict[str, Any]) -> dict[str, Any]:
        """Until the named members hold non-empty, disjoint assignments covering ``partitions``
        partitions of ``topic``, unchanged for SETTLE_S; WaitTimedOut with the last state otherwise."""
        names: list[str] = list(step.get("members") or [])
        watched = [self.get(n) for n in names]
        topic, want = step["topic"], int(step["partitions"])
        deadline = time.monotonic() + (step.get("timeout_ms") or 30000) / 1000.0
        since: float | None = None
        last: str | None = None
        while True:
            states = [m.state() for m in watched]
            now = [a for a, _ in states]
            key = json.dumps(now)
            t = time.monotonic()
            if _settled(now, topic, want):
                if since is None or key != last:
                    since = t
                if t - since >= SETTLE_S:
                    return _report(names, states)
            else:
                since = None
            last = key
            if t >= deadline:
                raise WaitTimedOut(_report(names, states))
            time.sleep(CHECK_S)


def _settled(assignments: list[list[list[Any]]], topic: str, want: int) -> bool:
    seen: set[int] = set()
    for assignment in assignments:
        if not assignment:
            return False
        for t, p in assignment:
            if t != topic:
                continue
            if p in seen:
                return False
            seen.add(p)
    return len(seen) == want


def _report(names: list[str], states: list[tuple[list[list[Any]], int]]) -> dict[str, Any]:
    members = sorted(({"assignment": a} for a, _ in states), key=lambda m: json.dumps(m["assignment"]))
    by_member = {n: {"assignment": a, "rebalances": r} for n, (a, r) in zip(names, states, strict=True)}
    return {"members": members, "by_member": by_member}
