"""Transactions under the authorizer, through confluent-kafka over SASL/PLAIN: a transactional id
needs WRITE, sending offsets needs READ on the group; refused calls change nothing.

The broker has a PLAINTEXT listener whose anonymous principal is a super user and a SASL_PLAINTEXT
listener for alice; ``allow.everyone.if.no.acl.found=false``.  (Error for error against Apache
Kafka: compat-tests/probes/transactions_secured.py.)
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from tests.integration.inprocess import InProcessBroker

JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";'


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessBroker]:
    overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "sasl.enabled.mechanisms=PLAIN",
        f"listener.name.sasl_plaintext.plain.sasl.jaas.config={JAAS}",
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users=User:ANONYMOUS",
        "allow.everyone.if.no.acl.found=false",
    ]
    running = InProcessBroker(tmp_path_factory.mktemp("txn-acls"), overrides)
    running.start()
    yield running
    running.stop()


def _plain(broker: InProcessBroker) -> str:
    return f"127.0.0.1:{broker.broker.listener_ports['PLAINTEXT']}"


def _alice(broker: InProcessBroker) -> dict[str, Any]:
    return {
        "bootstrap.servers": f"127.0.0.1:{broker.broker.listener_ports['SASL_PLAINTEXT']}",
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.username": "alice",
        "sasl.password": "alice-secret",
    }


def _grant(broker: InProcessBroker, kind: ResourceType, name: str, operation: AclOperation) -> None:
    binding = AclBinding(kind, name, ResourcePatternType.LITERAL, "User:alice", "*", operation, AclPermissionType.ALLOW)
    admin = AdminClient({"bootstrap.servers": _plain(broker)})
    for future in admin.create_acls([binding]).values():
        future.result(15)


def _error_code(exc: KafkaException) -> int:
    error = exc.args[0]
    assert isinstance(error, KafkaError)
    return int(error.code())


def _committed_values(broker: InProcessBroker, topic: str) -> list[bytes]:
    consumer = Consumer(
        {
            "bootstrap.servers": _plain(broker),
            "group.id": f"reader-{uuid.uuid4().hex[:6]}",
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    values: list[bytes] = []
    try:
        for _ in range(40):
            message = consumer.poll(0.25)
            if message is not None and message.error() is None:
                values.append(message.value() or b"")
            elif values:
                break
    finally:
        consumer.close()
    return values


def test_a_transactional_id_needs_write_and_offsets_need_read_on_the_group(broker: InProcessBroker) -> None:
    run = uuid.uuid4().hex[:6]
    topic, tid, group = f"out-{run}", f"tx-{run}", f"group-{run}"
    admin = AdminClient({"bootstrap.servers": _plain(broker)})
    for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        future.result(15)
    _grant(broker, ResourceType.TOPIC, topic, AclOperation.WRITE)
    producer = Producer({**_alice(broker), "transactional.id": tid, "transaction.timeout.ms": 30000})
    with pytest.raises(KafkaException) as refused:
        producer.init_transactions(15)
    assert _error_code(refused.value) == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED

    _grant(broker, ResourceType.TRANSACTIONAL_ID, tid, AclOperation.WRITE)
    producer = Producer({**_alice(broker), "transactional.id": tid, "transaction.timeout.ms": 30000})
    producer.init_transactions(15)
    producer.begin_transaction()
    producer.produce(topic, b"committed", partition=0)
    producer.flush(15)
    offsets = [TopicPartition(topic, 0, 1)]
    metadata = Consumer({"bootstrap.servers": _plain(broker), "group.id": group}).consumer_group_metadata()
    with pytest.raises(KafkaException) as group_refused:
        producer.send_offsets_to_transaction(offsets, metadata, 15)
    assert _error_code(group_refused.value) == KafkaError.GROUP_AUTHORIZATION_FAILED
    producer.abort_transaction(15)

    producer.begin_transaction()
    producer.produce(topic, b"second", partition=0)
    producer.commit_transaction(15)
    assert _committed_values(broker, topic) == [b"second"], "the aborted record stays invisible"
