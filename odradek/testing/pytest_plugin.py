"""pytest plugin: a Kafka broker for an application's tests (registered as ``pytest11`` ``odradek``).

Fixtures:

- ``kafka_broker`` (session): one embedded `odradek.embedded.Broker` per test process (so one
  per pytest-xdist worker), started on first use; ``.bootstrap_servers``, ``.clock``,
  ``.faults``, ``.journal``, ``.create_topic``, ``.reset``, ``.snapshot``/``.restore``;
- ``kafka_clean`` (function): the same broker after `reset` (no topics, groups, faults, journal
  entries; system time), or a broker of the test's own when its ``kafka`` marker asks for
  broker settings the session broker does not have;
- ``kafka_topic`` (function): a factory, ``kafka_topic(partitions=None, configs=None, name=None)``
  creates a topic with a name unique to the test and returns the name.

Settings, as ini options (``[pytest]``/``pyproject.toml``) or command-line options:

=========================== =========================== =================================================
ini                         command line                meaning
=========================== =========================== =================================================
``kafka_bootstrap``         ``--kafka-bootstrap``       an external broker (e.g. Apache Kafka): the same
                                                        fixtures, no embedded broker; tests that use the
                                                        clock, faults or journal are skipped
``kafka_storage``           ``--kafka-storage``         ``memory`` (default) or ``disk``
``kafka_emulate``           ``--kafka-emulate``         an Apache Kafka release to emulate (``3.6``)
``kafka_partitions``                                    partitions of ``kafka_topic`` topics (default 1)
``kafka_broker_config``                                 broker configs, one ``key=value`` per line
                                                        (``group.initial.rebalance.delay.ms`` is 0
                                                        unless set here)
``kafka_journal``                                       ``true``: record every request from the start
``kafka_process``                                       ``thread`` (default) or ``subprocess``
=========================== =========================== =================================================

Marker ``@pytest.mark.kafka(partitions=3, config={...}, emulate="3.6", storage="disk",
journal=True)``: ``partitions`` only changes ``kafka_topic``'s default; the others give the test a
broker of its own.  Every setting is checked when pytest starts (a marker's when tests are
collected): a bad one stops the run with a usage error naming the value and what is allowed.

This module imports nothing of the broker until a fixture is used, so having odradek installed
costs a pytest run nothing.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:
    from odradek.embedded import Broker

__all__ = ["ExternalKafka", "KafkaSettings"]

_STORAGES = ("memory", "disk")
_PROCESSES = ("thread", "subprocess")
_MARKER_KEYS = ("partitions", "config", "emulate", "storage", "journal")
#: Broker configs the fixtures' brokers start with unless configured otherwise: a group's first
#: rebalance does not wait 3 s for more members (as test set-ups for Apache Kafka usually do).
TEST_DEFAULTS = {"group.initial.rebalance.delay.ms": "0"}


@dataclass(frozen=True)
class KafkaSettings:
    bootstrap: str | None = None
    storage: str = "memory"
    emulate: str | None = None
    partitions: int = 1
    config: dict[str, str] = field(default_factory=dict)
    journal: bool = False
    process: str = "thread"

    def check(self, where: str) -> None:
        """`pytest.UsageError` naming the bad value and what is allowed."""
        if self.storage not in _STORAGES:
            raise pytest.UsageError(f"{where}: unknown kafka storage {self.storage!r}; allowed: {', '.join(_STORAGES)}")
        if self.process not in _PROCESSES:
            raise pytest.UsageError(f"{where}: unknown kafka process {self.process!r}; allowed: thread, subprocess")
        if not isinstance(self.partitions, int) or isinstance(self.partitions, bool) or self.partitions < 1:
            raise pytest.UsageError(f"{where}: kafka partitions must be an integer >= 1, not {self.partitions!r}")
        if self.emulate is not None:
            from odradek.emulation import available_releases

            if self.emulate not in available_releases():
                allowed = ", ".join(available_releases())
                raise pytest.UsageError(
                    f"{where}: unknown Kafka release {self.emulate!r} to emulate; allowed: {allowed}"
                )
        if self.config and self.bootstrap is None:
            from odradek.config import ConfigError, load_config

            try:
                load_config(None, ["port=0", *(f"{k}={v}" for k, v in self.config.items())])
            except ConfigError as exc:
                raise pytest.UsageError(f"{where}: invalid kafka broker config: {exc}") from None

    def broker_key(self) -> tuple[object, ...]:
        """What makes two brokers differ (``partitions`` does not: it is the topic factory's)."""
        return (self.storage, self.emulate, tuple(sorted(self.config.items())), self.journal, self.process)

    def start_broker(self) -> Broker:
        from odradek.embedded import Broker

        process: Literal["thread", "subprocess"] = "subprocess" if self.process == "subprocess" else "thread"
        storage: Literal["disk", "memory"] = "disk" if self.storage == "disk" else "memory"
        broker = Broker(
            storage=storage, config=self.config, emulate=self.emulate, journal=self.journal, process=process
        )
        return broker.start()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("odradek", "Kafka broker for tests (odradek)")
    group.addoption("--kafka-bootstrap", help="run the kafka fixtures against this external broker (host:port)")
    group.addoption("--kafka-storage", choices=_STORAGES, help="the embedded broker's storage (default memory)")
    group.addoption("--kafka-emulate", metavar="X.Y", help="the Apache Kafka release the embedded broker emulates")
    parser.addini("kafka_bootstrap", "an external broker for the kafka fixtures (host:port)", default="")
    parser.addini("kafka_storage", "the embedded broker's storage: memory or disk", default="memory")
    parser.addini("kafka_emulate", "the Apache Kafka release to emulate (e.g. 3.6)", default="")
    parser.addini("kafka_partitions", "partitions of kafka_topic topics", default="1")
    parser.addini("kafka_broker_config", "broker configs, one key=value per line", type="linelist", default=[])
    parser.addini("kafka_journal", "record every request from the start", type="bool", default=False)
    parser.addini("kafka_process", "where the embedded broker runs: thread or subprocess", default="thread")


def _settings(config: pytest.Config) -> KafkaSettings:
    def option(name: str) -> Any:
        return config.getoption(name, default=None)

    partitions_text = str(config.getini("kafka_partitions")).strip()
    try:
        partitions = int(partitions_text)
    except ValueError:
        raise pytest.UsageError(f"kafka_partitions must be an integer >= 1, not {partitions_text!r}") from None
    broker_config: dict[str, str] = dict(TEST_DEFAULTS)
    for line in config.getini("kafka_broker_config"):
        key, sep, value = str(line).partition("=")
        if not sep:
            raise pytest.UsageError(f"kafka_broker_config: {line!r} is not key=value")
        broker_config[key.strip()] = value.strip()
    return KafkaSettings(
        bootstrap=option("kafka_bootstrap") or config.getini("kafka_bootstrap") or None,
        storage=option("kafka_storage") or config.getini("kafka_storage"),
        emulate=option("kafka_emulate") or config.getini("kafka_emulate") or None,
        partitions=partitions,
        config=broker_config,
        journal=bool(config.getini("kafka_journal")),
        process=str(config.getini("kafka_process")),
    )


_SETTINGS_KEY = pytest.StashKey[KafkaSettings]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "kafka(partitions=, config=, emulate=, storage=, journal=): kafka fixture settings for this test",
    )
    settings = _settings(config)
    settings.check("kafka settings")
    config.stash[_SETTINGS_KEY] = settings


