"""Listeners, TLS and SASL with real clients (confluent-kafka/librdkafka, kafka-python) over real sockets.

One broker with five listeners: PLAINTEXT, SSL (no client auth), SSL with required client
certificates, SASL_PLAINTEXT and SASL_SSL (PLAIN and SCRAM-SHA-256/512), certificates made per run.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient
from scramp import ScramMechanism

from odradek.security.sasl.scram import ScramCredential
from tests.integration.certs import Certificates, make_certificates
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection

JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" '
    'user_admin="admin-secret" user_alice="alice-secret";'
)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory, certs: Certificates) -> Iterator[InProcessBroker]:
    listeners = "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0"
    overrides = [
        f"listeners={listeners}",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
        "ssl.keystore.type=PEM",
        f"ssl.keystore.location={certs.server_keystore}",
        "ssl.truststore.type=PEM",
        f"ssl.truststore.location={certs.ca}",
        "listener.name.mtls.ssl.client.auth=required",
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        f"listener.name.sasl_plaintext.plain.sasl.jaas.config={JAAS}",
        f"listener.name.sasl_ssl.plain.sasl.jaas.config={JAAS}",
    ]
    broker = InProcessBroker(tmp_path_factory.mktemp("secured"), overrides)
    broker.start()
    for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        salt, stored, server, iterations = ScramMechanism(mechanism).make_auth_info("carol-secret", 4096)
        credential = ScramCredential(salt, stored, server, iterations)
        broker.call(lambda m=mechanism, c=credential: broker.broker.security.scram.apply([], [("carol", m, c)]))
    yield broker
    broker.stop()


def _address(broker: InProcessBroker, listener: str) -> str:
    return f"127.0.0.1:{broker.broker.listener_ports[listener]}"


def _roundtrip(config: dict[str, Any], value: bytes = b"hello") -> list[bytes]:
    topic = f"t-{uuid.uuid4().hex[:10]}"
    producer = Producer({**config, "linger.ms": 0})
    producer.produce(topic, value)
    assert producer.flush(30) == 0
    consumer = Consumer({**config, "group.id": f"g-{topic}", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    values: list[bytes] = []
    try:
        for _ in range(60):
            message = consumer.poll(1.0)
            if message is not None and message.error() is None:
                values.append(message.value())
                break
    finally:
        consumer.close()
    return values


def test_every_listener_advertises_itself(secured: InProcessBroker, certs: Certificates) -> None:
    for listener in ("PLAINTEXT", "SASL_PLAINTEXT"):
        config: dict[str, Any] = {"bootstrap.servers": _address(secured, listener)}
        if listener.startswith("SASL"):
            config |= {
                "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanism": "PLAIN",
                "sasl.username": "alice",
                "sasl.password": "alice-secret",
            }
        metadata = AdminClient(config).list_topics(timeout=10)
        assert [(b.host, b.port) for b in metadata.brokers.values()] == [
            ("127.0.0.1", secured.broker.listener_ports[listener])
        ]


def test_ssl_without_client_auth(secured: InProcessBroker, certs: Certificates) -> None:
    config = {
        "bootstrap.servers": _address(secured, "SSL"),
        "security.protocol": "SSL",
        "ssl.ca.location": str(certs.ca),
    }
    assert _roundtrip(config) == [b"hello"]


def test_a_record_set_from_a_segment_file_goes_through_tls(secured: InProcessBroker, certs: Certificates) -> None:
    """Record sets of 64 KiB and more leave a plain listener with sendfile; under TLS the connection
    reads them and hands them to the TLS transport instead, byte for byte."""
    config = {
        "bootstrap.servers": _address(secured, "SSL"),
        "security.protocol": "SSL",
        "ssl.ca.location": str(certs.ca),
    }
    big = bytes(range(256)) * 1200
    assert _roundtrip(config, big) == [big]


def test_ssl_with_required_client_certificate(secured: InProcessBroker, certs: Certificates) -> None:
    cert, key = certs.clients["alice"]
    config = {
        "bootstrap.servers": _address(secured, "MTLS"),
        "security.protocol": "SSL",
        "ssl.ca.location": str(certs.ca),
        "ssl.certificate.location": str(cert),
        "ssl.key.location": str(key),
    }
    assert _roundtrip(config) == [b"hello"]
    anonymous = AdminClient(
        {"bootstrap.servers": _address(secured, "MTLS"), "security.protocol": "SSL", "ssl.ca.location": str(certs.ca)}
    )
    with pytest.raises(KafkaException):
        anonymous.list_topics(timeout=3)


@pytest.mark.parametrize(
    ("listener", "mechanism", "user", "password"),
    [
        ("SASL_PLAINTEXT", "PLAIN", "alice", "alice-secret"),
        ("SASL_SSL", "PLAIN", "alice", "alice-secret"),
        ("SASL_PLAINTEXT", "SCRAM-SHA-256", "carol", "carol-secret"),
        ("SASL_SSL", "SCRAM-SHA-512", "carol", "carol-secret"),
    ],
)
def test_sasl_roundtrip(
    secured: InProcessBroker, certs: Certificates, listener: str, mechanism: str, user: str, password: str
) -> None:
    config = {
        "bootstrap.servers": _address(secured, listener),
        "security.protocol": listener,
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password,
    }
    if listener == "SASL_SSL":
        config["ssl.ca.location"] = str(certs.ca)
    assert _roundtrip(config) == [b"hello"]


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_wrong_password_is_refused(secured: InProcessBroker, mechanism: str) -> None:
    errors: list[str] = []
    producer = Producer(
        {
            "bootstrap.servers": _address(secured, "SASL_PLAINTEXT"),
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism,
            "sasl.username": "alice" if mechanism == "PLAIN" else "carol",
            "sasl.password": "wrong",
            "error_cb": lambda error: errors.append(str(error)),
        }
    )
    for _ in range(20):
        producer.poll(0.5)
        if errors:
            break
    expected = (
        "Authentication failed: Invalid username or password"
        if mechanism == "PLAIN"
        else "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"
    )
    assert any(expected in error for error in errors), errors


def test_kafka_python_scram(secured: InProcessBroker) -> None:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(
        bootstrap_servers=_address(secured, "SASL_PLAINTEXT"),
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_plain_username="carol",
        sasl_plain_password="carol-secret",
    )
    try:
        assert isinstance(admin.list_topics(), list)
    finally:
        admin.close()


def test_a_request_before_authentication_closes_the_connection(secured: InProcessBroker) -> None:
    from odradek.wire.api import ApiKey
    from odradek.wire.messages.metadata import MetadataRequest

    connection = RawConnection(_address(secured, "SASL_PLAINTEXT"))
    try:
        with pytest.raises(AssertionError, match="closed"):
            connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=None))
    finally:
        connection.close()


def test_sasl_handshake_on_a_plaintext_listener_is_an_illegal_state(secured: InProcessBroker) -> None:
    from odradek.wire.api import ApiKey
    from odradek.wire.messages.cluster import SaslHandshakeRequest

    connection = RawConnection(_address(secured, "PLAINTEXT"))
    try:
        answer = connection.request(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="PLAIN"))
        assert (answer.error_code, answer.mechanisms) == (34, [])
    finally:
        connection.close()
