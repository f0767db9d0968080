"""An embedded broker's runtime: one listener, an internal broker behind it that reset and
restore replace, faults and a journal around it, and a clock a test can freeze.

The listener is the runtime's own (`odradek.server.listener.Listener`), bound once: its port
never changes, and a client connection survives a reset.  Frames go to the current internal
broker's dispatcher (`odradek.broker.Broker`, started without a listener).  A reset or a
restore builds a new internal broker over fresh storage (a new `MemoryFileSystem`, or a data
directory moved aside and deleted on a worker thread), closes only the connections with a
request in flight on the old one (a parked long poll, a join waiting for its rebalance), then
discards the old broker without flushing anything.  Clients see what a broker restart shows
them: their fetch sessions, members and producer ids are unknown, and they recover as they do
from Kafka.

Every coroutine here runs on one event loop: the loop `open` was awaited on.  `ThreadedRuntime`
runs that loop on a thread of its own and gives the test thread blocking calls.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import shutil
import tempfile
import threading
from collections.abc import Callable, Coroutine, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from odradek.broker import Broker as InternalBroker
from odradek.clock import SwitchableClock
from odradek.cluster.topics import TopicError
from odradek.config import ConfigError, InvalidConfig, load_config, validate
from odradek.handlers import load_handlers
from odradek.handlers.dispatch import Dispatcher
from odradek.server.connection import Connection
from odradek.server.listener import Listener
from odradek.storage.filesystem import FileSystem, MemoryFileSystem, OsFileSystem, read_file

if TYPE_CHECKING:
    from odradek.emulation import ReleaseApis
    from odradek.testing.intercept import TestDouble

__all__ = ["Runtime", "RuntimeSettings", "Snapshot", "StorageKind", "ThreadedRuntime"]

T = TypeVar("T")
StorageKind = Literal["disk", "memory"]
_MEMORY_DATA_DIR = "/odradek-data"


class RuntimeSettings(NamedTuple):
    host: str = "127.0.0.1"
    port: int = 0
    storage: StorageKind = "disk"
    #: Disk storage's directory (created if missing, emptied by reset); None: a temporary one.
    data_dir: str | None = None
    #: Broker configs by Kafka's names.
    config: Mapping[str, str] = MappingProxyType({})
    emulate: str | None = None
    journal: bool = False
    manual_time: bool = False

    def checked(self) -> tuple[list[str], ReleaseApis | None]:
        """The config overrides and the release to emulate; `ValueError` names a bad value."""
        if self.storage not in ("disk", "memory"):
            raise ValueError(f"unknown storage {self.storage!r}; allowed: disk, memory")
        overrides = [f"{key}={value}" for key, value in self.config.items()]
        try:
            load_config(None, ["port=0", "log.dirs=/nonexistent", *overrides])
        except ConfigError as exc:
            raise ValueError(f"invalid broker config: {exc}") from None
        if self.emulate is None:
            return overrides, None
        from odradek.emulation import load_release

        return overrides, load_release(self.emulate)


class Snapshot(NamedTuple):
    """Every file of an embedded broker's data directory at one moment."""

    files: dict[str, bytes]
    directories: tuple[str, ...]


def _read_tree(fs: FileSystem, root: str) -> Snapshot:
    files: dict[str, bytes] = {}
    directories: list[str] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        directory = posixpath.join(root, relative) if relative else root
        for name in fs.listdir(directory):
            child = posixpath.join(relative, name) if relative else name
            path = posixpath.join(root, child)
            if fs.is_dir(path):
                directories.append(child)
                pending.append(child)
            else:
                files[child] = read_file(fs, path)
    return Snapshot(files, tuple(sorted(directories)))


def _write_tree(fs: FileSystem, root: str, snapshot: Snapshot) -> None:
    fs.makedirs(root)
    for directory in snapshot.directories:
        fs.makedirs(posixpath.join(root, directory))
    for name, data in snapshot.files.items():
        handle = fs.open_append(posixpath.join(root, name))
        try:
            handle.write(data)
        finally:
            handle.close()