def _marked(settings: KafkaSettings, item: pytest.Item) -> KafkaSettings:
    """The settings with the test's ``kafka`` markers applied (`pytest.UsageError` if bad)."""
    for marker in reversed(list(item.iter_markers("kafka"))):
        if marker.args:
            raise pytest.UsageError(
                f"{item.nodeid}: @pytest.mark.kafka takes keywords only ({', '.join(_MARKER_KEYS)})"
            )
        unknown = set(marker.kwargs) - set(_MARKER_KEYS)
        if unknown:
            raise pytest.UsageError(
                f"{item.nodeid}: unknown @pytest.mark.kafka setting(s) {', '.join(sorted(unknown))}; "
                f"allowed: {', '.join(_MARKER_KEYS)}"
            )
        values = dict(marker.kwargs)
        if "config" in values:
            if not isinstance(values["config"], dict):
                raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.kafka config must be a dict of broker configs")
            values["config"] = {**settings.config, **{str(k): _text(v) for k, v in values["config"].items()}}
        settings = replace(settings, **values)
    settings.check(item.nodeid)
    return settings


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    settings = config.stash.get(_SETTINGS_KEY, None)
    if settings is None:
        return
    for item in items:
        if item.get_closest_marker("kafka") is not None:
            _marked(settings, item)


