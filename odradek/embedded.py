"""An embedded Kafka broker for tests and tools: ``from odradek import Broker``.

::

    with Broker() as broker:                      # ephemeral port, data in a temporary directory
        broker.create_topic("orders", partitions=3)
        producer = confluent_kafka.Producer({"bootstrap.servers": broker.bootstrap_servers})
        ...
        broker.clock.freeze()                     # manual time from here on
        broker.clock.advance(46)                  # session timeouts fire now, without sleeping
        broker.faults.inject("Produce", error="NOT_LEADER_OR_FOLLOWER", count=2)
        broker.journal.requests(api="OffsetCommit", group="billing")
        broker.reset()                            # no topics, groups, faults, journal entries

The broker runs in this process on an event loop of its own thread (the default), or in a
subprocess (``process="subprocess"``: ``odradek run`` driven through its control endpoint).
Both offer the same methods; every method blocks the calling thread until the broker has done
it, and each has an ``a``-prefixed coroutine twin (``await broker.areset()``) that runs it off
the caller's event loop.  It is a context manager and an async context manager.

Options (keyword-only; every bad value raises `ValueError` naming it and what is allowed, before
anything starts):

- ``storage``: ``"disk"`` (default: a temporary directory, or ``data_dir``) or ``"memory"``
  (the same storage code over an in-memory filesystem);
- ``host``/``port``: where it listens (default 127.0.0.1 and a free port);
- ``config``: broker configs by Apache Kafka's names, e.g. ``{"num.partitions": 3}``;
- ``emulate``: an Apache Kafka release (``"3.6"``) whose ApiVersions and refusals it answers with;
- ``journal``: record every request from the start (`RequestJournal`);
- ``manual_time``: start with the clock frozen (`BrokerClock`);
- ``control_port``: also serve the HTTP control endpoint on 127.0.0.1 (0: a free port).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar

if TYPE_CHECKING:
    from odradek.testing.backends import Backend
    from odradek.testing.faults import Fault, Scope, When
    from odradek.testing.journal import JournalEntry

__all__ = ["Broker", "BrokerClock", "Faults", "RequestJournal"]

P = ParamSpec("P")
T = TypeVar("T")
Process = Literal["thread", "subprocess"]


def _off_loop(method: Callable[P, T]) -> Callable[P, Any]:
    """The coroutine twin of a blocking method: it runs on a worker thread."""

    @functools.wraps(method)
    async def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return await asyncio.to_thread(method, *args, **kwargs)

    return twin


class BrokerClock:
    """The broker's clock: the system's until `freeze`, then only `advance` moves it.

    Every timer of the broker runs on it: group session, rebalance and sync timeouts,
    ``max.poll.interval.ms`` expiry, retention, offsets expiry, delayed segment deletion and the
    Fetch long-poll deadline.  `advance` fires each one that falls due, in deadline order, each
    at its own millisecond, and returns once they have run.  `resume` lets time run again from
    where it stands; `Broker.reset` resumes it too.
    """

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    @property
    def frozen(self) -> bool:
        return self._backend.clock_frozen()

    def freeze(self) -> None:
        self._backend.freeze()

    def resume(self) -> None:
        self._backend.resume()

    def advance(self, seconds: float) -> None:
        """Move time forward (the clock must be frozen); fractions of a second are milliseconds."""
        if seconds < 0:
            raise ValueError(f"the clock cannot go backwards ({seconds} s)")
        self._backend.advance_ms(round(seconds * 1000))

    def time_ms(self) -> int:
        """The broker's wall-clock time, milliseconds since the Unix epoch."""
        return self._backend.time_ms()

    afreeze = _off_loop(freeze)
    aresume = _off_loop(resume)
    aadvance = _off_loop(advance)


