"""Connection limits before anything else: per-ip and total connection counts, idle connections
(one that never sends its SASL handshake too) and the frame size a SASL listener accepts before
authentication (``sasl.server.max.receive.size``) against the one after (``socket.request.max.bytes``)."""

from __future__ import annotations

import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from odradek.wire.api import ApiKey, RequestHeader, encode_request_header
from odradek.wire.codec import encode_into
from odradek.wire.messages.cluster import SaslHandshakeRequest
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.security import SaslAuthenticateRequest
from odradek.wire.primitives import Writer
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection

JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";'


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessBroker]:
    overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "sasl.enabled.mechanisms=PLAIN",
        f"listener.name.sasl_plaintext.plain.sasl.jaas.config={JAAS}",
        "max.connections.per.ip=3",
        "connections.max.idle.ms=400",
        "socket.request.max.bytes=2000000",
    ]
    running = InProcessBroker(tmp_path_factory.mktemp("limits"), overrides)
    running.start()
    yield running
    running.stop()


def _sasl(broker: InProcessBroker) -> RawConnection:
    return RawConnection(f"127.0.0.1:{broker.broker.listener_ports['SASL_PLAINTEXT']}")


def _closed(connection: RawConnection, timeout: float = 5.0) -> bool:
    connection.sock.settimeout(timeout)
    try:
        return connection.sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_connection_over_the_per_ip_limit_is_closed(broker: InProcessBroker) -> None:
    kept = [RawConnection(broker.bootstrap) for _ in range(3)]
    try:
        for connection in kept:
            assert connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[])).brokers
        refused = RawConnection(broker.bootstrap)
        try:
            assert _closed(refused)
        finally:
            refused.close()
    finally:
        for connection in kept:
            connection.close()
    time.sleep(0.1)  # the broker sees the closes and gives the slots back
    again = RawConnection(broker.bootstrap)
    try:
        assert again.request(ApiKey.METADATA, 12, MetadataRequest(topics=[])).brokers
    finally:
        again.close()


def test_a_client_that_never_sends_its_handshake_is_closed_when_idle(broker: InProcessBroker) -> None:
    silent = _sasl(broker)
    try:
        assert _closed(silent)
    finally:
        silent.close()


def test_a_frame_over_the_sasl_receive_size_before_authentication_closes_the_connection(
    broker: InProcessBroker,
) -> None:
    connection = _sasl(broker)
    try:
        connection.send_raw(struct.pack(">i", 524289))
        assert _closed(connection)
    finally:
        connection.close()


def test_after_authentication_the_request_size_limit_applies(broker: InProcessBroker) -> None:
    connection = _sasl(broker)
    try:
        connection.request(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="PLAIN"))
        token = b"\0alice\0alice-secret"
        assert (
            connection.request(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=token)).error_code == 0
        )
        names = [MetadataRequest.MetadataRequestTopic(name="x" * 200) for _ in range(3000)]
        answer = connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=names, allow_auto_topic_creation=False))
        assert answer.topics[0].error_code == 3  # answered, not refused for its size
    finally:
        connection.close()


def test_an_idle_plain_connection_is_closed(broker: InProcessBroker) -> None:
    connection = RawConnection(broker.bootstrap)
    try:
        assert connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[])).brokers
        assert _closed(connection)
    finally:
        connection.close()


def _served(connection: RawConnection) -> bool:
    return bool(connection.request(ApiKey.METADATA, 12, MetadataRequest(topics=[])).brokers)


def test_over_max_connections_a_connection_waits_until_a_slot_frees(tmp_path: Path) -> None:
    """Kafka's acceptor stops accepting at ``max.connections``: the next connection is not closed,
    it waits unserved and is served once a connection closes (compat-tests/limits compares this
    with Kafka 4.4.0)."""
    broker = InProcessBroker(tmp_path, ["max.connections=2"])
    broker.start()
    kept = [RawConnection(broker.bootstrap) for _ in range(2)]
    waiting = RawConnection(broker.bootstrap, timeout=30)
    try:
        assert all(_served(connection) for connection in kept)
        waiting.send_raw(_metadata_frame())
        listener = broker.broker._listener
        assert listener is not None
        assert broker.call(lambda: len(listener.connections)) == 2  # the third is not served
        kept[0].close()
        assert waiting.recv_frame() is not None
        assert broker.call(lambda: len(listener.connections)) == 2
    finally:
        for connection in [*kept, waiting]:
            connection.close()
        broker.stop()


def test_the_protected_inter_broker_listener_passes_the_total_and_another_listener_sheds(tmp_path: Path) -> None:
    """With two listeners the inter-broker one (PLAINTEXT here) is held back only by its own
    limit; while the total is over ``max.connections`` because of it, the other listener closes
    its least recently active connection (Kafka's protected listener)."""
    overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,EXTERNAL://127.0.0.1:0",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT",
        "max.connections=2",
        "listener.name.plaintext.max.connections=5",
    ]
    broker = InProcessBroker(tmp_path, overrides)
    broker.start()
    external = f"127.0.0.1:{broker.broker.listener_ports['EXTERNAL']}"
    first, second = RawConnection(external), RawConnection(external)
    inter_broker = RawConnection(broker.bootstrap)
    try:
        assert _served(first)
        assert _served(second)  # the older one is now `first`
        assert _served(inter_broker)
        assert _closed(first, timeout=10)
        assert _served(second)
        assert _served(inter_broker)
    finally:
        for connection in (first, second, inter_broker):
            connection.close()
        broker.stop()


def _metadata_frame() -> bytes:
    writer = Writer()
    encode_request_header(writer, RequestHeader(ApiKey.METADATA, 12, 1, "limits"), True)
    encode_into(MetadataRequest, 12, MetadataRequest(topics=[]), writer)
    body = writer.getvalue()
    return struct.pack(">i", len(body)) + body
