"""The test double's interceptor: injected faults and the request journal around every handler.

One `TestDouble` per embedded broker runtime; it outlives the internal broker a reset or a
restore replaces (`attach` moves it onto the new dispatcher), and installs itself on the
dispatcher only while a fault is in force or the journal is on, so a broker with neither pays
nothing.  Every method runs on the broker's event loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from odradek.handlers.dispatch import Dispatcher
from odradek.handlers.interception import Answer, Call
from odradek.handlers.registry import Registry
from odradek.scheduler import Scheduler
from odradek.testing import shapes
from odradek.testing.faults import REQUEST_LEVEL_ERRORS, Fault, FaultSet, targets
from odradek.testing.journal import Journal, JournalEntry
from odradek.wire.errors import ErrorCode
from odradek.wire.schema import StructValue

__all__ = ["TestDouble", "api_names"]


def api_names(registry: Registry) -> dict[str, int]:
    """Kafka's name of every API the registry serves (``"Produce"``) and its key."""
    names = {}
    for key, _, _ in registry.supported():
        handler = registry.get(key)
        assert handler is not None
        names[handler.request.name.removesuffix("Request")] = key
    return names


def _reads_only(api: str) -> bool:
    """APIs whose handler changes nothing a client can see: an error can be put in its answer."""
    return api in ("Fetch", "Metadata", "OffsetFetch", "OffsetForLeaderEpoch", "ApiVersions", "FindCoordinator") or (
        api.startswith(("Describe", "List"))
    )


def _group(request: StructValue) -> str | None:
    group = getattr(request, "group_id", None)
    if isinstance(group, str):
        return group
    groups = getattr(request, "groups", None)
    if isinstance(groups, list) and groups and isinstance(getattr(groups[0], "group_id", None), str):
        return str(groups[0].group_id)
    return None


class TestDouble:
    """Faults and journal of one embedded broker (see the module docstring)."""

    __test__ = False  # not a pytest test class

    def __init__(self, registry: Registry) -> None:
        self.apis = api_names(registry)
        self.faults = FaultSet()
        self.journal = Journal()
        self._dispatcher: Dispatcher | None = None
        self._scheduler: Scheduler | None = None
        self._topic_names: Callable[[bytes], str | None] = lambda _: None

    def attach(self, dispatcher: Dispatcher, scheduler: Scheduler, topic_names: Callable[[bytes], str | None]) -> None:
        """Serve the requests of a (new) internal broker."""
        self._dispatcher, self._scheduler, self._topic_names = dispatcher, scheduler, topic_names
        self.refresh()

    def refresh(self) -> None:
        """Install on the dispatcher while there is something to do, uninstall otherwise."""
        if self._dispatcher is not None:
            self._dispatcher.interceptor = self if (self.faults or self.journal.enabled) else None

    def inject(self, fault: Fault) -> Fault:
        added = self.faults.add(fault.validated(self.apis))
        self.refresh()
        return added

    def remove_fault(self, fault_id: int) -> bool:
        removed = self.faults.remove(fault_id)
        self.refresh()
        return removed

    def clear_faults(self) -> None:
        self.faults.clear()
        self.refresh()

    def reset(self) -> None:
        """No faults; a new, empty journal, off, of the default capacity."""
        self.faults.clear()
        self.journal = Journal()
        self.refresh()

    # ----------------------------------------------------------------- the hook

    async def __call__(self, call: Call, answer: Answer) -> StructValue | None:
        message, version = call.handler.request, call.version
        pairs = shapes.pairs(message, version, call.request, self._topic_names)
        received_ms = call.context.clock.time_ms()
        started = time.perf_counter()
        fault = None
        if self.faults:
            every = shapes.names_every_topic(message, version, call.request)
            fault = self.faults.take(call.api_name, call.header.client_id, pairs, every)
        if fault is not None:
            self.refresh()
        response = await (answer(call.request) if fault is None else self._apply(fault, call, answer))
        if self.journal.enabled:
            self._record(call, pairs, response, fault, received_ms, started)
        return response

    async def _apply(self, fault: Fault, call: Call, answer: Answer) -> StructValue | None:
        scheduler = self._scheduler
        if fault.delay_ms and fault.when == "before" and scheduler is not None:
            await scheduler.sleep(fault.delay_ms)
        if fault.disconnect and fault.when == "before":
            call.connection.close()
            return None
        if fault.error is not None:
            response = await self._error_answer(fault, fault.error, call, answer)
        else:
            response = await answer(call.request)
        if fault.delay_ms and fault.when == "after" and scheduler is not None:
            await scheduler.sleep(fault.delay_ms)
        if fault.disconnect:
            call.connection.close()
            return None
        return response

    async def _error_answer(self, fault: Fault, code: ErrorCode, call: Call, answer: Answer) -> StructValue | None:
        """``code`` where Kafka puts it (see `odradek.testing.faults`)."""
        request_message, response_message = call.handler.request, call.handler.response
        version, names = call.version, self._topic_names
        scope = fault.scope or ("request" if code in REQUEST_LEVEL_ERRORS else "partition")
        has_topics = shapes.topic_level(request_message, version) is not None and bool(
            shapes.pairs(request_message, version, call.request, names)
        )
        response_level = shapes.topic_level(response_message, version)
        if scope == "request" or response_level is None:
            return call.handler.error_response(call.request, code)

        def targeted(pair: shapes.Pair) -> bool:
            return targets(fault, pair)

        if _reads_only(call.api_name):  # also a Metadata request for every topic
            response = await answer(call.request)
            if response is not None:
                shapes.overwrite_errors(response_message, version, response, targeted, code, names)
            return response
        if not has_topics:
            return call.handler.error_response(call.request, code)
        request, taken = shapes.without(request_message, version, call.request, targeted, names)
        response = await answer(request)
        if response is None:
            return None
        level = shapes.topic_level(request_message, version)
        assert level is not None
        refused = [
            (
                str(getattr(topic, level.name_field)) if level.name_field is not None else "",
                getattr(topic, level.id_field) if level.id_field is not None else None,
                indexes,
            )
            for topic, indexes in taken
        ]
        shapes.add_errors(response_message, version, response, refused, code)
        return response

    def _record(
        self,
        call: Call,
        pairs: list[shapes.Pair],
        response: StructValue | None,
        fault: Fault | None,
        received_ms: int,
        started: float,
    ) -> None:
        version = call.version
        request: dict[str, Any] = shapes.plain(call.request, version)
        transactional_id = getattr(call.request, "transactional_id", None)
        if call.connection.closed:
            outcome = "disconnected"
        elif response is None:
            outcome = "no answer"
        else:
            outcome = "answered"
        self.journal.record(
            JournalEntry(
                api=call.api_name,
                api_key=call.header.api_key,
                version=version,
                client_id=call.header.client_id,
                correlation_id=call.header.correlation_id,
                peer=call.connection.peer,
                partitions=pairs,
                group=_group(call.request),
                transactional_id=transactional_id if isinstance(transactional_id, str) else None,
                errors=shapes.error_names(response, version) if response is not None else [],
                outcome=outcome,
                fault=fault.id if fault is not None else None,
                received_ms=received_ms,
                duration_ms=round((time.perf_counter() - started) * 1000, 3),
                request=request,
                response=shapes.plain(response, version) if response is not None else None,
            )
        )