class Faults:
    """Faults injected into the broker's answers (see `odradek.testing.faults.Fault`)."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def inject(
        self,
        api: str,
        *,
        error: str | int | None = None,
        delay: float = 0.0,
        disconnect: When | None = None,
        count: int | None = 1,
        probability: float = 1.0,
        seed: int | None = None,
        topic: str | None = None,
        partition: int | None = None,
        client_id: str | None = None,
        scope: Scope | None = None,
    ) -> Fault:
        """Make the next ``count`` requests of ``api`` (every one: None), or a ``probability``
        share of them, answer ``error``, wait ``delay`` seconds of broker time, or lose the
        connection (``disconnect="before"`` or ``"after"`` the broker acted); optionally only
        for one topic, partition or client id.  Returns the fault with its ``id``."""
        from odradek.testing.faults import Fault, parse_error

        fault = Fault(
            api=api,
            error=parse_error(error) if error is not None else None,
            delay_ms=round(delay * 1000),
            disconnect=disconnect is not None,
            when=disconnect or "before",
            count=count,
            probability=probability,
            seed=seed,
            topic=topic,
            partition=partition,
            client_id=client_id,
            scope=scope,
        )
        return self._backend.inject(fault)

    def list(self) -> list[dict[str, Any]]:
        """The faults in force, with ``fired`` and ``remaining`` counts."""
        return self._backend.faults()

    def remove(self, fault_id: int) -> bool:
        return self._backend.remove_fault(fault_id)

    def clear(self) -> None:
        self._backend.clear_faults()

    ainject = _off_loop(inject)
    alist = _off_loop(list)
    aclear = _off_loop(clear)


class RequestJournal:
    """Every request and answer, decoded, while on (see `odradek.testing.journal`)."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def start(self, capacity: int | None = None) -> None:
        """Record from now on, keeping the newest ``capacity`` entries (default 10,000)."""
        self._backend.journal_start(capacity)

    def stop(self) -> None:
        self._backend.journal_stop()

    def clear(self) -> None:
        self._backend.journal_clear()

    def entries(self) -> list[JournalEntry]:
        return self._backend.journal_entries()

    def requests(
        self,
        api: str | None = None,
        *,
        version: int | None = None,
        client_id: str | None = None,
        topic: str | None = None,
        partition: int | None = None,
        group: str | None = None,
        transactional_id: str | None = None,
        error: str | None = None,
    ) -> list[JournalEntry]:
        """The recorded requests matching every filter given, oldest first."""
        from odradek.testing.journal import matches

        return [
            e
            for e in self.entries()
            if matches(
                e,
                api=api,
                version=version,
                client_id=client_id,
                topic=topic,
                partition=partition,
                group=group,
                transactional_id=transactional_id,
                error=error,
            )
        ]

    def dump(self, target: str | Path | IO[str]) -> int:
        """Write every entry as one JSON line; how many were written."""
        from odradek.testing.journal import dump

        return dump(self.entries(), target)

    arequests = _off_loop(requests)
    aentries = _off_loop(entries)


class Broker:
    """An embedded broker (see the module docstring)."""

    def __init__(
        self,
        *,
        storage: Literal["disk", "memory"] = "disk",
        data_dir: str | Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        config: Mapping[str, object] | None = None,
        emulate: str | None = None,
        journal: bool = False,
        manual_time: bool = False,
        process: Process = "thread",
        control_port: int | None = None,
    ) -> None:
        from odradek.testing.backends import make_backend

        if process not in ("thread", "subprocess"):
            raise ValueError(f"unknown process {process!r}; allowed: thread, subprocess")
        if storage == "memory" and data_dir is not None:
            raise ValueError("data_dir is for disk storage; storage='memory' keeps no files")
        self._backend = make_backend(
            process,
            storage=storage,
            data_dir=str(data_dir) if data_dir is not None else None,
            host=host,
            port=port,
            config={key: _config_text(value) for key, value in (config or {}).items()},
            emulate=emulate,
            journal=journal,
            manual_time=manual_time,
            control_port=control_port,
        )
        self.clock = BrokerClock(self._backend)
        self.faults = Faults(self._backend)
        self.journal = RequestJournal(self._backend)
        self._started = False

    # -------------------------------------------------------------- lifecycle

    def start(self) -> Broker:
        if not self._started:
            self._backend.start()
            self._started = True
        return self

    def stop(self) -> None:
        if self._started:
            self._started = False
            self._backend.stop()

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> Broker:
        await asyncio.to_thread(self.start)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.to_thread(self.stop)

    @property
    def bootstrap_servers(self) -> str:
        """``host:port`` for a client's ``bootstrap.servers``."""
        return self._backend.bootstrap_servers()

    @property
    def port(self) -> int:
        return int(self.bootstrap_servers.rsplit(":", 1)[1])

    @property
    def control_url(self) -> str | None:
        """The control endpoint's base URL, when it is on."""
        return self._backend.control_url()

    # ------------------------------------------------------------------ state

    def create_topic(self, name: str, partitions: int = 1, configs: Mapping[str, object] | None = None) -> None:
        """Create a topic now (``ValueError`` when Kafka would refuse it, with Kafka's reason)."""
        self._backend.create_topic(name, partitions, {k: _config_text(v) for k, v in (configs or {}).items()})

    def delete_topic(self, name: str) -> None:
        self._backend.delete_topic(name)

    def topics(self) -> list[str]:
        """The topics clients created (internal ones left out), sorted."""
        return self._backend.topics()

    def reset(self) -> None:
        """Remove every topic, group, transaction, fault and journal entry, resume system time
        and turn the journal back on or off as ``journal=`` started it.  Connections stay open,
        except those with a request in flight, which close."""
        self._backend.reset()

    def snapshot(self) -> object:
        """The whole state (every file of the data directory), for `restore`."""
        return self._backend.snapshot()

    def restore(self, snapshot: object) -> None:
        """Go back to ``snapshot``: topics, records, committed offsets, groups as they were."""
        self._backend.restore(snapshot)

    acreate_topic = _off_loop(create_topic)
    adelete_topic = _off_loop(delete_topic)
    areset = _off_loop(reset)
    asnapshot = _off_loop(snapshot)
    arestore = _off_loop(restore)


def _config_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
