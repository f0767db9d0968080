"""SASL/OAUTHBEARER: Kafka's unsecured tokens (librdkafka's test tokens) and signed JWTs checked
against a JWKS file, through confluent-kafka and raw requests (expired, badly signed, wrong key)."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from confluent_kafka.admin import AdminClient
from cryptography.hazmat.primitives.asymmetric import rsa

from odradek.wire.api import ApiKey
from odradek.wire.messages.cluster import SaslHandshakeRequest
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.security import SaslAuthenticateRequest
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any, Path]:
    good = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(good.public_key()))
    jwk.update({"kid": "k1", "alg": "RS256", "use": "sig"})
    path = tmp_path_factory.mktemp("jwks") / "jwks.json"
    path.write_text(json.dumps({"keys": [jwk]}))
    return good, other, path


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory, keys: tuple[Any, Any, Path]) -> Iterator[InProcessBroker]:
    _, _, jwks = keys
    overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,UNSECURED://127.0.0.1:0,SIGNED://127.0.0.1:0",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,UNSECURED:SASL_PLAINTEXT,SIGNED:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms=OAUTHBEARER",
        f"listener.name.signed.oauthbearer.sasl.oauthbearer.jwks.endpoint.url=file://{jwks}",
        "listener.name.signed.sasl.oauthbearer.expected.audience=kafka",
        "listener.name.signed.connections.max.reauth.ms=3600000",
    ]
    running = InProcessBroker(tmp_path_factory.mktemp("oauth"), overrides)
    running.start()
    yield running
    running.stop()


def _address(broker: InProcessBroker, listener: str) -> str:
    return f"127.0.0.1:{broker.broker.listener_ports[listener]}"


def test_librdkafka_unsecured_token(broker: InProcessBroker) -> None:
    admin = AdminClient(
        {
            "bootstrap.servers": _address(broker, "UNSECURED"),
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER",
            "enable.sasl.oauthbearer.unsecure.jwt": True,
            "sasl.oauthbearer.config": "principal=alice",
        }
    )
    assert admin.list_topics(timeout=10).brokers


def _signed(key: Any, **claims: Any) -> str:
    payload = {"sub": "alice", "aud": "kafka", "exp": int(time.time()) + 600, **claims}
    return jwt.encode(payload, key, algorithm="RS256", headers={"kid": "k1"})


def test_librdkafka_signed_token_through_a_token_callback(broker: InProcessBroker, keys: tuple[Any, Any, Path]) -> None:
    good, _, _ = keys
    token = _signed(good)
    admin = AdminClient(
        {
            "bootstrap.servers": _address(broker, "SIGNED"),
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER",
            "oauth_cb": lambda _config: (token, time.time() + 600),
        }
    )
    assert admin.list_topics(timeout=10).brokers


def _exchange(broker: InProcessBroker, listener: str, token: str) -> list[Any]:
    """Handshake, the token, and (after an error challenge) the client's acknowledgement."""
    connection = RawConnection(_address(broker, listener))
    answers: list[Any] = []
    try:
        connection.request(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="OAUTHBEARER"))
        message = f"n,,\x01auth=Bearer {token}\x01\x01".encode()
        answer = connection.request(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=message))
        answers.append((answer.error_code, answer.auth_bytes, answer.session_lifetime_ms > 0))
        if answer.auth_bytes:
            final = connection.request(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=b"\x01"))
            answers.append((final.error_code, final.error_message))
        else:
            metadata = connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[]))
            answers.append(len(metadata.brokers))
    finally:
        connection.close()
    return answers


_REFUSED = [(0, b'{"status":"invalid_token"}', False), (58, '{"status":"invalid_token"}')]


@pytest.mark.parametrize("case", ["expired", "other key", "wrong audience", "not a token"])
def test_refused_signed_tokens(broker: InProcessBroker, keys: tuple[Any, Any, Path], case: str) -> None:
    good, other, _ = keys
    token = {
        "expired": _signed(good, exp=int(time.time()) - 3600),
        "other key": _signed(other),
        "wrong audience": _signed(good, aud="elsewhere"),
        "not a token": "abc.def.ghi",
    }[case]
    assert _exchange(broker, "SIGNED", token) == _REFUSED


def test_a_valid_signed_token_bounds_the_session(broker: InProcessBroker, keys: tuple[Any, Any, Path]) -> None:
    good, _, _ = keys
    assert _exchange(broker, "SIGNED", _signed(good)) == [(0, b"", True), 1]


def test_an_expired_unsecured_token_is_refused(broker: InProcessBroker) -> None:
    unsigned = jwt.encode({"sub": "alice", "exp": int(time.time()) - 10}, None, algorithm="none")
    assert _exchange(broker, "UNSECURED", unsigned) == _REFUSED
    fresh = jwt.encode({"sub": "alice", "exp": int(time.time()) + 60}, None, algorithm="none")
    # Without connections.max.reauth.ms Kafka still bounds the session by the token's expiry.
    assert _exchange(broker, "UNSECURED", fresh) == [(0, b"", True), 1]


def _raw_unsecured(claims: str) -> str:
    def part(text: str) -> str:
        return base64.urlsafe_b64encode(text.encode()).decode("ascii").rstrip("=")

    return f"{part(json.dumps({'alg': 'none'}))}.{part(claims)}."


@pytest.mark.parametrize(
    "claims",
    [
        '{"sub": "alice", "exp": Infinity}',
        '{"sub": "alice", "exp": -Infinity}',
        '{"sub": "alice", "iat": Infinity, "exp": 4102444800}',
        '{"sub": "alice", "exp": 4102444800, "extra": [1, NaN]}',
    ],
)
def test_claims_with_json_s_non_standard_literals_are_invalid_tokens(broker: InProcessBroker, claims: str) -> None:
    """Python's JSON parser reads NaN and Infinity; Kafka's refuses them (probe secured.sasl_oauth_literals)."""
    assert _exchange(broker, "UNSECURED", _raw_unsecured(claims)) == _REFUSED
