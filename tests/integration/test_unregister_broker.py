"""UnregisterBroker naming this node: it fences itself until it restarts, as a single Kafka node
does (compat-tests/probes, sequence cluster.unregister_itself)."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.quorum import UnregisterBrokerRequest
from tests.integration.conftest import BrokerProcess
from tests.integration.rawclient import RawConnection


def _metadata(connection: RawConnection, topic: str) -> tuple[list[int], int, list[tuple[int, int, int]]]:
    answer = connection.request(
        ApiKey.METADATA, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)])
    )
    partitions = [(p.error_code, p.leader_id, p.leader_epoch) for p in answer.topics[0].partitions]
    return [b.node_id for b in answer.brokers], answer.controller_id, partitions


def test_a_node_that_unregisters_itself_leads_nothing_until_it_restarts(
    tmp_path_factory: pytest.TempPathFactory, topic_name: str
) -> None:
    broker = BrokerProcess(tmp_path_factory.mktemp("unregister"))
    broker.start()
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic(topic_name, 1, 1)])[topic_name].result(10)
        connection = RawConnection(broker.bootstrap)
        try:
            unregistered = connection.request(ApiKey.UNREGISTER_BROKER, 0, UnregisterBrokerRequest(broker_id=1))
            assert unregistered.error_code == ErrorCode.NONE
            assert _metadata(connection, topic_name) == ([], -1, [(ErrorCode.LEADER_NOT_AVAILABLE, -1, 1)])
            again = connection.request(ApiKey.UNREGISTER_BROKER, 0, UnregisterBrokerRequest(broker_id=1))
            assert again.error_code == ErrorCode.BROKER_ID_NOT_REGISTERED
        finally:
            connection.close()
        broker.restart()
        connection = RawConnection(broker.bootstrap)
        try:
            assert _metadata(connection, topic_name) == ([1], 1, [(ErrorCode.NONE, 1, 2)])
        finally:
            connection.close()
        producer = Producer({"bootstrap.servers": broker.bootstrap})
        producer.produce(topic_name, value=b"after the restart")
        assert producer.flush(20) == 0
    finally:
        broker.stop()
