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
from inprocess import InProcessBroker, raw_broker
from rawclient import RawConnection

from odradek.coordinator.placement import OFFSETS_TOPIC
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.coordinator import FindCoordinatorRequest

GROUP = 0


Fresh = tuple[InProcessBroker, RawConnection]


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Fresh]:
    with raw_broker(tmp_path / "data") as both:
        yield both


def _offsets_topic_exists(broker: InProcessBroker) -> bool:
    return broker.call(lambda: broker.broker.catalog.get(OFFSETS_TOPIC)) is not None


def test_first_group_lookup_creates_the_offsets_topic_and_is_not_available_yet(fresh: Fresh) -> None:
    broker, conn = fresh
    lookup = FindCoordinatorRequest(key_type=GROUP, coordinator_keys=["g"])
    assert not _offsets_topic_exists(broker)
    (key,) = conn.request(ApiKey.FIND_COORDINATOR, 4, lookup).coordinators
    assert (key.error_code, key.node_id, key.host, key.port) == (ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, "", -1)
    assert _offsets_topic_exists(broker)
    (key,) = conn.request(ApiKey.FIND_COORDINATOR, 4, lookup).coordinators
    found = (key.error_code, key.node_id, key.port, key.error_message)
    assert found == (ErrorCode.NONE, broker.broker.config.node_id, broker.broker.port, "")


def test_v3_carries_kafkas_error_messages(fresh: Fresh) -> None:
    _, conn = fresh
    first = conn.request(ApiKey.FIND_COORDINATOR, 3, FindCoordinatorRequest(key_type=GROUP, key="g"))
    assert (first.error_code, first.error_message) == (
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        "The coordinator is not available.",
    )
    second = conn.request(ApiKey.FIND_COORDINATOR, 3, FindCoordinatorRequest(key_type=GROUP, key="g"))
    assert (second.error_code, second.error_message, second.host) == (ErrorCode.NONE, "NONE", "127.0.0.1")
