"""Exactly once through crashes: a transactional copy job (``eos_copier.py``: consume a batch,
produce it, send the offsets in the transaction, commit) is SIGKILLed again and again while the
broker is SIGKILLed and restarted too; at the end the output topic, read with read_committed,
holds every input record exactly once, in each partition's order.

Each round feeds more input (while the broker is up), makes sure a copier runs, waits a random
moment, then kills the copier, the broker, both or neither.  A killed copier's open transaction
is aborted when the next one initialises (fencing); a killed broker comes back with the
transaction coordinator's state, the open transactions of each partition and the pending offsets
replayed from its logs.  A last copier then runs until the input is exhausted.

``EOS_ROUNDS`` sets the number of rounds (default 8, the CI count; `make soak-eos` runs more).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.conftest import BrokerProcess

ROUNDS = int(os.environ.get("EOS_ROUNDS", "8"))
PARTITIONS = 3
FEED = 150
COPIER = Path(__file__).with_name("eos_copier.py")


class Copier:
    """At most one copy job process at a time."""

    def __init__(self, bootstrap: str, run: str, log_dir: Path) -> None:
        self.argv = [
            sys.executable,
            str(COPIER),
            "--bootstrap",
            bootstrap,
            "--input",
            f"in-{run}",
            "--output",
            f"out-{run}",
            "--group",
            f"copy-{run}",
            "--transactional-id",
            f"copy-{run}",
            "--instance",
            "copier",
        ]
        self.log = (log_dir / "copier.log").open("a")
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def ensure_running(self) -> None:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(self.argv, stdout=self.log, stderr=self.log)
            self.starts += 1

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def close(self) -> None:
        self.kill()
        self.log.close()

    def run_to_the_end(self, timeout_s: float) -> int:
        self.kill()
        return subprocess.run(
            [*self.argv, "--idle-exit-s", "4"], stdout=self.log, stderr=self.log, timeout=timeout_s
        ).returncode


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path / "data", ["group.initial.rebalance.delay.ms=0"])
    proc.start()
    yield proc
    proc.stop(signal.SIGKILL)


def _feed(bootstrap: str, topic: str, start: int, count: int) -> None:
    """Records ``start`` .. ``start + count - 1``, record n to partition n % PARTITIONS, acknowledged."""
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5})
    for n in range(start, start + count):
        producer.produce(topic, key=str(n).encode(), value=f"v{n}".encode(), partition=n % PARTITIONS)
    assert producer.flush(30) == 0


def _read_committed(bootstrap: str, topic: str, partition: int) -> list[str]:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"check-{uuid.uuid4().hex[:8]}",
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
        }
    )
    consumer.assign([TopicPartition(topic, partition, 0)])
    values: list[str] = []
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error() is not None:
                break
            values.append(msg.value().decode())
    finally:
        consumer.close()
    return values


def test_every_record_is_copied_exactly_once_through_kills(broker: BrokerProcess, tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("EOS_SEED", "12")))
    run = uuid.uuid4().hex[:8]
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    for name in (f"in-{run}", f"out-{run}"):
        admin.create_topics([NewTopic(name, PARTITIONS, 1)])[name].result(30)
    copier = Copier(broker.bootstrap, run, tmp_path)
    fed = 0
    broker_kills = 0
    try:
        for _ in range(ROUNDS):
            _feed(broker.bootstrap, f"in-{run}", fed, FEED)
            fed += FEED
            copier.ensure_running()
            time.sleep(rng.uniform(0.2, 1.5))
            action = rng.choice(("copier", "broker", "both", "none"))
            if action in ("copier", "both"):
                copier.kill()
            if action in ("broker", "both"):
                broker.stop(signal.SIGKILL)
                broker.start()
                broker_kills += 1
        assert copier.run_to_the_end(timeout_s=120) == 0, (tmp_path / "copier.log").read_text()[-3000:]
    finally:
        copier.close()
    for p in range(PARTITIONS):
        expected = [f"v{n}" for n in range(p, fed, PARTITIONS)]
        assert _read_committed(broker.bootstrap, f"out-{run}", p) == expected, f"partition {p}"
    assert copier.starts >= 2 or broker_kills >= 1, "the rounds killed nothing: the seed tested no crash"
