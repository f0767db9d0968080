"""The broker: the composition root that owns config, clock, storage, catalog and listener.

Start-up order: data dir and ``meta.properties`` (cluster id, node id) -> topic catalog (every
leader epoch 2 up: this node leads its partitions again, as a restarted Kafka node does) ->
partition logs (recovered by the storage layer) -> partitions (producer state from snapshots)
-> reconcile catalog with what is on disk -> group coordinator (replays ``__consumer_offsets``,
pending transactional offsets included; only when that topic exists: otherwise the first request
that needs a group builds it) -> transaction coordinator (replays ``__transaction_state``;
transactions a crash left prepared get their markers) -> the handlers' services -> listener.
Shutdown reverses it and closes every log cleanly (each partition snapshots its
producer state), so the next start skips recovery.

Handlers never see the broker: they get the narrow services of `odradek.handlers.context`
(partitions, topics, cluster, groups, fetch sessions, producer ids, clock), built once here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, TypeVar

from odradek.broker_views import ClusterInfo, GroupsOnFirstUse, MarkerWriter, TransactionsOnFirstUse
from odradek.clock import Clock, SystemClock
from odradek.cluster.feature_store import FEATURES_FILE, FeatureStore
from odradek.cluster.features import KAFKA_4_4, TRANSACTION_VERSION, FeatureLevels
from odradek.cluster.meta_properties import read_or_create_meta
from odradek.cluster.topics import TopicCatalog, TopicInfo
from odradek.config import BrokerConfig, log_config_for, with_layer
from odradek.config.dynamic_store import DYNAMIC_CONFIGS_FILE, DynamicConfigStore
from odradek.config.groups import GROUP_CONFIGS_FILE, GroupConfigStore
from odradek.coordinator.placement import OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC, partition_for
from odradek.fetch_sessions import FetchSessionCache
from odradek.handlers import load_handlers
from odradek.handlers.context import Services
from odradek.handlers.dispatch import Dispatcher
from odradek.handlers.registry import Registry
from odradek.partition.log_dirs import LogDirs
from odradek.partition.service import Partitions
from odradek.partition.topics import Topics
from odradek.scheduler import Scheduler, Timer
from odradek.security.services import SecurityServices
from odradek.server.backpressure import RequestMemory
from odradek.server.listener import Listener
from odradek.storage.cleaner_config import CleanerConfig
from odradek.storage.filesystem import FileSystem, OsFileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.log_manager import LogManager
from odradek.storage.partition_log import PartitionLog
from odradek.txn.producer_ids import ProducerIdAllocator

if TYPE_CHECKING:
    from odradek.coordinator.runtime import CoordinatorRuntime
    from odradek.emulation import ReleaseApis
    from odradek.security.listener_setup import ListenerSecurity
    from odradek.storage.cleaner import Job
    from odradek.transactions.runtime import TransactionRuntime

__all__ = ["Broker"]

log = logging.getLogger("odradek.broker")

T = TypeVar("T")


async def _run_offloaded(steps: Generator[Job, object, T]) -> T:
    """Drive a compaction pass: each job on a worker thread (`asyncio.to_thread`), the steps
    between jobs on the loop.  A job's exception is thrown into the pass.  When the task is
    cancelled mid-job, the job is first allowed to finish (it reads and writes handles the
    pass closes on its way out), then the pass is closed."""
    value: object = None
    error: Exception | None = None
    while True:
        try:
            job = steps.send(value) if error is None else steps.throw(error)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        running: asyncio.Future[object] = asyncio.ensure_future(asyncio.to_thread(job))
        try:
            value, error = await asyncio.shield(running), None
        except asyncio.CancelledError:
            await asyncio.gather(running, return_exceptions=True)
            steps.close()
            raise
        except Exception as exc:
            value, error = None, exc


class Broker:
    """One broker.  Use ``await start()`` / ``await stop()``, or ``async with``."""

    def __init__(
        self,
        config: BrokerConfig,
        clock: Clock | None = None,
        fs: FileSystem | None = None,
        *,
        emulate: ReleaseApis | None = None,
    ) -> None:
        self.config = config
        #: The cluster's feature versions (ApiVersions v3+); a test may finalize other levels
        #: before `start`.
        self.features: FeatureLevels = KAFKA_4_4
        #: The Apache Kafka release whose ApiVersions and refusals this broker answers with, if any.
        self.emulate = emulate
        #: False once this node unregistered itself (UnregisterBroker), until it restarts.
        self.registered = True
        self.clock: Clock = clock or SystemClock()
        #: Every timer of the broker runs here: on a `ManualClock`, only when the test advances it.
        self.scheduler = Scheduler(self.clock)
        #: Where partition logs and their checkpoints live: the disk, or a test's injected faults.
        self.fs: FileSystem = fs or OsFileSystem()
        self.data_dirs = list(config.data_dirs)
        #: Where the broker keeps its own metadata (catalog, dynamic configs): the first data directory.
        self.data_dir = self.data_dirs[0]
        self.registry: Registry = load_handlers()
        self.cluster_id = ""
        self.catalog: TopicCatalog
        self.logs: LogManager
        self.partitions: Partitions
        self.topics: Topics
        self.log_dirs: LogDirs
        self._listener: Listener | None = None
        self._listeners: list[Listener] = []
        self._listener_security: list[ListenerSecurity] = []
        self.dispatcher: Dispatcher
        #: Bytes of requests received and not yet answered, over every connection of every listener
        #: (``queued.max.request.bytes``).
        self.request_memory = RequestMemory(config.queued_max_request_bytes)
        self.fetch_sessions = FetchSessionCache(config.max_incremental_fetch_session_cache_slots)
        self._background_syncs: set[asyncio.Future[None]] = set()
        self.producer_ids: ProducerIdAllocator
        self._group_coordinator: CoordinatorRuntime | None = None
        self._transactions: TransactionRuntime | None = None
        self._cleaner_task: asyncio.Task[None] | None = None
        self._deletion_timer: Timer | None = None
        self._deletion_due_ms = 0

    @property
    def port(self) -> int:
        """The bound port of the first listener."""
        if self._listener is None:
            raise RuntimeError("the broker is not started")
        return self._listener.port

    @property
    def listener_ports(self) -> dict[str, int]:
        """Every listener's bound port, by listener name."""
        return {listener.name: listener.port for listener in self._listeners}

    async def start(self, *, listen: bool = True) -> None:
        """Open the data directory and build every service; then listen, unless ``listen`` is
        False (an embedding owns a plain listener and routes frames to `dispatcher`)."""
        self.cluster_id = read_or_create_meta(self.fs, self.data_dir, self.config.node_id)
        for other in self.data_dirs[1:]:
            read_or_create_meta(self.fs, other, self.config.node_id, self.cluster_id)
        self.dynamic_configs = DynamicConfigStore(self.fs, os.path.join(self.data_dir, DYNAMIC_CONFIGS_FILE))
        self.group_configs = GroupConfigStore(self.fs, os.path.join(self.data_dir, GROUP_CONFIGS_FILE))
        self.feature_store = FeatureStore(self.fs, os.path.join(self.data_dir, FEATURES_FILE))
        self.features = self.feature_store.load(self.features)
        cluster, own = self.dynamic_configs.load()
        self.config = with_layer(with_layer(self.config, cluster, per_broker=False), own, per_broker=True)
        self.catalog = TopicCatalog(self.fs, os.path.join(self.data_dir, "__odradek_topics.json"))
        self.catalog.start_leading()
        fs = self.fs
        self.logs = LogManager.open(
            fs,
            self.data_dirs,
            self.clock,
            config_for=self._log_config,
            cleaner_config=self._cleaner_config(),
        )
        self.logs.sync_soon = self._sync_creations_soon
        self.producer_ids = ProducerIdAllocator(fs, os.path.join(self.data_dir, "producer_ids"))
        self.security = SecurityServices.open(fs, self.data_dir, self.config.security, self.clock)
        self.security.throttle.scheduler = self.scheduler
        self.partitions = Partitions(fs, self.logs, self.catalog, self.config.node_id, self.scheduler)
        self.topics = Topics(self.catalog, self.partitions, self._topic_log_config, self._sync_creations_soon)
        self.log_dirs = LogDirs(self.logs, self.partitions, _run_offloaded)
        self.topics.reconcile()
        self._sync_creations_soon()
        if self.catalog.get(OFFSETS_TOPIC) is not None:
            self._start_group_coordinator()
        if self.catalog.get(TRANSACTION_STATE_TOPIC) is not None:
            self._start_transactions()
        self._start_producer_expiry()
        self._start_log_timers()
        services = Services(
            partitions=self.partitions,
            topics=self.topics,
            cluster=ClusterInfo(self),
            groups=GroupsOnFirstUse(self),
            fetch_sessions=self.fetch_sessions,
            producer_ids=self.producer_ids,
            clock=self.clock,
            log_dirs=self.log_dirs,
            transactions=TransactionsOnFirstUse(self),
            security=self.security,
        )
        emulation = None
        if self.emulate is not None:
            from odradek.handlers.emulation import Emulation

            emulation = Emulation(self.emulate, self.registry)
        dispatcher = self.dispatcher = Dispatcher(services, self.registry, emulation)
        if listen:
            await self._start_listeners(dispatcher)

    @property
    def group_coordinator(self) -> CoordinatorRuntime:
        """The group coordinator's runtime: built at start-up when ``__consumer_offsets`` exists,
        else by the first request that needs a group."""
        if self._group_coordinator is None:
            return self._start_group_coordinator()
        return self._group_coordinator

    def _start_group_coordinator(self) -> CoordinatorRuntime:
        """Build the group coordinator, replay ``__consumer_offsets`` into it and start its timers
        (the offsets expiry runs every ``offsets.retention.check.interval.ms`` from now on)."""
        from odradek.coordinator.coordinator import CoordinatorSettings, GroupCoordinator
        from odradek.coordinator.runtime import OFFSETS_TOPIC_CONFIGS, CoordinatorRuntime
        from odradek.partition.internal_topic import InternalTopicLog

        partitions = self.config.offsets_topic_num_partitions
        runtime = CoordinatorRuntime(
            GroupCoordinator(CoordinatorSettings.from_config(self.config), self.clock),
            InternalTopicLog(
                OFFSETS_TOPIC, OFFSETS_TOPIC_CONFIGS, self.topics, self.partitions, self.clock, partitions
            ),
            partitions,
            self.scheduler,
        )
        runtime.load()
        runtime.start_timers()
        self._group_coordinator = runtime
        return runtime

    def _offsets_partition_for(self, group_id: str) -> int:
        """The ``__consumer_offsets`` partition of a group, without building the group coordinator."""
        return partition_for(group_id, self.config.offsets_topic_num_partitions)

    async def _start_listeners(self, dispatcher: Dispatcher) -> None:
        """One `Listener` per configured listener, each with its TLS context and connection set-up;
        a listener asked to bind port 0 advertises the port it got.  (Listener security is imported
        here: an embedding that owns its listener, `start(listen=False)`, never loads it.)"""
        from odradek.security.limits import ConnectionLimits
        from odradek.security.listener_setup import ListenerSecurity
        from odradek.security.listeners import listener_specs

        max_request = self.config.socket_request_max_bytes
        idle_ms = int(self.config.security.get("connections.max.idle.ms", "600000"))
        specs = listener_specs(self.config)
        limits = ConnectionLimits(self.config.security, [spec.name for spec in specs])
        for index, spec in enumerate(specs):
            security = ListenerSecurity(
                spec,
                self.config.security,
                self.clock,
                max_request,
                self.security.scram.lookup,
                dispatcher.error_answer,
            )
            listener = Listener(
                dispatcher,
                dispatcher.may_wait,
                spec.host,
                spec.port,
                max_request,
                name=spec.name,
                ssl_context=security.ssl_context,
                prepare=security.prepare,
                handshake_timeout_s=max(idle_ms, 1) / 1000,
                idle_ms=idle_ms,
                memory=self.request_memory,
                socket_buffers=(self.config.socket_send_buffer_bytes, self.config.socket_receive_buffer_bytes),
                admission=limits,
            )
            self._listeners.append(listener)
            self._listener_security.append(security)
            await listener.start()
            if index == 0:
                self._listener = listener
                if self.config.advertised_port is None and self.config.port == 0:
                    self.config = dataclasses.replace(self.config, advertised_port=listener.port)
                if spec.advertised_host is None and spec.advertised_port is None:
                    security.advertised = self.config.advertised
            elif spec.advertised_port is None and spec.port == 0:
                security.advertised = (security.advertised[0], listener.port)

    @property
    def transactions(self) -> TransactionRuntime:
        """The transaction coordinator's runtime: built at start-up when ``__transaction_state``
        exists, else by the first request that needs it."""
        if self._transactions is None:
            return self._start_transactions()
        return self._transactions

    def _start_transactions(self) -> TransactionRuntime:
        """The transaction coordinator over ``__transaction_state``, loaded, with its timers.  Its
        ``transaction.version`` is the cluster's, or the emulated release's."""
        from odradek.partition.internal_topic import InternalTopicLog
        from odradek.transactions.runtime import TransactionRuntime, transaction_state_configs
        from odradek.txn.coordinator import TransactionCoordinator
        from odradek.txn.log_records import value_version_for
        from odradek.txn.messages import TxnSettings

        config = self.config
        transaction_version = self.features.level(TRANSACTION_VERSION)
        if self.emulate is not None:
            transaction_version = self.emulate.finalized_features.get(TRANSACTION_VERSION, (0, 0))[1]
        settings = TxnSettings(
            max_timeout_ms=config.transaction_max_timeout_ms,
            transactional_id_expiration_ms=config.transactional_id_expiration_ms,
            abort_timed_out_interval_ms=config.transaction_abort_timed_out_transaction_cleanup_interval_ms,
            remove_expired_interval_ms=config.transaction_remove_expired_transaction_cleanup_interval_ms,
            transaction_version=transaction_version,
        )
        coordinator = TransactionCoordinator(
            settings, self.clock, self.producer_ids.allocate, self._offsets_partition_for
        )
        partitions = config.transaction_state_log_num_partitions
        state_log = InternalTopicLog(
            TRANSACTION_STATE_TOPIC,
            transaction_state_configs(config.transaction_state_log_segment_bytes),
            self.topics,
            self.partitions,
            self.clock,
            partitions,
        )
        runtime = TransactionRuntime(
            coordinator,
            state_log,
            MarkerWriter(self),
            self.scheduler,
            partitions,
            value_version_for(transaction_version),
        )
        runtime.load()
        runtime.start_timers(settings.abort_timed_out_interval_ms, settings.remove_expired_interval_ms)
        self._transactions = runtime
        return runtime

    def _start_producer_expiry(self) -> None:
        """The expiry of idle producers in every partition (``producer.id.expiration.ms``)."""
        config = self.config
        self.scheduler.schedule_periodic(
            config.producer_id_expiration_check_interval_ms,
            self._expire_producers,
            name="PeriodicProducerExpirationCheck",
        )

    def _expire_producers(self) -> None:
        expiration = self.config.dynamic_value("producer.id.expiration.ms")
        expiration_ms = int(expiration) if expiration is not None else self.config.producer_id_expiration_ms
        self.partitions.expire_producers(self.clock.time_ms(), expiration_ms)

    def set_dynamic_configs(self, props: Mapping[str, str], *, per_broker: bool) -> None:
        """Make ``props`` this broker's (or the cluster-wide) dynamic layer: durable first, then
        live, so every topic without its own override follows at once."""
        config = with_layer(self.config, props, per_broker=per_broker)
        self.dynamic_configs.save(config.dynamic_default_configs, config.dynamic_broker_configs)
        self.config = config
        self.topics.apply_configs()
        self.logs.set_cleaner_config(self._cleaner_config())

    def _cleaner_config(self) -> CleanerConfig:
        """``log.cleaner.dedupe.buffer.size`` and ``log.cleaner.io.buffer.load.factor``, the
        dynamic value if one is set, else the static one."""
        size = self.config.dynamic_value("log.cleaner.dedupe.buffer.size")
        factor = self.config.dynamic_value("log.cleaner.io.buffer.load.factor")
        return CleanerConfig(
            dedupe_buffer_size=int(size) if size is not None else self.config.log_cleaner_dedupe_buffer_size,
            load_factor=float(factor) if factor is not None else self.config.log_cleaner_io_buffer_load_factor,
        )

    def _log_config(self, topic: str) -> LogConfig:
        info = self.catalog.get(topic)
        return log_config_for(self.config, info.configs) if info is not None else LogConfig()

    def _topic_log_config(self, info: TopicInfo) -> LogConfig:
        return log_config_for(self.config, info.configs)

    def _start_log_timers(self) -> None:
        """Kafka's scheduled log tasks, on the broker's scheduler: ``kafka-log-retention`` every
        ``log.retention.check.interval.ms``, ``kafka-recovery-point-checkpoint`` every
        ``log.flush.offset.checkpoint.interval.ms`` (0: only at flush and close, as Kafka runs a
        task of period 0 once), ``delete-file`` at each removed segment's ``file.delete.delay.ms``
        deadline, and the log cleaner every ``log.cleaner.backoff.ms``."""
        self.scheduler.schedule_periodic(
            self.config.log_retention_check_interval_ms, self._retention_pass, name="kafka-log-retention"
        )
        if self.config.log_flush_offset_checkpoint_interval_ms > 0:
            self.scheduler.schedule_periodic(
                self.config.log_flush_offset_checkpoint_interval_ms,
                self.logs.checkpoint_recovery_points,
                name="kafka-recovery-point-checkpoint",
            )
        self.logs.set_deletion_listener(self._deletion_due)
        self._deletion_due(self.logs.next_deletion_due())
        if self.config.log_cleaner_enable:
            self._schedule_cleaner_pass()

    def _retention_pass(self) -> None:
        try:
            self.run_retention()
        except Exception:
            log.exception("log retention pass failed")

    def run_retention(self) -> int:
        """One retention pass over every log at the broker clock's time; return segments deleted."""
        return self.logs.delete_old_segments()

    def _deletion_due(self, due_ms: int | None) -> None:
        """Have the deletion timer go off by ``due_ms`` (clock ms): one timer, at the earliest due time."""
        timer = self._deletion_timer
        if due_ms is None or (timer is not None and timer.pending and self._deletion_due_ms <= due_ms):
            return
        if timer is not None:
            timer.cancel()
        self._deletion_due_ms = due_ms
        delay = due_ms - self.clock.time_ms()
        self._deletion_timer = self.scheduler.call_later(delay, self._delete_expired_segments, name="delete-file")

    def _delete_expired_segments(self) -> None:
        """Delete the files whose delay passed, then wait for the next removed segment's."""
        self._deletion_timer = None
        try:
            self.logs.delete_expired_segments()
        except Exception:
            log.exception("deleting removed segments failed")
        self._deletion_due(self.logs.next_deletion_due())

    def _schedule_cleaner_pass(self) -> None:
        backoff = self.config.dynamic_value("log.cleaner.backoff.ms")
        delay = int(backoff or self.config.log_cleaner_backoff_ms)
        self.scheduler.call_later(delay, self._start_cleaner_pass, name="log-cleaner")

    def _start_cleaner_pass(self) -> None:
        self._cleaner_task = asyncio.create_task(self._cleaner_pass())

    async def _cleaner_pass(self) -> None:
        """Kafka's log cleaner, in short: a compaction pass, then ``log.cleaner.backoff.ms`` of rest."""
        try:
            await self.run_cleaner_offloaded()
        except Exception:
            log.exception("log compaction pass failed")
        self._schedule_cleaner_pass()

    def run_cleaner(self) -> int:
        """One compaction pass over every compacted log, all of it on the event loop."""
        return self.logs.clean_logs()

    async def run_cleaner_offloaded(self) -> int:
        """One compaction pass over every compacted log whose reading, filtering and writing
        run on a worker thread while the loop keeps serving; the swaps run on the loop."""
        cleaned = 0
        for topic, partition in self.logs.compacted_logs():
            if await _run_offloaded(self.logs.cleaning(topic, partition)):
                cleaned += 1
        return cleaned

    async def stop(self) -> None:
        for listener in self._listeners:
            await listener.stop()
        await self.background_syncs_done()
        await self.log_dirs.stop()
        if self._cleaner_task is not None:
            self._cleaner_task.cancel()
            await asyncio.gather(self._cleaner_task, return_exceptions=True)
            self._cleaner_task = None
        self.scheduler.cancel_all()
        self._deletion_timer = None
        self.logs.close()

    async def discard(self) -> None:
        """Stop without making anything durable: every timer cancelled, every file closed
        unflushed.  For an embedding that deletes the data directory next (a test double's reset)."""
        for listener in self._listeners:
            await listener.stop()
        await asyncio.gather(*self._background_syncs, return_exceptions=True)
        if self._cleaner_task is not None:
            self._cleaner_task.cancel()
            await asyncio.gather(self._cleaner_task, return_exceptions=True)
            self._cleaner_task = None
        self.scheduler.cancel_all()
        self._deletion_timer = None
        self.logs.discard()

    async def __aenter__(self) -> Broker:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def background_syncs_done(self) -> None:
        """Wait for the worker jobs started so far: creations made durable, jobs logs deferred at
        a roll, checkpoint files written."""
        await asyncio.gather(*self._background_syncs, return_exceptions=True)

    def _sync_creations_soon(self) -> None:
        """Make new partitions and the leader epoch caches written without fsyncs durable, and
        run the jobs logs deferred at a roll (`PartitionLog.defer_sync`), on a worker thread."""
        loop = asyncio.get_running_loop()
        sync = loop.run_in_executor(None, self._sync_creations)
        self._background_syncs.add(sync)
        sync.add_done_callback(self._background_syncs.discard)

    def _sync_creations(self) -> None:
        self.logs.sync_creations()
        self.partitions.sync_leader_epochs()

    def partition_log(self, topic: str, partition: int) -> PartitionLog | None:
        return self.logs.get(topic, partition)
