"""ACLs with Kafka's StandardAuthorizer semantics, through real clients over SASL/PLAIN.

The broker has a PLAINTEXT listener whose anonymous principal is a super user (the admin path) and a
SASL_PLAINTEXT listener for alice and bob; ``allow.everyone.if.no.acl.found=false``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from tests.integration.inprocess import InProcessBroker

JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_bob="bob-secret";'
)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessBroker]:
    overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256",
        f"listener.name.sasl_plaintext.plain.sasl.jaas.config={JAAS}",
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users=User:ANONYMOUS",
        "allow.everyone.if.no.acl.found=false",
    ]
    running = InProcessBroker(tmp_path_factory.mktemp("acls"), overrides)
    running.start()
    yield running
    running.stop()


def _admin(broker: InProcessBroker) -> AdminClient:
    return AdminClient({"bootstrap.servers": f"127.0.0.1:{broker.broker.listener_ports['PLAINTEXT']}"})


def _as(broker: InProcessBroker, user: str, mechanism: str = "PLAIN", password: str | None = None) -> dict[str, Any]:
    return {
        "bootstrap.servers": f"127.0.0.1:{broker.broker.listener_ports['SASL_PLAINTEXT']}",
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password or f"{user}-secret",
    }


def _produce(config: dict[str, Any], topic: str) -> KafkaError | None:
    outcome: list[KafkaError | None] = []
    producer = Producer({**config, "linger.ms": 0, "message.timeout.ms": 10000})
    producer.produce(topic, b"x", on_delivery=lambda err, msg: outcome.append(err))
    producer.flush(15)
    assert outcome, "no delivery report"
    return outcome[0]


def _acl(name: str, pattern: ResourcePatternType, principal: str, op: AclOperation, allow: bool = True) -> AclBinding:
    permission = AclPermissionType.ALLOW if allow else AclPermissionType.DENY
    return AclBinding(ResourceType.TOPIC, name, pattern, principal, "*", op, permission)


@pytest.fixture(scope="module")
def topics(broker: InProcessBroker) -> dict[str, str]:
    run = uuid.uuid4().hex[:6]
    names = {
        "allowed": f"allowed-{run}",
        "denied": f"denied-{run}",
        "prefixed": f"pfx-{run}-one",
        "blocked": f"pfx-{run}-blocked",
    }
    admin = _admin(broker)
    for future in admin.create_topics([NewTopic(n, 1, 1) for n in names.values()]).values():
        future.result(15)
    bindings = [
        _acl(names["allowed"], ResourcePatternType.LITERAL, "User:alice", AclOperation.WRITE),
        _acl(names["allowed"], ResourcePatternType.LITERAL, "User:alice", AclOperation.READ),
        _acl(f"pfx-{run}-", ResourcePatternType.PREFIXED, "User:alice", AclOperation.WRITE),
        _acl(names["blocked"], ResourcePatternType.LITERAL, "User:alice", AclOperation.WRITE, allow=False),
        _acl(names["denied"], ResourcePatternType.LITERAL, "User:bob", AclOperation.WRITE),
    ]
    for future in admin.create_acls(bindings).values():
        future.result(15)
    return names


def test_acls_are_created_described_and_deleted_through_the_admin_api(
    broker: InProcessBroker, topics: dict[str, str]
) -> None:
    admin = _admin(broker)
    anything = AclBindingFilter(
        ResourceType.TOPIC,
        topics["allowed"],
        ResourcePatternType.ANY,
        None,
        None,
        AclOperation.ANY,
        AclPermissionType.ANY,
    )
    described = admin.describe_acls(anything).result(15)
    assert sorted(b.operation.name for b in described) == ["READ", "WRITE"]
    extra = _acl(topics["allowed"], ResourcePatternType.LITERAL, "User:carol", AclOperation.DELETE)
    admin.create_acls([extra])[extra].result(15)
    carol = AclBindingFilter(
        ResourceType.TOPIC, None, ResourcePatternType.ANY, "User:carol", None, AclOperation.ANY, AclPermissionType.ANY
    )
    deleted = admin.delete_acls([carol])[carol].result(15)
    assert [(b.principal, b.operation) for b in deleted] == [("User:carol", AclOperation.DELETE)]
    assert admin.describe_acls(carol).result(15) == []


def test_the_acl_matrix(broker: InProcessBroker, topics: dict[str, str]) -> None:
    alice = _as(broker, "alice")
    assert _produce(alice, topics["allowed"]) is None
    assert _produce(alice, topics["prefixed"]) is None
    for refused in ("denied", "blocked"):
        error = _produce(alice, topics[refused])
        assert error is not None and error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED, (refused, error)
    assert _produce(_as(broker, "bob"), topics["denied"]) is None


def test_metadata_shows_only_what_the_principal_may_describe(broker: InProcessBroker, topics: dict[str, str]) -> None:
    listed = set(AdminClient(_as(broker, "alice")).list_topics(timeout=10).topics)
    # WRITE and READ imply DESCRIBE (the prefixed WRITE covers the blocked topic too: a DENY of WRITE
    # does not deny DESCRIBE); nothing of alice's covers the denied topic.
    assert {topics["allowed"], topics["prefixed"], topics["blocked"]} <= listed
    assert topics["denied"] not in listed
    admin_listed = set(_admin(broker).list_topics(timeout=10).topics)
    assert set(topics.values()) <= admin_listed


def test_a_group_needs_read_on_the_group(broker: InProcessBroker, topics: dict[str, str]) -> None:
    group = f"g-{uuid.uuid4().hex[:6]}"
    consumer = Consumer({**_as(broker, "alice"), "group.id": group, "auto.offset.reset": "earliest"})
    consumer.subscribe([topics["allowed"]])
    try:
        errors = []
        for _ in range(20):
            message = consumer.poll(0.5)
            if message is not None and message.error() is not None:
                errors.append(message.error().code())
                break
        assert errors == [KafkaError.GROUP_AUTHORIZATION_FAILED]
    finally:
        consumer.close()


def test_a_refused_admin_gets_cluster_authorization_failed(broker: InProcessBroker) -> None:
    alice = AdminClient(_as(broker, "alice"))
    binding = _acl("anything", ResourcePatternType.LITERAL, "User:alice", AclOperation.ALL)
    with pytest.raises(KafkaException) as raised:
        alice.create_acls([binding])[binding].result(15)
    assert raised.value.args[0].code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED


def test_scram_users_are_managed_through_the_admin_api_and_log_in(broker: InProcessBroker) -> None:
    admin = _admin(broker)
    upsert = UserScramCredentialUpsertion("erin", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), b"erin-pw")
    admin.alter_user_scram_credentials([upsert])["erin"].result(15)
    described = admin.describe_user_scram_credentials(["erin"])["erin"].result(15)
    assert [(i.mechanism, i.iterations) for i in described.scram_credential_infos] == [
        (ScramMechanism.SCRAM_SHA_256, 8192)
    ]
    erin = AdminClient(_as(broker, "erin", "SCRAM-SHA-256", "erin-pw"))
    assert erin.list_topics(timeout=10).brokers
    deletion = UserScramCredentialDeletion("erin", ScramMechanism.SCRAM_SHA_256)
    admin.alter_user_scram_credentials([deletion])["erin"].result(15)
    with pytest.raises(KafkaException):
        admin.describe_user_scram_credentials(["erin"])["erin"].result(15)


def test_acls_and_credentials_survive_a_restart(tmp_path_factory: pytest.TempPathFactory) -> None:
    data = tmp_path_factory.mktemp("acl-restart")
    overrides = [
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users=User:ANONYMOUS",
    ]
    first = InProcessBroker(data, overrides)
    first.start()
    binding = _acl("kept", ResourcePatternType.PREFIXED, "User:alice", AclOperation.READ)
    try:
        admin = AdminClient({"bootstrap.servers": first.bootstrap})
        admin.create_acls([binding])[binding].result(15)
    finally:
        first.stop()
    second = InProcessBroker(data, overrides)
    second.start()
    try:
        assert second.call(lambda: [a.name for a in second.broker.security.authorizer.acls]) == ["kept"]
    finally:
        second.stop()
