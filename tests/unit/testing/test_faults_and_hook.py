"""Fault specifications, and the interceptor installed only while there is something to do."""

from __future__ import annotations

from typing import Any

import pytest

from odradek.clock import ManualClock
from odradek.handlers import load_handlers
from odradek.handlers.dispatch import Dispatcher
from odradek.scheduler import Scheduler
from odradek.testing.faults import Fault, FaultSet
from odradek.testing.intercept import TestDouble
from odradek.wire.errors import ErrorCode


def test_a_fault_from_json_checks_every_value() -> None:
    fault = Fault.from_json({"api": "produce", "error": "not_leader_or_follower", "count": 2, "topic": "t"})
    assert fault.error is ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert fault.validated({"Produce": 0}).api == "Produce"
    assert Fault.from_json({"api": "Fetch", "disconnect": "after"}).when == "after"
    bad: list[tuple[dict[str, Any], str]] = [
        ({"api": "Produce", "error": "NOPE"}, "unknown Kafka error 'NOPE'"),
        ({"api": "Produce", "error": 6, "count": "two"}, "count must be a number"),
        ({"error": 6}, "a fault needs an api"),
        ({"api": "Produce", "error": 6, "extra": 1}, "unknown fault field(s) extra"),
    ]
    for data, message in bad:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            Fault.from_json(data)
    with pytest.raises(ValueError, match="a fault naming a partition must name its topic"):
        Fault(api="Produce", error=ErrorCode.NONE, partition=1).validated({"Produce": 0})
    with pytest.raises(ValueError, match="either answers an error or disconnects"):
        Fault(api="Produce", error=ErrorCode.NONE, disconnect=True).validated({"Produce": 0})


def test_a_fault_takes_its_count_then_leaves_and_a_share_repeats_with_its_seed() -> None:
    faults = FaultSet()
    faults.add(Fault(api="Produce", error=ErrorCode.NOT_LEADER_OR_FOLLOWER, count=2, topic="a"))
    assert faults.take("Produce", None, [("b", 0)]) is None
    assert faults.take("Produce", None, [("a", 0)]) is not None
    assert faults.take("Produce", None, [("a", 1)]) is not None
    assert faults.take("Produce", None, [("a", 0)]) is None and not faults

    def draws(seed: int) -> list[bool]:
        shared = FaultSet()
        shared.add(Fault(api="Fetch", delay_ms=1, count=None, probability=0.3, seed=seed))
        return [shared.take("Fetch", None, []) is not None for _ in range(50)]

    assert draws(7) == draws(7) and 5 < sum(draws(7)) < 30


def test_the_interceptor_is_installed_only_while_a_fault_or_the_journal_needs_it() -> None:
    registry = load_handlers()
    dispatcher = Dispatcher(None, registry)  # type: ignore[arg-type]
    double = TestDouble(registry)
    double.attach(dispatcher, Scheduler(ManualClock()), lambda _: None)
    assert dispatcher.interceptor is None
    fault = double.inject(Fault(api="Produce", error=ErrorCode.NOT_LEADER_OR_FOLLOWER))
    assert dispatcher.interceptor is double
    double.remove_fault(fault.id)
    assert dispatcher.interceptor is None
    double.journal.start()
    double.refresh()
    assert dispatcher.interceptor is double
    double.reset()
    assert dispatcher.interceptor is None
