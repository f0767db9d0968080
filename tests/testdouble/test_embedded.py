"""The embedded broker: options, topics, reset, snapshot and restore, through confluent-kafka."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import confluent_kafka
import pytest

from odradek import Broker
from tests.testdouble.clients import consume

FAST_GROUPS = {"group.initial.rebalance.delay.ms": 0}


def test_bad_options_are_refused_before_anything_starts() -> None:
    with pytest.raises(ValueError, match=r"unknown Kafka release '9\.9'.*3\.6"):
        Broker(emulate="9.9")
    with pytest.raises(ValueError, match=r"unknown storage 'tape'; allowed: disk, memory"):
        Broker(storage="tape")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid broker config"):
        Broker(config={"num.partitions": "many"})
    with pytest.raises(ValueError, match="unknown process"):
        Broker(process="fork")  # type: ignore[arg-type]


@pytest.mark.parametrize("storage", ["memory", "disk"])
def test_a_round_trip_then_reset_leaves_nothing(
    storage: str,
    tmp_path: Path,
    producer_factory: Callable[..., confluent_kafka.Producer],
    consumer_factory: Callable[..., confluent_kafka.Consumer],
    group_id: str,
) -> None:
    data_dir = tmp_path / "data" if storage == "disk" else None
    with Broker(storage=storage, data_dir=data_dir, config=FAST_GROUPS) as broker:  # type: ignore[arg-type]
        assert broker.bootstrap_servers.startswith("127.0.0.1:") and broker.port > 0
        broker.create_topic("orders", partitions=2, configs={"retention.ms": 60_000})
        producer = producer_factory(broker.bootstrap_servers)
        producer.produce("orders", b"one", partition=1)
        assert producer.flush(10) == 0
        consumer = consumer_factory(broker.bootstrap_servers, **{"group.id": group_id})
        consumer.subscribe(["orders"])
        assert consume(consumer, 1) == [b"one"]
        consumer.commit(asynchronous=False)
        assert broker.topics() == ["orders"]
        consumer.close()
        broker.reset()
        assert broker.topics() == []
        if data_dir is not None:
            assert not any(p.name.startswith("orders-") for p in data_dir.iterdir())
        with pytest.raises(ValueError, match="cannot create topic 'orders'"):
            broker.create_topic("orders", partitions=0)
    if data_dir is not None:
        assert data_dir.exists()  # a data_dir the test gave is kept


def test_snapshot_and_restore_bring_back_records_and_committed_offsets(
    producer_factory: Callable[..., confluent_kafka.Producer],
    consumer_factory: Callable[..., confluent_kafka.Consumer],
    group_id: str,
) -> None:
    with Broker(storage="memory", config=FAST_GROUPS) as broker:
        broker.create_topic("ledger")
        producer = producer_factory(broker.bootstrap_servers)
        for value in (b"a", b"b", b"c"):
            producer.produce("ledger", value)
        assert producer.flush(10) == 0
        consumer = consumer_factory(broker.bootstrap_servers, **{"group.id": group_id, "enable.auto.commit": False})
        consumer.subscribe(["ledger"])
        assert consume(consumer, 2) == [b"a", b"b"]
        consumer.commit(offsets=[confluent_kafka.TopicPartition("ledger", 0, 2)], asynchronous=False)
        consumer.close()
        snapshot = broker.snapshot()
        broker.reset()
        assert broker.topics() == []
        broker.restore(snapshot)
        assert broker.topics() == ["ledger"]
        again = consumer_factory(broker.bootstrap_servers, **{"group.id": group_id})
        again.subscribe(["ledger"])
        assert consume(again, 1) == [b"c"]
        committed = again.committed([confluent_kafka.TopicPartition("ledger", 0)], timeout=10)
        assert committed[0].offset >= 2
        again.close()


@pytest.mark.asyncio
async def test_the_async_context_manager_and_coroutine_twins() -> None:
    async with Broker(storage="memory") as broker:
        await broker.acreate_topic("async-topic", partitions=3)
        assert broker.topics() == ["async-topic"]
        await broker.areset()
        assert broker.topics() == []


def test_a_subprocess_broker_offers_the_same_methods(producer_factory: Callable[..., confluent_kafka.Producer]) -> None:
    with Broker(storage="memory", process="subprocess", journal=True) as broker:
        assert broker.control_url is not None
        broker.create_topic("sub", partitions=1)
        broker.faults.inject("Produce", error="NOT_LEADER_OR_FOLLOWER")
        producer = producer_factory(broker.bootstrap_servers)
        producer.produce("sub", b"x")
        assert producer.flush(15) == 0
        produces = broker.journal.requests(api="Produce", topic="sub")
        assert [e.errors for e in produces][:2] == [["NOT_LEADER_OR_FOLLOWER"], []]
        snapshot = broker.snapshot()
        broker.reset()
        broker.restore(snapshot)
        assert broker.topics() == ["sub"]


def test_an_idle_connection_survives_a_reset_and_talks_to_the_new_broker() -> None:
    from odradek.wire.api import ApiKey
    from odradek.wire.messages.metadata import MetadataRequest
    from tests.integration.rawclient import RawConnection

    with Broker(storage="memory") as broker:
        broker.create_topic("before-reset")
        conn = RawConnection(broker.bootstrap_servers)
        try:
            everything = MetadataRequest(topics=None, allow_auto_topic_creation=False)
            assert [t.name for t in conn.request(ApiKey.METADATA, 12, everything).topics] == ["before-reset"]
            broker.reset()
            broker.create_topic("after-reset")
            assert [t.name for t in conn.request(ApiKey.METADATA, 12, everything).topics] == ["after-reset"]
        finally:
            conn.close()
