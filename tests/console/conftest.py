"""A broker with data worth looking at, and the console serving it, both as real processes.

The broker is ``python -m odradek run`` on a free port, or the Kafka-compatible broker at
``ODRADEK_CONSOLE_TEST_BOOTSTRAP`` when that is set (the same tests then run against Apache Kafka).
The console is ``python -m odradek console --listen 127.0.0.1:0``, sampling lag every 200 ms.

The cluster holds (`Scene`): a topic of two partitions with keyed, JSON and binary records and a
header; a group that has read only part of it (so it has lag); and a topic nobody reads.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.conftest import BrokerProcess

CONSOLE_READY = "odradek console on "
RECORDS_PER_PARTITION = 6
CONSUMED_PER_PARTITION = 2


@dataclass(frozen=True)
class Scene:
    bootstrap: str
    topic: str
    group: str
    idle_topic: str


@dataclass(frozen=True)
class Page:
    status: int
    text: str


class ConsoleProcess:
    def __init__(self, bootstrap: str, log_path: Path, timeout_ms: int = 10_000) -> None:
        command = [sys.executable, "-m", "odradek", "console", "--bootstrap-server", bootstrap]
        command += ["--listen", "127.0.0.1:0", "--sample-interval-ms", "200", "--timeout-ms", str(timeout_ms)]
        with open(log_path, "a") as log:
            self.process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=log, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}
            )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith(CONSOLE_READY):
            self.stop()
            raise RuntimeError(f"console did not start: {line!r}\n{log_path.read_text()[-3000:]}")
        self.url = line.strip().removeprefix(CONSOLE_READY)

    def get(self, path: str) -> Page:
        return self.request(urllib.request.Request(self.url + path))

    def post(self, path: str, form: dict[str, str], headers: dict[str, str] | None = None) -> Page:
        data = urllib.parse.urlencode(form).encode()
        return self.request(urllib.request.Request(self.url + path, data=data, headers=headers or {}))

    def request(self, request: urllib.request.Request) -> Page:
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return Page(answer.status, answer.read().decode())
        except urllib.error.HTTPError as error:
            with error:
                return Page(error.code, error.read().decode())

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        return code


def _records(partition: int) -> list[tuple[bytes | None, bytes]]:
    rows: list[tuple[bytes | None, bytes]] = []
    for n in range(RECORDS_PER_PARTITION):
        if n == 1:
            rows.append((b"order-%d-%d" % (partition, n), b'{"item": "tea", "count": %d}' % n))
        elif n == 2:
            rows.append((None, bytes([0, 1, 2, 0xFF]) + b"binary"))
        else:
            rows.append((b"key-%d-%d" % (partition, n), b"value %d of partition %d" % (n, partition)))
    return rows


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        future.result(30)


def lagging_group(bootstrap: str, topic: str, group: str) -> None:
    """Create ``topic`` (two partitions of `_records`) and commit ``group`` at
    `CONSUMED_PER_PARTITION` in each partition, so the group lags by the rest."""
    create_topic(bootstrap, topic, 2)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for partition in (0, 1):
        for key, value in _records(partition):
            producer.produce(topic, value, key, partition=partition, headers=[("source", b"tests")])
    assert producer.flush(30) == 0
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    read = {0: 0, 1: 0}
    while sum(read.values()) < 2 * CONSUMED_PER_PARTITION:
        message = consumer.poll(1.0)
        if message is None or message.error() is not None:
            continue
        partition = message.partition()
        assert partition is not None
        if read[partition] < CONSUMED_PER_PARTITION:
            read[partition] += 1
            consumer.commit(message, asynchronous=False)
    consumer.close()


def _build_scene(bootstrap: str) -> Scene:
    suffix = uuid.uuid4().hex[:8]
    scene = Scene(bootstrap, f"orders-{suffix}", f"billing-{suffix}", f"idle-{suffix}")
    lagging_group(bootstrap, scene.topic, scene.group)
    create_topic(bootstrap, scene.idle_topic, 1)
    return scene


@pytest.fixture(scope="package")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    given = os.environ.get("ODRADEK_CONSOLE_TEST_BOOTSTRAP")
    if given:
        yield _build_scene(given)
        return
    broker = BrokerProcess(tmp_path_factory.mktemp("console-broker-data"), ["group.initial.rebalance.delay.ms=0"])
    broker.start()
    try:
        yield _build_scene(broker.bootstrap)
    finally:
        broker.stop()


@pytest.fixture(scope="package")
def console(scene: Scene, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleProcess]:
    process = ConsoleProcess(scene.bootstrap, tmp_path_factory.mktemp("console") / "console.log")
    yield process
    process.stop()