class ExternalKafka:
    """An external broker behind the same fixtures: what a client needs, no test-double controls."""

    def __init__(self, bootstrap_servers: str) -> None:
        self.bootstrap_servers = bootstrap_servers

    def _unavailable(self, what: str) -> Any:
        pytest.skip(f"needs odradek's {what}; the kafka fixtures run against {self.bootstrap_servers}")

    @property
    def clock(self) -> Any:
        return self._unavailable("clock")

    @property
    def faults(self) -> Any:
        return self._unavailable("fault injection")

    @property
    def journal(self) -> Any:
        return self._unavailable("request journal")

    def snapshot(self) -> Any:
        return self._unavailable("snapshots")

    def create_topic(self, name: str, partitions: int = 1, configs: dict[str, object] | None = None) -> None:
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": self.bootstrap_servers})
        config = {k: _text(v) for k, v in (configs or {}).items()}
        for future in admin.create_topics([NewTopic(name, partitions, 1, config=config)]).values():
            future.result(30)

    def delete_topics(self, names: list[str]) -> None:
        from confluent_kafka.admin import AdminClient

        if not names:
            return
        admin = AdminClient({"bootstrap.servers": self.bootstrap_servers})
        for future in admin.delete_topics(names, operation_timeout=30).values():
            future.result(30)

    def reset(self) -> None:
        """An external broker is not reset; the fixtures delete the topics they created instead."""


@pytest.fixture(scope="session")
def kafka_broker(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The session's broker: embedded, or the external one named by ``kafka_bootstrap``."""
    settings = request.config.stash[_SETTINGS_KEY]
    if settings.bootstrap is not None:
        yield ExternalKafka(settings.bootstrap)
        return
    broker = settings.start_broker()
    try:
        yield broker
    finally:
        broker.stop()


@dataclass
class _TestKafka:
    broker: Any
    settings: KafkaSettings
    created: list[str] = field(default_factory=list)


@pytest.fixture
def _kafka_for_test(request: pytest.FixtureRequest, kafka_broker: Any) -> Iterator[_TestKafka]:
    session = request.config.stash[_SETTINGS_KEY]
    settings = _marked(session, request.node) if isinstance(request.node, pytest.Item) else session
    if settings.bootstrap is None and settings.broker_key() != session.broker_key():
        own = settings.start_broker()
        try:
            yield _TestKafka(own, settings)
        finally:
            own.stop()
        return
    state = _TestKafka(kafka_broker, settings)
    yield state
    if isinstance(kafka_broker, ExternalKafka):
        kafka_broker.delete_topics(state.created)


@pytest.fixture
def kafka_clean(_kafka_for_test: _TestKafka) -> Any:
    """The broker with nothing left from earlier tests (see the module docstring)."""
    _kafka_for_test.broker.reset()
    return _kafka_for_test.broker


_SAFE = re.compile(r"[^a-zA-Z0-9._-]+")
_COUNTER = itertools.count(1)


@pytest.fixture
def kafka_topic(request: pytest.FixtureRequest, _kafka_for_test: _TestKafka) -> Callable[..., str]:
    """``kafka_topic(partitions=None, configs=None, name=None)``: a new topic's name."""
    base = _SAFE.sub("-", request.node.name)[:180]

    def create(partitions: int | None = None, configs: dict[str, object] | None = None, name: str | None = None) -> str:
        topic = name or f"{base}-{next(_COUNTER)}"
        _kafka_for_test.broker.create_topic(topic, partitions or _kafka_for_test.settings.partitions, configs)
        _kafka_for_test.created.append(topic)
        return topic

    return create
