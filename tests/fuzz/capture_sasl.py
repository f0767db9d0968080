"""Capture the ``sasl`` fuzz corpus from real clients: ``python -m tests.fuzz.capture_sasl``.

confluent-kafka (librdkafka) and kafka-python log in to odradek with every mechanism (PLAIN,
SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER with an unsecured token) as `USER` with `PASSWORD`,
through a recording proxy; each SaslAuthenticate token they send is written to
``tests/fuzz/corpus/sasl/`` behind the mode byte of the message it is (`tests.fuzz.sasl.MODES`).
A SCRAM client-final carries the nonce of the broker's own exchange, so the fuzz target (whose
server nonce is fixed) refuses it: it seeds the client's spelling, not a valid proof.  Rerunning
replaces the corpus.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from confluent_kafka.admin import AdminClient, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion
from kafka import KafkaConsumer
from kafka.net.sasl.oauth import AbstractTokenProvider

from odradek.wire.api import ApiKey
from tests.fuzz.sasl import MODES, PASSWORD, USER
from tests.fuzz.seeds import CORPUS_DIR
from tests.fuzz.targets import decode_request
from tests.integration.inprocess import InProcessBroker
from tests.integration.recording_proxy import RecordingProxy

MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")
_MODE_BYTE = {name: index for index, (name, _) in enumerate(MODES)}


def _unsecured_token() -> str:
    """Kafka's unsecured JWT (``alg: none``) for `USER`, as kafka-python's token provider hands it over."""

    def segment(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    claims = {"sub": USER, "iat": int(time.time()), "exp": int(time.time()) + 3600, "scope": "kafka"}
    return f"{segment({'alg': 'none'})}.{segment(claims)}."


class _TokenProvider(AbstractTokenProvider):  # type: ignore[misc]
    def token(self) -> str:
        return _unsecured_token()

    def extensions(self) -> dict[str, str]:
        return {"traceId": "fuzz"}


def _librdkafka(address: str, mechanism: str) -> None:
    config: dict[str, str | int | float | bool] = {
        "bootstrap.servers": address,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
    }
    if mechanism == "OAUTHBEARER":
        config |= {
            "enable.sasl.oauthbearer.unsecure.jwt": True,
            "sasl.oauthbearer.config": f"principal={USER} scope=kafka extension_traceId=fuzz",
        }
    else:
        config |= {"sasl.username": USER, "sasl.password": PASSWORD}
    AdminClient(config).list_topics(timeout=15)


def _kafka_python(address: str, mechanism: str) -> None:
    options: dict[str, object] = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": mechanism}
    if mechanism == "OAUTHBEARER":
        options["sasl_oauth_token_provider"] = _TokenProvider()
    else:
        options |= {"sasl_plain_username": USER, "sasl_plain_password": PASSWORD}
    consumer = KafkaConsumer(bootstrap_servers=address, request_timeout_ms=15000, **options)
    try:
        consumer.topics()
    finally:
        consumer.close()


CLIENTS: dict[str, Callable[[str, str], None]] = {"librdkafka": _librdkafka, "kafka-python": _kafka_python}


def _tokens(frames: list[bytes]) -> list[tuple[str, bytes]]:
    """``(mode, token)`` of the SaslAuthenticate requests among one client's frames, in order."""
    tokens: list[tuple[str, bytes]] = []
    mechanism, step = "", 0
    for frame in frames:
        decoded = decode_request(frame)
        if decoded is None:
            continue
        header, _, body, _ = decoded
        if header.api_key == ApiKey.SASL_HANDSHAKE:
            mechanism, step = str(getattr(body, "mechanism", "")), 0
        elif header.api_key == ApiKey.SASL_AUTHENTICATE:
            if mechanism == "PLAIN":
                mode = "plain"
            elif mechanism == "OAUTHBEARER":
                mode = "oauthbearer-unsecured"
            else:
                mode = f"{mechanism.lower()}-{('first', 'final')[min(step, 1)]}"
            tokens.append((mode, bytes(getattr(body, "auth_bytes", b""))))
            step += 1
    return tokens


def _broker(data: Path) -> InProcessBroker:
    jaas = f'org.apache.kafka.common.security.plain.PlainLoginModule required user_{USER}="{PASSWORD}";'
    return InProcessBroker(
        data,
        [
            "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            f"sasl.enabled.mechanisms={','.join(MECHANISMS)}",
            f"listener.name.sasl_plaintext.plain.sasl.jaas.config={jaas}",
        ],
    )


def main() -> int:
    proxy = RecordingProxy()
    written: dict[str, int] = {}
    directory = CORPUS_DIR / "sasl"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="fuzz-capture-sasl-") as tmp:
        broker = _broker(Path(tmp))
        broker.start()
        try:
            proxy.upstream_port = broker.broker.listener_ports["SASL_PLAINTEXT"]
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            for scram in (ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512):
                info = ScramCredentialInfo(scram, 4096)
                upsert = UserScramCredentialUpsertion(USER, info, PASSWORD.encode())
                admin.alter_user_scram_credentials([upsert])[USER].result(15)
            for client, log_in in CLIENTS.items():
                for mechanism in MECHANISMS:
                    before = len(proxy.frames)
                    log_in(f"127.0.0.1:{proxy.port}", mechanism)
                    for mode, token in _tokens(proxy.frames[before:]):
                        data = bytes([_MODE_BYTE[mode]]) + token
                        name = f"{client}-{mode}-{hashlib.sha1(data).hexdigest()[:12]}"
                        (directory / name).write_bytes(data)
                        written[client] = written.get(client, 0) + 1
        finally:
            broker.stop()
            proxy.close()
    print("corpus written:", ", ".join(f"{client} {count}" for client, count in written.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
