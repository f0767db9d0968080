"""KIP-368 re-authentication on the broker's manual clock: the session lifetime in the answer, a
request after the session expired closes the connection, re-authenticating in time keeps it, and a
re-authentication may change neither mechanism nor principal; an OAUTHBEARER token's expiry bounds
the session even without ``connections.max.reauth.ms``, as Kafka's."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from odradek.wire.api import ApiKey
from odradek.wire.messages.cluster import SaslHandshakeRequest
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.security import SaslAuthenticateRequest
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection

JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_bob="bob-secret";'
)


@pytest.fixture
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessBroker]:
    overrides = [
        "listeners=SASL_PLAINTEXT://127.0.0.1:0",
        "sasl.enabled.mechanisms=PLAIN",
        f"listener.name.sasl_plaintext.plain.sasl.jaas.config={JAAS}",
        "connections.max.reauth.ms=60000",
    ]
    running = InProcessBroker(tmp_path_factory.mktemp("reauth"), overrides, manual_clock=True)
    running.start()
    yield running
    running.stop()


def _login(connection: RawConnection, user: str) -> int:
    assert connection.request(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="PLAIN")).error_code == 0
    token = f"\0{user}\0{user}-secret".encode()
    answer = connection.request(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=token))
    assert answer.error_code == 0, answer
    return int(answer.session_lifetime_ms)


def test_a_request_after_the_session_expired_closes_the_connection(broker: InProcessBroker) -> None:
    connection = RawConnection(broker.bootstrap)
    try:
        assert _login(connection, "alice") == 60000
        broker.clock.advance(59_999)
        assert connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[])).brokers
        broker.clock.advance(1)
        with pytest.raises(AssertionError, match="closed"):
            connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[]))
    finally:
        connection.close()


def test_re_authenticating_in_time_renews_the_session(broker: InProcessBroker) -> None:
    connection = RawConnection(broker.bootstrap)
    try:
        _login(connection, "alice")
        broker.clock.advance(50_000)
        assert _login(connection, "alice") == 60000
        broker.clock.advance(50_000)
        assert connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[])).brokers
    finally:
        connection.close()


def test_re_authentication_cannot_change_the_principal(broker: InProcessBroker) -> None:
    connection = RawConnection(broker.bootstrap)
    try:
        _login(connection, "alice")
        connection.request(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="PLAIN"))
        token = b"\0bob\0bob-secret"
        answer = connection.request(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=token))
        assert answer.error_code == 58
        with pytest.raises((AssertionError, ConnectionResetError)):
            connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[]))
    finally:
        connection.close()


@pytest.fixture
def oauth_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessBroker]:
    overrides = ["listeners=SASL_PLAINTEXT://127.0.0.1:0", "sasl.enabled.mechanisms=OAUTHBEARER"]
    running = InProcessBroker(tmp_path_factory.mktemp("oauth-expiry"), overrides, manual_clock=True)
    running.start()
    yield running
    running.stop()


def _unsecured_token(subject: str, expires_s: int) -> str:
    def part(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode("ascii").rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'sub': subject, 'exp': expires_s})}."


def test_a_token_s_expiry_bounds_the_session_without_max_reauth(oauth_broker: InProcessBroker) -> None:
    now_ms = oauth_broker.clock.time_ms()
    expires_s = now_ms // 1000 + 120
    connection = RawConnection(oauth_broker.bootstrap)
    try:
        connection.request(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="OAUTHBEARER"))
        message = f"n,,\x01auth=Bearer {_unsecured_token('alice', expires_s)}\x01\x01".encode()
        answer = connection.request(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=message))
        assert (answer.error_code, answer.session_lifetime_ms) == (0, expires_s * 1000 - now_ms)
        oauth_broker.clock.advance(expires_s * 1000 - now_ms - 1)
        assert connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[])).brokers
        oauth_broker.clock.advance(1)
        with pytest.raises(AssertionError, match="closed"):
            connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[]))
    finally:
        connection.close()


@pytest.fixture
def signed_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[InProcessBroker, Any]]:
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    jwk.update({"kid": "k1", "alg": "ES256", "use": "sig"})
    jwks = tmp_path_factory.mktemp("jwks") / "jwks.json"
    jwks.write_text(json.dumps({"keys": [jwk]}))
    overrides = [
        "listeners=SASL_PLAINTEXT://127.0.0.1:0",
        "sasl.enabled.mechanisms=OAUTHBEARER",
        f"listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url=file://{jwks}",
    ]
    running = InProcessBroker(tmp_path_factory.mktemp("signed-expiry"), overrides, manual_clock=True)
    running.start()
    yield running, key
    running.stop()


INVALID_TOKEN = b'{"status":"invalid_token"}'


def _bearer_login(broker: InProcessBroker, token: str) -> tuple[int, bytes, int]:
    connection = RawConnection(broker.bootstrap)
    try:
        connection.request(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="OAUTHBEARER"))
        message = f"n,,\x01auth=Bearer {token}\x01\x01".encode()
        answer = connection.request(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=message))
        return answer.error_code, answer.auth_bytes, answer.session_lifetime_ms
    finally:
        connection.close()


def test_signed_tokens_are_judged_on_the_broker_s_clock(signed_broker: tuple[InProcessBroker, Any]) -> None:
    broker, key = signed_broker
    now_s = broker.clock.time_ms() // 1000
    token = jwt.encode({"sub": "alice", "exp": now_s + 120}, key, algorithm="ES256", headers={"kid": "k1"})
    not_yet = jwt.encode(
        {"sub": "alice", "exp": now_s + 7200, "nbf": now_s + 3600}, key, algorithm="ES256", headers={"kid": "k1"}
    )
    assert _bearer_login(broker, token) == (0, b"", (now_s + 120) * 1000 - broker.clock.time_ms())
    assert _bearer_login(broker, not_yet) == (0, INVALID_TOKEN, 0)
    broker.clock.advance(3_600_000)
    assert _bearer_login(broker, token) == (0, INVALID_TOKEN, 0)
    assert _bearer_login(broker, not_yet) == (0, b"", (now_s + 7200) * 1000 - broker.clock.time_ms())
