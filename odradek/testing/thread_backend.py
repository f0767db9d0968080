"""The embedded broker on an event loop of its own thread in this process."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from odradek.testing.runtime import RuntimeSettings, Snapshot, ThreadedRuntime

if TYPE_CHECKING:
    from odradek.testing.faults import Fault
    from odradek.testing.journal import JournalEntry

__all__ = ["ThreadBackend"]


class ThreadBackend:
    def __init__(self, settings: dict[str, Any], control_port: int | None) -> None:
        self._threaded = ThreadedRuntime(RuntimeSettings(**settings))
        self._runtime = self._threaded.runtime
        self._control_port = control_port
        self._control: Any = None

    def start(self) -> None:
        self._threaded.start()
        if self._control_port is not None:
            from odradek.testing.control import ControlServer

            control = ControlServer(self._runtime, "127.0.0.1", self._control_port)
            try:
                self._threaded.run(control.start)
            except BaseException:
                self._threaded.stop()
                raise
            self._control = control

    def stop(self) -> None:
        try:
            if self._control is not None:
                self._threaded.run(self._control.stop)
                self._control = None
        finally:
            self._threaded.stop()

    def bootstrap_servers(self) -> str:
        return f"{self._runtime.host}:{self._runtime.port}"

    def control_url(self) -> str | None:
        return self._control.url if self._control is not None else None

    def create_topic(self, name: str, partitions: int, configs: dict[str, str]) -> None:
        self._threaded.run(lambda: self._runtime.create_topic(name, partitions, configs))

    def delete_topic(self, name: str) -> None:
        self._threaded.run(lambda: self._runtime.delete_topic(name))

    def topics(self) -> list[str]:
        return self._threaded.run(self._runtime.topic_names)

    def reset(self) -> None:
        self._threaded.run(self._runtime.reset)

    def snapshot(self) -> object:
        return self._threaded.run(self._runtime.snapshot)

    def restore(self, snapshot: object) -> None:
        if not isinstance(snapshot, Snapshot):
            raise ValueError("restore takes what snapshot() returned")
        self._threaded.run(lambda: self._runtime.restore(snapshot))

    def clock_frozen(self) -> bool:
        return self._runtime.clock.frozen

    def freeze(self) -> None:
        self._runtime.clock.freeze()

    def resume(self) -> None:
        self._runtime.clock.resume()

    def advance_ms(self, ms: int) -> None:
        self._runtime.clock.advance(ms)

    def time_ms(self) -> int:
        return self._runtime.clock.time_ms()

    def inject(self, fault: Fault) -> Fault:
        return self._threaded.call(lambda: self._runtime.double.inject(fault))

    def faults(self) -> list[dict[str, Any]]:
        return self._threaded.call(self._runtime.double.faults.listing)

    def remove_fault(self, fault_id: int) -> bool:
        return self._threaded.call(lambda: self._runtime.double.remove_fault(fault_id))

    def clear_faults(self) -> None:
        self._threaded.call(self._runtime.double.clear_faults)

    def journal_start(self, capacity: int | None) -> None:
        def start() -> None:
            self._runtime.double.journal.start(capacity)
            self._runtime.double.refresh()

        self._threaded.call(start)

    def journal_stop(self) -> None:
        def stop() -> None:
            self._runtime.double.journal.stop()
            self._runtime.double.refresh()

        self._threaded.call(stop)

    def journal_clear(self) -> None:
        self._threaded.call(self._runtime.double.journal.clear)

    def journal_entries(self) -> list[JournalEntry]:
        return self._threaded.call(self._runtime.double.journal.entries)
