"""FindCoordinator against a broker that has no ``__consumer_offsets`` yet, byte for byte as
Apache Kafka 4.3.1 answered the same raw requests (checked against a real broker):

- the first GROUP lookup creates the topic and answers COORDINATOR_NOT_AVAILABLE, the next
  finds this node;
- v1-3 carry the error's message ("NONE" on success), v4+ keys an empty one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from inprocess import InProcessBroker
from rawclient import RawConnection

from odradek.coordinator.placement import OFFSETS_TOPIC
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.coordinator import FindCoordinatorRequest

GROUP = 0


@pytest.fixture
def fresh_broker(tmp_path: Path) -> Iterator[InProcessBroker]:
    broker = InProcessBroker(tmp_path / "data")
    broker.start()
    yield broker
    broker.stop()


def test_first_group_lookup_creates_the_offsets_topic_and_is_not_available_yet(fresh_broker: InProcessBroker) -> None:
    conn = RawConnection(fresh_broker.bootstrap)
    try:
        assert fresh_broker.call(lambda: fresh_broker.broker.catalog.get(OFFSETS_TOPIC)) is None
        first = conn.request(ApiKey.FIND_COORDINATOR, 4, FindCoordinatorRequest(key_type=GROUP, coordinator_keys=["g"]))
        (key,) = first.coordinators
        assert (key.error_code, key.node_id, key.host, key.port) == (ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, "", -1)
        assert fresh_broker.call(lambda: fresh_broker.broker.catalog.get(OFFSETS_TOPIC)) is not None

        second = conn.request(
            ApiKey.FIND_COORDINATOR, 4, FindCoordinatorRequest(key_type=GROUP, coordinator_keys=["g"])
        )
        (key,) = second.coordinators
        assert (key.error_code, key.node_id, key.port) == (
            ErrorCode.NONE,
            fresh_broker.broker.config.node_id,
            fresh_broker.broker.port,
        )
        assert key.error_message == ""
    finally:
        conn.close()


def test_v3_carries_kafkas_error_messages(fresh_broker: InProcessBroker) -> None:
    conn = RawConnection(fresh_broker.bootstrap)
    try:
        first = conn.request(ApiKey.FIND_COORDINATOR, 3, FindCoordinatorRequest(key_type=GROUP, key="g"))
        assert (first.error_code, first.error_message) == (
            ErrorCode.COORDINATOR_NOT_AVAILABLE,
            "The coordinator is not available.",
        )
        second = conn.request(ApiKey.FIND_COORDINATOR, 3, FindCoordinatorRequest(key_type=GROUP, key="g"))
        assert (second.error_code, second.error_message, second.host) == (ErrorCode.NONE, "NONE", "127.0.0.1")
    finally:
        conn.close()