class Runtime:
    """The embedded broker on the event loop `open` is awaited on (see the module docstring)."""

    def __init__(self, settings: RuntimeSettings) -> None:
        self.settings = settings
        self._overrides, self._release = settings.checked()
        self.clock = SwitchableClock()
        self._double: TestDouble | None = None
        self._listener: Listener | None = None
        self._broker: InternalBroker | None = None
        self._busy: set[Connection] = set()
        self._swapped = asyncio.Event()
        self._swapped.set()
        self._removals: list[threading.Thread] = []
        self._temporary = settings.storage == "disk" and settings.data_dir is None
        if settings.storage == "memory":
            self._root = _MEMORY_DATA_DIR
        elif settings.data_dir is None:
            self._root = tempfile.mkdtemp(prefix="odradek-")
        else:
            self._root = os.path.abspath(settings.data_dir)
        self._generation = 0
        self.host = settings.host
        if settings.journal:
            self.double.journal.start()

    # --------------------------------------------------------------- lifecycle

    @property
    def port(self) -> int:
        if self._listener is None:
            raise RuntimeError("the broker is not started")
        return self._listener.port

    @property
    def double(self) -> TestDouble:
        """Faults and journal, made (and imported) on first use: a test that uses neither pays
        nothing for them, not even at start-up."""
        if self._double is None:
            from odradek.testing.intercept import TestDouble as Made

            self._double = Made(load_handlers())
            if self._broker is not None:
                self._attach(self._broker)
        return self._double

    def _attach(self, broker: InternalBroker) -> None:
        if self._double is not None:
            self._double.attach(broker.dispatcher, broker.scheduler, _topic_names(broker))

    @property
    def broker(self) -> InternalBroker:
        """The internal broker serving now (it changes at every reset and restore)."""
        if self._broker is None:
            raise RuntimeError("the broker is not started")
        return self._broker

    async def open(self) -> None:
        config = load_config(None, [f"host={self.settings.host}", f"port={self.settings.port}", *self._overrides])
        self.host = config.host
        max_frame = config.socket_request_max_bytes
        self._listener = Listener(self._dispatch, Dispatcher.may_wait, config.host, config.port, max_frame)
        await self._listener.start()
        if self.settings.manual_time:
            self.clock.freeze()
        self._broker = await self._new_broker(None)

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.stop()
            self._listener = None
        if self._broker is not None:
            if self._temporary or self.settings.storage == "memory":
                await self._broker.discard()
            else:
                await self._broker.stop()
            self._broker = None
        self.clock.resume()
        for removal in self._removals:
            removal.join()
        if self._temporary:
            shutil.rmtree(self._root, ignore_errors=True)

    async def _new_broker(self, snapshot: Snapshot | None) -> InternalBroker:
        self._generation += 1
        fs: FileSystem = MemoryFileSystem() if self.settings.storage == "memory" else OsFileSystem(durable=False)
        if self.settings.storage == "disk" and os.path.exists(self._root) and self._generation > 1:
            self._remove_soon(self._root)
        fs.makedirs(self._root)
        if snapshot is not None:
            _write_tree(fs, self._root, snapshot)
        host = self.host
        overrides = [*self._overrides, f"host={host}", f"port={self.port}", f"log.dirs={self._root}"]
        broker = InternalBroker(load_config(None, overrides), self.clock, fs, emulate=self._release)
        await broker.start(listen=False)
        self._attach(broker)
        return broker

    def _remove_soon(self, directory: str) -> None:
        """Move ``directory`` aside at once and delete it on a worker thread."""
        doomed = f"{directory}.deleted-{self._generation}"
        os.replace(directory, doomed)
        removal = threading.Thread(target=shutil.rmtree, args=(doomed, True), daemon=True)
        removal.start()
        self._removals = [r for r in self._removals if r.is_alive()]
        self._removals.append(removal)

    async def _dispatch(self, body: bytearray, connection: Connection) -> Any:
        if not self._swapped.is_set():
            await self._swapped.wait()
        broker = self._broker
        if broker is None:
            return None
        self._busy.add(connection)
        try:
            return await broker.dispatcher(body, connection)
        finally:
            self._busy.discard(connection)

    async def _replace(self, snapshot: Snapshot | None) -> None:
        """A new internal broker (empty, or over ``snapshot``) in place of the current one."""
        old = self.broker
        self._swapped.clear()
        try:
            for connection in list(self._busy):
                connection.close()
            await old.discard()
            self._broker = await self._new_broker(snapshot)
        finally:
            self._swapped.set()

    # ---------------------------------------------------------------- test API

    async def reset(self) -> None:
        """No topics, groups, transactions, faults or journal entries; system time again; the
        journal on or off as the settings start it."""
        self.clock.resume()
        if self._double is not None:
            self._double.reset()
        if self.settings.journal:
            self.double.journal.start()
            self.double.refresh()
        await self._replace(None)

    async def snapshot(self) -> Snapshot:
        broker = self.broker
        broker.logs.flush()
        return _read_tree(broker.fs, self._root)

    async def restore(self, snapshot: Snapshot) -> None:
        await self._replace(snapshot)

    async def create_topic(self, name: str, partitions: int = 1, configs: dict[str, str] | None = None) -> None:
        topics = self.broker.topics
        configs = {key: str(value) for key, value in (configs or {}).items()}
        try:
            topics.check_new(name, partitions)
            for key, value in configs.items():
                validate(key, value)
        except (TopicError, InvalidConfig) as exc:
            raise ValueError(f"cannot create topic {name!r}: {exc}") from None
        topics.create(name, partitions, configs)

    async def delete_topic(self, name: str) -> None:
        if self.broker.topics.get(name) is None:
            raise ValueError(f"no topic {name!r}")
        self.broker.topics.delete(name)

    async def topic_names(self) -> list[str]:
        return sorted(info.name for info in self.broker.topics if not info.name.startswith("__"))

    async def call(self, fn: Callable[[], T]) -> T:
        return fn()


def _topic_names(broker: InternalBroker) -> Callable[[bytes], str | None]:
    def name(topic_id: bytes) -> str | None:
        info = broker.topics.by_id(topic_id)
        return info.name if info is not None else None

    return name


class ThreadedRuntime:
    """A `Runtime` on an event loop of its own thread; every method blocks the calling thread."""

    def __init__(self, settings: RuntimeSettings, timeout_s: float = 60.0) -> None:
        self.runtime = Runtime(settings)
        self._timeout_s = timeout_s
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="odradek-broker", daemon=True)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def start(self) -> None:
        self._thread.start()
        try:
            self.run(self.runtime.open)
        except BaseException:
            self.stop()
            raise

    def run(self, coroutine: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """``coroutine()`` on the broker's loop; its result (or exception) here."""
        if threading.current_thread() is self._thread:
            raise RuntimeError("a blocking broker call from the broker's own event loop thread")
        return asyncio.run_coroutine_threadsafe(coroutine(), self._loop).result(self._timeout_s)

    async def run_async(self, coroutine: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """``coroutine()`` on the broker's loop, awaited from another event loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine(), self._loop))

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()`` on the broker's loop (broker state is only touched there)."""

        async def run() -> T:
            return fn()

        return self.run(run)

    def stop(self) -> None:
        if self._thread.is_alive():
            try:
                self.run(self.runtime.close)
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(self._timeout_s)
        if not self._loop.is_closed() and not self._loop.is_running():
            self._loop.close()
