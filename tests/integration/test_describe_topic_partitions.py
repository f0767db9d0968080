"""DescribeTopicPartitions: name order, pagination by cursor, unknown topics."""

from __future__ import annotations

from typing import Any

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.metadata import DescribeTopicPartitionsRequest as Request
from odradek.wire.messages.topics import CreateTopicsRequest
from tests.integration.conftest import BrokerProcess
from tests.integration.rawclient import RawConnection


def _create(conn: RawConnection, name: str, partitions: int) -> None:
    conn.request(
        ApiKey.CREATE_TOPICS,
        7,
        CreateTopicsRequest(
            topics=[CreateTopicsRequest.CreatableTopic(name=name, num_partitions=partitions, replication_factor=1)],
            timeout_ms=5000,
        ),
    )


def _describe(conn: RawConnection, names: list[str], limit: int, cursor: Any = None) -> Any:
    request = Request(
        topics=[Request.TopicRequest(name=n) for n in names], response_partition_limit=limit, cursor=cursor
    )
    return conn.request(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0, request)


def test_pages_through_partitions_with_the_cursor(broker: BrokerProcess, topic_name: str) -> None:
    conn = RawConnection(broker.bootstrap)
    first, second = f"{topic_name}-a", f"{topic_name}-b"
    _create(conn, second, 2)
    _create(conn, first, 3)
    page = _describe(conn, [second, first, f"{topic_name}-missing"], 4)
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in page.topics] == [
        (first, [0, 1, 2]),
        (second, [0]),
    ]
    assert all(t.error_code == ErrorCode.NONE for t in page.topics)
    assert page.topics[0].partitions[0].eligible_leader_replicas == []
    cursor = page.next_cursor
    assert (cursor.topic_name, cursor.partition_index) == (second, 1)
    rest = _describe(
        conn, [second, first, f"{topic_name}-missing"], 4, Request.Cursor(topic_name=second, partition_index=1)
    )
    assert [(t.name, t.error_code, [p.partition_index for p in t.partitions]) for t in rest.topics] == [
        (second, ErrorCode.NONE, [1]),
        (f"{topic_name}-missing", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []),
    ]
    assert rest.next_cursor is None
    conn.close()


def test_cursor_outside_the_requested_topics_is_invalid(broker: BrokerProcess, topic_name: str) -> None:
    conn = RawConnection(broker.bootstrap)
    _create(conn, topic_name, 1)
    response = _describe(conn, [topic_name], 10, Request.Cursor(topic_name="elsewhere", partition_index=0))
    assert [t.error_code for t in response.topics] == [ErrorCode.INVALID_REQUEST]
    conn.close()
